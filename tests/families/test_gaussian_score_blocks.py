"""The NumPy Gaussian scores go through the rows a block at a time (``scores.py``).

Blocks only change which rows are scored together, never the arithmetic on a row: scores
of many small blocks equal those of one block, and the result is laid out class by class
(each class's scores contiguous), the layout the normalisation over classes reads.
"""

import numpy as np
import pytest

from bayesgen.families.gaussian import scores
from tests.families.test_gaussian_kernels import COVARIANCE_TYPES, _params


@pytest.mark.parametrize("covariance_type", COVARIANCE_TYPES)
@pytest.mark.parametrize("row_terms", [True, False])
def test_blocks_of_rows_score_as_one_block(monkeypatch, covariance_type, row_terms):
    rng = np.random.default_rng(3)
    n, d, K = 103, 4, 3
    means, covariances = _params(rng, covariance_type, K, d, 10.0)
    X = 10.0 + rng.normal(size=(n, d)) * 3.0
    one_block = scores.log_likelihood(means, covariances, X, covariance_type, row_terms=row_terms)
    monkeypatch.setattr(scores, "BLOCK_ROWS", 7)
    monkeypatch.setattr(scores, "LINEAR_BLOCK_ROWS", 5)
    blocked = scores.log_likelihood(means, covariances, X, covariance_type, row_terms=row_terms)
    assert blocked.shape == (n, K) and blocked.T.flags.c_contiguous
    # The same arithmetic per row; BLAS may order a product's sums by the block's size.
    np.testing.assert_allclose(blocked, one_block, rtol=1e-13)


def test_many_classes_keep_the_linear_blocks_bounded(monkeypatch):
    """The tied linear form holds at most LINEAR_BLOCK_SCORES scores a block: fewer rows a
    block for many classes, and the same scores."""
    assert scores.linear_block_rows(5) == scores.LINEAR_BLOCK_ROWS
    assert scores.linear_block_rows(1_000) * 1_000 <= scores.LINEAR_BLOCK_SCORES
    assert scores.linear_block_rows(10**7) == 1
    rng = np.random.default_rng(5)
    n, d, K = 40, 3, 9
    means, covariance = _params(rng, "tied", K, d, 0.0)
    X = rng.normal(size=(n, d))
    one_block = scores.log_likelihood(means, covariance, X, "tied", row_terms=False)
    monkeypatch.setattr(scores, "LINEAR_BLOCK_SCORES", 4 * K)  # blocks of 4 rows
    assert scores.linear_block_rows(K) == 4
    blocked = scores.log_likelihood(means, covariance, X, "tied", row_terms=False)
    np.testing.assert_allclose(blocked, one_block, rtol=1e-13)


@pytest.mark.parametrize("covariance_type", ["full", "tied"])
def test_whitened_squares_are_the_quadratic_form(covariance_type):
    """The sums of squares of whitened rows are $(x - \\mu)^\\top \\Sigma^{-1} (x - \\mu)$,
    solved directly, to 1e-12 relative."""
    rng = np.random.default_rng(4)
    n, d, K = 50, 5, 2
    means, covariances = _params(rng, covariance_type, K, d, 0.0)
    X = rng.normal(size=(n, d)) * 3.0
    ours = scores.log_likelihood(means, covariances, X, covariance_type)
    per_class = covariances if covariance_type == "full" else [covariances] * K
    for k, covariance in enumerate(per_class):
        centred = X - means[k]
        quadratic = np.sum(centred * np.linalg.solve(covariance, centred.T).T, axis=1)
        _, log_det = np.linalg.slogdet(covariance)
        expected = -0.5 * (quadratic + log_det + d * np.log(2 * np.pi))
        np.testing.assert_allclose(ours[:, k], expected, rtol=1e-12)


@pytest.mark.parametrize("covariance_type", COVARIANCE_TYPES)
def test_blocks_in_threads_score_as_one_after_another(monkeypatch, covariance_type):
    """Blocks scored side by side in threads (`bayesgen._parallel.run_pieces`) write the
    scores of blocks scored one after the other."""
    rng = np.random.default_rng(6)
    n, d, K = 301, 5, 4
    means, covariances = _params(rng, covariance_type, K, d, 1.0)
    X = rng.normal(size=(n, d)) * 2.0
    monkeypatch.setattr(scores, "BLOCK_ROWS", 16)
    monkeypatch.setattr(scores, "PARALLEL_ROWS", 10**9)
    serial = scores.log_likelihood(means, covariances, X, covariance_type)
    monkeypatch.setattr(scores, "PARALLEL_ROWS", 1)
    threaded = scores.log_likelihood(means, covariances, X, covariance_type)
    np.testing.assert_array_equal(threaded, serial)


def test_the_linear_forms_blocks_in_threads_score_as_one_after_another(monkeypatch):
    """LDA's linear form (tied, no row terms): blocks side by side in threads write the
    scores of blocks one after the other."""
    rng = np.random.default_rng(7)
    n, d, K = 301, 5, 4
    means, covariance = _params(rng, "tied", K, d, 1.0)
    X = rng.normal(size=(n, d)) * 2.0
    monkeypatch.setattr(scores, "LINEAR_BLOCK_ROWS", 16)
    monkeypatch.setattr(scores, "PARALLEL_ROWS", 32)
    threads = []
    real = scores.run_pieces

    def spy(function, pieces, *, in_threads=True, serial=False):
        threads.append(in_threads)
        return real(function, pieces, in_threads=in_threads and not serial)

    monkeypatch.setattr(scores, "run_pieces", spy)
    threaded = scores.log_likelihood(means, covariance, X, "tied", row_terms=False)
    monkeypatch.setattr(scores, "run_pieces", lambda f, p, **kw: spy(f, p, serial=True, **kw))
    serial = scores.log_likelihood(means, covariance, X, "tied", row_terms=False)
    assert threads == [True, True]
    np.testing.assert_array_equal(threaded, serial)
