"""Beta–Bernoulli features against SciPy's beta and bernoulli, closed forms and NumPy."""

import itertools

import jax
import linear_reference
import numpy as np
import pytest
from scipy import stats

from bayesgen.families import bernoulli

NUM_SAMPLES = 4000
Z = 4.0  # Monte-Carlo standard errors allowed
K, D = 3, 4


def _data(rng, n=30, weighted=True):
    """Binary rows X and responsibilities R = one-hot(labels) * weight."""
    X = (rng.uniform(size=(n, D)) < [0.2, 0.5, 0.7, 0.9]).astype(float)
    labels = rng.integers(0, K, size=n)
    weights = rng.uniform(0.3, 2.0, size=n) if weighted else np.ones(n)
    return X, np.eye(K)[labels] * weights[:, None]


def _stats(X, R):
    return bernoulli.BernoulliStats(R.sum(axis=0), R.T @ X)


def _evaluate(form, X):
    return linear_reference.evaluate(form, X)


def _scipy_loglik(X, theta):
    """log p(x_i | k) = sum_j bernoulli.logpmf(x_ij, theta_kj), shape (n, K)."""
    return np.stack([stats.bernoulli.logpmf(X, theta[k]).sum(axis=1) for k in range(len(theta))], 1)


def _estimate(alpha1, alpha0, counts, feature_counts, kind):
    with jax.enable_x64(True):
        prior = bernoulli.Beta(np.asarray(alpha1, float), np.asarray(alpha0, float))
        stats_ = bernoulli.BernoulliStats(
            np.asarray(counts, float), np.asarray(feature_counts, float)
        )
        return np.asarray(bernoulli.point_estimate(prior, stats_, kind))


def test_merge_is_the_sum_of_statistics():
    """merge of two batches equals the statistics of their union (R^T X, column sums of R)."""
    X, R = _data(np.random.default_rng(10))
    with jax.enable_x64(True):
        merged = bernoulli.merge(_stats(X[:11], R[:11]), _stats(X[11:], R[11:]))
    np.testing.assert_allclose(np.asarray(merged.counts), R.sum(axis=0), rtol=1e-13)
    np.testing.assert_allclose(np.asarray(merged.feature_counts), R.T @ X, rtol=1e-13)


def test_posterior_closed_form_and_conjugacy():
    """Beta(a1 + O, a0 + N - O); prior x likelihood / posterior is constant (SciPy densities)."""
    rng = np.random.default_rng(11)
    X, R = _data(rng)
    a1, a0 = np.array([0.7, 1.0, 2.5, 0.4]), np.float64(1.6)
    with jax.enable_x64(True):
        post = bernoulli.posterior(bernoulli.Beta(a1, a0), _stats(X, R))
    c1, c0 = np.asarray(post.concentration1), np.asarray(post.concentration0)
    N, ones = R.sum(axis=0), R.T @ X
    np.testing.assert_allclose(c1, a1 + ones, rtol=1e-13)
    np.testing.assert_allclose(c0, a0 + N[:, None] - ones, rtol=1e-13)

    def constant(theta):
        prior = stats.beta.logpdf(theta, a1, a0).sum()
        likelihood = np.sum(R * _scipy_loglik(X, theta))
        return prior + likelihood - stats.beta.logpdf(theta, c1, c0).sum()

    first, second = (constant(rng.uniform(0.05, 0.95, size=(K, D))) for _ in range(2))
    np.testing.assert_allclose(first, second, rtol=1e-10)


def test_mean_is_laplace_smoothing():
    """kind="mean" equals (O + a1)/(N + a1 + a0), SciPy's Beta mean of the posterior."""
    counts = np.array([5.0, 2.5, 0.0])
    feature_counts = np.array([[5.0, 0.0, 2.0], [1.5, 2.5, 0.0], [0.0, 0.0, 0.0]])
    got = _estimate(0.7, 1.3, counts, feature_counts, "mean")
    expected = stats.beta.mean(0.7 + feature_counts, 1.3 + counts[:, None] - feature_counts)
    np.testing.assert_allclose(got, expected, rtol=1e-14)
    np.testing.assert_allclose(got, (feature_counts + 0.7) / (counts[:, None] + 2.0), rtol=1e-14)


def test_map_is_beta_mode():
    """kind="map" equals (O + a - 1)/(N + 2a - 2) when both Beta parameters are >= 1."""
    counts = np.array([5.0, 2.5, 0.0])
    feature_counts = np.array([[5.0, 0.0, 2.0], [1.5, 2.5, 0.0], [0.0, 0.0, 0.0]])
    alpha = 1.5
    got = _estimate(alpha, alpha, counts, feature_counts, "map")
    expected = (feature_counts + alpha - 1) / (counts[:, None] + 2 * alpha - 2)
    np.testing.assert_allclose(got, expected, rtol=1e-14)


def test_map_below_one_is_on_the_boundary_or_the_mean():
    """alpha < 1: mode 0 (no ones) or 1 (all ones) on the boundary; the mean with no data."""
    got = _estimate(0.5, 0.5, [3.0, 0.0], [[0.0, 3.0, 1.0], [0.0, 0.0, 0.0]], "map")
    # Beta(0.5, 3.5) has its mode at 0, Beta(3.5, 0.5) at 1, Beta(1.5, 2.5) at 0.5/2;
    # Beta(0.5, 0.5) has none, so the mean 1/2.
    np.testing.assert_allclose(got, [[0.0, 1.0, 0.25], [0.5, 0.5, 0.5]], rtol=1e-14)


def test_mle_is_frequency_and_uniform_without_rows():
    """kind="mle" equals O/N; a class without rows gets 1/2 (the uniform two-category vector)."""
    counts = np.array([4.0, 0.0])
    feature_counts = np.array([[4.0, 0.0, 1.0], [0.0, 0.0, 0.0]])
    got = _estimate(3.0, 3.0, counts, feature_counts, "mle")
    np.testing.assert_allclose(got, [[1.0, 0.0, 0.25], [0.5, 0.5, 0.5]], rtol=1e-15)


@pytest.mark.parametrize("kind", ["MAP", "median"])
def test_invalid_kind_raises(kind):
    """An unknown kind raises ValueError naming `estimate`."""
    with pytest.raises(ValueError, match="estimate"):
        _estimate(1.0, 1.0, [1.0], [[1.0]], kind)


def test_linear_form_matches_scipy_logpmf():
    """X @ W.T + b equals the summed bernoulli.logpmf for interior theta."""
    rng = np.random.default_rng(12)
    theta = rng.uniform(0.05, 0.95, size=(K, D))
    X = np.array(list(itertools.product([0.0, 1.0], repeat=D)))
    with jax.enable_x64(True):
        form = bernoulli.linear_form(np.asarray(theta))
    assert np.asarray(form.weights).shape == (K, D)
    assert np.asarray(form.bias).shape == (K,)
    np.testing.assert_allclose(_evaluate(form, X), _scipy_loglik(X, theta), rtol=1e-12)


def test_linear_form_with_exact_zeros_and_ones():
    """theta with 0s and 1s (an MLE): -inf exactly where SciPy's logpmf is, equal elsewhere."""
    theta = np.array(
        [
            [0.0, 0.3, 1.0, 0.5],
            [1.0, 1.0, 0.2, 0.0],
            [0.6, 0.0, 0.0, 0.9],
        ]
    )
    X = np.array(list(itertools.product([0.0, 1.0], repeat=D)))  # every binary row
    with jax.enable_x64(True):
        form = bernoulli.linear_form(np.asarray(theta))
    got = _evaluate(form, X)
    expected = _scipy_loglik(X, theta)
    linear_reference.assert_matches_with_impossible_classes(form, got, expected)


def test_sample_params_match_the_posterior_beta():
    """Draws have shape (S, K, D), lie in [0, 1], and their means are Beta means within MC error."""
    rng = np.random.default_rng(13)
    c1, c0 = rng.uniform(0.5, 6.0, size=(K, D)), rng.uniform(0.5, 6.0, size=(K, D))
    with jax.enable_x64(True):
        draws = bernoulli.sample_params(jax.random.key(14), bernoulli.Beta(c1, c0), NUM_SAMPLES)
    draws = np.asarray(draws)
    assert draws.shape == (NUM_SAMPLES, K, D)
    assert np.all((draws >= 0) & (draws <= 1))
    se = np.sqrt(stats.beta.var(c1, c0) / NUM_SAMPLES)
    assert np.all(np.abs(draws.mean(axis=0) - stats.beta.mean(c1, c0)) <= Z * se)
    result = stats.kstest(draws[:, 0, 0], stats.beta(c1[0, 0], c0[0, 0]).cdf)
    assert result.pvalue > 1e-3, result
