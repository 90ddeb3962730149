"""Which family models a column: the dtype rules families out, the evidence picks one.

Used by [`MixedNB`][bayesgen.MixedNB] for every column not named in ``features=``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from bayesgen.families import column_evidence


def _numeric_values(column: pd.Series) -> np.ndarray:
    return column.to_numpy(dtype=float, na_value=np.nan)


def admissible_families(column: pd.Series) -> tuple[str, ...]:
    """The families a column's dtype and values allow, in order of preference on a tie.

    - bool, or numbers that are all 0/1: ``("bernoulli",)``;
    - whole numbers (an integer dtype, or floats whose observed values are all whole, as
      an integer column with a blank reads): ``"poisson"`` when none is negative, then
      ``"gaussian"`` (as a model of integers) and ``"categorical"`` (unordered levels);
    - other numbers: ``"gaussian"``, and ``"exponential"`` when none is negative;
    - category, object and string columns: ``("categorical",)``.

    Raises
    ------
    ValueError
        For any other dtype (dates, complex numbers, ...), or a column with no observed
        value, naming the column.
    """
    dtype = column.dtype
    if pd.api.types.is_bool_dtype(dtype):
        return ("bernoulli",)
    if isinstance(dtype, pd.CategoricalDtype) or pd.api.types.is_object_dtype(dtype):
        return ("categorical",)
    if pd.api.types.is_string_dtype(dtype):
        return ("categorical",)
    if not (pd.api.types.is_integer_dtype(dtype) or pd.api.types.is_float_dtype(dtype)):
        raise ValueError(
            f"Column {column.name!r} has dtype {dtype}, which MixedNB cannot model; convert it, "
            "or name its family in features={column: family}."
        )
    values = _numeric_values(column)
    observed = values[~np.isnan(values)]
    if observed.size == 0:
        raise ValueError(
            f"Column {column.name!r} has no observed value; name its family in "
            "features={column: family} or drop it."
        )
    if np.isin(observed, (0, 1)).all():
        return ("bernoulli",)
    non_negative = bool(observed.min() >= 0)
    if np.all(observed == np.round(observed)):
        return (
            ("poisson", "gaussian", "categorical") if non_negative else ("gaussian", "categorical")
        )
    return ("gaussian", "exponential") if non_negative else ("gaussian",)


def log_evidence(
    column: pd.Series, family: str, class_index, n_classes: int, *, alpha, reg_covar
) -> float:
    """$\\log p(x \\mid y)$ of the column under ``family`` (`column_evidence`)."""
    x = _numeric_values(column)
    whole = bool(np.all(np.isnan(x) | (x == np.round(x))))
    if family == "gaussian":
        return column_evidence.gaussian(
            x, class_index, n_classes, discrete=whole, reg_covar=reg_covar
        )
    if family == "poisson":
        return column_evidence.poisson(x, class_index, n_classes, alpha=alpha)
    if family == "exponential":
        return column_evidence.exponential(x, class_index, n_classes, alpha=alpha)
    if family == "categorical":
        return column_evidence.categorical(
            x, class_index, n_classes, alpha=alpha, integer_range=True
        )
    raise ValueError(f"no column evidence for the {family!r} family")


def choose_family(
    column: pd.Series, class_index, n_classes: int, *, alpha=1.0, reg_covar=1e-6
) -> tuple[str, dict]:
    """The admissible family of highest evidence, and each candidate's log evidence.

    Parameters
    ----------
    column : pandas.Series
        The column, rows of labelled training data (NaN is missing).
    class_index : ndarray of shape (n_rows,)
        Each row's class, ``0 .. n_classes - 1``.
    n_classes : int
    alpha : float, default=1.0
        Prior pseudo-counts of the discrete families and the Gamma shape of the rates.
    reg_covar : float, default=1e-6
        The Gaussian's relative ridge.

    Returns
    -------
    family : str
    evidence : dict of str to float
        Log evidence of each candidate; empty when the dtype leaves one family.
    """
    candidates = admissible_families(column)
    if len(candidates) == 1:
        return candidates[0], {}
    evidence = {
        family: log_evidence(
            column, family, class_index, n_classes, alpha=alpha, reg_covar=reg_covar
        )
        for family in candidates
    }
    best = max(candidates, key=lambda family: evidence[family])  # first wins a tie
    return best, evidence
