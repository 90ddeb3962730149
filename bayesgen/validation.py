"""Input validation shared by the estimators: every error names the argument at fault."""

from __future__ import annotations

import contextlib
import contextvars
import numbers
import warnings
from typing import NamedTuple

import numpy as np
import scipy.sparse as sp
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import (
    _check_sample_weight,
    check_array,
    column_or_1d,
    validate_data,
)

from bayesgen import held_check
from bayesgen._parallel import blas_on_one_thread_where
from bayesgen.device_arrays import check_device_features, is_device_array

#: Whether the rows being checked are scored one by one (prediction), not summed into
#: statistics (fit): a row's own overflow then makes only that row's density zero.
_SCORING_ROWS = contextvars.ContextVar("scoring_rows", default=False)


@contextlib.contextmanager
def scoring_rows():
    """Check rows that will be scored, not summed: values too large for the statistics'
    sums of squares are accepted (each row is scored on its own; one too far out to score
    gets density zero), where `check_features` refuses them for a fit."""
    token = _SCORING_ROWS.set(True)
    try:
        yield
    finally:
        _SCORING_ROWS.reset(token)


class FewRowsWarning(UserWarning):
    """A class has fewer training rows than a full covariance has features.

    Its sample covariance is singular, so the fitted model rests on the ridge
    (``reg_covar``) alone; ``estimate="map"``, a larger ``reg_covar`` or ``shrinkage`` are
    the remedies.
    """


def warn_few_complete_rows(owner, X: np.ndarray, responsibilities, remedy: str, components=None):
    """Warn (`FewRowsWarning`) naming each class of ``owner`` (a fitted estimator) with rows
    but fewer complete ones than the features (times its ``components``, one full
    covariance each): EM then estimates its covariance from incomplete rows alone."""
    in_class = np.asarray(responsibilities) > 0
    complete = np.count_nonzero(in_class & ~np.isnan(X).any(axis=1)[:, None], axis=0)
    rows = np.count_nonzero(in_class, axis=0)
    classes, n_features = owner.classes_, X.shape[1]
    needed = n_features * (1 if components is None else np.asarray(components))
    few = np.flatnonzero((rows > 0) & (complete < needed))
    if few.size == 0:
        return
    names = ", ".join(
        f"{str(classes[k])!r} ({complete[k]} complete of {rows[k]} rows)" for k in few[:5]
    )
    subject = "class" if few.size == 1 else "classes"
    verb, their = ("has", "its") if few.size == 1 else ("have", "their")
    each = "" if components is None else f" for each of {their} components"
    warnings.warn(
        f"{type(owner).__name__}: {subject} {names}{' ...' if few.size > 5 else ''} {verb} "
        f"fewer complete rows than the {n_features} features{each}, so EM estimates {their} "
        "covariance "
        "from incomplete rows alone and can make it nearly singular (overconfident "
        f"probabilities); {remedy}",
        FewRowsWarning,
        stacklevel=caller_stacklevel(),
    )


def check_features(
    estimator,
    X,
    *,
    reset: bool,
    accept_sparse=False,
    allow_nan=False,
    device_arrays=False,
    finite=True,
):
    """Validate ``X`` as a finite 2-D float array (float32 kept, anything else float64).

    Parameters
    ----------
    estimator : BaseEstimator
        Records ``n_features_in_`` / ``feature_names_in_`` when ``reset`` is true and
        checks them otherwise (scikit-learn's ``validate_data``).
    X : array-like of shape (n_samples, n_features)
    reset : bool
        True in ``fit``, false in prediction.
    accept_sparse : False or tuple of str, default=False
        SciPy sparse formats accepted as they are.
    allow_nan : bool, default=False
        Accept NaN as a missing value (±inf is always an error).
    device_arrays : bool, default=False
        Return a floating ``jax.Array`` as it is, on its device (``device_arrays.py``),
        instead of copying it into NumPy.
    finite : bool, default=True
        Check that the values are finite here; False leaves a NumPy array's check to the
        caller (`check_rows` within `bayesgen.held_check.held_finite_check`).

    Returns
    -------
    numpy.ndarray, a sparse matrix when ``accept_sparse`` allows it, or a ``jax.Array``

    Raises
    ------
    ValueError
        If ``X`` is not numeric, has the wrong number of features, holds NaN or ±inf, or
        (outside `scoring_rows`) values so large that the sums of their squares overflow
        (named, with the row and column of the first).
    """
    if device_arrays and is_device_array(X):
        return check_device_features(
            estimator, X, reset=reset, allow_nan=allow_nan, check_finite=_check_finite
        )
    try:
        X = validate_data(
            estimator,
            X,
            reset=reset,
            dtype=(np.float64, np.float32),
            ensure_all_finite=False,
            accept_sparse=accept_sparse,
        )
    except (TypeError, ValueError) as error:
        if any(word in str(error) for word in ("could not convert", "a string", "promote")):
            raise type(error)(  # a TypeError stays one, as scikit-learn's checks expect
                f"X must be numeric for {type(estimator).__name__}; could not convert it to "
                f"floats ({error}). A missing entry is NaN (pd.NA in a float or nullable "
                "column, such as dtype 'Float64', is read as NaN)."
            ) from error
        raise
    if finite or not isinstance(X, np.ndarray):
        _check_finite(X, estimator, allow_nan=allow_nan)
    return X


def _column_name(owner_estimator, column: int) -> str:
    names = getattr(owner_estimator, "feature_names_in_", None)
    if names is not None and column < len(names):
        return f"column {column} ({names[column]!r})"
    return f"column {column}"


def _first_entry(X, bad_values: np.ndarray) -> tuple[int, int]:
    """Row and column of the first stored entry flagged in ``bad_values``."""
    if sp.issparse(X):
        # Same storage order as X.data: rebuild the matrix holding the flags, then find one.
        flags = X.copy()
        flags.data = bad_values.astype(np.int8)
        flags.eliminate_zeros()
        coo = flags.tocoo()
        return int(coo.row[0]), int(coo.col[0])
    rows, columns = np.nonzero(bad_values)
    return int(rows[0]), int(columns[0])


def _zeros_and_ones(values: np.ndarray) -> bool:
    """Whether every value is 0, 1 or NaN: one comparison over all of them, the others only
    over the values that are not 1. For the stored values of a sparse matrix, mostly 1:
    four passes over 20,000,000 of them took 0.037 s (the values of a dense array, mostly
    0, would nearly all be copied)."""
    rest = values[values != 1]
    return not np.any((rest != 0) & ~np.isnan(rest))


def _stored_values(X) -> np.ndarray:
    """The explicitly stored values: ``X.data`` of a sparse matrix (no copy), else X."""
    return X.data if sp.issparse(X) else X


#: Fewest values for which the finite check's sum runs on one BLAS thread (below, no threads
#: follow, and limiting BLAS would first set up threadpoolctl's controller: about 10 ms).
ONE_BLAS_THREAD_VALUES = 2**20


def _check_finite(X, estimator, *, allow_nan: bool = False) -> None:
    values = _stored_values(X)
    flat = values.ravel(order="K")
    # One read of X: a finite sum of squares means no NaN, no inf, and no value so large
    # that the statistics (sums of x and x**2) overflow. On one BLAS thread for a table large
    # enough to be worked on in threads next: the sum is bound by memory (400 MB: 0.013 s
    # against 0.012 s on two), and OpenBLAS's pool left awake by it slowed those threads
    # (LDA's predict_proba blocks of 1,000,000 x 50 rows on 2 cores: 0.102 s after it,
    # 0.067 s after it on one thread).
    large = flat.size >= ONE_BLAS_THREAD_VALUES
    with np.errstate(over="ignore", invalid="ignore"), blas_on_one_thread_where(large):
        if np.isfinite(np.dot(flat, flat)):
            return
    # With NaN allowed only an infinity is wrong: one pass, not two and their union.
    bad = np.isinf(values) if allow_nan else ~np.isfinite(values)
    if not bad.any():
        if not _SCORING_ROWS.get():
            _check_magnitude(X, values, estimator)
        return
    row, column = _first_entry(X, bad)
    value = X[row, column]
    where = f"first at row {row}, {_column_name(estimator, column)}"
    if np.isnan(value):
        raise ValueError(
            f"X contains NaN ({where}); {type(estimator).__name__} does not accept missing "
            "values here. Remove or impute those rows before calling it."
        )
    raise ValueError(f"X contains {value} ({where}); X must be finite.")


def _check_magnitude(X, values: np.ndarray, estimator) -> None:
    """Refuse values whose squares, summed over the rows, overflow the statistics."""
    limit = np.sqrt(np.finfo(values.dtype).max / max(1, X.shape[0]))
    with np.errstate(invalid="ignore"):
        too_large = np.abs(values) > limit
    if not too_large.any():
        return
    row, column = _first_entry(X, too_large)
    raise ValueError(
        f"X contains {X[row, column]:.3g} (first at row {row}, "
        f"{_column_name(estimator, column)}): with {X.shape[0]} rows, sums of squares of "
        f"values beyond {limit:.3g} overflow {values.dtype} statistics. Rescale that column "
        "(e.g. to other units)."
    )


class InputRows(NamedTuple):
    """How an estimator checks the rows it is given, as its family reads them (`check_rows`).

    Attributes
    ----------
    counts : bool
        Non-negative counts (`check_counts`), a SciPy CSR/CSC matrix kept sparse; else
        finite real numbers (`check_features`).
    binary : bool
        Counts of 0 and 1 only.
    missing : bool
        NaN is a missing value.
    missing_at_fit : bool
        Rows with a missing value can be fitted (not so for a family that needs every entry
        of its training rows, which integrates NaN out only when predicting); scikit-learn's
        ``allow_nan`` tag.
    device_arrays : bool
        A floating ``jax.Array`` is kept on its device (numbers only).
    """

    counts: bool = False
    binary: bool = False
    missing: bool = True
    device_arrays: bool = False
    missing_at_fit: bool = True


def check_rows(estimator, X, *, reset: bool, rows: InputRows):
    """``X`` checked as ``rows`` says (`check_counts` or `check_features`), ``estimator``
    recording or checking ``n_features_in_`` and ``feature_names_in_``. Within
    `bayesgen.held_check.held_finite_check`, a NumPy array of features has its finite check
    held for the fit's ranges to settle.

    Raises
    ------
    ValueError
        As `check_counts` or `check_features`.
    """
    if rows.counts:
        return check_counts(estimator, X, reset=reset, binary=rows.binary, allow_nan=rows.missing)
    holder = held_check.current()
    X = check_features(
        estimator,
        X,
        reset=reset,
        allow_nan=rows.missing,
        device_arrays=rows.device_arrays,
        finite=holder is None,
    )
    if holder is not None and isinstance(X, np.ndarray):
        holder.hold(X, rows.missing, lambda: _check_finite(X, estimator, allow_nan=rows.missing))
    return X


def check_counts(estimator, X, *, reset: bool, binary: bool = False, allow_nan: bool = True):
    """Validate non-negative count data, dense or SciPy CSR/CSC (kept sparse).

    Parameters
    ----------
    estimator : BaseEstimator
    X : array-like or sparse matrix of shape (n_samples, n_features)
    reset : bool
        True in ``fit``, false in prediction.
    binary : bool, default=False
        Require every value to be 0 or 1 (the Bernoulli model).
    allow_nan : bool, default=True
        Accept NaN as a missing value.

    Returns
    -------
    ndarray or sparse matrix (CSR or CSC), float32 or float64

    Raises
    ------
    ValueError
        For non-numeric, non-finite or negative values (and non-binary ones when
        ``binary``), naming the first offending row and column.
    """
    X = check_features(estimator, X, reset=reset, accept_sparse=("csr", "csc"), allow_nan=allow_nan)
    values = _stored_values(X)
    owner = type(estimator).__name__
    negative = values < 0
    if np.any(negative):
        row, column = _first_entry(X, negative)
        raise ValueError(
            f"Negative values in data passed to X: {X[row, column]} at row {row}, "
            f"{_column_name(estimator, column)}; {owner} models counts, which must be >= 0."
        )
    if binary and not (sp.issparse(X) and _zeros_and_ones(values)):
        not_binary = (values != 0) & (values != 1) & ~np.isnan(values)
        if np.any(not_binary):
            row, column = _first_entry(X, not_binary)
            raise ValueError(
                f"{owner} needs 0/1 (or boolean) features; X has {X[row, column]} at row "
                f"{row}, {_column_name(estimator, column)}. Pass binarize=<threshold> to "
                "turn values above the threshold into 1 and the rest into 0."
            )
    return X


def unknown_labels(labels, classes) -> list:
    """The labels of ``labels`` that are not in ``classes``, each once: NumPy's set
    difference, or for labels that cannot be ordered together (``None`` among integers)
    the same by equality."""
    try:
        return np.setdiff1d(labels, classes).tolist()
    except TypeError:
        known = set(np.asarray(classes).tolist())
        unknown = [label for label in np.asarray(labels).tolist() if label not in known]
        return list(dict.fromkeys(unknown))


def class_indices(classes, y) -> np.ndarray:
    """The indices in ``classes`` (sorted) of the labels ``y``.

    Raises
    ------
    ValueError
        Naming the labels not in ``classes``.
    """
    classes, y = np.asarray(classes), np.asarray(y)
    unknown = unknown_labels(y, classes)
    if unknown:
        raise ValueError(f"y contains labels {unknown} not in classes_ {classes.tolist()}.")
    return np.searchsorted(classes, y)


def check_labels(y) -> np.ndarray:
    """Validate class labels as a 1-D array of a classification target type."""
    y = column_or_1d(y, warn=True)
    if y.dtype.kind in "fc":
        check_array(y, ensure_2d=False, dtype=None, input_name="y")
    try:
        check_classification_targets(y)
    except TypeError as error:  # sorting the labels compares them
        kinds = sorted({type(label).__name__ for label in y.tolist()})
        raise ValueError(
            f"y must hold labels of one kind that can be ordered; got labels of types {kinds} "
            f"({error})."
        ) from None
    return y


#: Whole-number labels are encoded by counting when their range is at most this many times
#: their number (a dense count array); wider ones are sorted.
COUNTED_LABEL_SPAN = 4


def encode_labels(y) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(check_labels(y), return_inverse=True)``: the sorted classes and each
    label's index among them.

    Whole numbers of a narrow range (at most `COUNTED_LABEL_SPAN` times as wide as there are
    labels, the usual ``0 .. K-1``) are counted in one pass instead of sorted, and need none
    of scikit-learn's checks, which sort them twice more to find a continuous target (there
    is none) and to warn when most labels are distinct (only then are they run). On a
    million labels that is about 0.05 s less per fit.
    """
    y = column_or_1d(y, warn=True)
    if y.dtype.kind not in "iu" or y.size == 0:
        return np.unique(check_labels(y), return_inverse=True)
    low, high = y.min(), y.max()
    if int(high) - int(low) + 1 > COUNTED_LABEL_SPAN * y.size:
        return np.unique(check_labels(y), return_inverse=True)
    wide = np.int64 if y.dtype.kind == "i" else np.uint64  # no overflow, no float
    offsets = np.subtract(y, wide(low), dtype=wide).astype(np.intp)
    present = np.bincount(offsets) > 0
    classes = (np.flatnonzero(present).astype(wide) + wide(low)).astype(y.dtype)
    if classes.size > 2 and y.size > 20 and classes.size > round(0.5 * y.size):
        check_labels(y)  # scikit-learn's warning, in the installed version's words
    return classes, (np.cumsum(present, dtype=np.intp) - 1)[offsets]


def check_class_list(classes) -> np.ndarray:
    """`check_labels` for a list of every class (``partial_fit``'s ``classes``): each class
    is listed once, so scikit-learn's warning that most labels are distinct (a regression
    target?) does not apply, and is not raised for a list of more than 20 classes."""
    with warnings.catch_warnings():
        warnings.filterwarnings(
            "ignore", message="The number of unique classes is greater", category=UserWarning
        )
        return check_labels(classes)


def check_weights(sample_weight, X: np.ndarray) -> np.ndarray:
    """Validate ``sample_weight`` (None means ones) against ``X``: right length, finite, >= 0.

    ``X`` only gives the number of rows and the dtype: scikit-learn sees an empty NumPy
    stand-in, so that under ``sklearn.config_context(array_api_dispatch=True)`` the
    weights' namespace is NumPy's whatever ``X`` is (``MixedNB``'s column object, a
    ``jax.Array``, a sparse matrix); the weights are NumPy in every case.
    """
    stand_in = np.empty((X.shape[0], 0), dtype=np.dtype(X.dtype))
    return _check_sample_weight(
        sample_weight, stand_in, dtype=stand_in.dtype, ensure_non_negative=True
    )


def as_real_array(value, name: str) -> np.ndarray:
    """``value`` as a float64 array, or a TypeError (a value of the wrong kind) naming
    ``name`` for anything that is no array of real numbers (strings, a dict, ragged rows,
    complex numbers)."""
    try:
        array = np.asarray(value)
        if np.iscomplexobj(array):
            raise TypeError("complex numbers")
        return np.asarray(array, dtype=np.float64)
    except (TypeError, ValueError) as error:
        raise TypeError(
            f"{name} must be an array of real numbers; got {value!r:.80} ({error})."
        ) from None


def check_class_probabilities(priors, n_classes: int, name: str = "priors") -> np.ndarray:
    """Validate user-given class probabilities: length ``n_classes``, >= 0, summing to one."""
    priors = as_real_array(priors, name)
    if priors.shape != (n_classes,):
        raise ValueError(
            f"{name} must have one entry per class, shape ({n_classes},); got shape {priors.shape}."
        )
    if not np.all(np.isfinite(priors)) or np.any(priors < 0):
        raise ValueError(f"{name} must be finite and non-negative; got {priors}.")
    if not np.isclose(priors.sum(), 1.0, rtol=0, atol=1e-8):
        raise ValueError(f"{name} must sum to one; got sum {priors.sum()}.")
    return priors


def check_positive_values(value, name: str, *, allow_zero: bool = False) -> None:
    """`check_positive` for a number, and for every entry of an array of them (a family's
    setting may be one per feature, or a 0-d array)."""
    if not isinstance(value, np.ndarray | list | tuple):
        check_positive(value, name, allow_zero=allow_zero)
        return
    array = as_real_array(value, name)
    if not np.all(np.isfinite(array)) or np.any(array < 0) or not (allow_zero or np.all(array)):
        bound = ">= 0" if allow_zero else "> 0"
        raise ValueError(f"{name} must be finite and {bound} in every entry; got {value!r:.80}.")


def check_count(value, name: str) -> int:
    """``value`` as an int when it is an integer >= 1 (not a bool), else a ValueError naming
    ``name``."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1:
        raise ValueError(f"{name} must be an integer >= 1; got {value!r}.")
    return int(value)


def check_positive(value, name: str, *, allow_zero: bool = False) -> float:
    """Validate a real scalar hyperparameter that must be positive (or non-negative)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not np.isfinite(value):
        raise ValueError(f"{name} must be a finite real number; got {value!r}.")
    if value < 0 or (value == 0 and not allow_zero):
        bound = ">= 0" if allow_zero else "> 0"
        raise ValueError(f"{name} must be {bound}; got {value!r}.")
    return float(value)


def caller_stacklevel() -> int:
    """The ``stacklevel`` of ``warnings.warn`` that names the first frame outside bayesgen
    and scikit-learn (the user's call: ``model.score`` runs scikit-learn's ``score``, which
    calls ``predict``), however deep inside the package the warning is raised."""
    import sys

    packages = (__name__.split(".")[0], "sklearn")
    frame, level = sys._getframe(1), 1
    while frame is not None and frame.f_globals.get("__name__", "").split(".")[0] in packages:
        frame, level = frame.f_back, level + 1
    return level
