"""``JointView``: an estimator whose whole fitted state is one value, ``joint_``.

A subclass supplies three things:

- ``_base_family()``: its hyperparameters as a `bayesgen.families.protocol.FeatureFamily`
  (nothing learned yet);
- ``_class_prior_settings()``: how the class probabilities follow from the class counts;
- its scikit-learn attribute names, as `fitted_attribute` properties read off the value.

Fitting, updating, scoring, drawing, imputing, the posterior and its draws are the
family's functions of ``joint_`` (`bayesgen.joint`); nothing else is stored, so a copy
with other parameters is the value with other parameters (`bayesgen.joint.with_params`).
"""

from __future__ import annotations

import copy
import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from bayesgen import joint
from bayesgen._precision import compute_dtype, precision
from bayesgen.estimators.base import GenerativeClassifier, _row_chunks
from bayesgen.families import class_prior
from bayesgen.families.namespace import tree_map
from bayesgen.families.protocol import NoClosedForm
from bayesgen.inference import gaussian_em, mixture_family_em
from bayesgen.missing import has_missing, missing_entries
from bayesgen.validation import scoring_rows


class fitted_attribute:  # noqa: N801 - used like ``property``
    """A fitted attribute computed from ``joint_``: ``reader(estimator, joint)``.

    Read before ``fit`` it raises ``AttributeError`` (so ``hasattr`` is False, as
    scikit-learn expects); it can be set only when a ``writer(estimator, value)`` is given.
    """

    def __init__(self, reader, writer=None, doc: str | None = None):
        self.reader, self.writer = reader, writer
        self.__doc__ = doc

    def __set_name__(self, owner, name):
        self.name = name

    def __get__(self, instance, owner=None):
        if instance is None:
            return self
        value = instance.__dict__.get("joint_")
        if value is None:
            raise AttributeError(f"This {type(instance).__name__} is not fitted: no {self.name}.")
        return self.reader(instance, value)

    def __set__(self, instance, value):
        if self.writer is None:
            raise AttributeError(
                f"{self.name} is read off the fitted value joint_ and cannot be set; use "
                "bayesgen.joint.with_params for other parameters."
            )
        self.writer(instance, value)


def saved_value(state: dict, feature_prior, params) -> joint.FittedJoint:
    """The value behind a file of an earlier layout that saved the statistics, the class
    probabilities and the parameters as separate attributes, taken as saved (nothing is
    estimated again); the class entries leave ``state``."""
    value = joint.FittedJoint(
        classes=state["classes_"],
        class_stats=state.pop("_class_stats"),
        class_probabilities=np.asarray(state.pop("class_prior_")),
        feature_stats=state.pop("_stats"),
        feature_prior=feature_prior,
        params=params,
        learned={},
    )
    state.pop("class_count_", None)  # read off the value now
    return value


def _n_rows(X) -> int:
    """Rows of ``X``: an array, or a dict of column groups (MixedNB's)."""
    if isinstance(X, dict):
        return len(next(iter(X.values())))
    return X.shape[0]


def _set_class_prior(estimator, probabilities) -> None:
    estimator.joint_ = estimator.joint_._replace(class_probabilities=np.asarray(probabilities))


class JointView(GenerativeClassifier):
    """Base of the estimators that are views of a fitted joint (see the module docstring).

    A view whose family cannot skip missing entries (``missing_needs_em``) fits rows with
    some by EM over them when it declares ``fits_missing_by_em`` (its settings:
    `_missing_em_settings`); otherwise the family decides what NaN does.

    Attributes
    ----------
    joint_ : FittedJoint
        Everything the fit learned: classes, statistics, prior, parameters, class
        probabilities and what the family learned about the columns.
    family_ : FeatureFamily
        The model of the features given the class; with ``joint_``, the whole model
        (``bayesgen.joint.log_joint(model.family_, model.joint_, X)``).
    """

    class_count_ = fitted_attribute(
        lambda self, value: np.asarray(value.class_stats.counts),
        doc="Weighted number of training rows per class.",
    )
    class_prior_ = fitted_attribute(
        lambda self, value: value.class_probabilities,
        _set_class_prior,
        doc="The class probabilities.",
    )

    family_ = fitted_attribute(
        lambda self, value: joint.family_of(self._base_family(), value),
        doc="The feature family, with what the fit learned about the columns.",
    )

    #: Whether rows with missing entries are fitted by EM over them (see the class docstring).
    fits_missing_by_em = False

    def __sklearn_is_fitted__(self) -> bool:
        """Fitted when it holds its value (a fit that failed half-way, after choosing
        MixedNB's column families, is not)."""
        return "joint_" in self.__dict__

    # ------------------------------------------------------------- the value
    def _fit_settings(self) -> joint.FitSettings:
        fixed, concentration, kind = self._class_prior_settings()
        name = getattr(self, "_class_prior_argument", "priors")
        return joint.FitSettings(
            self.estimate, joint.ClassPriorRule(fixed, concentration, kind, name)
        )

    def _feature_family(self):
        """The family with what the fit learned about the columns."""
        family = self._base_family()
        value = self.__dict__.get("joint_")
        return family if value is None else joint.family_of(family, value)

    def _fits_by_em(self) -> bool:
        return bool(getattr(self._base_family(), "statistics_need_parameters", False))

    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """Add a batch of rows; a family fitted by EM (a mixture) takes one batch only.

        Raises
        ------
        ValueError
            On a second batch of a family fitted by EM: the component memberships of earlier
            rows change with the parameters, so EM needs every row at once.
        """
        if self._fits_by_em() and "joint_" in self.__dict__:
            self._check_X(X, reset=False)  # a wrong feature count is reported first
            raise ValueError(
                f"{type(self).__name__} cannot add rows with partial_fit: the component "
                "memberships of earlier rows change with the parameters, so EM needs every "
                "row at once; call fit on all the rows."
            )
        return super().partial_fit(X, y, classes=classes, sample_weight=sample_weight)

    def _add_labelled_rows(self, X, class_index, weights, n_classes: int, *, reset: bool):
        """As the base, except that a family fitted by EM takes all the rows at once (EM
        cannot add chunks: the memberships of earlier rows change with the parameters), as
        does a fit of rows with missing entries by EM over them, where the base would cut
        the rows into chunks (many classes)."""
        if not (self._fits_by_em() or self._em_over_missing_chunks(X, n_classes, reset)):
            super()._add_labelled_rows(X, class_index, weights, n_classes, reset=reset)
            return
        R = joint.responsibilities(class_index, weights, n_classes)
        self._add_rows(X, R, reset=reset)

    def _em_over_missing_chunks(self, X, n_classes: int, reset: bool) -> bool:
        """Whether a fresh fit would cut into chunks rows that EM over missing entries
        needs all at once (looked for only where the rows would be cut)."""
        return bool(
            reset
            and self.fits_missing_by_em
            and len(_row_chunks(_n_rows(X), n_classes)) > 1
            and self._base_family().missing_needs_em
            and any(has_missing(part) for part in (X.values() if isinstance(X, dict) else [X]))
        )

    def _add_rows(self, X, responsibilities: np.ndarray, *, reset):
        value = None if reset else self.__dict__.get("joint_")
        dtype = compute_dtype(X.dtype)
        if value is not None:
            dtype = compute_dtype(dtype, np.asarray(value.class_stats.counts).dtype)
        R = np.asarray(responsibilities).astype(dtype, copy=False)
        family = self._base_family()
        if self._fits_by_em():
            self._fit_by_em(family, X, R, value)
        elif value is not None:
            check = self._refuse_missing_rows if self.fits_missing_by_em else None
            self.joint_ = joint.update(family, value, X, R, self._fit_settings(), check_batch=check)
        elif family.missing_needs_em and self.fits_missing_by_em:
            self.joint_ = self._fit_with_missing(family, X, R)
        else:
            self.joint_ = joint.fit(family, X, R, self.classes_, self._fit_settings())

    def _refuse_missing_rows(self, family, stats) -> None:
        """Refuse a batch of rows with missing entries added to a fit (``partial_fit``)
        where a family fits them by EM, which needs every row at once: its statistics are
        NaN there (no other pass over the rows)."""
        groups = getattr(family, "groups", None)
        parts = [("", family, stats)]
        if groups is not None:
            parts = [
                (f"the {name} columns of ", group, stats[name])
                for name, (group, _) in groups.items()
            ]
        for where, part, part_stats in parts:
            if part.missing_needs_em and gaussian_em.has_nan(part_stats):
                raise ValueError(
                    "X contains NaN: partial_fit cannot add rows with missing values to "
                    f"{where}a fitted {type(self).__name__} (EM needs every row at once); "
                    "use fit."
                )

    def _fit_with_missing(self, family, X, R: np.ndarray) -> joint.FittedJoint:
        """`bayesgen.joint.fit` for a family that cannot skip missing entries: EM over them
        where the rows miss some (`bayesgen.inference.gaussian_em.missing_fit`, by column
        group for a composite), and what that EM held fixed kept in the value
        (``frozen``). A family of its own records the EM's iterations (``n_iter_``,
        ``converged_``, ``log_likelihood_history_``)."""
        family, _ = family.learn(joint.rows_to_learn_from(family, X, R))
        encoded = family.encode(X)
        with precision(R.dtype):
            if hasattr(family, "groups"):
                stats, frozen = gaussian_em.stats_with_missing(
                    family, encoded, R, R.dtype, self._missing_em_settings
                )
            else:
                fit = gaussian_em.missing_fit(
                    family, encoded, R, R.dtype, lambda: self._missing_em_settings(None)
                )
                stats, frozen = fit.stats, fit.frozen
                if frozen is not None:
                    self.n_iter_, self.converged_ = fit.n_iter, fit.converged
                    self.log_likelihood_history_ = fit.history
        return joint.from_stats(
            family,
            self.classes_,
            class_prior.suff_stats(R),
            stats,
            self._fit_settings(),
            learned=family.learned(),
            frozen=frozen,
        )

    def _missing_em_settings(self, group) -> tuple:
        """``(estimate, tol, max_iter)`` of the EM over a column group's missing entries."""
        return self.estimate, self.tol, self.max_iter

    def _em_frozen(self, family, X, R: np.ndarray):
        """What the mixture's leaf holds fixed during its EM (`mixture_family_em.fit`'s
        ``frozen``), or None to resolve it from the statistics."""
        return None

    def _em_starts(self, X, R: np.ndarray):
        """Starting memberships of a mixture family's EM (a list of (n, K, M) arrays), or
        None for ``n_init`` random ones (`bayesgen.inference.mixture_family_em.fit`)."""
        return None

    def _em_m_step(self, X, responsibilities) -> None:
        """The M-step of EM over unlabelled rows (`bayesgen.estimators.semi_supervised_fit`).

        A family fitted by an EM of its own (a mixture) takes one step of it from the
        current parameters: the component memberships under them given each row's class,
        then the point estimate from the statistics they weight. With the outer E-step this
        is one EM iteration over the pair (class, component), so the objective cannot
        decrease. A family that fits missing entries by EM completes them from the current
        parameters (`_completes_missing_entries`); any other family refits from the class
        weights in closed form.
        """
        by_em = self._fits_by_em()
        if not by_em and not self._completes_missing_entries(X):
            self._add_rows(X, responsibilities, reset=True)
            return
        value = self.joint_
        family = joint.family_of(self._base_family(), value)
        R = np.asarray(responsibilities).astype(compute_dtype(X.dtype), copy=False)
        if by_em:
            encoded = family.encode(X)
            memberships, _ = family.memberships(value.params, encoded)
            stats = family.suff_stats(encoded, R, R.dtype, memberships=memberships)
        else:
            # One E-step of the missing entries under the current parameters and the prior
            # the fit's EM held: one EM over labels and missing entries at once.
            with precision(R.dtype):
                stats = family.expected_stats(value.params, np.asarray(X), R)
        self._install_stats(
            class_prior.suff_stats(R),
            stats,
            learned=value.learned,
            frozen=None if by_em else value.frozen,
        )

    def _completes_missing_entries(self, X) -> bool:
        """Whether an M-step inside EM over unlabelled rows completes the missing entries
        of ``X`` from the current parameters (a family that fits them by EM and has an
        E-step for them, ``expected_stats``), rather than refitting from scratch."""
        family = self._base_family()
        return bool(
            self.fits_missing_by_em
            and family.missing_needs_em
            and hasattr(family, "expected_stats")
            and getattr(self.__dict__.get("joint_"), "frozen", None) is not None
            and has_missing(X)
        )

    def _fit_by_em(self, family, X, R: np.ndarray, value) -> None:
        """A family whose statistics need its parameters (component memberships) is fitted
        by EM on all the rows at once (`bayesgen.inference.mixture_family_em`)."""
        if value is not None:
            raise ValueError(
                f"{type(self).__name__} with a {family.name} family cannot add rows with "
                "partial_fit: the memberships of earlier rows change with the parameters, so "
                "EM needs every row at once; call fit on all the rows."
            )
        leaf_stats = None
        if family.missing_needs_em and self.fits_missing_by_em:  # EM inside each M-step

            def leaf_stats(leaf, encoded, sub, dtype):
                return gaussian_em.stats_with_missing(
                    leaf, encoded, sub, dtype, self._missing_em_settings
                )

        fitted = mixture_family_em.fit(
            family,
            X,
            R,
            self.classes_,
            self._fit_settings(),
            max_iter=self.max_iter,
            tol=self.tol,
            n_init=self.n_init,
            random_state=self.random_state,
            start=self._em_starts(X, R),
            leaf_stats=leaf_stats,
            frozen=self._em_frozen(family, X, R),
        )
        self.joint_ = fitted.joint
        self.n_iter_, self.converged_ = fitted.n_iter, fitted.converged
        self.log_likelihood_history_ = fitted.history
        if not fitted.converged:
            warnings.warn(
                f"EM of the class mixtures did not converge in max_iter={self.max_iter} "
                f"iterations (tol={self.tol}); raise max_iter or tol.",
                ConvergenceWarning,
                stacklevel=5,
            )

    def _feature_stats(self, X, responsibilities, dtype):
        family = self._feature_family()
        return family.suff_stats(family.encode(X), responsibilities, dtype)

    def _merge_feature_stats(self, previous, new):
        return self._feature_family().merge(previous, new)

    def _install_stats(self, class_stats, feature_stats, *, learned=None, frozen=None):
        """Keep statistics computed elsewhere and estimate from them; ``frozen`` is what an
        EM over missing entries held (`bayesgen.joint.from_stats`)."""
        if learned is None and "joint_" in self.__dict__:
            learned = self.joint_.learned
        self.joint_ = joint.from_stats(
            self._base_family(),
            self.classes_,
            class_stats,
            feature_stats,
            self._fit_settings(),
            learned=learned,
            frozen=frozen,
        )

    @classmethod
    def from_statistics(cls, params: dict, classes, class_stats, feature_stats, **options):
        """As `GenerativeClassifier.from_statistics`; what the family learned about the
        columns (``categories_``) comes in ``attributes`` under its fitted name."""
        attributes = dict(options.pop("attributes", {}))
        names = cls(**params)._base_family().learned()
        learned = {name: attributes.pop(f"{name}_") for name in names if f"{name}_" in attributes}
        return super().from_statistics(
            params,
            classes,
            class_stats,
            feature_stats,
            attributes=attributes,
            learned=learned or None,
            **options,
        )

    def _upgrade_saved_state(self, state: dict) -> dict:
        """A file of the earlier layout (statistics and parameters as separate attributes)
        as the value: statistics, class probabilities and learned columns as saved, the
        parameters re-estimated from the statistics, as the fit that wrote them did."""
        state = super()._upgrade_saved_state(state)
        if "joint_" in state or "_stats" not in state:
            return state
        names = self._base_family().learned()
        value = joint.from_stats(
            self._base_family(),
            state["classes_"],
            state["_class_stats"],
            state["_stats"],
            joint.FitSettings(self.estimate),  # the saved class probabilities replace its rule
            learned={name: state[f"{name}_"] for name in names if f"{name}_" in state},
        )
        value = value._replace(class_probabilities=np.asarray(state["class_prior_"]))
        kept = {
            key: item
            for key, item in state.items()
            if key not in ("_class_stats", "_stats") and not hasattr(type(self), key)
        }
        return {**kept, "joint_": value}

    # ------------------------------------------------------------ densities
    def _log_likelihood(self, X, dtype, *, row_terms=True):
        family = self._feature_family()
        params = tree_map(lambda leaf: np.asarray(leaf, dtype=dtype), self.joint_.params)
        # A row far out in every class's tail overflows its quadratic form: its density is
        # 0 (-inf), which the class probabilities handle (_limit_log_posterior).
        with np.errstate(over="ignore"):
            return family.log_likelihood(params, family.encode(X), row_terms=row_terms)

    def _limit_log_posterior(self, X, rows, log_prior):
        family = self._feature_family()
        with scoring_rows():
            encoded = family.encode(self._check_X(X, reset=False))
        try:
            return family.limit_log_posterior(self.joint_.params, encoded[rows], log_prior)
        except NoClosedForm:
            return None

    def _impute_rows(self, X, class_weights, method, rng):
        """The family's fill of the missing entries (encoded), observed entries kept."""
        family = self._feature_family()
        filled = family.decode(
            family.conditional(self.joint_.params, family.encode(X), class_weights, method, rng)
        )
        if filled.dtype == X.dtype:
            return filled
        missing = missing_entries(X)
        kept = X.astype(object)
        kept[missing] = filled[missing]
        return kept

    # --------------------------------------------------------------- draws
    def _sampling_sites(self):
        return self._feature_family().sampling_sites(self.joint_.params)

    def _features_from_draws(self, draws):
        return self._feature_family().features_from_draws(draws)

    def _story_part(self, **options):
        family = self._feature_family()
        prior = family.story_prior(self.joint_.feature_prior, self.n_features_in_)
        from bayesgen import stories

        return stories.part(family.name)(family, prior, self.classes_.shape[0], **options)

    def _story_features(self, X):
        encoded = self._feature_family().encode(X)
        return super()._story_features(encoded)

    # ------------------------------------------------------------ posterior
    def _check_has_posterior(self):
        """Refuse, with the family's reason, a model whose parameters have no posterior to
        sample (``no_posterior``: a mixture, a kernel density)."""
        reason = self._feature_family().no_posterior
        if reason is not None:
            raise ValueError(
                f"This {type(self).__name__}'s {reason}; so posterior(), "
                "predict_proba_draws() and predict_proba(method='predictive') do not apply: "
                "use predict_proba()."
            )

    def _check_exact_posterior(self):
        # No posterior at all comes first: the other reasons point to NUTS.
        self._check_has_posterior()
        super()._check_exact_posterior()
        family = self._feature_family()
        if not family.has_exact_posterior:
            raise ValueError(
                f"This {type(self).__name__}'s {family.name} family has no closed-form "
                "posterior (its parameters are not conjugate to its likelihood), so "
                "posterior(), predict_proba_draws() and predict_proba(method='predictive') do "
                "not apply; use predict_proba() (the point estimate)."
            )

    def _posterior(self):
        """The family's conjugate posterior given the fitted statistics."""
        return self._feature_family().posterior(
            self.joint_.feature_prior, self.joint_.feature_stats
        )

    def _with_parameters(self, sites):
        self._check_has_posterior()
        drawn = copy.copy(self)
        drawn.joint_ = joint.with_params(
            self.joint_, self._feature_family().params_from_sites(sites)
        )
        return drawn

    def _feature_log_prior(self) -> float:
        family = self._feature_family()
        return family.log_prior(self.joint_.feature_prior, self.joint_.params, kind=self.estimate)

    def _parameter_posterior_draws(self, key, num_samples):
        family = self._feature_family()
        return family.sites(family.sample_params(key, self._posterior(), num_samples))

    def _predictive_log_likelihood(self, X, dtype):
        family = self._feature_family()
        log_likelihood = family.predictive_log_likelihood(self._posterior(), family.encode(X))
        return np.asarray(log_likelihood).astype(dtype)

    def _parameter_dims(self, features):
        self._check_has_posterior()
        return self._feature_family().parameter_dims(features)
