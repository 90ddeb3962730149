r"""How the rows with missing entries are laid out for scoring: two passes, in threads.

The first pass reads the rows in place, a block at a time: it sets each block's missing
entries to the shift, takes its matrix products, and keeps what the second pass needs of
each missing entry (its column, its entries of the products) in one flat array, row after
row. The second pass takes the rows by their number $m$ of missing entries, in stacks of
rows with the same $m$, whose $m \times m$ blocks it factors together (`small_blocks`).
So no sorted copy of the rows is made, and each block and each stack is one piece of work
that writes only its own rows: the pieces of each pass run in threads
(`bayesgen._parallel`).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from bayesgen._parallel import run_pieces

#: Values of a block of rows' products in the first pass (cache-sized).
BLOCK_VALUES = 2**20

#: Values of a stack (blocks and right-hand sides) factored at once in the second pass.
STACK_VALUES = 2**20

#: Fewest rows for which the blocks and stacks are spread over threads.
PARALLEL_ROWS = 8_192


def block_starts(n_samples: int, values_per_row: int) -> tuple[range, int]:
    """``(starts, rows)``: the first rows of blocks of ``rows`` rows each, sized for
    `BLOCK_VALUES` values of ``values_per_row`` per row."""
    rows = max(1, BLOCK_VALUES // max(1, values_per_row))
    return range(0, n_samples, rows), rows


class Gaps(NamedTuple):
    """Where the missing (NaN) entries of a table are, row after row.

    Attributes
    ----------
    counts : ndarray of int of shape (n_samples,)
        Missing entries per row.
    starts : ndarray of int of shape (n_samples + 1,)
        Where each row's entries begin in the per-entry arrays (and where the last ends).
    columns : ndarray of int of shape (n_missing,)
        The entries' columns, row after row: written by `filled_block`, block by block.
    """

    counts: np.ndarray
    starts: np.ndarray
    columns: np.ndarray


def counted_gaps(X: np.ndarray, blocks: range, size: int, *, in_threads: bool) -> Gaps:
    """`Gaps` of ``X`` (n_samples, n_features) with ``columns`` still to be written: the
    missing entries counted block by block (the blocks of rows ``size`` long that start
    at ``blocks``), in threads."""
    counts = np.empty(X.shape[0], dtype=np.intp)

    def count(start: int) -> None:
        rows = slice(start, start + size)
        counts[rows] = np.count_nonzero(np.isnan(X[rows]), axis=1)

    run_pieces(count, blocks, in_threads=in_threads)
    starts = np.zeros(X.shape[0] + 1, dtype=np.intp)
    np.cumsum(counts, out=starts[1:])
    return Gaps(counts, starts, np.empty(starts[-1], dtype=np.intp))


def filled_block(X: np.ndarray, start: int, size: int, shift: np.ndarray, gaps: Gaps):
    """``(filled, at)`` of the block of rows ``start`` to ``start + size``: its rows less
    ``shift`` in float64 with 0 at the missing entries, and their flat positions in it.
    Records the block's missing columns in ``gaps.columns``.

    Setting the positions is a scatter, not a masked pass over the block.
    """
    block = X[start : start + size]
    at = np.flatnonzero(np.isnan(block))  # C-order positions, whatever the block's order
    # C order whatever the block's (a DataFrame's values are Fortran): the flat positions
    # are C-order ones, and a view is what the scatter must write into.
    filled = np.subtract(block, shift, dtype=np.float64, order="C")
    filled.ravel()[at] = 0.0
    stop = start + block.shape[0]
    gaps.columns[gaps.starts[start] : gaps.starts[stop]] = at % X.shape[1]
    return filled, at


def stacks(counts: np.ndarray, n_features: int, values_per_row) -> list:
    """``[(m, rows), ...]``: the rows with ``0 < m < n_features`` missing entries, by
    ``m``, in stacks of at most `STACK_VALUES` // ``values_per_row(m)`` rows."""
    # Small counts sort by radix: a few times faster than a comparison sort of intp.
    order = np.argsort(counts.astype(np.min_scalar_type(n_features)), kind="stable")
    bounds = np.searchsorted(counts[order], np.arange(n_features + 1))
    found = []
    for m in range(1, n_features):
        size = max(1, STACK_VALUES // values_per_row(m))
        for start in range(bounds[m], bounds[m + 1], size):
            found.append((m, order[start : min(start + size, bounds[m + 1])]))
    return found


def entries(gaps: Gaps, rows: np.ndarray, m: int) -> np.ndarray:
    """Positions (m, rows) in `Gaps`' per-entry arrays of the ``m`` missing entries of
    each of ``rows``."""
    return gaps.starts[rows] + np.arange(m)[:, None]
