r"""Row counts rounded up to a few fixed sizes: a jitted kernel compiles a bounded number of times.

``jit`` compiles once per input shape. A kernel that takes all the rows (the jitted EM over
unlabelled rows) would compile again for every new row count, and each compiled program
stays in memory: a service seeing many batch sizes would compile without end and grow.
Rows are padded up to the next *bucket* instead, with rows that weigh nothing (zero
responsibilities and weights), so the result is that of the real rows.

The buckets are `MIN_ROWS` and then eight per doubling: $n$ is rounded up to a multiple of
$2^{\lfloor \log_2 (n - 1) \rfloor - 2}$, at most 12.5 % padding. Row counts from $m$ to
$2m$ thus share at most 9 compiled programs (2000 to 2199 rows: 2, the buckets 2048 and
2560).
"""

from __future__ import annotations

import numpy as np

MIN_ROWS = 64
"""Every row count up to this shares one bucket."""

BUCKETS_PER_DOUBLING = 8
"""How many buckets split each doubling of the row count."""


def bucket(n_rows: int) -> int:
    """The smallest bucket holding ``n_rows`` rows (`MIN_ROWS` at least).

    Examples
    --------
    >>> [bucket(n) for n in (1, 64, 65, 2000, 2048, 2049, 2199)]
    [64, 64, 72, 2048, 2048, 2304, 2304]
    """
    if n_rows <= MIN_ROWS:
        return MIN_ROWS
    # n in (2^(b-1), 2^b]: steps of 2^(b-1) / BUCKETS_PER_DOUBLING.
    per_doubling = BUCKETS_PER_DOUBLING.bit_length() - 1
    step = 1 << max(0, (n_rows - 1).bit_length() - 1 - per_doubling)
    return -(-n_rows // step) * step


def pad_rows(array: np.ndarray, n_rows: int, fill=None) -> np.ndarray:
    """``array`` with rows appended up to ``n_rows``: copies of ``fill`` (default zeros).

    Parameters
    ----------
    array : ndarray of shape (n, ...)
    n_rows : int
        At least ``n``.
    fill : array-like broadcastable to one row, optional
        The appended rows' value (a real row keeps padded data finite and in range).
    """
    missing = n_rows - array.shape[0]
    if missing == 0:
        return array
    rows = np.zeros((missing, *array.shape[1:]), dtype=array.dtype)
    if fill is not None:
        rows[...] = fill
    return np.concatenate([array, rows])
