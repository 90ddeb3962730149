"""A CSR matrix multiplied in ranges of rows gives the products SciPy gives whole."""

import numpy as np
import pytest
import scipy.sparse as sp

import bayesgen
from bayesgen import sparse_rows
from bayesgen.joint import sparse_responsibilities


def _three_threads(monkeypatch):
    """Three pieces, run in three threads whatever the machine's BLAS allows."""
    from bayesgen import _parallel

    monkeypatch.setattr(sparse_rows, "thread_count", lambda: 3)
    monkeypatch.setattr(_parallel, "thread_count", lambda: 3)


@pytest.fixture
def in_pieces(monkeypatch):
    """Cut matrices of a few dozen stored values into three pieces."""
    monkeypatch.setattr(sparse_rows, "PIECE_VALUES", 16)
    _three_threads(monkeypatch)


def _counts(n_rows=40, n_features=12, seed=0):
    rng = np.random.default_rng(seed)
    dense = rng.poisson(0.4, size=(n_rows, n_features)) * rng.uniform(0.5, 2.0, (n_rows, 1))
    dense[5:9] = 0.0  # empty rows, cut between as any others
    return sp.csr_matrix(dense)


def test_cuts_split_the_stored_values_evenly(in_pieces):
    X = _counts(n_rows=300)
    cuts = sparse_rows.row_cuts(X)
    assert cuts[0] == 0 and cuts[-1] == X.shape[0] and np.all(np.diff(cuts) >= 0)
    assert cuts.size == 4
    shares = np.diff(X.indptr[cuts])
    assert shares.sum() == X.nnz
    assert shares.max() - shares.min() <= 2 * np.diff(X.indptr).max()


def test_small_and_csc_matrices_are_one_piece(in_pieces, monkeypatch):
    assert sparse_rows.row_cuts(_counts().tocsc()).tolist() == [0, 40]
    monkeypatch.setattr(sparse_rows, "PIECE_VALUES", 10**9)
    assert sparse_rows.row_cuts(_counts()).tolist() == [0, 40]


@pytest.mark.parametrize("layout", ["csr", "csc"])
def test_product_in_pieces_equals_the_whole_product(in_pieces, layout):
    X = _counts().asformat(layout)
    matrix = np.random.default_rng(1).normal(size=(12, 5))
    product = sparse_rows.times(X, matrix)
    np.testing.assert_allclose(product, X.toarray() @ matrix, rtol=1e-13, atol=1e-13)
    assert product.shape == (40, 5)
    assert product.T.flags.c_contiguous  # laid out column by column


@pytest.mark.parametrize("layout", ["csr", "csc"])
def test_weighted_sums_in_pieces_equal_the_whole_sum(in_pieces, monkeypatch, layout):
    X = _counts(n_rows=200).asformat(layout)
    rng = np.random.default_rng(2)
    labels, weights = rng.integers(0, 3, 200), rng.uniform(0.1, 3.0, 200)
    R = sparse_responsibilities(labels, weights, 3)
    pieces = []
    real = sparse_rows.run_pieces
    monkeypatch.setattr(sparse_rows, "run_pieces", lambda f, p: pieces.append(p) or real(f, p))
    sums = sparse_rows.weighted_sums(R, X)
    np.testing.assert_allclose(sums, R.toarray().T @ X.toarray(), rtol=1e-13)
    assert isinstance(sums, np.ndarray) and sums.dtype == X.dtype
    assert len(pieces) == (1 if layout == "csr" else 0)  # a CSC matrix is one piece


def test_pieces_are_views_of_the_values_and_64_bit_indices():
    """SciPy's constructor narrows 64-bit indices that fit in 32 bits (a copy of every
    index); a piece keeps X's own arrays."""
    X = _counts(n_rows=60)
    X.indices, X.indptr = X.indices.astype(np.int64), X.indptr.astype(np.int64)
    piece = sparse_rows._row_range(X, 10, 50)
    assert piece.indices.dtype == np.int64
    assert np.shares_memory(piece.indices, X.indices) and np.shares_memory(piece.data, X.data)
    np.testing.assert_array_equal(piece.toarray(), X.toarray()[10:50])


def test_partial_sums_larger_than_the_data_are_not_made(in_pieces, monkeypatch):
    """Many classes: one piece, however many stored values, rather than a (classes x
    features) array per piece."""
    X = _counts()
    R = sparse_responsibilities(np.arange(40), np.ones(40), 40)
    pieces = []
    real = sparse_rows.run_pieces
    monkeypatch.setattr(sparse_rows, "run_pieces", lambda f, p: pieces.append(p) or real(f, p))
    np.testing.assert_array_equal(sparse_rows.weighted_sums(R, X), X.toarray())
    assert pieces == []


@pytest.mark.parametrize("model", [bayesgen.MultinomialNB, bayesgen.BernoulliNB])
def test_naive_bayes_fits_and_scores_alike_in_pieces(monkeypatch, model):
    X = _counts(n_rows=90, seed=3)
    if model is bayesgen.BernoulliNB:
        X.data[:] = 1.0
    y = np.random.default_rng(4).integers(0, 3, 90)
    whole = model().fit(X, y)
    monkeypatch.setattr(sparse_rows, "PIECE_VALUES", 16)
    _three_threads(monkeypatch)
    assert sparse_rows.row_cuts(X).size == 4
    cut = model().fit(X, y)
    np.testing.assert_allclose(cut.feature_count_, whole.feature_count_, rtol=1e-13)
    np.testing.assert_allclose(cut.predict_proba(X), whole.predict_proba(X), rtol=1e-12)
    np.testing.assert_allclose(
        cut.predict_joint_log_proba(X), whole.predict_joint_log_proba(X), rtol=1e-12
    )
