"""Arithmetic written over an array that nothing else holds.

An EM evaluates its rows at every iteration, and each step of a latent class model made
several new rows x (classes x components) arrays. A new array of a few megabytes is memory
the C library maps afresh, and on this project's 2-core machine (a virtual machine that
takes freed memory back) writing it cost about 7 microseconds a page: `TableSynthesizer`'s
fit of randhie spent about 7 of its 24 s so (17 s with the C library told to keep freed
memory, the same draws). Writing the log-likelihood's terms over the array that holds them
saved about 0.7 s of it; most of the rest was the sparse products' results
(`bayesgen.sparse_rows.times`).
"""

from __future__ import annotations

import numpy as np


def add_in_place(total: np.ndarray, term, operation=np.add) -> np.ndarray:
    """``operation(total, term)``, written over ``total`` where ``numpy.result_type`` of
    the two is ``total``'s dtype and the broadcast shape is its shape, else a new array.
    The values are those of the new array in either case.

    Parameters
    ----------
    total : ndarray
        An array nothing else holds (the caller's own, just made).
    term : array-like
        Broadcast against ``total``.
    operation : numpy.ufunc, default=numpy.add
        A binary ufunc (`numpy.subtract`, ...).

    Returns
    -------
    ndarray
        ``total`` itself, or a new array where ``operation`` widens its dtype or shape or
        ``total`` cannot be written.
    """
    fits = (
        total.flags.writeable
        and np.result_type(total, term) == total.dtype
        and np.broadcast(total, term).shape == total.shape
    )
    return operation(total, term, out=total) if fits else operation(total, term)
