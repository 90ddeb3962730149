"""The batched paths for rows with missing entries, each against a row-by-row reference.

A covariance shared by the classes (its class scores up to a row constant included), the
conditional means mixed over the classes, conditionals under a drawn class, the fused
E-step with its log-likelihood, the stack-last block solver and the pattern keys.
"""

import numpy as np
import pytest
import scipy.linalg
import scipy.special
from gappy_cases import covariances as _covariances
from gappy_cases import gappy as _gappy
from gappy_cases import stored as _stored
from scipy import stats

from bayesgen import LDA
from bayesgen import _parallel as parallel
from bayesgen.families.gaussian import (
    GaussianFamily,
    GaussianParams,
    gap_layout,
    missing,
    missing_conditionals,
    small_blocks,
)
from bayesgen.families.gaussian.completed_stats import completed_stats


def _scipy_log_density(means, covariances, X):
    """log N(x_o | mu_k,o, Sigma_k,oo) per row and class by SciPy; 0 with nothing seen."""
    result = np.zeros((X.shape[0], means.shape[0]))
    for i, row in enumerate(X):
        seen = ~np.isnan(row)
        if seen.any():
            for k in range(means.shape[0]):
                block = covariances[k][np.ix_(seen, seen)]
                result[i, k] = stats.multivariate_normal.logpdf(row[seen], means[k, seen], block)
    return result


def _reference_conditional(means, covariances, X, row, k):
    pattern = np.isnan(X[row])
    return missing.conditional(means, covariances, X, np.array([row]), pattern, k)


@pytest.mark.parametrize("offset", [0.0, 50.0])
def test_shared_covariance_scores_equal_scipy(offset):
    rng = np.random.default_rng(0)
    K, d = 3, 9
    means = offset + rng.normal(size=(K, d))
    covariance = _covariances(rng, 1, d)[0]
    X = _gappy(rng, 300, d, offset=offset)
    assert missing.has_many_patterns(np.isnan(X))
    expected = _scipy_log_density(means, np.broadcast_to(covariance, (K, d, d)), X)
    found = missing.log_likelihood(means, covariance, X)
    np.testing.assert_allclose(found, expected, rtol=1e-9, atol=1e-9)
    # Without the row terms: the same up to one constant per row.
    scores = missing.log_likelihood(means, covariance, X, row_terms=False)
    difference = scores - expected
    row_constant = np.broadcast_to(difference[:, :1], difference.shape)
    np.testing.assert_allclose(difference, row_constant, rtol=0, atol=1e-9)
    # The forms, from K copies of the matrix as well as from one.
    squared, half_log_det, n_observed = missing.schur_forms(
        means, np.broadcast_to(covariance, (K, d, d)), X
    )
    log_density = -0.5 * squared - half_log_det - 0.5 * n_observed[:, None] * np.log(2 * np.pi)
    np.testing.assert_allclose(log_density, expected, rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("threads", [1, 2])
def test_shared_covariance_scores_in_blocks_and_threads_equal_scipy(monkeypatch, threads):
    """Many row blocks and stacks (every missing count, a row with one entry seen, float32
    rows), spread over threads or not: SciPy's density of each observed block, and the
    same values as one block and one thread."""
    rng = np.random.default_rng(11)
    K, d = 4, 7
    means = rng.normal(size=(K, d))
    covariance = _covariances(rng, 1, d)[0]
    X = _gappy(rng, 400, d, fraction=0.45)
    X[2, 1:] = np.nan  # one entry seen
    expected = _scipy_log_density(means, np.broadcast_to(covariance, (K, d, d)), X)
    whole = (
        missing.log_likelihood(means, covariance, X),
        missing.log_likelihood(means, covariance, X, row_terms=False),
    )
    monkeypatch.setattr(gap_layout, "BLOCK_VALUES", 13 * 2 * d)  # 13 rows a block
    monkeypatch.setattr(gap_layout, "STACK_VALUES", 200)
    monkeypatch.setattr(gap_layout, "PARALLEL_ROWS", 0)
    monkeypatch.setattr(parallel, "thread_count", lambda: threads)
    split = (
        missing.log_likelihood(means, covariance, X),
        missing.log_likelihood(means, covariance, X, row_terms=False),
    )
    np.testing.assert_allclose(split[0], expected, rtol=1e-9, atol=1e-9)
    for got, reference in zip(split, whole, strict=True):
        np.testing.assert_allclose(got, reference, rtol=1e-12, atol=1e-12)
    single = missing.log_likelihood(means, covariance, X.astype(np.float32))
    assert single.dtype == np.float32
    expected_single = _scipy_log_density(
        means, np.broadcast_to(covariance, (K, d, d)), X.astype(np.float32).astype(np.float64)
    )
    np.testing.assert_allclose(single, expected_single, rtol=1e-5, atol=1e-4)


def test_lda_probabilities_on_gappy_rows_equal_the_normalised_joint():
    """predict_proba (class-dependent part only) against predict_joint_log_proba (all of
    it) on rows that each have their own pattern."""
    rng = np.random.default_rng(1)
    X = rng.normal(size=(400, 8)) + np.repeat(np.eye(4, 8) * 3, 100, axis=0)
    y = np.repeat(np.arange(4), 100)
    model = LDA().fit(X, y)
    gappy = _gappy(rng, 300, 8)
    joint = model.predict_joint_log_proba(gappy)
    expected = np.exp(joint - scipy.special.logsumexp(joint, axis=1, keepdims=True))
    np.testing.assert_allclose(model.predict_proba(gappy), expected, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("shared", [True, False])
def test_conditional_means_mix_the_observed_block_formulas(shared):
    rng = np.random.default_rng(2)
    K, d = 3, 7
    means = rng.normal(size=(K, d))
    covariances = _covariances(rng, K, d)
    if shared:
        covariances = np.broadcast_to(covariances[0], (K, d, d))
    X = _gappy(rng, 150, d)
    weights = rng.dirichlet(np.ones(K), size=X.shape[0])
    seen = set()
    for rows, index, mean in missing_conditionals.conditional_means(means, covariances, X, weights):
        for r, row in enumerate(rows):
            assert list(index[r]) == list(np.flatnonzero(np.isnan(X[row])))
            expected = sum(
                weights[row, k] * _reference_conditional(means, covariances, X, row, k)[0][0]
                for k in range(K)
            )
            np.testing.assert_allclose(mean[r], expected, rtol=1e-9, atol=1e-9)
        seen.update(rows.tolist())
    assert seen == set(np.flatnonzero(np.isnan(X).any(axis=1)).tolist())


def test_chosen_conditionals_are_the_drawn_class_ones():
    rng = np.random.default_rng(3)
    K, d = 3, 6
    means, covariances = rng.normal(size=(K, d)), _covariances(rng, K, d)
    X = _gappy(rng, 120, d)
    classes = rng.integers(0, K, size=X.shape[0])
    seen = set()
    for rows, index, mean, lower in missing_conditionals.chosen_conditionals(
        means, covariances, X, classes
    ):
        for r, row in enumerate(rows):
            assert list(index[r]) == list(np.flatnonzero(np.isnan(X[row])))
            expected_mean, expected_covariance = _reference_conditional(
                means, covariances, X, row, classes[row]
            )
            np.testing.assert_allclose(mean[r], expected_mean[0], rtol=1e-9, atol=1e-9)
            factor = np.tril(lower[:, :, r])  # of the conditional precision
            covariance = np.linalg.inv(factor @ factor.T)
            np.testing.assert_allclose(covariance, expected_covariance, rtol=1e-9, atol=1e-9)
        seen.update(rows.tolist())
    assert seen == set(np.flatnonzero(np.isnan(X).any(axis=1)).tolist())


@pytest.mark.parametrize("covariance_type", ["full", "tied", "diag", "spherical"])
def test_completed_stats_equal_the_row_by_row_e_step(covariance_type):
    """Expected statistics and the weighted observed-data log-likelihood, with some zero
    responsibilities, against completing each row with `missing.conditional`."""
    rng = np.random.default_rng(4)
    K, d, n = 3, 6, 90
    means = rng.normal(size=(K, d))
    full = _covariances(rng, K, d)
    covariances = {
        "full": full,
        "tied": np.broadcast_to(full[0], (K, d, d)),
        "diag": np.stack([np.diag(np.diag(c)) for c in full]),
        "spherical": np.stack([np.trace(c) / d * np.eye(d) for c in full]),
    }[covariance_type]
    X = _gappy(rng, n, d)
    responsibilities = rng.dirichlet(np.ones(K), size=n)
    responsibilities[rng.uniform(size=(n, K)) < 0.3] = 0.0
    found, log_likelihood = completed_stats(
        means, covariances, X, responsibilities, covariance_type, with_log_likelihood=True
    )
    counts = responsibilities.sum(axis=0)
    class_means, scatter = np.zeros((K, d)), np.zeros((K, d, d))
    for k in range(K):
        completed, correction = X.copy(), np.zeros((d, d))
        for row in np.flatnonzero(np.isnan(X).any(axis=1)):
            pattern = np.isnan(X[row])
            mean, covariance = _reference_conditional(means, covariances, X, row, k)
            completed[row, pattern] = mean[0]
            correction[np.ix_(pattern, pattern)] += responsibilities[row, k] * covariance
        class_means[k] = responsibilities[:, k] @ completed / counts[k]
        deviations = completed - class_means[k]
        scatter[k] = (responsibilities[:, [k]] * deviations).T @ deviations + correction
    if covariance_type == "tied":
        scatter = scatter.sum(axis=0)
    elif covariance_type in ("diag", "spherical"):
        scatter = np.diagonal(scatter, axis1=1, axis2=2)
    np.testing.assert_allclose(found.counts, counts, rtol=1e-12)
    np.testing.assert_allclose(found.means, class_means, rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(found.scatter, scatter, rtol=1e-9, atol=1e-9)
    expected = np.sum(responsibilities * _scipy_log_density(means, covariances, X))
    np.testing.assert_allclose(log_likelihood, expected, rtol=1e-10)


def test_small_blocks_equal_lapack():
    rng = np.random.default_rng(5)
    m, n = 7, 40
    A = rng.normal(size=(n, m, m))
    blocks = A @ np.swapaxes(A, 1, 2) + m * np.eye(m)
    right = rng.normal(size=(3, m, n))
    lower, solved = small_blocks.cholesky_solve(np.moveaxis(blocks, 0, -1), right)
    expected_lower = np.linalg.cholesky(blocks)
    np.testing.assert_allclose(np.tril(np.moveaxis(lower, -1, 0)), expected_lower, atol=1e-12)
    for i in range(n):
        expected = scipy.linalg.solve_triangular(expected_lower[i], right[:, :, i].T, lower=True)
        np.testing.assert_allclose(solved[:, :, i], expected.T, atol=1e-12)
        back = small_blocks.backward_substitution(lower[:, :, i : i + 1], solved[:, :, i : i + 1])
        np.testing.assert_allclose(back[:, :, 0], np.linalg.solve(blocks[i], right[:, :, i].T).T)
    inverse = np.moveaxis(small_blocks.inverse(lower), -1, 0)
    np.testing.assert_allclose(inverse, np.linalg.inv(blocks), rtol=1e-10, atol=1e-12)
    half = small_blocks.half_log_det(lower)
    np.testing.assert_allclose(2 * half, np.linalg.slogdet(blocks)[1], rtol=1e-12)


@pytest.mark.parametrize("n_features", [9, 70])
def test_missing_patterns_equal_numpy_unique(n_features):
    rng = np.random.default_rng(6)
    for n_rows, rate in [(3000, 0.01), (3000, 0.3), (40, 0.3)]:
        gaps = rng.uniform(size=(n_rows, n_features)) < rate
        patterns, groups = missing.missing_patterns(np.where(gaps, np.nan, 0.0))
        expected, inverse = np.unique(gaps, axis=0, return_inverse=True)
        np.testing.assert_array_equal(patterns, expected)
        for p, rows in enumerate(groups):
            np.testing.assert_array_equal(rows, np.flatnonzero(inverse.ravel() == p))
        assert missing.has_many_patterns(gaps) == (len(expected) > missing.MANY_PATTERNS)


def test_blocks_and_chunks_do_not_change_shared_or_mixed_results(monkeypatch):
    rng = np.random.default_rng(7)
    K, d = 2, 6
    means, covariances = rng.normal(size=(K, d)), _covariances(rng, K, d)
    X = _gappy(rng, 150, d)
    weights = rng.dirichlet(np.ones(K), size=X.shape[0])

    def results():
        filled = X.copy()
        for rows, index, mean in missing_conditionals.conditional_means(
            means, covariances, X, weights
        ):
            filled[rows[:, None], index] = mean
        return (
            missing.log_likelihood(means, covariances[0], X, row_terms=False),
            missing.schur_forms(means, covariances, X)[0],
            filled,
        )

    # Six features allow at most 64 patterns: every pattern counts as "many", so the shared
    # covariance takes its batched block path too.
    monkeypatch.setattr(missing, "MANY_PATTERNS", 0)
    assert missing.has_many_patterns(np.isnan(X))
    whole = results()
    monkeypatch.setattr(missing, "CHUNK_VALUES", 50)  # a few rows per block and chunk
    monkeypatch.setattr(gap_layout, "BLOCK_VALUES", 50)  # the two passes' blocks and stacks
    monkeypatch.setattr(gap_layout, "STACK_VALUES", 50)
    for got, expected in zip(results(), whole, strict=True):
        np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("covariance_type", ["full", "tied", "diag", "spherical"])
def test_family_fills_the_mixture_of_conditional_means(covariance_type):
    """GaussianFamily.conditional(method="mean") for every covariance type against the
    observed-block formulas, observed entries untouched."""
    rng = np.random.default_rng(8)
    K, d = 3, 6
    means = rng.normal(size=(K, d))
    full = _covariances(rng, K, d)
    stored = _stored(full, covariance_type)
    family = GaussianFamily(covariance_type)
    params = GaussianParams(means, stored)
    covariances = family.full_covariances(params)
    X = _gappy(rng, 100, d)
    weights = rng.dirichlet(np.ones(K), size=X.shape[0])
    filled = family.conditional(params, X, weights, "mean", None)
    for row in range(X.shape[0]):
        pattern = np.isnan(X[row])
        np.testing.assert_array_equal(filled[row, ~pattern], X[row, ~pattern])
        if pattern.any():
            expected = sum(
                weights[row, k] * _reference_conditional(means, covariances, X, row, k)[0][0]
                for k in range(K)
            )
            np.testing.assert_allclose(filled[row, pattern], expected, rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("covariance_type", ["full", "tied"])
def test_completed_stats_equal_by_either_factorisation(covariance_type, monkeypatch):
    """Short chunks of (row, class) pairs are factored by LAPACK, long ones by
    `small_blocks`: the same statistics and log-likelihood either way."""
    from bayesgen.families.gaussian import missing_blocks

    rng = np.random.default_rng(5)
    K, d, n = 3, 7, 400
    means, full = rng.normal(size=(K, d)), _covariances(rng, K, d)
    covariances = full if covariance_type == "full" else np.broadcast_to(full[0], (K, d, d))
    X = _gappy(rng, n, d)
    responsibilities = rng.dirichlet(np.ones(K), size=n)
    responsibilities[rng.uniform(size=(n, K)) < 0.5] = 0.0
    found = {}
    for pairs in (0, n * K):
        monkeypatch.setattr(missing_blocks, "LAPACK_PAIRS", pairs)
        found[pairs] = completed_stats(
            means, covariances, X, responsibilities, covariance_type, with_log_likelihood=True
        )
    (stack, stack_value), (lapack, lapack_value) = found[0], found[n * K]
    for first, second in zip(stack, lapack, strict=True):
        np.testing.assert_allclose(first, second, rtol=1e-11, atol=1e-11)
    np.testing.assert_allclose(stack_value, lapack_value, rtol=1e-12)
