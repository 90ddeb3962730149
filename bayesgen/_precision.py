"""Choosing and scoping the floating-point precision of a computation.

JAX computes in float32 unless its global ``jax_enable_x64`` flag is on. bayesgen never
changes that flag: it honours the precision of the *input* by entering JAX's scoped x64
context around each computation, so float64 data are fitted and scored in float64 and
float32 data in float32, whatever the user's global configuration.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import jax
import numpy as np


def compute_dtype(*dtypes: np.dtype | type) -> np.dtype:
    """The floating dtype a computation over arrays of ``dtypes`` runs in.

    Parameters
    ----------
    *dtypes : numpy dtypes
        Dtypes of the arrays taking part.

    Returns
    -------
    numpy.dtype
        ``float64`` if any of them is float64 (or a non-float type, which NumPy would
        promote to float64), otherwise ``float32``.
    """
    for dtype in dtypes:
        dtype = np.dtype(dtype)
        if dtype != np.float32 and dtype != np.float16:
            return np.dtype(np.float64)
    return np.dtype(np.float32)


@contextmanager
def precision(dtype: np.dtype | type) -> Iterator[None]:
    """Run the enclosed JAX code in the precision of ``dtype``.

    Parameters
    ----------
    dtype : numpy dtype
        ``float64`` enables JAX's x64 mode inside the block (scoped, thread-local);
        anything else disables it inside the block.
    """
    with jax.enable_x64(np.dtype(dtype) == np.float64):
        yield
