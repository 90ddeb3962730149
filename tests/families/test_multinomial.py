"""Dirichlet–multinomial features against SciPy's dirichlet and multinomial, and NumPy."""

import jax
import linear_reference
import numpy as np
import pytest
from scipy import stats
from scipy.special import gammaln

from bayesgen.families import multinomial

NUM_SAMPLES = 4000
Z = 4.0  # Monte-Carlo standard errors allowed
K, D = 3, 4


def _data(rng, n=25):
    """Count rows X (each with a positive total) and weighted responsibilities R."""
    X = rng.poisson([2.0, 0.5, 3.0, 1.0], size=(n, D)).astype(float)
    X[:, 2] += 1.0
    labels = rng.integers(0, K, size=n)
    return X, np.eye(K)[labels] * rng.uniform(0.3, 2.0, size=(n, 1))


def _stats(X, R):
    return multinomial.MultinomialStats(R.sum(axis=0), R.T @ X)


def _evaluate(form, X):
    return linear_reference.evaluate(
        form, X, gammaln(X.sum(axis=1) + 1) - gammaln(X + 1).sum(axis=1)
    )


def _scipy_loglik(X, theta):
    """multinomial.logpmf(x_i, L_i, theta_k), shape (n, K)."""
    totals = X.sum(axis=1)
    return np.array(
        [[stats.multinomial.logpmf(x, n, t) for t in theta] for x, n in zip(X, totals, strict=True)]
    )


def _estimate(alpha, feature_counts, kind):
    feature_counts = np.asarray(feature_counts, float)
    with jax.enable_x64(True):
        stats_ = multinomial.MultinomialStats(feature_counts.sum(axis=1), feature_counts)
        return np.asarray(multinomial.point_estimate(np.asarray(alpha, float), stats_, kind))


def test_merge_is_the_sum_of_statistics():
    """merge of two batches equals the statistics of their union (R^T X, column sums of R)."""
    X, R = _data(np.random.default_rng(20))
    with jax.enable_x64(True):
        merged = multinomial.merge(_stats(X[:9], R[:9]), _stats(X[9:], R[9:]))
    np.testing.assert_allclose(np.asarray(merged.counts), R.sum(axis=0), rtol=1e-13)
    np.testing.assert_allclose(np.asarray(merged.feature_counts), R.T @ X, rtol=1e-13)


def test_posterior_closed_form_and_conjugacy():
    """Dirichlet(alpha + C_k); prior x likelihood / posterior is constant (SciPy densities)."""
    rng = np.random.default_rng(21)
    X, R = _data(rng)
    alpha = np.array([0.5, 1.0, 2.0, 0.8])
    with jax.enable_x64(True):
        post = np.asarray(multinomial.posterior(alpha, _stats(X, R)))
    np.testing.assert_allclose(post, alpha + R.T @ X, rtol=1e-13)

    def constant(theta):
        prior = sum(stats.dirichlet.logpdf(t, alpha) for t in theta)
        likelihood = np.sum(R * _scipy_loglik(X, theta))
        return (
            prior
            + likelihood
            - sum(stats.dirichlet.logpdf(t, c) for t, c in zip(theta, post, strict=True))
        )

    first, second = (constant(rng.dirichlet(np.ones(D), size=K)) for _ in range(2))
    np.testing.assert_allclose(first, second, rtol=1e-10)


def test_mean_is_additive_smoothing():
    """kind="mean" equals (C_kj + alpha_j)/sum_j(C_kj + alpha_j), SciPy's Dirichlet mean."""
    alpha = np.array([0.5, 1.0, 2.0, 0.8])
    C = np.array([[3.0, 0.0, 5.5, 1.5], [0.0, 0.0, 0.0, 0.0], [0.0, 7.0, 0.0, 2.0]])
    got = _estimate(alpha, C, "mean")
    expected = np.stack([stats.dirichlet.mean(alpha + c) for c in C])
    np.testing.assert_allclose(got, expected, rtol=1e-14)


def test_map_is_dirichlet_mode_with_clipping():
    """kind="map" equals (alpha + C - 1)_+ normalised per class; the mean when it is all 0."""
    alpha = np.array([0.5, 1.0, 2.0, 0.8])
    C = np.array([[3.0, 0.0, 5.5, 1.5], [0.0, 0.0, 0.0, 0.0], [0.4, 0.0, 0.0, 0.1]])
    got = _estimate(alpha, C, "map")
    expected = np.array(
        [
            [2.5, 0.0, 6.5, 1.3] / np.float64(10.3),
            [0.0, 0.0, 1.0, 0.0],
            [0.0, 0.0, 1.0, 0.0],
        ]
    )
    np.testing.assert_allclose(got, expected, rtol=1e-14, atol=1e-300)
    # Every alpha + C <= 1: no mode, so the posterior mean.
    got = _estimate([0.5, 0.5, 0.5], [[0.2, 0.0, 0.5]], "map")
    np.testing.assert_allclose(got, [[0.7, 0.5, 1.0]] / np.float64(2.2), rtol=1e-14)


def test_mle_is_frequency_and_uniform_without_counts():
    """kind="mle" equals C_kj / sum_j C_kj; a class without counts gets the uniform vector."""
    C = np.array([[3.0, 0.0, 5.0, 2.0], [0.0, 0.0, 0.0, 0.0]])
    got = _estimate(5.0, C, "mle")
    np.testing.assert_allclose(got, [[0.3, 0.0, 0.5, 0.2], [0.25] * 4], rtol=1e-14)


@pytest.mark.parametrize("kind", ["Mean", "posterior"])
def test_invalid_kind_raises(kind):
    """An unknown kind raises ValueError naming `estimate`."""
    with pytest.raises(ValueError, match="estimate"):
        _estimate(1.0, [[1.0, 2.0]], kind)


def test_linear_form_matches_scipy_logpmf():
    """X @ W.T + b + log multinomial coefficient equals multinomial.logpmf (interior theta)."""
    rng = np.random.default_rng(22)
    X, _ = _data(rng, n=12)
    X[0] = 0.0  # an empty row: probability one under every class
    theta = rng.dirichlet(np.ones(D), size=K)
    with jax.enable_x64(True):
        form = multinomial.linear_form(np.asarray(theta))
    assert np.asarray(form.weights).shape == (K, D)
    assert np.asarray(form.bias).shape == (K,)
    np.testing.assert_allclose(_evaluate(form, X), _scipy_loglik(X, theta), rtol=1e-12, atol=1e-13)


def test_linear_form_with_zero_probabilities():
    """MLE theta with zeros: -inf exactly where SciPy's logpmf is, equal elsewhere, no NaN."""
    C = np.array([[3.0, 0.0, 5.0, 2.0], [0.0, 4.0, 0.0, 0.0], [1.0, 1.0, 0.0, 2.0]])
    theta = C / C.sum(axis=1, keepdims=True)
    X = np.array(
        [
            [1.0, 0.0, 2.0, 0.0],
            [0.0, 3.0, 0.0, 0.0],
            [2.0, 1.0, 0.0, 1.0],
            [0.0, 0.0, 0.0, 0.0],
            [1.0, 1.0, 1.0, 1.0],
        ]
    )
    with jax.enable_x64(True):
        form = multinomial.linear_form(np.asarray(theta))
    got = _evaluate(form, X)
    expected = _scipy_loglik(X, theta)
    linear_reference.assert_matches_with_impossible_classes(form, got, expected)


def test_sample_params_match_the_posterior_dirichlet():
    """Draws have shape (S, K, D), lie on the simplex, with Dirichlet means within MC error."""
    rng = np.random.default_rng(23)
    concentration = rng.uniform(0.5, 6.0, size=(K, D))
    with jax.enable_x64(True):
        draws = multinomial.sample_params(jax.random.key(24), concentration, NUM_SAMPLES)
    draws = np.asarray(draws)
    assert draws.shape == (NUM_SAMPLES, K, D)
    assert np.all(draws >= 0)
    np.testing.assert_allclose(draws.sum(axis=-1), 1.0, rtol=1e-12)
    mean = np.stack([stats.dirichlet.mean(c) for c in concentration])
    var = np.stack([stats.dirichlet.var(c) for c in concentration])
    assert np.all(np.abs(draws.mean(axis=0) - mean) <= Z * np.sqrt(var / NUM_SAMPLES))
