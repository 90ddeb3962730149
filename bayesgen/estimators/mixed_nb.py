"""``MixedNB``: naive Bayes over columns of different kinds, one family per column group."""

from __future__ import annotations

import numpy as np
import pandas as pd
from sklearn.utils.validation import check_array, validate_data

from bayesgen.estimators.base import GenerativeClassifier
from bayesgen.estimators.column_groups import ColumnGroups, column_families, fits_with_missing
from bayesgen.estimators.hyperparameters import EM_KEYWORDS, NAIVE_BAYES_KEYWORDS
from bayesgen.estimators.naive_bayes_prior import COMMON_PARAMETERS_DOC, NaiveBayesClassPrior
from bayesgen.families import column_choice
from bayesgen.families.estimates import check_estimate_kind
from bayesgen.frames import as_training_frame, with_filled_cells
from bayesgen.inference import semi_supervised
from bayesgen.validation import check_positive


def _repeated(rows: np.ndarray, sample_weight, n_rows: int) -> np.ndarray:
    """``rows``, each repeated its whole-number sample weight of times (as fit counts it)."""
    if sample_weight is None:
        return rows
    try:
        weights = np.asarray(sample_weight, dtype=float)
    except (TypeError, ValueError):
        return rows  # fit reports what is wrong with the weights
    whole = weights.shape == (n_rows,) and np.all(np.isfinite(weights)) and np.all(weights >= 0)
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


class _Columns(dict):
    """Validated input of MixedNB: each column group's values as its family reads them, by
    group name (what the composite family takes), with the DataFrame they came from.

    Numbers are float64, the precision MixedNB computes in (``dtype``); a slice of rows
    (a fit's chunk) is the same for those rows.
    """

    dtype = np.dtype(np.float64)

    def __init__(self, frame: pd.DataFrame, groups: dict):
        super().__init__(
            (name, values.astype(np.float64) if values.dtype.kind == "f" else values)
            for name, values in groups.items()
        )
        self.frame = frame
        self.shape = frame.shape

    def __len__(self) -> int:
        return self.shape[0]

    def __getitem__(self, key):
        """A group's values by its name; a slice or an index array of rows (a fit's chunk,
        a fold) gives those rows' columns."""
        if isinstance(key, slice | np.ndarray | list):
            return _Columns(self.frame.iloc[key], {name: self.get(name)[key] for name in self})
        return super().__getitem__(key)


def _plain_columns(group: pd.DataFrame) -> pd.DataFrame:
    """A group of columns as NumPy can hold them together: where pandas extension dtypes
    (``Int64``, ``boolean``, categories of text, ...) of different kinds share a group,
    NumPy has no one dtype to convert them to, so each numeric column becomes floats (a
    missing value NaN, as a group of ``Int64`` columns alone reads) and any other column
    objects (a missing value None)."""
    dtypes = list(group.dtypes)
    extension = any(isinstance(d, pd.api.extensions.ExtensionDtype) for d in dtypes)
    if not extension or len({str(d) for d in dtypes}) == 1:
        return group
    plain = {}
    for position in range(group.shape[1]):
        column = group.iloc[:, position]
        numeric = pd.api.types.is_numeric_dtype(column) and not pd.api.types.is_bool_dtype(column)
        plain[position] = (
            column.to_numpy(dtype=np.float64, na_value=np.nan)
            if numeric
            else column.astype(object).where(column.notna(), None).to_numpy()
        )
    return pd.DataFrame(plain, index=group.index)


class MixedNB(ColumnGroups, NaiveBayesClassPrior):
    model_name = "mixed-nb"
    __doc__ = (
        """Naive Bayes over mixed columns: one family per group of columns, one label per row.

    $$
    \\pi \\sim \\mathrm{Dirichlet}, \\quad y \\sim \\mathrm{Categorical}(\\pi), \\quad
    p(x \\mid y = k) = \\prod_{g} p_g(x_{(g)} \\mid y = k),
    $$

    where each group $g$ of columns follows its own family: any registered feature
    family that names its estimator or is a column-only family (`column_families`), such
    as ``"gaussian"`` (independent normals per class, as
    [`GaussianNB`][bayesgen.GaussianNB]), ``"bernoulli"``, ``"categorical"``,
    ``"poisson"``, ``"exponential"``, ``"lognormal"`` (column-only:
    `bayesgen.families.lognormal`) or ``"multinomial"`` (all columns named so form one count
    vector). The joint log-likelihood is the sum over the groups. The story
    ([`story`][bayesgen.MixedNB.story]) runs every family's part under the name scope
    ``"<family>/"``, all
    sharing the label site ``"y"``.

    Parameters
    ----------
    features : dict, optional
        Family of each column, ``{column: family}``, with column names for a DataFrame
        and positions for an array; ``"multinomial"`` is only ever chosen here. Every
        other column gets, among the families that admit its dtype and values
        (`bayesgen.families.column_choice.admissible_families` asks each column family:
        bool or 0/1 → bernoulli; whole numbers → poisson (if none is negative), gaussian
        or categorical; other numbers → gaussian, exponential if none is negative,
        lognormal if all are positive; text and categories → categorical), the one of
        highest evidence $\\log p(x \\mid y)$ on the labelled
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
        ``{"poisson": {"alpha": 0.5}}``; a column-only family takes its own constructor's
        arguments, ``{"lognormal": {"degrees_of_freedom_prior": 5.0}}``). They override
        ``alpha``, ``estimate`` and ``reg_covar`` for that family, and the evidence that
        chooses a column's family is taken under them.
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
    column_groups_ : dict
        Each chosen family's columns, ``{family: [column positions]}``: the groups, in the
        order their story parts run and their rows are drawn.
    family_log_evidence_ : dict
        For each column whose family was chosen by evidence, the log evidence of every
        admissible family, ``{column: {family: log p(x | y)}}``.
    estimators_ : dict
        Each family's column group as a fitted model of its own (the family's registered
        estimator, such as ``GaussianNB``, or a ``FamilyClassifier`` over a column-only
        family), sharing ``class_prior_``; read-only, built on
        access from the group's statistics. MixedNB itself holds no estimator: it is a
        `bayesgen.families.composite.CompositeFamily` of its groups and a class prior.
    n_features_in_ : int
    feature_names_in_ : ndarray
        Only when ``X`` had string column names.
"""
    )

    hyperparameters = {
        "features": None,
        "alpha": 1.0,
        **NAIVE_BAYES_KEYWORDS,
        "reg_covar": 1e-6,
        **EM_KEYWORDS,
        "family_params": None,
    }

    def __sklearn_tags__(self):
        # Not the base's tags from the family: the column families are chosen in fit.
        tags = super(GenerativeClassifier, self).__sklearn_tags__()
        tags.input_tags.categorical = True
        tags.input_tags.string = True
        # Missing values are fine unless a chosen family's own estimator refuses them at fit.
        known = column_families()
        features = self.features if isinstance(self.features, dict) else {}  # fit says why
        chosen = {known[f] for f in features.values() if isinstance(f, str) and f in known}
        tags.input_tags.allow_nan = all(fits_with_missing(family) for family in chosen)
        return tags

    def _check_hyperparameters(self):
        # Not the base's family check: the column families are chosen in fit.
        check_estimate_kind(self.estimate)
        self.check_shared()
        check_positive(self.alpha, "alpha")
        if self.features is not None and not isinstance(self.features, dict):
            raise ValueError(f"features must be a dict {{column: family}}; got {self.features!r}.")
        self._check_family_params()

    # ---------------------------------------------------------------- columns
    def _frame(self, X) -> pd.DataFrame:
        """``X`` as a DataFrame (an array's columns numbered), its shape and values checked."""
        if isinstance(X, pd.DataFrame):
            if min(X.shape) == 0:
                raise ValueError(f"Found array with shape {X.shape}: X needs rows and columns.")
            repeated = list(dict.fromkeys(X.columns[X.columns.duplicated()]))
            if repeated:
                raise ValueError(
                    f"X has columns with the same name, {repeated}: MixedNB gives each column "
                    "its own family by name; rename them."
                )
            frame = X
        else:  # scikit-learn's checks: dense, 2-D, non-empty, not complex
            frame = pd.DataFrame(check_array(X, dtype=None, ensure_all_finite=False))
        return frame

    def _check_X(self, X, *, reset):
        frame = self._frame(X)
        validate_data(self, X, reset=reset, skip_check_array=True)
        self._check_no_infinite(frame)
        for name, dtype in frame.dtypes.items():
            if dtype.kind in "mM":  # NumPy would read nanoseconds, or mix them with numbers
                raise ValueError(
                    f"Column {name!r} has dtype {dtype}, which MixedNB cannot model; convert "
                    "it to numbers (days since a date, say)."
                )
        if reset:
            self._fitted_on_frame = isinstance(X, pd.DataFrame)
        composite = self._composite_of(self._base_family())
        raw = {
            family: check_array(
                _plain_columns(frame.iloc[:, columns]),
                dtype=None,
                ensure_all_finite=False,
                ensure_2d=True,
            )
            for family, (_, columns) in composite.groups.items()
        }
        values = composite.check_columns(raw, owner="MixedNB", columns=list(frame.columns))
        return _Columns(frame, values)

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
        self._forget_component_choice()  # LatentClassNB's "auto" counts: chosen afresh
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
        frame = self._frame(X)
        self._check_no_infinite(frame)
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
        offered = {name: self._unfitted_family(name) for name in known}
        for column in frame.columns:
            if column in chosen:
                families[column] = chosen[column]
                continue
            families[column], candidates = column_choice.choose_family(
                frame[column].iloc[rows], class_index, n_classes, offered
            )
            if candidates:
                evidence[column] = candidates
        self._set_feature_families(families)
        self.family_log_evidence_ = evidence

    # ------------------------------------------------------------ the value
    #: As scikit-learn's naive Bayes: one class is a model of the whole table (its density,
    #: draws and imputations; `bayesgen.TableSynthesizer` with no target).
    min_classes = 1
    fits_missing_by_em = True
    _state_beside_value = ("feature_families_", "column_groups_", "family_log_evidence_")

    def _missing_em_settings(self, group):
        # A column-only family has no EM settings of its own: MixedNB's apply.
        settings = {"tol": self.tol, "max_iter": self.max_iter, **self._settings(group)}
        return settings["estimate"], settings["tol"], settings["max_iter"]

    def impute(self, X, *, method="mean", y=None, random_state=None, n_imputations=None):
        """Fill the missing entries of every group from the model, observed ones kept.

        As `GenerativeClassifier.impute`; the class probabilities come from all the
        observed columns together, and each group fills its own columns. Returns a
        DataFrame when the model was fitted on one; with ``n_imputations`` (multiple
        imputation, each copy under its own posterior draw of every group's parameters), a
        list of that many DataFrames, or an array of copies for a model fitted on arrays.
        """
        return super().impute(
            X, method=method, y=y, random_state=random_state, n_imputations=n_imputations
        )

    def _rows_to_fill(self, X):
        """The checked columns, by group (a DataFrame of them behind)."""
        return self._check_X(X, reset=False)

    def _filled_copy(self, given, rows, filled):
        """Each group's filled columns put in place, a DataFrame back for a model fitted on
        one."""
        filled = with_filled_cells(
            rows.frame,
            {
                position: column
                for group, (_, positions) in self._composite().groups.items()
                for position, column in zip(positions, filled[group].T, strict=True)
            },
        )
        return filled if self._fitted_on_frame else filled.to_numpy()

    # ------------------------------------------------------------------ story
    def _features_from_draws(self, draws):
        columns = self._feature_family().features_from_draws(draws)
        names = list(self.feature_families_)
        schema = getattr(self, "_training_columns", None)
        if schema is not None:  # the training columns' names and dtypes
            return as_training_frame(columns, schema)
        frame = pd.DataFrame({names[i]: columns[i] for i in range(len(names))})
        return frame if self._fitted_on_frame else frame.to_numpy()
