"""The range of each numeric column seen in training, and the drawn cells that leave it.

A fit records, per column, the least and the greatest observed value (NaN for a column
that is not numeric or has no observed value), so that ``sample`` can say when the model's
law reaches where the data never went (a Gaussian column below 0 where every training
value was non-negative) and, when asked, draw from the law truncated to that range. The
same pass counts each column's missing cells, so that ``sample`` can leave cells missing
at the training rate when asked (`bayesgen.missing.with_missing_cells`).
"""

from __future__ import annotations

import warnings
from typing import NamedTuple

import numpy as np
import pandas as pd
import scipy.sparse as sp

from bayesgen import recorded_grid
from bayesgen._parallel import run_pieces
from bayesgen._precision import precision
from bayesgen.device_arrays import is_device_array
from bayesgen.missing import missing_entries, underlying_table


def _numeric_columns(X) -> tuple[np.ndarray, np.ndarray]:
    """``(values as floats, positions)`` of the numeric columns of ``X``."""
    X = underlying_table(X)  # MixedNB's validated columns keep their DataFrame
    if isinstance(X, pd.DataFrame):
        numeric = [
            position
            for position, dtype in enumerate(X.dtypes)
            if pd.api.types.is_numeric_dtype(dtype) and not pd.api.types.is_bool_dtype(dtype)
        ]
        values = X.iloc[:, numeric].to_numpy(dtype=np.float64, na_value=np.nan)
        return values, np.asarray(numeric, dtype=np.int64)
    if is_device_array(X):
        X = np.asarray(X)
    if sp.issparse(X):
        X = X.toarray()
    X = np.asarray(X)
    if X.dtype.kind in "iuf":
        return X.astype(np.float64, copy=False), np.arange(X.shape[1])
    return np.empty((X.shape[0], 0)), np.empty(0, dtype=np.int64)


class ColumnRecord(NamedTuple):
    """What a fit records of its training columns (`column_ranges`).

    Attributes
    ----------
    low, high : ndarray of shape (n_features,)
        Each column's least and greatest observed value; NaN for a column that is not
        numeric or has no observed value.
    n_missing : ndarray of shape (n_features,) or None
        Each column's missing cells (NaN, or None in a table), a row of weight ``w``
        counting ``w`` times; None where they were not counted (a model file written
        before they were kept records ranges only).
    n_rows : float or None
        The rows, likewise weighted: the missing rates are ``n_missing / n_rows``; None
        with ``n_missing``.
    decimals, step : ndarray of shape (n_features,)
        The decimals every observed value is written with and the step of the grid
        ``low + k step`` it lies on (`bayesgen.recorded_grid`); NaN where there is none;
        None where the grids were not recorded.
    """

    low: np.ndarray
    high: np.ndarray
    n_missing: np.ndarray | None
    n_rows: float | None
    decimals: np.ndarray | None = None
    step: np.ndarray | None = None


#: The fitted attributes that read a `ColumnRecord`, by name: the record's field of each.
RECORDED_ATTRIBUTES = {
    "data_min_": "low",
    "data_max_": "high",
    "n_missing_": "n_missing",
    "n_samples_seen_": "n_rows",
    "data_decimals_": "decimals",
    "data_step_": "step",
}


def recorded(attributes: dict) -> ColumnRecord | None:
    """The `ColumnRecord` that fitted ``attributes`` (by their `RECORDED_ATTRIBUTES` names)
    describe, taking them out of ``attributes``; None where they name none.

    Raises
    ------
    ValueError
        When they name a part of the record without its pair (``data_min_`` and
        ``data_max_``, ``n_missing_`` and ``n_samples_seen_``, ``data_decimals_`` and
        ``data_step_``), or no ranges (``data_min_`` and ``data_max_``, which every
        record holds).
    """
    given = [name for name in RECORDED_ATTRIBUTES if name in attributes]
    if not given:
        return None
    names = list(RECORDED_ATTRIBUTES)
    for first, second in zip(names[::2], names[1::2], strict=True):
        if (first in attributes) != (second in attributes):
            raise ValueError(
                f"{first} and {second} are recorded together; got only "
                f"{first if first in attributes else second}."
            )
    if "data_min_" not in attributes:
        raise ValueError(
            f"a record of the training columns holds their ranges, data_min_ and "
            f"data_max_; got only {given}."
        )
    fields = {field: attributes.pop(name, None) for name, field in RECORDED_ATTRIBUTES.items()}
    return ColumnRecord(**fields)


def _down_rows(values: np.ndarray, ufunc) -> np.ndarray:
    """``ufunc.reduce`` down the rows. A C-ordered array is viewed 16 rows to a line, so
    each reduction runs over lines 16 times longer (twice as fast at 50 columns)."""
    n_rows, n_features = values.shape
    lines = n_rows // 16
    if not values.flags.c_contiguous or lines == 0:
        return ufunc.reduce(values, axis=0)
    head = values[: lines * 16].reshape(lines, 16 * n_features)
    result = ufunc.reduce(ufunc.reduce(head, axis=0).reshape(16, n_features), axis=0)
    if lines * 16 < n_rows:
        result = ufunc(result, ufunc.reduce(values[lines * 16 :], axis=0))
    return result


#: Rows of a block whose least and greatest values are taken while it is in cache.
RANGE_BLOCK_ROWS = 4_096
#: Fewest values whose blocks are handed to threads: below it the first call's setup of the
#: threads (about 10 ms in a fresh process) costs more than the pass.
PARALLEL_RANGE_VALUES = 2**20


def _least_and_greatest(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``minimum`` and ``fmax`` down the rows, each block of rows read from memory once for
    both, the blocks side by side in threads (exact in any order)."""
    if values.shape[0] <= RANGE_BLOCK_ROWS:
        return _down_rows(values, np.minimum), _down_rows(values, np.fmax)

    def block(start: int) -> tuple[np.ndarray, np.ndarray]:
        rows = values[start : start + RANGE_BLOCK_ROWS]
        return _down_rows(rows, np.minimum), _down_rows(rows, np.fmax)

    parts = run_pieces(
        block,
        range(0, values.shape[0], RANGE_BLOCK_ROWS),
        in_threads=values.size >= PARALLEL_RANGE_VALUES,
    )
    lows, highs = zip(*parts, strict=True)
    return np.minimum.reduce(lows), np.fmax.reduce(highs)


def _dense_ranges(values: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(least, greatest, missing cells)`` down the rows.

    ``minimum`` keeps NaN and ``fmax`` skips it: only a table in which some least value
    comes out NaN has a missing cell, and only such a table is read again, for its
    ``fmin`` and its count of NaN, so a table without gaps costs the one pass."""
    low, high = _least_and_greatest(values)
    missing = np.zeros(values.shape[1])
    if np.isnan(low).any():
        low = _down_rows(values, np.fmin)
        missing = np.count_nonzero(np.isnan(values), axis=0).astype(np.float64)
    return low, high, missing


def column_ranges(X, weights=None) -> ColumnRecord:
    """Each column's least and greatest observed value and its missing cells.

    ``X`` is a validated input: a NumPy array, a DataFrame, a ``jax.Array`` (reduced on
    its device), MixedNB's columns (their DataFrame) or a SciPy sparse matrix. A sparse
    matrix records no range (NaN): it holds counts, whose models draw no negative value,
    and the column maxima of its stored entries cost a third of a MultinomialNB fit
    (0.12 s of 0.35 s at 200,000 x 100,000 with 20 M entries); its stored NaN are counted.
    Otherwise one pass over ``X`` (about 0.03 s for 1,000,000 x 50 float64), and a second
    when a cell is missing; the columns whose rows spread through ``X`` lie on a grid of
    few decimals (`bayesgen.recorded_grid`) are read once more to confirm it. A device
    array records no grid (NaN). ``weights`` (n_samples,): a row of weight ``w`` counts ``w``
    times, and a row of weight 0 is no row at all (as in the fit), in the range too.

    Returns
    -------
    ColumnRecord
    """
    n_rows, n_features = X.shape
    nothing = np.full(n_features, np.nan)
    if weights is not None:
        weights = np.asarray(weights, dtype=np.float64)
        if np.all(weights == 1.0):
            weights = None
    if weights is not None:
        return _weighted(np.asarray(X) if is_device_array(X) else X, weights, nothing)
    if sp.issparse(X):  # see the docstring
        return ColumnRecord(
            nothing, nothing.copy(), _sparse_missing(X), float(n_rows), nothing, nothing
        )
    if is_device_array(X):
        xp = X.__array_namespace__()
        if X.dtype.kind not in "iuf":
            return ColumnRecord(
                nothing, nothing.copy(), np.zeros(n_features), float(n_rows), nothing, nothing
            )
        with precision(X.dtype):  # a float64 array reduced as float64
            low, high = xp.nanmin(X, axis=0), xp.nanmax(X, axis=0)
            missing = xp.sum(xp.isnan(X), axis=0)
        return ColumnRecord(
            np.asarray(low, dtype=np.float64),
            np.asarray(high, dtype=np.float64),
            np.asarray(missing, dtype=np.float64),
            float(n_rows),
            nothing,
            nothing,
        )
    values, positions = _numeric_columns(X)
    low, high, decimals, step = nothing, nothing.copy(), nothing.copy(), nothing.copy()
    missing = _missing_outside(X, positions)
    if values.size:  # fmin and fmax skip NaN, and give NaN only for an all-missing column
        low[positions], high[positions], missing[positions] = _dense_ranges(values)
        decimals[positions], step[positions] = recorded_grid.grids(
            values, low[positions], high[positions], _precisions(X, positions)
        )
    return ColumnRecord(low, high, missing, float(n_rows), decimals, step)


def _precisions(X, positions: np.ndarray) -> np.ndarray:
    """The relative precision of each numeric column's type (float32 or float64)."""
    frame = underlying_table(X)
    if isinstance(frame, pd.DataFrame):
        return np.array([_precision_of(frame.dtypes.iloc[j]) for j in positions])
    return np.full(positions.shape[0], recorded_grid.precision_of(np.asarray(frame).dtype))


def _precision_of(dtype) -> float:
    """`recorded_grid.precision_of` a column's dtype, a pandas extension dtype by the NumPy
    dtype it holds (``Float32``: float32)."""
    try:
        return recorded_grid.precision_of(getattr(dtype, "numpy_dtype", dtype))
    except TypeError:  # a dtype NumPy does not know: its values are read as float64
        return recorded_grid.precision_of(np.float64)


def _weighted(X, weights: np.ndarray, nothing: np.ndarray) -> ColumnRecord:
    """`column_ranges` of rows with unequal weights: the range of the rows of positive
    weight, the missing cells and the rows summed with their weights."""
    total = float(weights.sum())
    if sp.issparse(X):
        return ColumnRecord(
            nothing, nothing.copy(), _sparse_missing(X, weights), total, nothing, nothing
        )
    rows = np.flatnonzero(weights > 0)
    table = underlying_table(X)
    taken = table.iloc[rows] if isinstance(table, pd.DataFrame) else np.asarray(table)[rows]
    low, high, _, _, decimals, step = column_ranges(taken)
    missing = weights @ missing_entries(table)
    return ColumnRecord(low, high, np.asarray(missing, dtype=np.float64), total, decimals, step)


def _sparse_missing(X, weights=None) -> np.ndarray:
    """The stored NaN of a sparse matrix per column, each weighted by its row's ``weights``
    (an absent entry is a zero, not missing)."""
    data = X.data
    if data.dtype.kind != "f" or not np.isnan(data).any():
        return np.zeros(X.shape[1])
    coo = X.tocoo()
    where = np.isnan(coo.data)
    row_weights = None if weights is None else weights[coo.row[where]]
    counts = np.bincount(coo.col[where], weights=row_weights, minlength=X.shape[1])
    return counts.astype(np.float64)


def _missing_outside(X, positions: np.ndarray) -> np.ndarray:
    """The missing cells of the columns of ``X`` not at ``positions`` (not numeric); a
    boolean or integer array has none."""
    frame = underlying_table(X)
    missing = np.zeros(X.shape[1])
    others = np.setdiff1d(np.arange(X.shape[1]), positions)
    if not others.size:
        return missing
    if not isinstance(frame, pd.DataFrame):
        array = np.asarray(frame)
        if array.dtype.kind in "biu":
            return missing
        frame = pd.DataFrame(array)
    missing[others] = frame.iloc[:, others].isna().sum().to_numpy(dtype=np.float64)
    return missing


def merged(a: ColumnRecord, b: ColumnRecord) -> ColumnRecord:
    """The record of the union of the rows behind two `column_ranges` results: no grid
    where either side recorded none (``step`` None), no missing cells where either side
    counted none (``n_missing`` None)."""
    decimals = step = None
    if a.step is not None and b.step is not None:
        decimals, step = recorded_grid.merged(
            (a.low, a.high, a.decimals, a.step), (b.low, b.high, b.decimals, b.step)
        )
    counted = a.n_missing is not None and b.n_missing is not None
    return ColumnRecord(
        np.fmin(a.low, b.low),
        np.fmax(a.high, b.high),
        a.n_missing + b.n_missing if counted else None,
        a.n_rows + b.n_rows if counted else None,
        decimals,
        step,
    )


def _ranged_columns(X, low: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(values as floats, positions)`` of the columns of drawn rows ``X`` that have a
    recorded range, whatever their dtype (a mixed table's draws may come as objects);
    a value that is no number is NaN."""
    positions = np.flatnonzero(np.isfinite(low))
    if not isinstance(X, pd.DataFrame):
        array = np.asarray(X)[:, positions]
        if array.dtype.kind in "iuf":  # the usual draws: no conversion
            return array.astype(np.float64, copy=False), positions
        X = pd.DataFrame(array)
        positions_in_frame = np.arange(positions.size)
    else:
        positions_in_frame = positions
    columns = X.iloc[:, positions_in_frame]
    values = columns.apply(lambda column: pd.to_numeric(column, errors="coerce"))
    return values.to_numpy(dtype=np.float64, na_value=np.nan), positions


def cells_outside(X, low: np.ndarray, high: np.ndarray) -> np.ndarray:
    """``(n_samples, n_features)`` mask of the cells of ``X`` outside ``[low, high]``
    (never set where the range is NaN or the cell missing)."""
    values, positions = _ranged_columns(X, low)
    outside = np.zeros(X.shape, dtype=bool)
    with np.errstate(invalid="ignore"):
        outside[:, positions] = (values < low[positions]) | (values > high[positions])
    return outside


def negative_where_never_negative(X, low: np.ndarray) -> np.ndarray:
    """``(n_samples, n_features)`` mask of the cells of ``X`` below 0 in columns whose
    training values were all non-negative."""
    values, positions = _ranged_columns(X, low)
    negative = np.zeros(X.shape, dtype=bool)
    with np.errstate(invalid="ignore"):
        negative[:, positions] = (values < 0) & (low[positions] >= 0)
    return negative


class OutsideTrainingRangeWarning(UserWarning):
    """Drawn rows hold values no training row had: below 0 in a column whose training
    values were all non-negative (a Gaussian's tail on areas, counts or prices)."""


#: ``sample(support="training")`` gives up on a row drawn this many times without falling
#: inside the training range: the model puts almost none of that class's mass there.
DRAW_BUDGET = 1000


def _take(X, rows: np.ndarray):
    return X.iloc[rows].reset_index(drop=True) if isinstance(X, pd.DataFrame) else X[rows]


def _stack(pieces: list):
    if isinstance(pieces[0], pd.DataFrame):
        return pd.concat(pieces, ignore_index=True)
    return np.concatenate(pieces)


def within(draw, n_rows: int, low: np.ndarray, high: np.ndarray):
    """``n_rows`` rows of the law truncated to the training range, by rejection.

    A row with any numeric cell outside ``[low, high]`` is drawn again; what ``draw``
    holds fixed between rounds (the caller keeps each row's class) stays fixed.

    Parameters
    ----------
    draw : callable
        ``draw(positions) -> (X, y)``: rows of the untruncated law for the rows at
        ``positions`` (an index array into the ``n_rows``; what is fixed per row, labels
        or given values, is taken at those positions).
    n_rows : int
    low, high : ndarray of shape (n_features,)

    Returns
    -------
    X, y
        Row ``i`` is the accepted draw for position ``i``.

    Raises
    ------
    ValueError
        When rows were drawn `DRAW_BUDGET` times each without falling inside, naming how
        many and the share of all draws accepted.
    """
    pending = np.arange(n_rows)
    kept_X, kept_y, kept_rows = [], [], []
    drawn = accepted = rounds = 0
    while pending.size:
        if rounds == DRAW_BUDGET:
            raise ValueError(
                f"support='training': {pending.size} of the {n_rows} rows were drawn "
                f"{DRAW_BUDGET} times each without falling inside the training range of "
                f"every column ({accepted} of all {drawn} draws did, {accepted / drawn:.2%}); "
                "the model puts almost none of their class's mass there. Use "
                "support='model', or a model whose columns respect their support."
            )
        rounds += 1
        X, y = draw(pending)
        X = at_single_values(X, low, high)
        inside = ~cells_outside(X, low, high).any(axis=1)
        drawn += pending.size
        accepted += int(inside.sum())
        kept_X.append(_take(X, np.flatnonzero(inside)))
        kept_y.append(np.asarray(y)[inside])
        kept_rows.append(pending[inside])
        pending = pending[~inside]
    order = np.argsort(np.concatenate(kept_rows), kind="stable")
    return _take(_stack(kept_X), order), np.concatenate(kept_y)[order]


def at_single_values(X, low: np.ndarray, high: np.ndarray):
    """Drawn rows ``X`` with every cell of a column whose training range is one value set
    to that value (a missing cell left). A continuous law truncated to ``[c - e, c + e]``
    tends to the point mass at ``c`` as ``e`` shrinks: the truncation to ``[c, c]``, which
    no continuous draw would reach by rejection."""
    single = np.flatnonzero(np.isfinite(low) & (low == high))
    if not single.size:
        return X
    if isinstance(X, pd.DataFrame):
        X = X.copy()
        for j in single:
            column = X.iloc[:, j]
            if pd.api.types.is_numeric_dtype(column) and not pd.api.types.is_bool_dtype(column):
                kept = column.where(column.isna(), low[j])
                X.isetitem(j, kept.astype(column.dtype))
        return X
    X = np.array(X)
    if X.dtype.kind not in "iuf":
        return X
    cells = X[:, single]
    X[:, single] = np.where(np.isnan(cells.astype(np.float64)), cells, low[single])
    return X


def warn_negative(X, low: np.ndarray, names, given=()) -> None:
    """Warn (`OutsideTrainingRangeWarning`) when drawn cells are negative in columns whose
    training values were all non-negative, naming them; the ``given`` column positions
    hold the caller's values, not draws, and are left out."""
    from bayesgen.validation import caller_stacklevel  # validation imports this module

    negative = negative_where_never_negative(X, low)
    negative[:, list(given)] = False
    if not negative.any():
        return
    columns = np.flatnonzero(negative.any(axis=0))
    shown = [str(names[j]) if names is not None else str(j) for j in columns[:5]]
    more = f" and {columns.size - 5} more" if columns.size > 5 else ""
    warnings.warn(
        f"{int(negative.sum())} of the {negative.size} drawn cells are negative in "
        f"{columns.size} column(s) whose training values were all >= 0 ({', '.join(shown)}"
        f"{more}): the model's law reaches below 0 there. sample(support='training') "
        "draws from the law truncated to the training range; a family that respects the "
        "support (MixedNB's lognormal, gamma or poisson columns) models such columns.",
        OutsideTrainingRangeWarning,
        stacklevel=caller_stacklevel(),
    )
