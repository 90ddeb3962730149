"""Rows that observe only some columns: what ``sample(given=...)`` conditions on.

`given_rows` turns ``{column: value(s)}`` into rows shaped as the model was fitted (a
DataFrame of the training columns and dtypes, or an array), every other entry missing
(NaN, or None for values that are not numbers). The model then draws the rest from the
exact conditional law of its story, the algebra that integrates out missing features.
"""

from __future__ import annotations

import numbers
from collections.abc import Mapping

import numpy as np
import pandas as pd

from bayesgen.missing import is_missing_value


def _is_number(value) -> bool:
    return isinstance(value, numbers.Number | np.number | np.bool_)


def _values(key, value, n_rows: int) -> np.ndarray:
    """One value per row: a scalar repeated, or a 1-D sequence of ``n_rows`` values (the
    rows drawn: ``n_samples``, or the length of ``y``)."""
    if np.ndim(value) == 0:
        values = np.empty(n_rows, dtype=object)
        values[:] = [value] * n_rows
    else:
        values = np.asarray(value, dtype=object)
        if values.ndim != 1 or values.shape[0] != n_rows:
            raise ValueError(
                f"given[{key!r}] must be one value or {n_rows} values, one per row drawn "
                f"(n_samples={n_rows}, or the length of y); got shape {np.shape(value)}."
            )
    missing = [row for row, item in enumerate(values) if is_missing_value(item)]
    if missing:
        raise ValueError(
            f"given[{key!r}] is missing (None or NaN) at row {missing[0]}: a condition must "
            "be an observed value; leave the column out of given to draw it."
        )
    return values


def _positions(given: Mapping, names, n_features: int) -> dict[int, tuple]:
    """``{column position: (key, value(s))}``, the keys checked against the model's
    columns."""
    positions = {}
    for key, value in given.items():
        if names is not None:
            matches = np.flatnonzero(np.asarray(names, dtype=object) == key)
            if matches.size == 0:
                raise ValueError(
                    f"given has the column {key!r}, which the model does not have; its "
                    f"columns are {list(names)}."
                )
            positions[int(matches[0])] = (key, value)
            continue
        if (
            isinstance(key, bool | np.bool_)
            or not isinstance(key, numbers.Integral)
            or not 0 <= key < n_features
        ):
            raise ValueError(
                f"given keys must be column positions 0..{n_features - 1} (the model was "
                f"fitted without column names); got {key!r}."
            )
        positions[int(key)] = (key, value)
    return positions


def _frame_column(values, column: dict, n_rows: int, name) -> pd.Series:
    """A column of the training dtype: the given values, or all missing."""
    if column["categories"] is not None:
        dtype = pd.CategoricalDtype(column["categories"], ordered=column["ordered"])
        if values is None:
            return pd.Series(pd.Categorical([None] * n_rows, dtype=dtype))
        unknown = [item for item in values if item not in column["categories"]]
        if unknown:
            raise ValueError(
                f"given[{name!r}] = {unknown[0]!r} is not one of the column's categories "
                f"{column['categories']}."
            )
        return pd.Series(pd.Categorical(values, dtype=dtype))
    dtype = pd.api.types.pandas_dtype(column["dtype"])
    numeric = pd.api.types.is_numeric_dtype(dtype) or pd.api.types.is_bool_dtype(dtype)
    if values is None:
        return pd.Series(np.full(n_rows, np.nan) if numeric else [None] * n_rows)
    if numeric:
        return pd.Series(_as_floats(values, name))
    return pd.Series(values, dtype=object)


def _as_floats(values, name) -> np.ndarray:
    if not all(_is_number(item) for item in values):
        bad = next(item for item in values if not _is_number(item))
        raise ValueError(f"given[{name!r}] must be a number for this column; got {bad!r}.")
    return np.asarray(values, dtype=np.float64)


def given_rows(given, n_rows: int, *, n_features: int, names=None, schema=None):
    """``n_rows`` rows observing the ``given`` columns only.

    Parameters
    ----------
    given : dict
        Column to value (the same for every row) or to a sequence of ``n_rows`` values.
        Columns are the training column names when the model has them
        (``feature_names_in_``), else positions ``0..n_features - 1``.
    n_rows : int
    n_features : int
    names : array-like of str, optional
        The model's ``feature_names_in_``.
    schema : list of dict, optional
        The training DataFrame's columns (`bayesgen.frames.column_schema`): the rows are
        then a DataFrame of those columns and dtypes.

    Returns
    -------
    rows : DataFrame or ndarray of shape (n_rows, n_features)
        Float NaN where not given when every given value is a number, else an object array
        with None there.
    resolved : dict
        ``{column position: (key, values)}``, one value per row.

    Raises
    ------
    ValueError
        For an empty or non-dict ``given``, a column the model does not have, a missing
        value, a wrong number of values, or a value its column cannot hold (text in a
        numeric column, a category the column does not declare).
    """
    if not isinstance(given, Mapping) or not given:
        raise ValueError(
            "given must be a non-empty dict of column -> value (or one value per row); got "
            f"{given!r}."
        )
    if names is None and schema is not None:  # a DataFrame's names that are not text
        names = [column["name"] for column in schema]
    positions = _positions(given, names, n_features)
    keys = {position: key for position, (key, _) in positions.items()}
    values = {position: _values(key, value, n_rows) for position, (key, value) in positions.items()}
    resolved = {position: (keys[position], column) for position, column in values.items()}
    if schema is not None:
        columns = [
            _frame_column(values.get(position), column, n_rows, keys.get(position, column["name"]))
            for position, column in enumerate(schema)
        ]
        frame = pd.concat(columns, axis=1)
        frame.columns = [column["name"] for column in schema]
        return frame, resolved
    if all(_is_number(item) for column in values.values() for item in column):
        rows = np.full((n_rows, n_features), np.nan)
        for position, column in values.items():
            rows[:, position] = _as_floats(column, keys[position])
        return rows, resolved
    rows = np.full((n_rows, n_features), None, dtype=object)
    for position, column in values.items():
        rows[:, position] = column
    return rows, resolved


def known_categories(family) -> dict[int, list]:
    """``{column position: categories}`` of the columns a family (a mixture's leaf, a
    composite's groups) reads as categories it learned."""
    leaf = getattr(family, "leaf", None)
    if leaf is not None:
        return known_categories(leaf)
    groups = getattr(family, "groups", None)
    if groups is not None:
        found = {}
        for group, positions in groups.values():
            found.update({positions[j]: known for j, known in known_categories(group).items()})
        return found
    categories = getattr(family, "categories", None)
    return {} if categories is None else {j: list(known) for j, known in enumerate(categories)}


def check_category_types(resolved: dict, categories: dict) -> None:
    """Refuse a given value for a column of text categories that is not text (``1`` where
    the column holds ``"1"``): it would be an unseen category, silently.

    Raises
    ------
    ValueError
        Naming the column, the value and some of its categories.
    """
    for position, (key, values) in resolved.items():
        known = categories.get(position)
        if not known or not all(isinstance(category, str) for category in known):
            continue
        for value in values:
            if not isinstance(value, str):
                shown = ", ".join(repr(category) for category in known[:5])
                raise ValueError(
                    f"given[{key!r}] = {value!r} is not text, but the column's categories are "
                    f"({shown}{', ...' if len(known) > 5 else ''}); give the category itself."
                )


def _held(column, values) -> np.ndarray:
    """Per row, whether the drawn ``column`` holds exactly the given value (a whole-number
    or 0/1 column cannot hold 2.5: it would have been rounded)."""
    column = pd.Series(column).reset_index(drop=True)
    kind = getattr(column.dtype, "kind", "O")
    if kind in "iubf":
        try:
            given = np.asarray(values, dtype=np.float64)
        except (TypeError, ValueError):
            return np.zeros(len(column), dtype=bool)
        if kind == "f":  # the given value as the column's precision holds it
            given = given.astype(column.dtype)
        return column.to_numpy(dtype=np.float64, na_value=np.nan) == given
    return np.array([drawn == value for drawn, value in zip(column, values, strict=True)])


def check_held(X, resolved: dict) -> None:
    """Refuse drawn rows whose given columns do not hold the given values.

    Raises
    ------
    ValueError
        Naming the column: a value it cannot hold (a fraction in a whole-number column,
        anything but 0 and 1 in a 0/1 one).
    """
    for position, (key, values) in resolved.items():
        column = X.iloc[:, position] if isinstance(X, pd.DataFrame) else np.asarray(X)[:, position]
        held = _held(column, values)
        if not held.all():
            row = int(np.flatnonzero(~held)[0])
            drawn = pd.Series(column).iloc[row]
            raise ValueError(
                f"given[{key!r}] = {values[row]!r} (row {row}) is not a value the column "
                f"holds: the model draws it as {drawn!r} (whole numbers, or 0 and 1); give a "
                "value of the column's own kind."
            )
