"""The tables a quality report compares: checked against each other, then put in one form.

The real table decides each column's kind: *numeric* (a number dtype other than boolean) or
*categorical* (boolean, text, pandas categories; the target column always). A synthetic
table must have the same columns, the same kind in each, no ±inf, only values seen in the
real column for a categorical column (its support), and whole numbers in a column that is
an integer dtype in the real table. A holdout table is real data: it may hold categories the
real table lacks, the rest is checked as for the synthetic one.
"""

from __future__ import annotations

from collections import Counter
from typing import NamedTuple

import numpy as np
import pandas as pd

NUMERIC = "numeric"
CATEGORICAL = "categorical"
#: Values of a column listed in a message, at most.
SHOWN = 5


class Columns(NamedTuple):
    """The columns of the compared tables, in the real table's order.

    Attributes
    ----------
    kinds : dict of str to str
        Each column's kind, ``"numeric"`` or ``"categorical"``.
    target : str or None
        The class column, if any (categorical).
    """

    kinds: dict
    target: str | None

    @property
    def numeric(self) -> list:
        """The numeric columns."""
        return [column for column, kind in self.kinds.items() if kind == NUMERIC]

    @property
    def categorical(self) -> list:
        """The categorical columns."""
        return [column for column, kind in self.kinds.items() if kind == CATEGORICAL]


def _listed(values) -> str:
    values = list(values)
    shown = ", ".join(map(repr, values[:SHOWN]))
    return shown + (f" and {len(values) - SHOWN} more" if len(values) > SHOWN else "")


def _is_numeric(series: pd.Series) -> bool:
    return pd.api.types.is_numeric_dtype(series) and not pd.api.types.is_bool_dtype(series)


def _frame(table, name: str) -> pd.DataFrame:
    frame = table if isinstance(table, pd.DataFrame) else pd.DataFrame(table)
    repeated = [column for column, count in Counter(frame.columns).items() if count > 1]
    if repeated:
        raise ValueError(f"the {name} table names column(s) {_listed(repeated)} more than once.")
    if frame.shape[0] < 2:
        raise ValueError(f"the {name} table has {frame.shape[0]} row(s); at least 2 are needed.")
    return frame


def _same_columns(real: pd.DataFrame, other: pd.DataFrame, name: str) -> None:
    missing = [column for column in real.columns if column not in other.columns]
    extra = [column for column in other.columns if column not in real.columns]
    if missing or extra:
        parts = [f"lacks column(s) {_listed(missing)}"] if missing else []
        parts += [f"has column(s) {_listed(extra)} the real table lacks"] if extra else []
        raise ValueError(f"the {name} table {' and '.join(parts)}; the columns must match.")


def _kind_text(series: pd.Series) -> str:
    return "numeric" if _is_numeric(series) else f"text/categorical ({series.dtype})"


def _check_column(real: pd.Series, other: pd.Series, kind: str, name: str, in_support: bool):
    column = real.name
    observed = other.dropna()
    if observed.size and _is_numeric(real) != _is_numeric(other):
        raise ValueError(
            f"column {column!r} is {_kind_text(real)} in the real table but "
            f"{_kind_text(other)} in the {name} table."
        )
    if kind == NUMERIC and observed.size:
        values = observed.to_numpy(dtype=float)
        if np.isinf(values).any():
            raise ValueError(
                f"column {column!r} of the {name} table holds ±inf "
                f"({int(np.isinf(values).sum())} cell(s)); every value must be finite."
            )
        integer = pd.api.types.is_integer_dtype(real)
        if in_support and integer and (values != np.round(values)).any():
            fractional = values[values != np.round(values)]
            raise ValueError(
                f"column {column!r} holds integers in the real table but the {name} table has "
                f"non-integer values such as {_listed(fractional)}."
            )
    if kind == CATEGORICAL and in_support:
        support = set(real.dropna().astype(object))
        unseen = [value for value in pd.unique(observed.astype(object)) if value not in support]
        if unseen:
            raise ValueError(
                f"column {column!r} of the {name} table holds value(s) {_listed(unseen)} never "
                "seen in the real column (outside its support)."
            )


def check_tables(real, synthetic, holdout=None, target=None):
    """Check the tables against each other; return them in one form and their columns.

    Parameters
    ----------
    real, synthetic : pandas.DataFrame
        The real table (the rows the synthetic data was made from) and the synthetic one.
    holdout : pandas.DataFrame, optional
        Real rows not used to make the synthetic data.
    target : str, optional
        The class column.

    Returns
    -------
    tables : tuple of pandas.DataFrame
        ``(real, synthetic, holdout)`` (holdout None if not given), columns in the real
        table's order, numeric columns as float64 and categorical ones as text (object
        dtype), missing cells NaN.
    columns : Columns
        Each column's kind and the target.

    Raises
    ------
    ValueError
        If a table has fewer than 2 rows, a repeated column name, or not the real table's
        columns; if the target is missing from a table; or if a column is numeric in one
        table and text in another, holds ±inf, or (synthetic only) holds categories outside
        the real column's support or non-integers where the real column holds integers.
    """
    real = _frame(real, "real")
    others = {"synthetic": _frame(synthetic, "synthetic")}
    if holdout is not None:
        others["holdout"] = _frame(holdout, "holdout")
    for name, table in {"real": real, **others}.items():
        if target is not None and target not in table.columns:
            raise ValueError(f"the target column {target!r} is not in the {name} table.")
    kinds = {
        column: NUMERIC if _is_numeric(real[column]) and column != target else CATEGORICAL
        for column in real.columns
    }
    for name, table in others.items():
        _same_columns(real, table, name)
    for column, kind in kinds.items():
        _check_column(real[column], real[column], kind, "real", in_support=False)
        for name, table in others.items():
            _check_column(real[column], table[column], kind, name, name == "synthetic")
    columns = Columns(kinds, target)
    forms = [_normalised(table[list(real.columns)], columns) for table in (real, *others.values())]
    return (forms[0], forms[1], forms[2] if holdout is not None else None), columns


def _text(value) -> str:
    # A class column of whole numbers reads as floats where it has blanks: 1.0 is class 1.
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _normalised(table: pd.DataFrame, columns: Columns) -> pd.DataFrame:
    form = {}
    for column, kind in columns.kinds.items():
        series = table[column].reset_index(drop=True)
        if kind == NUMERIC:
            form[column] = series.astype("float64")
        else:
            form[column] = series.astype(object).map(_text).where(series.notna(), np.nan)
    return pd.DataFrame(form, index=pd.RangeIndex(len(table)))
