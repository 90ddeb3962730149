"""GaussianFamily: the Gaussian functions behind the FeatureFamily contract."""

import jax
import numpy as np
import pytest
from scipy import stats

import bayesgen
from bayesgen import registry
from bayesgen.families import gaussian
from bayesgen.families.gaussian import GaussianFamily

COVARIANCE_TYPES = ("full", "tied", "diag", "spherical")


def _data(seed=0, n=60, d=3, K=2):
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, K, size=n)
    X = rng.normal(size=(n, d)) @ rng.normal(size=(d, d)) + 3.0 * labels[:, None]
    return X, labels, np.eye(K)[labels]


def test_the_family_is_registered_with_its_story_part():
    assert registry.family("gaussian") is GaussianFamily
    assert GaussianFamily.missing_needs_em
    prior = gaussian.NormalInverseWishart(np.zeros(2), 1.0, 4.0, np.eye(2))
    part = registry.story_part("gaussian")(GaussianFamily("tied"), prior, 3)
    assert callable(part.parameters)


@pytest.mark.parametrize("covariance_type", COVARIANCE_TYPES)
@pytest.mark.parametrize("estimate", ["mle", "map"])
def test_point_estimate_is_what_gaussian_da_fits(covariance_type, estimate):
    """Statistics -> prior -> point estimate (ridge included) reproduce GaussianDA's fit."""
    X, y, R = _data()
    model = bayesgen.GaussianDA(covariance_type=covariance_type, estimate=estimate).fit(X, y)
    family = GaussianFamily.of(model)
    with jax.enable_x64(True):
        half = X.shape[0] // 2
        merged = family.merge(
            family.suff_stats(X[:half], R[:half]), family.suff_stats(X[half:], R[half:])
        )
        params = family.point_estimate(family.prior(merged), merged, estimate)
    np.testing.assert_allclose(np.asarray(params.means), model.means_, rtol=1e-10)
    np.testing.assert_allclose(np.asarray(params.covariances), model.covariances_, rtol=1e-9)


@pytest.mark.parametrize("covariance_type", COVARIANCE_TYPES)
def test_log_likelihood_integrates_out_missing_entries(covariance_type):
    X, y, R = _data(1)
    family = GaussianFamily(covariance_type)
    with jax.enable_x64(True):
        fitted = family.suff_stats(X, R)
        params = family.point_estimate(family.prior(fitted), fitted, "mle")
        gappy = X.copy()
        gappy[::3, 1] = np.nan
        gappy[1::4, [0, 2]] = np.nan
        got = family.log_likelihood(params, gappy)
    full = family.full_covariances(params)
    means = np.asarray(params.means)
    for i in (0, 1, 2, 5):
        seen = ~np.isnan(gappy[i])
        for k in range(2):
            expected = stats.multivariate_normal.logpdf(
                gappy[i, seen], means[k, seen], full[k][np.ix_(seen, seen)]
            )
            np.testing.assert_allclose(got[i, k], expected, rtol=1e-10)


def test_conditional_mean_is_the_gaussian_conditional_mixed_over_classes():
    X, y, R = _data(2)
    family = GaussianFamily("full")
    with jax.enable_x64(True):
        fitted = family.suff_stats(X, R)
        params = family.point_estimate(family.prior(fitted), fitted, "mle")
    row = X[:1].copy()
    row[0, 2] = np.nan
    weights = np.array([[0.3, 0.7]])
    filled = family.conditional(params, row, weights, "mean", np.random.default_rng(0))
    means, covariances = np.asarray(params.means), family.full_covariances(params)
    expected = 0.0
    for k in range(2):
        S = covariances[k]
        gain = S[2, :2] @ np.linalg.inv(S[:2, :2])
        expected += weights[0, k] * (means[k, 2] + gain @ (row[0, :2] - means[k, :2]))
    np.testing.assert_allclose(filled[0, 2], expected, rtol=1e-10)
    np.testing.assert_array_equal(filled[0, :2], row[0, :2])


@pytest.mark.parametrize("covariance_type", COVARIANCE_TYPES)
def test_draws_and_predictive_have_the_posterior_shapes(covariance_type):
    X, y, R = _data(3)
    family = GaussianFamily(covariance_type)
    with jax.enable_x64(True):
        fitted = family.suff_stats(X, R)
        post = family.posterior(family.prior(fitted), fitted)
        draws = family.sample_params(jax.random.PRNGKey(0), post, 5)
        predictive = family.predictive_log_likelihood(post, X[:4])
    assert draws.means.shape == (5, 2, 3)
    assert predictive.shape == (4, 2) and np.all(np.isfinite(predictive))
