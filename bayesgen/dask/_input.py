"""Dask inputs as aligned row blocks: X, y and the sample weights split at the same rows."""

from __future__ import annotations

from typing import NamedTuple

import dask.array as da
import numpy as np
import pandas as pd

try:
    import dask.dataframe as dd
except ImportError:  # dask without its dataframe extra: only arrays are accepted
    dd = None


class RowBlocks(NamedTuple):
    """The training rows as blocks of whole rows, aligned across X, y and the weights.

    Attributes
    ----------
    X, y : list of dask.delayed.Delayed
        Block ``b`` of X (shape (n_b, n_features)) and of y (shape (n_b,)).
    weights : list of dask.delayed.Delayed, or None
        Block ``b`` of the sample weights; None when they are all one.
    starts : list of int
        Index of each block's first row in the whole of X.
    sizes : list of int
        Rows in each block (empty blocks are left out).
    head : numpy.ndarray or pandas.DataFrame
        The first row of X (a DataFrame holding the column names when X had them), for
        the driver to validate and record ``n_features_in_``/``feature_names_in_`` on.
    """

    X: list
    y: list
    weights: list | None
    starts: list
    sizes: list
    head: object


def _is_dataframe(value) -> bool:
    return dd is not None and isinstance(value, dd.DataFrame)


def _is_series(value) -> bool:
    return dd is not None and isinstance(value, dd.Series)


def _numpy_dtype(dtype):
    """A NumPy dtype for a pandas extension dtype (nullable numbers, strings), else None."""
    if not pd.api.types.is_extension_array_dtype(dtype):
        return None
    return np.float64 if pd.api.types.is_numeric_dtype(dtype) else object


def _with_numpy_dtypes(value):
    """Columns in NumPy dtypes, as ``to_dask_array`` needs (pd.NA becomes NaN)."""
    if _is_series(value):
        target = _numpy_dtype(value.dtype)
        return value if target is None else value.astype(target)
    targets = {name: _numpy_dtype(dtype) for name, dtype in value.dtypes.items()}
    targets = {name: target for name, target in targets.items() if target is not None}
    return value.astype(targets) if targets else value


def _as_array(value, name: str, ndim: int, chunks=None) -> da.Array:
    """``value`` as a dask array with known row chunks and one chunk of columns."""
    if _is_dataframe(value) or _is_series(value):
        value = _with_numpy_dtypes(value)
        if hasattr(value, "optimize"):
            # Optimising may merge partitions (a projected Parquet read): take the lengths
            # of the partitions that will run.
            value = value.optimize()
        value = value.to_dask_array(lengths=True)
    elif not isinstance(value, da.Array):
        if isinstance(value, (pd.DataFrame, pd.Series)):
            value = value.to_numpy()
        value = np.asarray(value)
        if chunks is None or value.ndim == 0 or value.shape[0] != sum(chunks):
            chunks = -1  # one block; a length that differs is reported by the caller
        value = da.from_array(value, chunks=(chunks,) + (-1,) * (value.ndim - 1))
    if value.ndim != ndim:
        expected = "2-D, (n_samples, n_features)" if ndim == 2 else "1-D, (n_samples,)"
        raise ValueError(f"{name} must be {expected}; got an array of shape {value.shape}.")
    if any(np.isnan(size) for size in value.chunks[0]):
        value = value.compute_chunk_sizes()
    if ndim == 2 and len(value.chunks[1]) > 1:
        value = value.rechunk({1: -1})  # a block must hold whole rows
    return value


def _aligned(value, name: str, X: da.Array) -> da.Array:
    """A 1-D input with X's row chunks; an error naming both lengths when they differ."""
    value = _as_array(value, name, 1, chunks=X.chunks[0])
    if value.shape[0] != X.shape[0]:
        raise ValueError(
            f"{name} has {value.shape[0]} rows but X has {X.shape[0]}; they need one entry "
            "per row of X."
        )
    if value.chunks[0] != X.chunks[0]:
        value = value.rechunk((X.chunks[0],))
    return value


def _head(X_array: da.Array, columns) -> object:
    first = X_array[:1].compute()
    return first if columns is None else pd.DataFrame(first, columns=columns)


def row_blocks(X, y, sample_weight=None) -> RowBlocks:
    """Split X, y and ``sample_weight`` into aligned blocks of rows.

    Parameters
    ----------
    X : dask.array.Array, dask.dataframe.DataFrame or array-like of shape (n_samples, n_features)
        Columns are gathered into one chunk; row chunks are kept.
    y : dask.array.Array, dask.dataframe.Series, array-like of shape (n_samples,), or str
        A string names a column of a DataFrame ``X``, which then leaves the features.
    sample_weight : same kinds as y, optional

    Returns
    -------
    RowBlocks
    """
    if isinstance(y, str):
        if not _is_dataframe(X):
            raise ValueError(
                f"y={y!r} names a column, which needs X to be a dask DataFrame; got X of type "
                f"{type(X).__name__}."
            )
        if y not in X.columns:
            raise ValueError(f"y={y!r} is not a column of X; its columns are {list(X.columns)}.")
        X, y = X.drop(columns=[y]), X[y]
    if y is None:
        raise ValueError("y must be passed (labels, -1 for an unlabelled row); got None.")
    columns = X.columns if _is_dataframe(X) else getattr(X, "columns", None)
    y_chunks = y.chunks[0] if isinstance(y, da.Array) else None
    X_array = _as_array(X, "X", 2, chunks=y_chunks)
    if X_array.shape[0] == 0:
        raise ValueError("X has no rows; fitting needs at least one.")
    y_array = _aligned(y, "y", X_array)
    weights = None if sample_weight is None else _aligned(sample_weight, "sample_weight", X_array)
    sizes = [int(size) for size in X_array.chunks[0]]
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]]).tolist()
    keep = [b for b, size in enumerate(sizes) if size > 0]

    def blocks(array):
        delayed = array.to_delayed().ravel() if array.ndim == 1 else array.to_delayed()[:, 0]
        return [delayed[b] for b in keep]

    return RowBlocks(
        X=blocks(X_array),
        y=blocks(y_array),
        weights=None if weights is None else blocks(weights),
        starts=[starts[b] for b in keep],
        sizes=[sizes[b] for b in keep],
        head=_head(X_array, None if columns is None else list(columns)),
    )
