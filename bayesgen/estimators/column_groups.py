"""What ``MixedNB`` knows of its column groups: each group's family, settings and model.

A group is the columns of one registered `FeatureFamily` that names its estimator
(`column_families`). Its settings are that estimator's parameters (MixedNB's own ``alpha``,
``estimate`` and ``reg_covar`` where it takes them, then ``family_params``), read by the
family (`FeatureFamily.of`); the groups together are a `CompositeFamily`. Nothing here
holds an estimator: `ColumnGroups.estimators_` builds one per group on demand.
"""

from __future__ import annotations

import numpy as np
from sklearn.utils.validation import check_is_fitted

from bayesgen import registry
from bayesgen._lazy import lazy_module
from bayesgen.estimators.base import _like_numpy, _to_jax
from bayesgen.families.composite import CompositeFamily
from bayesgen.families.gaussian import GaussianParams
from bayesgen.families.namespace import tree_leaves
from bayesgen.inference import gaussian_em

jax = lazy_module("jax")


def column_families() -> dict[str, type]:
    """The families a column may get: every registered family that names its estimator.

    Returns
    -------
    dict of str to type
        Family name to family class, in registration order.
    """
    return {name: cls for name, cls in registry.families().items() if cls.estimator}


class ColumnGroups:
    """Mixin of ``MixedNB``: its groups as families (``_groups``: family to column positions).

    Fitted state, by family: ``_stats`` (statistics), ``_params`` (parameters),
    ``_frozen`` (the ``(ridge, prior)`` EM over missing entries kept, else None) and
    ``_learned`` (what the family learned from the rows, such as categories).
    """

    def _check_family_params(self) -> None:
        if self.family_params is None:
            return
        if not isinstance(self.family_params, dict):
            raise ValueError(
                "family_params must be a dict {family: {parameter: value}}; got "
                f"{self.family_params!r}."
            )
        known = column_families()
        for family, settings in self.family_params.items():
            if family not in known:
                raise ValueError(
                    f"family_params names the family {family!r}; known: {tuple(known)}."
                )
            if not isinstance(settings, dict):
                raise ValueError(
                    f"family_params[{family!r}] must be a dict {{parameter: value}}; got "
                    f"{settings!r}."
                )
            cls = registry.estimators()[known[family].estimator]
            accepted = cls().get_params(deep=False)
            unknown = sorted(set(settings) - set(accepted))
            if unknown:
                raise ValueError(
                    f"family_params[{family!r}] has {unknown}, which {cls.__name__} does not "
                    f"take; its parameters: {sorted(accepted)}."
                )
            unused = sorted(set(settings) - _settings_used(known[family]))
            if unused:
                raise ValueError(
                    f"family_params[{family!r}] sets {unused}, which MixedNB's {family} "
                    f"columns do not use; they use {sorted(_settings_used(known[family]))}."
                )
            self._family(family).check_estimate(self._settings(family)["estimate"])

    @classmethod
    def _upgrade_saved_state(cls, state: dict) -> dict:
        """Translate a model file of an earlier layout.

        It predates ``family_params``; and the layout before the families were composed
        held one fitted estimator per group (``estimators_``: GaussianNB, BernoulliNB,
        MultinomialNB, PoissonNB, ExponentialNB or CategoricalNB), whose fitted
        attributes become each group's parameters, EM's fixed prior and learned
        categories here, exactly as those estimators predicted with them.
        """
        state = super()._upgrade_saved_state(state)
        state.setdefault("family_params", None)
        state.pop("_group_data", None)
        estimators = state.pop("estimators_", None)
        if estimators is not None:
            state["_params"] = {g: _saved_parameters(e) for g, e in estimators.items()}
            state["_frozen"] = {
                g: (e.ridge_, e.prior_) if getattr(e, "fitted_with_missing_", False) else None
                for g, e in estimators.items()
            }
            state["_learned"] = {
                g: {name: getattr(e, f"{name}_") for name in registry.family(g)().learned()}
                for g, e in estimators.items()
            }
        return state

    def _settings(self, family: str) -> dict:
        """The settings of a family's columns: its estimator's parameters, MixedNB's own
        ``alpha``, ``estimate`` and ``reg_covar`` where it takes them, then
        ``family_params[family]``."""
        cls = registry.estimators()[registry.family(family).estimator]
        settings = cls().get_params(deep=False)
        shared = {"alpha": self.alpha, "estimate": self.estimate, "reg_covar": self.reg_covar}
        settings.update((name, value) for name, value in shared.items() if name in settings)
        settings.update((self.family_params or {}).get(family, {}))
        return settings

    def _family(self, family: str):
        """The `FeatureFamily` of a group, with what it learned from the training rows."""
        cls = registry.family(family)
        owner = registry.estimators()[cls.estimator](**self._settings(family))
        learned = getattr(self, "_learned", {}).get(family, {})
        return cls.of(owner).with_learned(**learned)

    def _composite(self) -> CompositeFamily:
        """The model of the features: every group's family over its columns."""
        return CompositeFamily(
            {family: (self._family(family), columns) for family, columns in self._groups.items()}
        )

    def _kinds(self) -> dict:
        return {family: self._settings(family)["estimate"] for family in self._groups}

    def _stats_and_priors(
        self, composite: CompositeFamily, *, numpy: bool = False
    ) -> tuple[dict, dict]:
        """The stored statistics (JAX, or NumPy with ``numpy``; own precision) and each
        group's prior: the one EM over missing entries kept, else resolved from the
        statistics."""
        convert = _like_numpy if numpy else _to_jax
        stats, priors = {}, {}
        for family, (group_family, _) in composite.groups.items():
            own = self._stats[family]
            stats[family] = convert(own, dtype_of(own))
            frozen = self._frozen.get(family)
            priors[family] = (
                group_family.prior(stats[family])
                if frozen is None
                else convert(frozen[1], dtype_of(stats[family]))
            )
        return stats, priors

    # ------------------------------------------------------------ group models
    @property
    def estimators_(self) -> dict:
        """Each group's model on its own: the family's estimator, fitted (read-only).

        Built on each access from the group's statistics (``from_statistics``), with
        this model's ``class_prior_``; changing it changes nothing here.
        """
        check_is_fitted(self, "_params")
        names = getattr(self, "feature_names_in_", None)
        built = {}
        for family, (group_family, columns) in self._composite().groups.items():
            cls = registry.estimators()[group_family.estimator]
            settings = self._settings(family)
            attributes = {"n_features_in_": len(columns)}
            if names is not None:
                attributes["feature_names_in_"] = np.asarray(names)[columns]
            attributes.update((f"{k}_", v) for k, v in group_family.learned().items())
            frozen = self._frozen.get(family)
            options = {} if frozen is None else gaussian_em.install_options(frozen)
            estimator = cls.from_statistics(
                settings,
                self.classes_,
                self._class_stats,
                self._stats[family],
                attributes=attributes,
                **options,
            )
            estimator.class_prior_ = self.class_prior_
            built[family] = estimator
        return built


def dtype_of(stats):
    """The precision of a statistics pytree (that of its first leaf)."""
    return tree_leaves(stats)[0].dtype


def fits_with_missing(family_class) -> bool:
    """Whether the family's own estimator fits rows with missing values (its tag)."""
    estimator = registry.estimators()[family_class.estimator]()
    return estimator.__sklearn_tags__().input_tags.allow_nan


def _settings_used(family_class) -> set:
    """The estimator parameters that shape a column group of ``family_class``."""
    used = family_class.settings_read() | {"estimate"}
    if family_class.missing_needs_em:  # EM over missing entries runs with them
        used |= {"max_iter", "tol"}
    return used


def _saved_parameters(estimator):
    """A group's parameters from its estimator of the earlier layout, as it predicted with
    them: ``means_``/``covariances_``, ``rates_``, or ``exp(feature_log_prob_)``."""
    if hasattr(estimator, "means_"):
        return GaussianParams(estimator.means_, estimator.covariances_)
    if hasattr(estimator, "rates_"):
        return estimator.rates_
    log_theta = estimator.feature_log_prob_
    if isinstance(log_theta, list):  # CategoricalNB: one block per feature
        log_theta = np.concatenate(log_theta, axis=1)
    return np.exp(log_theta)
