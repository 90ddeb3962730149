"""The columns of a training DataFrame, kept so that synthetic rows come back as one.

A model fitted on a DataFrame records each column's name and dtype (`column_schema`, plain
strings and lists, so that a model file can hold them); `as_training_frame` turns the
story's draws back into a DataFrame of those columns: integers stay integers, categories
stay categories (with the training categories), booleans stay booleans.
"""

from __future__ import annotations

import numpy as np
import pandas as pd


def column_schema(X) -> list[dict] | None:
    """Name, dtype and (for a categorical column) categories of each column of ``X``.

    Returns
    -------
    list of dict, or None
        None when ``X`` is not a DataFrame.
    """
    if not isinstance(X, pd.DataFrame):
        return None
    schema = []
    for name, dtype in X.dtypes.items():
        column = {"name": name, "dtype": str(dtype), "categories": None, "ordered": False}
        if isinstance(dtype, pd.CategoricalDtype):
            column["categories"] = list(dtype.categories)
            column["ordered"] = bool(dtype.ordered)
        schema.append(column)
    return schema


def as_training_frame(values, schema: list[dict]) -> pd.DataFrame:
    """``values`` (n_samples, n_features) as a DataFrame with the training columns.

    ``values`` may also be a list of one array per column (columns of different kinds).
    Drawn values of an integer or boolean column are rounded first (a Gaussian fitted to
    integer data draws real numbers); a categorical column gets the training categories.
    """
    by_column = values if isinstance(values, list) else list(np.asarray(values).T)
    columns = {}
    for column_values, column in zip(by_column, schema, strict=True):
        columns[column["name"]] = _as_dtype(np.asarray(column_values), column)
    return pd.DataFrame(columns)


def _as_dtype(values: np.ndarray, column: dict) -> pd.Series:
    if column["categories"] is not None:
        dtype = pd.CategoricalDtype(column["categories"], ordered=column["ordered"])
        return pd.Series(pd.Categorical(values, dtype=dtype))
    dtype = pd.api.types.pandas_dtype(column["dtype"])
    if (pd.api.types.is_integer_dtype(dtype) or pd.api.types.is_bool_dtype(dtype)) and (
        values.dtype.kind == "f"
    ):
        values = np.rint(values)
    try:
        return pd.Series(values).astype(dtype)
    except (TypeError, ValueError):  # a value the dtype cannot hold: keep what was drawn
        return pd.Series(values)


def with_filled_cells(frame: pd.DataFrame, columns: dict) -> pd.DataFrame:
    """A copy of ``frame`` whose missing cells take the values of ``columns`` there.

    ``columns`` maps a column position to its filled values (one per row). A column with
    nothing missing is kept as it is; any other keeps its dtype (float32, string,
    category, ``Int64``, ...) unless a filled value does not fit it, when it widens.
    """
    filled = frame.copy()
    for position, values in columns.items():
        current = filled.iloc[:, position]
        observed = current.notna().to_numpy()
        if observed.all():
            continue
        merged = np.where(observed, current, values)
        try:
            filled.isetitem(position, pd.array(merged, dtype=current.dtype))
        except (TypeError, ValueError):
            filled.isetitem(position, merged)
    return filled
