"""Which family models a column: every family says whether it admits it, the evidence picks one.

Used by [`MixedNB`][bayesgen.MixedNB] for every column not named in ``features=``. The
column's dtype and values make a `ColumnSummary`; each candidate family answers
`FeatureFamily.admits_column` and, where several do, `FeatureFamily.column_log_evidence`.
No family is named here, so a new family is chosen with no edit here.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import pandas as pd


class ColumnSummary(NamedTuple):
    """What a family needs to know of a column to say whether it admits it.

    Attributes
    ----------
    name : object
        The column's name (for messages).
    kind : {"flags", "categories", "numbers"}
        ``"flags"``: bool, or numbers that are all 0/1; ``"categories"``: category, object
        and string columns; ``"numbers"``: every other integer or float column.
    values : ndarray of shape (n_rows,)
        Floats with NaN missing for flags and numbers; the raw values (``None`` or NaN
        missing) for categories.
    whole : bool
        Whether every observed number is whole (an integer column, or a float one whose
        observed values are whole, as an integer column with a blank reads).
    minimum : float
        The least observed number (NaN for categories).
    """

    name: object
    kind: str
    values: np.ndarray
    whole: bool
    minimum: float


def summarise(column: pd.Series) -> ColumnSummary:
    """The `ColumnSummary` of a column.

    Raises
    ------
    ValueError
        For a dtype no family reads (dates, complex numbers, ...), or a column with no
        observed value, naming the column.
    """
    dtype = column.dtype
    if pd.api.types.is_bool_dtype(dtype):
        return ColumnSummary(column.name, "flags", _numbers(column), True, 0.0)
    categorical = isinstance(dtype, pd.CategoricalDtype) or pd.api.types.is_object_dtype(dtype)
    if categorical or pd.api.types.is_string_dtype(dtype):
        if not column.notna().any():
            raise ValueError(
                f"Column {column.name!r} has no observed value; name its family in "
                "features={column: family} or drop it."
            )
        return ColumnSummary(column.name, "categories", column.to_numpy(), False, np.nan)
    if not (pd.api.types.is_integer_dtype(dtype) or pd.api.types.is_float_dtype(dtype)):
        raise ValueError(
            f"Column {column.name!r} has dtype {dtype}, which MixedNB cannot model; convert it, "
            "or name its family in features={column: family}."
        )
    values = _numbers(column)
    observed = values[~np.isnan(values)]
    if observed.size == 0:
        raise ValueError(
            f"Column {column.name!r} has no observed value; name its family in "
            "features={column: family} or drop it."
        )
    kind = "flags" if np.isin(observed, (0, 1)).all() else "numbers"
    whole = bool(np.all(observed == np.round(observed)))
    return ColumnSummary(column.name, kind, values, whole, float(observed.min()))


def _numbers(column: pd.Series) -> np.ndarray:
    return column.to_numpy(dtype=float, na_value=np.nan)


def admissible_families(column: pd.Series, families: dict) -> tuple[str, ...]:
    """The names of the families that admit a column, in order of preference on a tie.

    Parameters
    ----------
    column : pandas.Series
    families : dict of str to FeatureFamily
        The candidates (``MixedNB``'s column families, with its settings).

    Returns
    -------
    tuple of str
        Ordered by `FeatureFamily.column_preference`, then as ``families`` lists them.

    Raises
    ------
    ValueError
        As `summarise`, or when no family admits the column, naming it.
    """
    summary = summarise(column)
    admitted = [name for name, family in families.items() if family.admits_column(summary)]
    if not admitted:
        raise ValueError(
            f"Column {column.name!r} ({summary.kind}) is admitted by none of the families "
            f"{sorted(families)}; name its family in features={{column: family}}."
        )
    order = list(families)
    return tuple(
        sorted(admitted, key=lambda name: (families[name].column_preference, order.index(name)))
    )


def choose_family(column: pd.Series, class_index, n_classes: int, families: dict) -> tuple:
    """The admitting family of highest evidence, and each candidate's log evidence.

    Parameters
    ----------
    column : pandas.Series
        The column, rows of labelled training data (NaN is missing).
    class_index : ndarray of shape (n_rows,)
        Each row's class, ``0 .. n_classes - 1``.
    n_classes : int
    families : dict of str to FeatureFamily
        The candidates, with the settings their evidence is taken under.

    Returns
    -------
    family : str
    evidence : dict of str to float
        Log evidence of each candidate; empty when one family alone admits the column.
    """
    candidates = admissible_families(column, families)
    if len(candidates) == 1:
        return candidates[0], {}
    summary = summarise(column)
    evidence = {
        name: float(families[name].column_log_evidence(summary, class_index, n_classes))
        for name in candidates
    }
    best = max(candidates, key=lambda name: evidence[name])  # the first wins a tie
    return best, evidence
