"""Gamma–Poisson features against SciPy's gamma and poisson, closed forms and NumPy."""

import jax
import linear_reference
import numpy as np
import pytest
from scipy import stats
from scipy.special import gammaln

from bayesgen.families import poisson

NUM_SAMPLES = 4000
Z = 4.0  # Monte-Carlo standard errors allowed
K, D = 3, 4


def _data(rng, n=25):
    """Count rows X and weighted responsibilities R = one-hot(labels) * weight."""
    X = rng.poisson([2.0, 0.5, 3.0, 1.0], size=(n, D)).astype(float)
    labels = rng.integers(0, K, size=n)
    return X, np.eye(K)[labels] * rng.uniform(0.3, 2.0, size=(n, 1))


def _stats(X, R):
    return poisson.PoissonStats(R.sum(axis=0), R.T @ X)


def _evaluate(form, X):
    return linear_reference.evaluate(form, X, -gammaln(X + 1).sum(axis=1))


def _scipy_loglik(X, rates):
    """log p(x_i | k) = sum_j poisson.logpmf(x_ij, rate_kj), shape (n, K)."""
    return np.stack([stats.poisson.logpmf(X, rates[k]).sum(axis=1) for k in range(len(rates))], 1)


def _estimate(shape, rate, counts, feature_sums, kind):
    with jax.enable_x64(True):
        prior = poisson.Gamma(np.asarray(shape, float), np.asarray(rate, float))
        stats_ = poisson.PoissonStats(np.asarray(counts, float), np.asarray(feature_sums, float))
        return np.asarray(poisson.point_estimate(prior, stats_, kind))


def test_merge_is_the_sum_of_statistics():
    """merge of two batches equals the statistics of their union (R^T X, column sums of R)."""
    X, R = _data(np.random.default_rng(30))
    with jax.enable_x64(True):
        merged = poisson.merge(_stats(X[:13], R[:13]), _stats(X[13:], R[13:]))
    np.testing.assert_allclose(np.asarray(merged.counts), R.sum(axis=0), rtol=1e-13)
    np.testing.assert_allclose(np.asarray(merged.feature_sums), R.T @ X, rtol=1e-13)


def test_posterior_closed_form_and_conjugacy():
    """Gamma(a + S, b + N); prior x likelihood / posterior is constant (SciPy densities)."""
    rng = np.random.default_rng(31)
    X, R = _data(rng)
    a, b = np.array([0.5, 1.0, 2.0, 3.0]), np.float64(0.7)
    with jax.enable_x64(True):
        post = poisson.posterior(poisson.Gamma(a, b), _stats(X, R))
    shape, rate = np.asarray(post.shape), np.asarray(post.rate)
    N, S = R.sum(axis=0), R.T @ X
    np.testing.assert_allclose(shape, a + S, rtol=1e-13)
    np.testing.assert_allclose(rate, np.broadcast_to(b + N[:, None], (K, D)), rtol=1e-13)

    def constant(rates):
        prior = stats.gamma.logpdf(rates, a, scale=1 / b).sum()
        likelihood = np.sum(R * _scipy_loglik(X, rates))
        return prior + likelihood - stats.gamma.logpdf(rates, shape, scale=1 / rate).sum()

    first, second = (constant(rng.uniform(0.2, 5.0, size=(K, D))) for _ in range(2))
    np.testing.assert_allclose(first, second, rtol=1e-10)


def test_point_estimates_closed_forms():
    """mle S/N (0 without rows), mean (a + S)/(b + N), map (a + S - 1)_+/(b + N)."""
    a, b = 0.6, 0.5
    counts = np.array([4.0, 0.0, 2.5])
    S = np.array([[8.0, 0.0, 1.0], [0.0, 0.0, 0.0], [0.2, 5.0, 0.0]])
    mle = _estimate(a, b, counts, S, "mle")
    mean = _estimate(a, b, counts, S, "mean")
    mode = _estimate(a, b, counts, S, "map")
    np.testing.assert_allclose(mle, [[2.0, 0.0, 0.25], [0.0, 0.0, 0.0], [0.08, 2.0, 0.0]])
    np.testing.assert_allclose(mean, stats.gamma.mean(a + S, scale=1 / (b + counts[:, None])))
    expected_mode = np.array([[7.6, 0.0, 0.6], [0.0, 0.0, 0.0], [0.0, 4.6, 0.0]])
    np.testing.assert_allclose(mode, expected_mode / (b + counts[:, None]), atol=1e-15)


def test_map_is_the_gamma_density_maximum():
    """With a + S > 1 the map maximises SciPy's posterior Gamma log density."""
    got = _estimate(2.0, 1.0, [3.0], [[4.0]], "map")[0, 0]
    assert got == pytest.approx(5.0 / 4.0, rel=1e-14)
    best = stats.gamma.logpdf(got, 6.0, scale=1 / 4.0)
    for step in (-1e-3, 1e-3):
        assert best > stats.gamma.logpdf(got + step, 6.0, scale=1 / 4.0)


@pytest.mark.parametrize("kind", ["ML", "median"])
def test_invalid_kind_raises(kind):
    """An unknown kind raises ValueError naming `estimate`."""
    with pytest.raises(ValueError, match="estimate"):
        _estimate(1.0, 1.0, [1.0], [[1.0]], kind)


def test_linear_form_matches_scipy_logpmf():
    """X @ W.T + b - sum log x! equals the summed poisson.logpmf for positive rates."""
    rng = np.random.default_rng(32)
    X, _ = _data(rng, n=12)
    rates = rng.uniform(0.1, 5.0, size=(K, D))
    with jax.enable_x64(True):
        form = poisson.linear_form(np.asarray(rates))
    assert np.asarray(form.weights).shape == (K, D)
    assert np.asarray(form.bias).shape == (K,)
    np.testing.assert_allclose(_evaluate(form, X), _scipy_loglik(X, rates), rtol=1e-12)


def test_linear_form_with_zero_rates():
    """MLE rates with zeros (and a class without rows): -inf exactly where SciPy's is."""
    rates = np.array([[2.0, 0.0, 0.25, 1.0], [0.0, 0.0, 0.0, 0.0], [0.5, 3.0, 0.0, 0.0]])
    X = np.array(
        [
            [1.0, 0.0, 2.0, 0.0],
            [0.0, 0.0, 0.0, 0.0],
            [2.0, 1.0, 0.0, 0.0],
            [0.0, 0.0, 0.0, 4.0],
            [1.0, 1.0, 1.0, 1.0],
        ]
    )
    with jax.enable_x64(True):
        form = poisson.linear_form(np.asarray(rates))
    got = _evaluate(form, X)
    expected = _scipy_loglik(X, rates)
    linear_reference.assert_matches_with_impossible_classes(form, got, expected)


def test_sample_params_match_the_posterior_gamma():
    """Draws have shape (S, K, D), are positive, with Gamma means within MC error."""
    rng = np.random.default_rng(33)
    shape = rng.uniform(0.5, 8.0, size=(K, D))
    rate = np.broadcast_to(rng.uniform(0.5, 4.0, size=(K, 1)), (K, D))
    with jax.enable_x64(True):
        draws = poisson.sample_params(jax.random.key(34), poisson.Gamma(shape, rate), NUM_SAMPLES)
    draws = np.asarray(draws)
    assert draws.shape == (NUM_SAMPLES, K, D)
    assert np.all(draws >= 0)
    mean = stats.gamma.mean(shape, scale=1 / rate)
    se = np.sqrt(stats.gamma.var(shape, scale=1 / rate) / NUM_SAMPLES)
    assert np.all(np.abs(draws.mean(axis=0) - mean) <= Z * se)
    result = stats.kstest(draws[:, 1, 2], stats.gamma(shape[1, 2], scale=1 / rate[1, 2]).cdf)
    assert result.pvalue > 1e-3, result
