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


def _ranges_made(monkeypatch) -> list:
    """The ``(start, stop)`` of every range of rows `sparse_rows` makes from now on, with
    blocks of at most 13 rows of 7 columns (one row at the least)."""
    made = []
    original = sparse_rows._row_range

    def counted(*args):
        made.append(args[1:])
        return original(*args)

    monkeypatch.setattr(sparse_rows, "_row_range", counted)
    monkeypatch.setattr(sparse_rows, "PRODUCT_BLOCK_ENTRIES", 7 * 13)
    monkeypatch.setattr(sparse_rows, "PRODUCT_BLOCK_ROWS", 1)
    return made


def _counts(n_rows=40, n_features=12, seed=0):
    rng = np.random.default_rng(seed)
    dense = rng.poisson(0.4, size=(n_rows, n_features)) * rng.uniform(0.5, 2.0, (n_rows, 1))
    dense[5:9] = 0.0  # empty rows, cut between as any others
    return sp.csr_matrix(dense)


def _model_rows(model, n_rows: int, seed: int):
    """Counts (0/1 for BernoulliNB) and labels of 3 classes for ``model``."""
    X = _counts(n_rows=n_rows, seed=seed)
    if model is bayesgen.BernoulliNB:
        X.data[:] = 1.0
    return X, np.random.default_rng(seed + 1).integers(0, 3, n_rows)


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


@pytest.mark.parametrize("threads", [False, True])
def test_a_product_in_blocks_of_rows_is_scipy_s_bit_for_bit(monkeypatch, threads):
    """Blocks of a few rows (as a large product's, of `PRODUCT_BLOCK_ENTRIES`) give every
    row SciPy's sum, column by column layout kept; past `BLOCKED_PRODUCT_ENTRIES` one block
    a piece."""
    if threads:
        monkeypatch.setattr(sparse_rows, "PIECE_VALUES", 16)
        _three_threads(monkeypatch)
    X = _counts(n_rows=300)
    matrix = np.random.default_rng(3).normal(size=(12, 7))
    products = _ranges_made(monkeypatch)
    product = sparse_rows.times(X, matrix)
    np.testing.assert_array_equal(product.view(np.uint64), (X @ matrix).view(np.uint64))
    assert product.T.flags.c_contiguous
    blocks = sorted(products)  # they cover the rows once, in blocks of at most 13
    assert blocks[0][0] == 0 and blocks[-1][1] == 300
    assert all(end == start for (_, end), (start, _) in zip(blocks, blocks[1:], strict=False))
    assert max(b - a for a, b in blocks) == 13 and len(blocks) >= 300 // 13
    products.clear()
    monkeypatch.setattr(sparse_rows, "PRODUCT_BLOCK_ROWS", 40)  # many columns: 40 rows
    np.testing.assert_array_equal(sparse_rows.times(X, matrix), X @ matrix)
    assert min(b - a for a, b in products) >= 1 and max(b - a for a, b in products) == 40
    products.clear()
    monkeypatch.setattr(sparse_rows, "BLOCKED_PRODUCT_ENTRIES", 300 * 7 - 1)
    np.testing.assert_array_equal(sparse_rows.times(X, matrix), X @ matrix)
    assert len(products) == (3 if threads else 1)


def test_kept_rows_cut_each_range_once_and_multiply_as_scipy_bit_for_bit(monkeypatch):
    """A `KeptRows` (rows an EM multiplies at every step) makes the ranges of its blocks at
    its first product and reads them at the next; its products are SciPy's."""
    X = _counts(n_rows=300)
    kept = sparse_rows.KeptRows(X)
    assert np.shares_memory(kept.data, X.data) and np.shares_memory(kept.indices, X.indices)
    made = _ranges_made(monkeypatch)
    rng = np.random.default_rng(4)
    for _ in range(3):
        matrix = rng.normal(size=(12, 7))
        product = sparse_rows.times(kept, matrix)
        np.testing.assert_array_equal(product.view(np.uint64), (X @ matrix).view(np.uint64))
    assert len(made) == len(set(made)) == -(-300 // 13)
    assert kept.row_range(0, 13) is kept.row_range(0, 13)
    np.testing.assert_array_equal(kept.row_range(13, 26).toarray(), X[13:26].toarray())
    plain = len(made)
    sparse_rows.times(X, matrix)  # a plain CSR matrix cuts its ranges at every product
    sparse_rows.times(X, matrix)
    assert len(made) == 3 * plain


def test_a_product_of_no_rows_still_checks_its_shapes():
    X = _counts()[:0]
    assert sparse_rows.times(X, np.ones((12, 3))).shape == (0, 3)
    with pytest.raises(ValueError, match="dimension mismatch"):
        sparse_rows.times(X, np.ones((13, 3)))


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
    X, y = _model_rows(model, 90, seed=3)
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


def _class_by_class_cases():
    """(X, R) pairs: unit and varied weights (some 0), a class without rows, 64-bit
    indices, rows of non-integer values."""
    rng = np.random.default_rng(5)
    cases = []
    for case in range(8):
        X = _counts(n_rows=150, n_features=30, seed=case)
        X.data = X.data * (1.0 if case % 2 else rng.uniform(0.5, 1.5, X.nnz))
        if case == 3:
            X.indices, X.indptr = X.indices.astype(np.int64), X.indptr.astype(np.int64)
        labels = rng.integers(0, 4, 150)
        if case == 5:
            labels[labels == 2] = 1  # class 2 has no rows
        weights = np.ones(150) if case < 4 else rng.uniform(0, 3, 150) * (rng.random(150) > 0.2)
        cases.append((X, sparse_responsibilities(labels, weights, 4)))
    return cases


@pytest.mark.parametrize("case", range(8))
def test_sums_class_by_class_equal_scipys_whole_product(monkeypatch, case):
    """Each class's rows are summed in row order, as SciPy's product sums them: the same
    bits, in threads or not."""
    X, R = _class_by_class_cases()[case]
    monkeypatch.setattr(sparse_rows, "CLASS_VALUES", 1)
    if case in (1, 3, 6, 7):  # two threads; no class holds half the values
        from bayesgen import _parallel

        monkeypatch.setattr(sparse_rows, "thread_count", lambda: 2)
        monkeypatch.setattr(_parallel, "thread_count", lambda: 2)
    assert sparse_rows._classes_apart(R, X) is not None
    sums = sparse_rows.weighted_sums(R, X)
    assert sums.dtype == np.float64 and sums.shape == (4, 30)
    np.testing.assert_array_equal(sums, (R.T.tocsr() @ X).toarray())
    np.testing.assert_allclose(sums, R.toarray().T @ X.toarray(), rtol=1e-13)
    if case == 5:
        np.testing.assert_array_equal(sums[2], 0.0)


def test_float32_sums_class_by_class_are_rounded_once(monkeypatch):
    """float32 values and weights (a float32 fit casts its weights) are multiplied and
    summed in float64 and rounded once: the float64 sums of the same values, in float32
    (SciPy's float32 product rounds every product and every addition)."""
    X, R = _class_by_class_cases()[4]
    monkeypatch.setattr(sparse_rows, "CLASS_VALUES", 1)
    single, weights = X.astype(np.float32), R.astype(np.float32)
    sums = sparse_rows.weighted_sums(weights, single)
    assert sums.dtype == np.float32
    exact = (weights.astype(np.float64).T.tocsr() @ single.astype(np.float64)).toarray()
    np.testing.assert_array_equal(sums, exact.astype(np.float32))


def test_many_classes_or_few_values_stay_with_scipys_product():
    """Classes of few stored values each (a copy of its rows and a call per class), or sums
    with more entries than X stores, are SciPy's product, one pass whatever the classes."""
    X = _counts(n_rows=400, n_features=12)
    few = sparse_responsibilities(np.arange(400) % 3, np.ones(400), 3)
    assert sparse_rows._classes_apart(few, X) is None  # far below CLASS_VALUES a class
    many = sparse_responsibilities(np.arange(400), np.ones(400), 400)
    assert X.nnz < 400 * 12
    assert sparse_rows._classes_apart(many, X) is None
    assert sparse_rows._classes_apart(few, X.tocsc()) is None


@pytest.mark.parametrize("threads", [1, 2, 3])
def test_a_class_of_most_values_stays_with_scipys_product(monkeypatch, threads):
    """A class is summed in one thread: apart only where none holds more than one thread's
    share of the stored values."""
    from bayesgen import _parallel

    monkeypatch.setattr(sparse_rows, "CLASS_VALUES", 1)
    monkeypatch.setattr(sparse_rows, "thread_count", lambda: threads)
    monkeypatch.setattr(_parallel, "thread_count", lambda: threads)
    X = _counts(n_rows=300, n_features=12, seed=2)
    labels = np.where(np.arange(300) < 200, 0, 1 + np.arange(300) % 2)
    R = sparse_responsibilities(labels, np.ones(300), 3)
    largest = X[labels == 0].nnz
    assert (sparse_rows._classes_apart(R, X) is not None) == (largest * threads <= X.nnz)
    np.testing.assert_array_equal(sparse_rows.weighted_sums(R, X), (R.T.tocsr() @ X).toarray())


@pytest.mark.parametrize("model", [bayesgen.MultinomialNB, bayesgen.BernoulliNB])
def test_naive_bayes_fits_alike_class_by_class(monkeypatch, model):
    X, y = _model_rows(model, 120, seed=6)
    weights = np.random.default_rng(9).uniform(0, 2, 120)
    whole = model().fit(X, y, sample_weight=weights)
    monkeypatch.setattr(sparse_rows, "CLASS_VALUES", 1)
    assert sparse_rows._classes_apart(sparse_responsibilities(y, weights, 3), X) is not None
    by_class = model().fit(X, y, sample_weight=weights)
    np.testing.assert_array_equal(by_class.feature_count_, whole.feature_count_)
    np.testing.assert_array_equal(by_class.predict_proba(X), whole.predict_proba(X))
