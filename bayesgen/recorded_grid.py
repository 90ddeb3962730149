r"""The grid each numeric column was recorded on: whole millimetres, two decimals, 25 g.

Real tables hold measurements rounded when they were written down: a flipper length in
whole millimetres, a body mass to 25 g, a price in cents. A continuous model draws
values between those, and a detector tells the synthetic rows apart by that alone (on
the Palmer penguins, whole-millimetre flipper lengths against unrounded draws reach a
single-column AUC of 0.76). SDV rounds its draws to the training data's decimals for the
same reason (``enforce_rounding``).

A column's grid is $\{\text{low} + k\,\text{step}\}$, ``low`` its least training value:

- its *decimals* $d$ are the fewest (at most `MAX_DECIMALS`) with which every value is a
  decimal, up to the precision of the values' floating-point type (0.30000000000000004 is
  0.3; 0.500000005 has nine decimals); a value must also be large enough in units of
  $10^{-d}$ to tell from its neighbours in that type (`RESOLVED`);
- its *step* is the greatest common divisor of the values' distances from ``low`` in units
  of $10^{-d}$: body masses 2700, 2725, 3150, … g give 25, bill lengths 33.1, 43.7, …
  mm give 0.1, values 0.5, 1.5, 2.5 give 1.

A column needing more decimals lies on no grid (decimals and step NaN); a column of one
value has step 0.
"""

from __future__ import annotations

import numpy as np

#: Most decimals a recorded value may have; a column needing more lies on no grid.
MAX_DECIMALS = 10

#: A value's floating-point error may be at most this share of a unit of $10^{-d}$: larger
#: values (1e13 units in float64, about 2e4 in float32) cannot be told to be on a grid.
RESOLVED = 0.01

#: How far, relative to its size, a value may be from a decimal and be that decimal: a few
#: units of the last place of its type, added to float64's own error in scaling it.
_ULPS = 4

#: Rows, spread through the table, that propose each column's decimals and step.
_PROBE_ROWS = 256

#: Rows of the probe that first rule out columns on no grid.
_FIRST_ROWS = 8

#: Rows per step of the confirming pass: its temporaries stay in the processor's cache.
_CHUNK_ROWS = 4096

_FLOAT64_ERROR = _ULPS * float(np.finfo(np.float64).eps)


def precision_of(dtype) -> float:
    """The relative precision of values stored in ``dtype`` (float32 coarser than the
    float64 every other numeric type converts to exactly)."""
    dtype = np.dtype(dtype)
    if dtype.kind == "f" and dtype.itemsize < 8:
        return _ULPS * float(np.finfo(dtype).eps)
    return _FLOAT64_ERROR


def _off_decimals(values: np.ndarray, decimals: np.ndarray, precision: np.ndarray):
    """Per column: whether some value (NaN skipped) is no decimal with ``decimals`` places,
    or too large to resolve at that many (`RESOLVED`). ``values`` (rows x columns); a value
    that overflows when scaled (1e300) is too large, without a warning."""
    with np.errstate(over="ignore", invalid="ignore"):
        scaled = values * 10.0**decimals
        allowed = (precision + _FLOAT64_ERROR) * np.abs(scaled)
        off = (np.abs(scaled - np.rint(scaled)) > allowed) | (allowed > RESOLVED)
    return off.any(axis=0)


def fewest_decimals(values: np.ndarray, precision, at_least=None) -> np.ndarray:
    """Per column of ``values`` (rows x columns; NaN skipped), the fewest decimals that
    write every value as a decimal at ``precision`` (per column), or -1; ``at_least``
    (per column): decimals known to be needed (those of some of the values), or -1 for a
    column known to need too many."""
    values = np.asarray(values, dtype=np.float64)
    precision = np.broadcast_to(np.asarray(precision, dtype=np.float64), (values.shape[1],))
    found = np.full(values.shape[1], -1)
    start = np.zeros(values.shape[1], dtype=np.int64) if at_least is None else at_least
    undecided = np.flatnonzero(start >= 0)
    for decimals in range(MAX_DECIMALS + 1):
        trying = undecided[start[undecided] <= decimals]
        fits = ~_off_decimals(values[:, trying], float(decimals), precision[trying])
        found[trying[fits]] = decimals
        undecided = np.setdiff1d(undecided, trying[fits], assume_unique=True)
        if not undecided.size:
            break
    return found


def _units(values, decimals) -> np.ndarray:
    """``values`` in whole units of $10^{-d}$ (int64; NaN becomes 0)."""
    scaled = np.rint(np.asarray(values, dtype=np.float64) * 10.0 ** np.asarray(decimals))
    return np.where(np.isnan(scaled), 0.0, scaled).astype(np.int64)


def _off_grid(values, low, decimals, unit_step, precision) -> np.ndarray:
    """Per column: whether some value of ``values`` (rows x columns; NaN skipped) is not
    ``low + k step`` with ``step`` ``unit_step`` units of $10^{-d}$. One pass, a chunk of
    rows at a time."""
    scale = 10.0**decimals
    origin = _units(low, decimals).astype(np.float64)
    step = unit_step.astype(np.float64)
    off = np.zeros(values.shape[1], dtype=bool)
    tolerance = precision + _FLOAT64_ERROR
    for start in range(0, values.shape[0], _CHUNK_ROWS):
        scaled = values[start : start + _CHUNK_ROWS] * scale
        allowed = np.abs(scaled)
        np.multiply(allowed, tolerance, out=allowed)
        np.subtract(scaled, origin, out=scaled)
        distance = np.divide(scaled, step)
        np.rint(distance, out=distance)
        np.multiply(distance, step, out=distance)
        np.subtract(scaled, distance, out=scaled)
        np.abs(scaled, out=scaled)
        with np.errstate(invalid="ignore"):
            off |= (scaled > allowed).any(axis=0)
    return off


def _probe(values: np.ndarray) -> np.ndarray:
    """`_PROBE_ROWS` rows spread through ``values`` (sorted or grouped tables too)."""
    if values.shape[0] <= _PROBE_ROWS:
        return values
    return values[np.linspace(0, values.shape[0] - 1, _PROBE_ROWS).astype(np.int64)]


def grids(values: np.ndarray, low, high, precision) -> tuple[np.ndarray, np.ndarray]:
    """``(decimals, step)`` of each column (module docstring).

    Rows spread through the table propose each column's decimals and step; one pass over
    all rows confirms them, and a column whose other rows leave its proposed grid is
    worked out from all its values.

    Parameters
    ----------
    values : ndarray of shape (n_samples, n_columns)
        Numeric columns as float64; NaN is a missing cell.
    low, high : ndarray of shape (n_columns,)
        Each column's least and greatest observed value (NaN where it has none).
    precision : float or ndarray of shape (n_columns,)
        The relative precision of each column's type (`precision_of`).

    Returns
    -------
    decimals, step : ndarray of shape (n_columns,)
        NaN for a column on no grid or with no observed value; step 0 for a column of
        one value (whose decimals are NaN when it needs more than `MAX_DECIMALS`).
    """
    n_columns = values.shape[1]
    precision = np.broadcast_to(np.asarray(precision, dtype=np.float64), (n_columns,))
    ends = np.vstack([low, high])
    probe = np.vstack([_probe(values), ends])
    # A few rows rule out most columns on no grid (values in full precision) cheaply.
    few = fewest_decimals(np.vstack([probe[:_FIRST_ROWS], ends]), precision)
    proposed = fewest_decimals(probe, precision, at_least=few).astype(np.float64)
    proposed[np.isnan(low)] = -1
    decimals = np.where(proposed >= 0, proposed, np.nan)
    step = np.full(n_columns, np.nan)
    step[np.isfinite(low) & (low == high)] = 0.0
    columns = np.flatnonzero((proposed >= 0) & (low != high))
    if columns.size:
        places = proposed[columns]
        origin = _units(low[columns], places)
        units = np.where(np.isnan(probe[:, columns]), 0, _units(probe[:, columns], places) - origin)
        unit_step = np.gcd.reduce(units, axis=0)
        table = values if columns.size == n_columns else values[:, columns]
        off = _off_grid(table, low[columns], places, unit_step, precision[columns])
        step[columns] = unit_step / 10.0**places
        for column in columns[off]:  # a row the probe missed: every value of the column
            decimals[column], step[column] = _whole_column(values[:, column], precision[column])
    return decimals, step


def _whole_column(column: np.ndarray, precision: float) -> tuple[float, float]:
    """``(decimals, step)`` of one column from every value (`grids`)."""
    places = int(fewest_decimals(column[:, None], precision)[0])
    if places < 0:
        return np.nan, np.nan
    observed = column[~np.isnan(column)]
    units = _units(observed, places)
    return float(places), float(np.gcd.reduce(units - units.min())) / 10.0**places


def merged(a: tuple, b: tuple) -> tuple[np.ndarray, np.ndarray]:
    """``(decimals, step)`` of the union of two sets of rows, from each one's
    ``(low, high, decimals, step)`` per column: the greater decimals, and the greatest
    common divisor of both steps and of the distance between the lows, in units of
    $10^{-d}$. A side with no observed value adds nothing; a side on no grid leaves the
    union on none. Values are taken at float64's precision (`RESOLVED`)."""
    low_a, high_a, decimals_a, step_a = (np.asarray(part, dtype=np.float64) for part in a)
    low_b, high_b, decimals_b, step_b = (np.asarray(part, dtype=np.float64) for part in b)
    only_a, only_b = np.isnan(low_b), np.isnan(low_a)
    decimals = np.where(only_a, decimals_a, np.where(only_b, decimals_b, np.nan))
    step = np.where(only_a, step_a, np.where(only_b, step_b, np.nan))
    same = ~only_a & ~only_b & (step_a == 0) & (step_b == 0) & (low_a == low_b)
    decimals[same], step[same] = decimals_a[same], 0.0
    both = ~only_a & ~only_b & ~same & np.isfinite(step_a + step_b + decimals_a + decimals_b)
    for column in np.flatnonzero(both):
        places = max(decimals_a[column], decimals_b[column])
        largest = max(abs(low_a[column]), abs(low_b[column]), abs(high_a[column]))
        if 2 * _FLOAT64_ERROR * max(largest, abs(high_b[column])) * 10.0**places > RESOLVED:
            continue
        lows = _units([low_a[column], low_b[column]], places)
        pair = _units([step_a[column], step_b[column]], places)
        divisor = np.gcd.reduce(np.append(pair, abs(int(lows[0]) - int(lows[1]))))
        decimals[column], step[column] = places, divisor / 10.0**places
    return decimals, step


def snapped(values, low, high, decimals, step) -> np.ndarray:
    """``values`` (rows x columns, float) moved to the nearest point of each column's grid,
    written with the grid's decimals (the grid's ends are the training ``low`` and
    ``high`` themselves, so a value inside the range stays inside). A column of step NaN
    and a missing cell are left as they are; a column of step 0 holds ``low``."""
    values = np.array(values, dtype=np.float64)
    for column in np.flatnonzero(np.isfinite(step) & np.isfinite(low)):
        cells = values[:, column]
        if step[column] == 0:
            values[:, column] = np.where(np.isnan(cells), np.nan, low[column])
            continue
        places = decimals[column]
        origin, top = _units([low[column], high[column]], places)
        unit = _units(step[column], places)
        with np.errstate(invalid="ignore", over="ignore"):
            k = np.rint((cells * 10.0**places - origin) / unit)
            moved = (origin + k * unit) / 10.0**places
        moved[k == 0] = low[column]
        moved[k == (top - origin) // unit] = high[column]
        values[:, column] = np.where(np.isfinite(cells), moved, cells)
    return values


def on_grid(X, low, high, decimals, step, kept=()):
    """Drawn rows ``X`` with each numeric column moved onto its grid (`snapped`), except
    the columns at positions ``kept`` (values the caller gave, not draws).

    A NumPy array of numbers keeps its dtype (a whole-number column on a whole grid stays
    whole); a DataFrame keeps its index, columns and dtypes, and its columns that are not
    numbers as they are. Other arrays (objects) have no recorded grid and come back as
    they are.
    """
    import pandas as pd

    columns = [j for j in np.flatnonzero(np.isfinite(step) & np.isfinite(low)) if j not in kept]
    if not columns:
        return X
    grid = (low[columns], high[columns], decimals[columns], step[columns])
    if isinstance(X, pd.DataFrame):
        X = X.copy()
        for position, j in enumerate(columns):
            dtype = X.dtypes.iloc[j]
            if not pd.api.types.is_numeric_dtype(dtype) or pd.api.types.is_bool_dtype(dtype):
                continue
            cells = X.iloc[:, j].to_numpy(dtype=np.float64, na_value=np.nan)[:, None]
            moved = snapped(cells, *(part[[position]] for part in grid))[:, 0]
            X.isetitem(j, pd.Series(moved, index=X.index).astype(dtype))
        return X
    if not isinstance(X, np.ndarray) or X.dtype.kind not in "iuf":
        return X
    moved = X.astype(np.float64)
    moved[:, columns] = snapped(moved[:, columns], *grid)
    return moved.astype(X.dtype)
