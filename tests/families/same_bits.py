"""Pytrees of arrays compared bit for bit (a fast path must give a slow path's bits)."""

import numpy as np

from bayesgen.families.namespace import tree_leaves


def assert_same_bits(a, b) -> None:
    """Every leaf of ``a`` has the dtype, shape and bytes of ``b``'s (NaN and -0.0 too)."""
    a_leaves, b_leaves = tree_leaves(a), tree_leaves(b)
    assert len(a_leaves) == len(b_leaves) > 0
    for x, y in zip(a_leaves, b_leaves, strict=True):
        x, y = np.ascontiguousarray(x), np.ascontiguousarray(y)
        assert x.dtype == y.dtype and x.shape == y.shape
        np.testing.assert_array_equal(x.view(np.uint8), y.view(np.uint8))
