"""Input validation shared by the estimators: every error names the argument at fault."""

from __future__ import annotations

import numbers

import numpy as np
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import (
    _check_sample_weight,
    check_array,
    column_or_1d,
    validate_data,
)


def check_features(estimator, X, *, reset: bool) -> np.ndarray:
    """Validate ``X`` as a finite 2-D float array (float32 kept, anything else float64).

    Parameters
    ----------
    estimator : BaseEstimator
        Records ``n_features_in_`` / ``feature_names_in_`` when ``reset`` is true and
        checks them otherwise (scikit-learn's ``validate_data``).
    X : array-like of shape (n_samples, n_features)
    reset : bool
        True in ``fit``, false in prediction.

    Returns
    -------
    numpy.ndarray

    Raises
    ------
    ValueError
        If ``X`` is not numeric, has the wrong number of features, or holds NaN or ±inf.
    """
    try:
        X = validate_data(
            estimator, X, reset=reset, dtype=(np.float64, np.float32), ensure_all_finite=False
        )
    except ValueError as error:
        if "convert" in str(error) or "string" in str(error):
            raise ValueError(
                f"X must be numeric for {type(estimator).__name__}; could not convert it to "
                f"floats ({error})."
            ) from error
        raise
    _check_finite(X, type(estimator).__name__)
    return X


def _check_finite(X: np.ndarray, owner: str) -> None:
    finite = np.isfinite(X)
    if finite.all():
        return
    rows, columns = np.nonzero(~finite)
    row, column = rows[0], columns[0]
    value = X[row, column]
    if np.isnan(value):
        raise ValueError(
            f"X contains NaN (first at row {row}, column {column}); {owner} does not accept "
            f"missing values yet. Remove or impute those rows before calling it."
        )
    raise ValueError(f"X contains {value} (first at row {row}, column {column}); X must be finite.")


def check_labels(y) -> np.ndarray:
    """Validate class labels as a 1-D array of a classification target type."""
    y = column_or_1d(y, warn=True)
    if y.dtype.kind in "fc":
        check_array(y, ensure_2d=False, dtype=None, input_name="y")
    check_classification_targets(y)
    return y


def check_weights(sample_weight, X: np.ndarray) -> np.ndarray:
    """Validate ``sample_weight`` (None means ones) against ``X``: right length, finite, >= 0."""
    return _check_sample_weight(sample_weight, X, dtype=X.dtype, ensure_non_negative=True)


def check_class_probabilities(priors, n_classes: int, name: str = "priors") -> np.ndarray:
    """Validate user-given class probabilities: length ``n_classes``, >= 0, summing to one."""
    priors = np.asarray(priors, dtype=np.float64)
    if priors.shape != (n_classes,):
        raise ValueError(
            f"{name} must have one entry per class, shape ({n_classes},); got shape {priors.shape}."
        )
    if not np.all(np.isfinite(priors)) or np.any(priors < 0):
        raise ValueError(f"{name} must be finite and non-negative; got {priors}.")
    if not np.isclose(priors.sum(), 1.0, rtol=0, atol=1e-8):
        raise ValueError(f"{name} must sum to one; got sum {priors.sum()}.")
    return priors


def check_positive(value, name: str, *, allow_zero: bool = False) -> float:
    """Validate a real scalar hyperparameter that must be positive (or non-negative)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not np.isfinite(value):
        raise ValueError(f"{name} must be a finite real number; got {value!r}.")
    if value < 0 or (value == 0 and not allow_zero):
        bound = ">= 0" if allow_zero else "> 0"
        raise ValueError(f"{name} must be {bound}; got {value!r}.")
    return float(value)


def check_choice(value, name: str, options: tuple[str, ...]) -> str:
    """Validate a string hyperparameter against its allowed values."""
    if not isinstance(value, str) or value not in options:
        raise ValueError(f"{name} must be one of {options}; got {value!r}.")
    return value
