r"""Columns recorded on a set of values, and draws moved onto them.

Some numeric columns take a few values that no grid explains: the logarithm of a
whole-number count, years of schooling coded 9, 12, 14, 16, 17 and 20, the populations of
the few places a survey's respondents live in. A continuous model draws between those
values, and a detector tells the synthetic rows apart by that alone; rounding a draw to the
column's grid (`bayesgen.recorded_grid`) does not help where the values are a set.

A column is a **set of values** when

1. at least half of its distinct values repeat (the median count of a value at least 2),
   and
2. its recorded grid does not explain that (`grid_explains`): $n$ rows of a smooth law on
   the grid's $P$ points leave about $U = \sum_j (1 - \tilde p_j)^n$ of them untaken,
   $\tilde p$ the column's frequencies smoothed over the grid (a Gaussian kernel of
   Silverman's width, at least one step). The grid explains the column when its distinct
   values are at least `GRID_SHARE` of the $P - U$ such rows take, and the points it left
   untaken at most `GAP_FACTOR` times $U$, plus `GAP_SLACK`. (On a grid of more than
   `MAX_GRID_POINTS` points, the first test is against $P\,(1 - e^{-n/P})$, the distinct
   values of an even spread.)

Body masses to 25 g in a few hundred rows repeat because of their grid and leave grid points
untaken by chance, which a new row may fill: the grid rounds their draws. Years of schooling
in thousands of rows take half of the points of their grid and leave points between taken
ones that a smooth law would fill: a set. `nearest_values` moves a draw onto the nearest
value of its column's set.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import signal

from bayesgen import recorded_grid

#: The share of the distinct values a smooth law on a column's grid would show at and above
#: which the grid explains the column's repeats.
GRID_SHARE = 0.6

#: How many times the untaken grid points a smooth law would leave, plus `GAP_SLACK`, a
#: column may leave untaken and still be explained by its grid.
GAP_FACTOR = 2.0
GAP_SLACK = 2.0

#: Grids of more points than this are not laid out: their gaps are not counted (a column
#: on such a grid is explained only if its distinct values are about as many as its rows).
MAX_GRID_POINTS = 100_000


def value_sets(X: pd.DataFrame) -> dict:
    """Each numeric column of ``X`` recorded on a set of values -> its sorted distinct
    values (float64).

    Parameters
    ----------
    X : pandas.DataFrame

    Returns
    -------
    dict
        Column name -> ndarray of its distinct observed values; only the columns that are
        sets (module docstring). Boolean and non-numeric columns are never sets.
    """
    sets = {}
    for column in X.columns:
        values = X[column]
        if not pd.api.types.is_numeric_dtype(values) or pd.api.types.is_bool_dtype(values):
            continue
        observed = values.dropna().to_numpy(dtype=np.float64)
        distinct, counts = np.unique(observed, return_counts=True)
        if not distinct.size or np.median(counts) < 2:
            continue
        if not grid_explains(observed, distinct, counts, _precision(values.dtype)):
            sets[column] = distinct
    return sets


def grid_explains(
    observed: np.ndarray, distinct: np.ndarray, counts: np.ndarray, precision: float
) -> bool:
    """Whether a column's recorded grid explains its distinct values (module docstring).

    Parameters
    ----------
    observed : ndarray of shape (n,)
        The column's observed values.
    distinct, counts : ndarray of shape (m,)
        Its sorted distinct values and how many rows hold each.
    precision : float
        The relative precision of the column's type (`bayesgen.recorded_grid.precision_of`).

    Returns
    -------
    bool
        False for a column on no grid or of one value.
    """
    if distinct.size < 2:
        return False
    _, step = recorded_grid.grids(observed[:, None], distinct[:1], distinct[-1:], precision)
    if not step[0] > 0:
        return False
    points = int(round((distinct[-1] - distinct[0]) / step[0])) + 1
    if points > MAX_GRID_POINTS:  # an even spread's distinct values: about n on such a grid
        return distinct.size >= GRID_SHARE * points * -np.expm1(-observed.size / points)
    untaken = _untaken_by_smooth_law(observed, distinct, counts, step[0], points)
    return (
        distinct.size >= GRID_SHARE * (points - untaken)
        and points - distinct.size <= GAP_FACTOR * untaken + GAP_SLACK
    )


def _untaken_by_smooth_law(observed, distinct, counts, step, points) -> float:
    r"""$\sum_j (1 - \tilde p_j)^n$: the grid points $n$ rows of the column's frequencies,
    smoothed over the grid by a Gaussian kernel of Silverman's width, leave untaken."""
    on_grid = np.zeros(points)
    on_grid[np.round((distinct - distinct[0]) / step).astype(np.int64)] = counts
    spread = np.std(observed)
    quartiles = np.subtract(*np.quantile(observed, [0.75, 0.25])) / 1.34
    if quartiles > 0:
        spread = min(spread, quartiles)
    width = max(1.0, 0.9 * spread * observed.size**-0.2 / step)
    reach = int(np.ceil(4 * width))
    kernel = np.exp(-0.5 * (np.arange(-reach, reach + 1) / width) ** 2)
    smoothed = signal.oaconvolve(on_grid, kernel)[reach : reach + points]
    share = np.clip(smoothed / smoothed.sum(), 0.0, 1.0)  # the FFT's rounding below 0
    return float(np.exp(observed.size * np.log1p(-share)).sum())


def _precision(dtype) -> float:
    """The relative precision of a column's values: its float type's, else float64's."""
    dtype = np.dtype(getattr(dtype, "numpy_dtype", dtype))
    return recorded_grid.precision_of(dtype if dtype.kind == "f" else np.float64)


def nearest_values(rows: pd.DataFrame, sets: dict, kept) -> pd.DataFrame:
    """``rows`` with each value of a column in ``sets`` (not in ``kept``) inside the
    column's training range replaced by the nearest of its training values (the lower one
    at an exact midpoint).

    Values outside the range (drawn with ``support="model"``) and missing cells stay as
    they are, and each column keeps its dtype.

    Parameters
    ----------
    rows : pandas.DataFrame
    sets : dict
        Column -> its sorted values (`value_sets`).
    kept : collection
        Columns left as they are (the values given to ``sample``).

    Returns
    -------
    pandas.DataFrame
        A copy of ``rows``.
    """
    rows = rows.copy()
    for column, values in sets.items():
        if column in kept or column not in rows.columns:
            continue
        x = rows[column].to_numpy(dtype=np.float64, na_value=np.nan)
        if values.size == 1:
            nearest = np.full(x.shape, values[0])
        else:
            above = np.clip(np.searchsorted(values, x), 1, values.size - 1)
            low, high = values[above - 1], values[above]
            nearest = np.where(x - low <= high - x, low, high)
        inside = (x >= values[0]) & (x <= values[-1])  # False where x is NaN
        snapped = np.where(inside, nearest, x)
        rows[column] = pd.Series(snapped, index=rows.index).astype(rows[column].dtype)
    return rows
