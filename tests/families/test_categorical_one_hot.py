"""`CategoricalFamily.one_hot`, built as CSR directly, against a dense one-hot of each
column's codes."""

import numpy as np
import pytest
import scipy.sparse as sp

from bayesgen.families.categorical import CategoricalFamily


def _dense_one_hot(codes, sizes):
    """Each column's codes as rows of an identity of its size, side by side; -1 a zero row."""
    blocks = []
    for j, size in enumerate(sizes):
        block = np.zeros((codes.shape[0], size))
        observed = codes[:, j] >= 0
        block[np.flatnonzero(observed), codes[observed, j]] = 1.0
        blocks.append(block)
    return np.hstack(blocks) if blocks else np.zeros((codes.shape[0], 0))


@pytest.mark.parametrize("missing", [0.0, 0.3, 1.0])
@pytest.mark.parametrize("n_rows", [0, 1, 257])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_one_hot_is_each_columns_identity_rows_side_by_side(missing, n_rows, dtype):
    sizes = (3, 1, 6, 2)
    rng = np.random.default_rng(n_rows)
    codes = np.stack([rng.integers(0, size, n_rows) for size in sizes], axis=1)
    codes[rng.random(codes.shape) < missing] = -1
    one_hot = CategoricalFamily(sizes=sizes).one_hot(codes, dtype)
    assert sp.issparse(one_hot) and one_hot.format == "csr" and one_hot.dtype == dtype
    assert one_hot.nnz == np.count_nonzero(codes >= 0)  # no stored zeros for missing codes
    assert one_hot.has_sorted_indices
    np.testing.assert_array_equal(one_hot.toarray(), _dense_one_hot(codes, sizes))


def test_no_columns_give_an_empty_one_hot():
    one_hot = CategoricalFamily(sizes=()).one_hot(np.zeros((4, 0), dtype=np.int64))
    assert one_hot.shape == (4, 0) and one_hot.nnz == 0
