"""What ``MixedNB`` knows of its column groups: each group's family, settings and model.

A group is the columns of one registered column family (`column_families`): a
`FeatureFamily` that names its estimator, or a column-only one (``column_family``). Its
settings are that estimator's parameters, or the column-only family's own constructor
arguments and ``estimate`` (`default_settings`); MixedNB's own ``alpha``, ``estimate`` and
``reg_covar`` replace those of the same name, then ``family_params``; the family reads them
(`FeatureFamily.of`). The groups together are a `CompositeFamily`. Nothing here holds an
estimator: `ColumnGroups.estimators_` builds one per group on demand.
"""

from __future__ import annotations

import inspect
import types

import numpy as np
from sklearn.utils.validation import check_is_fitted

from bayesgen import registry
from bayesgen.families.composite import CompositeFamily


def column_families() -> dict[str, type]:
    """The families a column may get: every registered family that names its estimator or
    declares itself a column family (``column_family``).

    Returns
    -------
    dict of str to type
        Family name to family class, in registration order.
    """
    return {
        name: cls for name, cls in registry.families().items() if cls.estimator or cls.column_family
    }


def default_settings(family_class) -> dict:
    """A column group's settings before MixedNB's: its estimator's parameters, or for a
    column-only family the defaults of the constructor arguments it reads
    (``settings_read``) and ``estimate="mean"``."""
    if family_class.estimator:
        return registry.estimators()[family_class.estimator]().get_params(deep=False)
    read = family_class.settings_read()  # not what the family learns (a histogram's cells)
    defaults = {
        name: parameter.default
        for name, parameter in inspect.signature(family_class.__init__).parameters.items()
        if name in read and parameter.default is not parameter.empty
    }
    return {**defaults, "estimate": "mean"}


def _settings_owner(family_class) -> str:
    """Who takes a group's settings, for messages: its estimator, or the family."""
    return family_class.estimator or f"the {family_class.name} family"


class ColumnGroups:
    """Mixin of ``MixedNB``: its column groups as one `CompositeFamily`.

    The groups are ``column_groups_`` (each chosen family's column positions, set with
    ``feature_families_``); each group's family carries that group's settings
    (`_settings`), so the composite built from them is the model of the features, and the
    fitted value ``joint_`` holds everything a fit learned.
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
            accepted = default_settings(known[family])
            unknown = sorted(set(settings) - set(accepted))
            if unknown:
                raise ValueError(
                    f"family_params[{family!r}] has {unknown}, which "
                    f"{_settings_owner(known[family])} does not take; its parameters: "
                    f"{sorted(accepted)}."
                )
            unused = sorted(set(settings) - _settings_used(known[family]))
            if unused:
                raise ValueError(
                    f"family_params[{family!r}] sets {unused}, which MixedNB's {family} "
                    f"columns do not use; they use {sorted(_settings_used(known[family]))}."
                )
            self._unfitted_family(family).check_estimate(self._settings(family)["estimate"])

    def _settings(self, family: str) -> dict:
        """The settings of a family's columns: its estimator's parameters, MixedNB's own
        ``alpha``, ``estimate`` and ``reg_covar`` where it takes them, then
        ``family_params[family]``."""
        settings = default_settings(registry.family(family))
        shared = {"alpha": self.alpha, "estimate": self.estimate, "reg_covar": self.reg_covar}
        settings.update((name, value) for name, value in shared.items() if name in settings)
        settings.update((self.family_params or {}).get(family, {}))
        return settings

    def _unfitted_family(self, family: str):
        """The `FeatureFamily` of a group with this model's settings, nothing learned."""
        cls = registry.family(family)
        settings = self._settings(family)
        if cls.estimator:
            return cls.of(registry.estimators()[cls.estimator](**settings))
        return cls.of(types.SimpleNamespace(**settings))

    def _set_feature_families(self, families: dict) -> None:
        """``feature_families_`` and the groups they make, ``column_groups_`` (each chosen
        family's column positions, families in registration order)."""
        chosen = list(families.values())
        self.feature_families_ = families
        self.column_groups_ = {
            family: [i for i, name in enumerate(chosen) if name == family]
            for family in column_families()
            if family in chosen
        }

    def _composite_for(self, groups: dict) -> CompositeFamily:
        """The groups' families over their columns (``{family: positions}``)."""
        families = {family: self._unfitted_family(family) for family in groups}
        names = getattr(self, "feature_names_in_", None)
        for family, columns in groups.items():
            if names is not None and getattr(families[family], "column_names", False) is None:
                families[family].column_names = [str(names[j]) for j in columns]  # messages
        return CompositeFamily(
            {family: (families[family], columns) for family, columns in groups.items()},
            estimates={family: self._settings(family)["estimate"] for family in groups},
        )

    def _base_family(self):
        """The model of the features before a fit: every group's family over its columns
        (`CompositeFamily`); the groups are chosen by ``fit``."""
        if "column_groups_" not in self.__dict__:
            raise ValueError(
                f"{type(self).__name__} chooses its column families in fit; it has none yet."
            )
        return self._composite_for(self.column_groups_)

    def _composite_of(self, family) -> CompositeFamily:
        """The column groups within ``family`` (the family itself here)."""
        return family

    def _composite(self) -> CompositeFamily:
        """The fitted column groups: each group's family with what it learned."""
        return self._composite_of(self._feature_family())

    # ------------------------------------------------------------ group models
    @property
    def estimators_(self) -> dict:
        """Each group's model on its own: the family's estimator, fitted (read-only); a
        [`FamilyClassifier`][bayesgen.FamilyClassifier] over a column-only family.

        Built on each access from the group's statistics (``from_statistics``), with
        this model's ``class_prior_``; changing it changes nothing here.
        """
        check_is_fitted(self)
        names = getattr(self, "feature_names_in_", None)
        frozen_groups = self.joint_.frozen or {}
        built = {}
        for family, (group_family, columns) in self._composite().groups.items():
            settings = self._settings(family)
            if group_family.estimator:
                cls = registry.estimators()[group_family.estimator]
            else:  # a column-only family: the generic view of one family
                cls = registry.estimators()["FamilyClassifier"]
                settings = {
                    "family": type(group_family).of(types.SimpleNamespace(**settings)),
                    "estimate": settings["estimate"],
                }
            attributes = {"n_features_in_": len(columns)}
            if names is not None:
                attributes["feature_names_in_"] = np.asarray(names)[columns]
            attributes.update((f"{k}_", v) for k, v in group_family.learned().items())
            frozen = frozen_groups.get(family)
            estimator = cls.from_statistics(
                settings,
                self.classes_,
                self.joint_.class_stats,
                self.joint_.feature_stats[family],
                attributes=attributes,
                frozen=frozen,
            )
            estimator.class_prior_ = self.class_prior_
            built[family] = estimator
        return built


def fits_with_missing(family_class) -> bool:
    """Whether the family's own estimator fits rows with missing values (its tag); a
    column-only family skips a missing entry, or fits by EM over it."""
    if not family_class.estimator:
        return True
    estimator = registry.estimators()[family_class.estimator]()
    return estimator.__sklearn_tags__().input_tags.allow_nan


def _settings_used(family_class) -> set:
    """The estimator parameters that shape a column group of ``family_class``."""
    used = family_class.settings_read() | {"estimate"}
    if family_class.missing_needs_em:  # EM over missing entries runs with them
        used |= {"max_iter", "tol"}
    return used
