"""``MixedNB``: naive Bayes over columns of different kinds, one family per column group."""

from __future__ import annotations

import contextlib
import copy

import jax
import numpy as np
import pandas as pd
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_array, check_is_fitted, validate_data

from bayesgen import registry, stories
from bayesgen.estimators.count_nb import COMMON_PARAMETERS_DOC, NaiveBayesClassPrior
from bayesgen.families import column_choice
from bayesgen.frames import as_training_frame
from bayesgen.inference import imputation, semi_supervised
from bayesgen.validation import check_positive


def column_families() -> dict[str, type]:
    """The families a column may get: every registered family that names its estimator.

    Returns
    -------
    dict of str to type
        Family name to family class, in registration order.
    """
    return {name: cls for name, cls in registry.families().items() if cls.estimator}


@contextlib.contextmanager
def _errors_of_group(family: str, estimator):
    """Re-raise a column group's ``ValueError`` naming MixedNB, the estimator the user fitted.

    A group's own estimator would otherwise speak of itself ("This GaussianNB was fitted
    ..."), a class the user never made.
    """
    try:
        yield
    except ValueError as error:
        name = type(estimator).__name__
        if name not in str(error):
            raise
        message = str(error).replace(name, f"MixedNB's {family} family")
        try:
            renamed = type(error)(message)
        except TypeError:  # an exception class that takes other arguments
            raise error from None
        raise renamed.with_traceback(error.__traceback__) from None


def _repeated(rows: np.ndarray, sample_weight, n_rows: int) -> np.ndarray:
    """``rows``, each repeated its whole-number sample weight of times (as fit counts it)."""
    if sample_weight is None:
        return rows
    try:
        weights = np.asarray(sample_weight, dtype=float)
    except (TypeError, ValueError):
        return rows  # fit reports what is wrong with the weights
    whole = weights.shape == (n_rows,) and np.all(weights >= 0)
    if not whole or not np.all(weights == np.round(weights)) or not weights[rows].any():
        return rows  # fractional, or all zero (which fit refuses)
    return np.repeat(rows, weights[rows].astype(int))


def _labelled_rows(y, n_rows: int, sample_weight=None, marker=-1):
    """Rows, class of each and class count the evidence is taken on.

    The labelled rows with their classes; every row as one class when none is labelled,
    or when y is not a usable label vector (fit then reports what is wrong with it). A row
    of whole-number weight ``w`` appears ``w`` times.
    """
    everything = _repeated(np.arange(n_rows), sample_weight, n_rows)
    everything = (everything, np.zeros(everything.size, dtype=int), 1)
    if y is None:
        return everything
    try:
        y = np.asarray(y)
        if y.ndim != 1 or y.shape[0] != n_rows:
            return everything
        rows = _repeated(
            np.flatnonzero(~semi_supervised.unlabeled_rows(y, marker)), sample_weight, n_rows
        )
        classes, class_index = np.unique(y[rows], return_inverse=True)
    except (TypeError, ValueError):
        return everything
    if rows.size == 0:
        return everything
    return rows, class_index, classes.shape[0]


class _Columns:
    """Validated input of MixedNB: a DataFrame, seen by the base class as float rows."""

    dtype = np.dtype(np.float64)

    def __init__(self, frame: pd.DataFrame):
        self.frame = frame
        self.shape = frame.shape

    def __len__(self) -> int:
        return self.shape[0]


class MixedNB(NaiveBayesClassPrior):
    model_name = "mixed-nb"
    __doc__ = (
        """Naive Bayes over mixed columns: one family per group of columns, one label per row.

    $$
    \\pi \\sim \\mathrm{Dirichlet}, \\quad y \\sim \\mathrm{Categorical}(\\pi), \\quad
    p(x \\mid y = k) = \\prod_{g} p_g(x_{(g)} \\mid y = k),
    $$

    where each group $g$ of columns follows its own family: any registered feature
    family that names its estimator (`column_families`), such as ``"gaussian"``
    (independent normals per class, as [`GaussianNB`][bayesgen.GaussianNB]), ``"bernoulli"``,
    ``"categorical"``, ``"poisson"``, ``"exponential"`` or ``"multinomial"`` (all columns
    named so form one count vector). The joint log-likelihood is the sum over the groups. The story
    ([`story`][bayesgen.MixedNB.story]) runs every family's part under the name scope
    ``"<family>/"``, all
    sharing the label site ``"y"``.

    Parameters
    ----------
    features : dict, optional
        Family of each column, ``{column: family}``, with column names for a DataFrame
        and positions for an array; ``"multinomial"`` is only ever chosen here. Every
        other column gets, among the families its dtype and values admit
        (`bayesgen.families.column_choice.admissible_families`: bool or 0/1 →
        bernoulli; whole numbers → poisson (if none is negative), gaussian or categorical;
        other numbers → gaussian, or exponential if none is negative; text and categories
        → categorical), the one of highest evidence $\\log p(x \\mid y)$ on the labelled
        training rows, the parameters integrated out under each family's prior
        (`bayesgen.families.column_evidence`; for whole numbers the Gaussian is scored
        as a model of integers, the mass of each unit interval).
    alpha : float, default=1.0
        Prior pseudo-counts of the discrete families (as in their own estimators).
    reg_covar : float, default=1e-6
        Relative ridge of the Gaussian columns (see [`GaussianDA`][bayesgen.GaussianDA]).
    family_params : dict, optional
        Settings of one family's columns, ``{family: {parameter: value}}``, with the
        parameters of that family's own estimator (``{"gaussian": {"estimate": "mle"}}``
        fits the Gaussian columns as [`GaussianNB`][bayesgen.GaussianNB] does by default;
        ``{"poisson": {"alpha": 0.5}}``). They override ``alpha``, ``estimate`` and
        ``reg_covar`` for that family.
"""
        + COMMON_PARAMETERS_DOC
        + """
    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    class_count_ : ndarray of shape (n_classes,)
    class_prior_ : ndarray of shape (n_classes,)
    feature_families_ : dict
        The family chosen for each column, in column order.
    family_log_evidence_ : dict
        For each column whose family was chosen by evidence, the log evidence of every
        admissible family, ``{column: {family: log p(x | y)}}``.
    estimators_ : dict
        The fitted estimator of each family's column group, sharing ``class_prior_``.
    n_features_in_ : int
    feature_names_in_ : ndarray
        Only when ``X`` had string column names.
"""
    )

    def __init__(
        self,
        *,
        features=None,
        alpha=1.0,
        estimate="mean",
        fit_prior=True,
        class_prior=None,
        reg_covar=1e-6,
        max_iter=100,
        tol=1e-6,
        n_init=1,
        unlabeled_weight=1.0,
        n_classes=None,
        unlabeled_marker=-1,
        random_state=None,
        family_params=None,
    ):
        self.features = features
        self.alpha = alpha
        self.estimate = estimate
        self.fit_prior = fit_prior
        self.class_prior = class_prior
        self.reg_covar = reg_covar
        self.max_iter = max_iter
        self.tol = tol
        self.n_init = n_init
        self.unlabeled_weight = unlabeled_weight
        self.n_classes = n_classes
        self.unlabeled_marker = unlabeled_marker
        self.random_state = random_state
        self.family_params = family_params

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.categorical = True
        tags.input_tags.string = True
        # Every family fits with missing values but the multinomial (see MultinomialNB).
        tags.input_tags.allow_nan = "multinomial" not in dict(self.features or {}).values()
        return tags

    def _check_hyperparameters(self):
        super()._check_hyperparameters()
        check_positive(self.alpha, "alpha")
        check_positive(self.reg_covar, "reg_covar", allow_zero=True)
        if self.features is not None and not isinstance(self.features, dict):
            raise ValueError(f"features must be a dict {{column: family}}; got {self.features!r}.")
        self._check_family_params()

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
            estimator = self._make_estimator(family)
            with _errors_of_group(family, estimator):
                estimator._check_hyperparameters()

    @classmethod
    def _upgrade_saved_state(cls, state: dict) -> dict:
        """Translate a model file of the earlier layout: it predates ``family_params``."""
        state = super()._upgrade_saved_state(state)
        state.setdefault("family_params", None)
        return state

    # ---------------------------------------------------------------- columns
    def _check_X(self, X, *, reset, choosing=False):
        if isinstance(X, pd.DataFrame):
            if min(X.shape) == 0:
                raise ValueError(f"Found array with shape {X.shape}: X needs rows and columns.")
            frame = X
        else:  # scikit-learn's checks: dense, 2-D, non-empty, not complex
            frame = pd.DataFrame(check_array(X, dtype=None, ensure_all_finite=False))
        if not choosing:
            validate_data(self, X, reset=reset, skip_check_array=True)
        self._check_no_infinite(frame)
        if reset:
            self._fitted_on_frame = isinstance(X, pd.DataFrame)
            self._groups = {
                family: [i for i, f in enumerate(self.feature_families_.values()) if f == family]
                for family in column_families()
                if family in self.feature_families_.values()
            }
        return _Columns(frame)

    @staticmethod
    def _check_no_infinite(frame: pd.DataFrame) -> None:
        # NaN and None are missing values, handled by each family; ±inf is an error.
        numeric = frame.select_dtypes(include="number").to_numpy(dtype=float)
        if np.isinf(numeric).any():
            row, column = (int(i[0]) for i in np.nonzero(np.isinf(numeric)))
            name = frame.select_dtypes(include="number").columns[column]
            raise ValueError(f"X contains inf (row {row}, column {name!r}); X must be finite.")

    def fit(self, X, y, sample_weight=None):
        """Choose each column's family (``features=``, else by evidence), then fit.

        As `GenerativeClassifier.fit`; the evidence is taken on the labelled rows (all
        rows as one class when none is labelled), a row of whole-number ``sample_weight``
        ``w`` counting as ``w`` rows (fractional weights are not used by the choice).
        """
        self._choose_families(X, y, sample_weight)
        return super().fit(X, y, sample_weight)

    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """As `GenerativeClassifier.partial_fit`; the first call's rows choose the families."""
        if not hasattr(self, "classes_"):
            self._choose_families(X, y, sample_weight)
        return super().partial_fit(X, y, classes=classes, sample_weight=sample_weight)

    def _choose_families(self, X, y, sample_weight=None) -> None:
        """Set ``feature_families_`` and ``family_log_evidence_`` from X and labels y."""
        self._check_hyperparameters()
        frame = self._check_X(X, reset=False, choosing=True).frame
        chosen = dict(self.features or {})
        unknown_columns = [c for c in chosen if c not in frame.columns]
        if unknown_columns:
            raise ValueError(
                f"features names columns {unknown_columns} that X does not have "
                f"(columns: {list(frame.columns)})."
            )
        known = tuple(column_families())
        for column, family in chosen.items():
            if family not in known:
                raise ValueError(f"features[{column!r}] must be one of {known}; got {family!r}.")
        rows, class_index, n_classes = _labelled_rows(
            y, frame.shape[0], sample_weight, self.unlabeled_marker
        )
        families, evidence = {}, {}
        for column in frame.columns:
            if column in chosen:
                families[column] = chosen[column]
                continue
            families[column], candidates = column_choice.choose_family(
                frame[column].iloc[rows],
                class_index,
                n_classes,
                alpha=self.alpha,
                reg_covar=self.reg_covar,
            )
            if candidates:
                evidence[column] = candidates
        self.feature_families_ = families
        self.family_log_evidence_ = evidence

    def _group(self, X: _Columns, family: str) -> pd.DataFrame:
        return X.frame.iloc[:, self._groups[family]]

    def _make_estimator(self, family: str):
        """The family's own estimator: MixedNB's hyperparameters it takes, then
        ``family_params[family]``."""
        cls = registry.estimators()[registry.family(family).estimator]
        shared = {"alpha": self.alpha, "estimate": self.estimate, "reg_covar": self.reg_covar}
        accepted = cls().get_params(deep=False)
        settings = {name: value for name, value in shared.items() if name in accepted}
        settings.update((self.family_params or {}).get(family, {}))
        return cls(**settings)

    # ------------------------------------------------------------------ hooks
    def _add_rows(self, X, responsibilities, *, reset):
        if reset:
            # New groups hold no statistics, so each fits afresh in _feature_stats.
            self.estimators_ = {family: self._make_estimator(family) for family in self._groups}
            vars(self).pop("_stats", None)
        for family, estimator in self.estimators_.items():
            estimator.classes_ = self.classes_
            with _errors_of_group(family, estimator):
                group = estimator._check_X(self._group(X, family), reset=reset)
            self._group_data = {**getattr(self, "_group_data", {}), family: group}
        super()._add_rows(X, responsibilities, reset=reset)
        self._group_data = {}
        for estimator in self.estimators_.values():  # each group is a usable model of its own
            estimator.class_prior_ = self.class_prior_

    def _feature_stats(self, X, responsibilities, dtype):
        stats = {}
        for family, estimator in self.estimators_.items():
            with _errors_of_group(family, estimator):
                stats[family] = estimator._feature_stats(
                    self._group_data[family], responsibilities, dtype
                )
            if hasattr(self, "_stats"):  # partial_fit: a group may have re-laid its statistics
                self._stats[family] = estimator._stats
        return stats

    def _merge_feature_stats(self, previous, new):
        return {
            family: estimator._merge_feature_stats(previous[family], new[family])
            for family, estimator in self.estimators_.items()
        }

    def _update_parameters(self):
        for family, estimator in self.estimators_.items():
            estimator._stats = self._stats[family]
            estimator._class_stats = self._class_stats
            estimator.class_count_ = self._class_stats.counts
            with _errors_of_group(family, estimator):
                estimator._update_parameters()

    def _log_likelihood(self, X, dtype, *, row_terms=True):
        total = 0.0
        for family, estimator in self.estimators_.items():
            with _errors_of_group(family, estimator):
                group = estimator._check_X(self._group(X, family), reset=False)
                part = estimator._log_likelihood(group, dtype, row_terms=row_terms)
            total = total + np.asarray(part)
        return total

    def impute(self, X, *, method="mean", y=None, random_state=None):
        """Fill the missing entries of every group from the model, observed ones kept.

        As `GenerativeClassifier.impute`; the class probabilities come from all the
        observed columns together, and each group fills its own columns. Returns a
        DataFrame when the model was fitted on one.
        """
        check_is_fitted(self)
        if method not in imputation.METHODS:
            raise ValueError(f"method must be one of {imputation.METHODS}; got {method!r}.")
        columns = self._check_X(X, reset=False)
        if y is None:
            class_weights = self.predict_proba(X)
        else:
            class_weights = np.eye(self.classes_.shape[0])[np.asarray(self._class_index(y))]
        rng = np.random.default_rng(check_random_state(random_state).randint(2**31 - 1))
        filled = columns.frame.copy()
        for family, estimator in self.estimators_.items():
            group = self._group(columns, family)
            with _errors_of_group(family, estimator):
                values = estimator._check_X(group, reset=False)
            values = values.toarray() if hasattr(values, "toarray") else np.array(values)
            imputed = estimator._impute_rows(values, class_weights, method, rng)
            for position, column in zip(self._groups[family], imputed.T, strict=True):
                observed = filled.iloc[:, position].notna().to_numpy()
                filled.iloc[:, position] = np.where(observed, filled.iloc[:, position], column)
        return filled if self._fitted_on_frame else filled.to_numpy()

    # ------------------------------------------------------------------ story
    def _story_part(self):
        return stories.combined_part(
            {family: estimator._story_part() for family, estimator in self.estimators_.items()}
        )

    def _sampling_sites(self):
        return {
            f"{family}/{name}": value
            for family, estimator in self.estimators_.items()
            for name, value in estimator._sampling_sites().items()
        }

    def _features_from_draws(self, draws):
        columns = {}
        for family, estimator in self.estimators_.items():
            prefix = f"{family}/"
            own = {k[len(prefix) :]: v for k, v in draws.items() if k.startswith(prefix)}
            values = np.asarray(estimator._features_from_draws(own))
            for position, column in zip(self._groups[family], values.T, strict=True):
                columns[position] = column
        names = list(self.feature_families_)
        schema = getattr(self, "_training_columns", None)
        if schema is not None:  # the training columns' names and dtypes
            return as_training_frame([columns[i] for i in range(len(names))], schema)
        frame = pd.DataFrame({names[i]: columns[i] for i in range(len(names))})
        return frame if self._fitted_on_frame else frame.to_numpy()

    def _story_features(self, X: _Columns) -> dict:
        features = {}
        for family, estimator in self.estimators_.items():
            with _errors_of_group(family, estimator):
                group = estimator._check_X(self._group(X, family), reset=False)
            features[family] = estimator._story_features(group)
        return features

    # ------------------------------------------------------------------ posterior
    def _check_exact_posterior(self):
        super()._check_exact_posterior()
        for family, estimator in self.estimators_.items():
            with _errors_of_group(family, estimator):
                estimator._check_exact_posterior()

    def _parameter_posterior_draws(self, key, num_samples):
        keys = jax.random.split(key, len(self.estimators_))
        draws = {}
        for key_family, (family, estimator) in zip(keys, self.estimators_.items(), strict=True):
            own = estimator._parameter_posterior_draws(key_family, num_samples)
            draws.update({f"{family}/{name}": value for name, value in own.items()})
        return draws

    def _with_parameters(self, sites):
        drawn = copy.copy(self)
        drawn.estimators_ = {}
        for family, estimator in self.estimators_.items():
            prefix = f"{family}/"
            own = {k[len(prefix) :]: v for k, v in sites.items() if k.startswith(prefix)}
            drawn.estimators_[family] = estimator._with_parameters(own)
        return drawn

    def _feature_log_prior(self) -> float:
        return sum(estimator._feature_log_prior() for estimator in self.estimators_.values())

    def _predictive_log_likelihood(self, X, dtype):
        total = 0.0
        for family, estimator in self.estimators_.items():
            with _errors_of_group(family, estimator):
                group = estimator._check_X(self._group(X, family), reset=False)
            total = total + np.asarray(estimator._predictive_log_likelihood(group, dtype))
        return total

    def _parameter_dims(self, features):
        dims, coords = {}, {}
        for family, estimator in self.estimators_.items():
            names = [features[position] for position in self._groups[family]]
            own_dims, own_coords = estimator._parameter_dims(names)
            rename = {dim: f"{family}/{dim}" for dim in own_coords}
            for site, site_dims in own_dims.items():
                dims[f"{family}/{site}"] = tuple(rename.get(d, d) for d in site_dims)
            coords.update({rename[dim]: labels for dim, labels in own_coords.items()})
        return dims, coords
