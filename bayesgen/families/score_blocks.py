"""A family's class log-densities of rows, a block of rows at a time: `ScoreBlocks`."""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import numpy as np


class ScoreBlocks(NamedTuple):
    """How a family scores the rows it was given a block at a time
    (`FeatureFamily.score_blocks`), so that a caller can finish each block (add the class
    prior, normalise) while it is still in the processor's cache.

    Attributes
    ----------
    score : callable
        ``score(rows)``, ``rows`` a slice of at most ``block_rows`` rows: a new writeable
        ``(n_classes, rows)`` array, the transpose of those rows' ``log_likelihood``. Safe
        to call on two blocks at once (it reads shared inputs only).
    block_rows : int
        Rows per block.
    in_threads : bool
        Whether the blocks are worth running side by side in threads.
    n_rows : int
    n_classes : int
    dtype : numpy.dtype
        The scores' dtype.
    """

    score: Callable[[slice], np.ndarray]
    block_rows: int
    in_threads: bool
    n_rows: int
    n_classes: int
    dtype: np.dtype
