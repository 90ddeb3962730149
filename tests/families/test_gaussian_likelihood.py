"""Gaussian log-likelihoods against scipy.stats.multivariate_normal."""

import jax
import numpy as np
import pytest
from scipy import stats

from bayesgen.families import gaussian

COVARIANCE_TYPES = ("full", "tied", "diag", "spherical")


def _random_spd(rng, d):
    A = rng.normal(size=(d, d))
    return A @ A.T + 0.5 * np.eye(d)


def _random_params(rng, covariance_type, K, d, offset):
    """Class means near ``offset`` and covariances of the given type."""
    means = offset + rng.normal(size=(K, d)) * 2.0
    if covariance_type == "full":
        covariances = np.stack([_random_spd(rng, d) for _ in range(K)])
    elif covariance_type == "tied":
        covariances = _random_spd(rng, d)
    elif covariance_type == "diag":
        covariances = rng.uniform(0.3, 3.0, size=(K, d))
    else:
        covariances = rng.uniform(0.3, 3.0, size=K)
    return means, covariances


def _full_covariance(covariances, covariance_type, k, d):
    """The d x d covariance of class k, built explicitly from the type's storage."""
    if covariance_type == "full":
        return covariances[k]
    if covariance_type == "tied":
        return covariances
    if covariance_type == "diag":
        return np.diag(covariances[k])
    return covariances[k] * np.eye(d)


def _scipy_log_likelihood(means, covariances, X, covariance_type):
    K, d = means.shape
    return np.stack(
        [
            stats.multivariate_normal.logpdf(
                X, means[k], _full_covariance(covariances, covariance_type, k, d)
            )
            for k in range(K)
        ],
        axis=1,
    )


@pytest.mark.parametrize("covariance_type", COVARIANCE_TYPES)
@pytest.mark.parametrize("offset", [0.0, 1e4])
def test_log_likelihood_matches_scipy(covariance_type, offset):
    """log_likelihood equals scipy multivariate_normal.logpdf per class, also offset by 1e4."""
    rng = np.random.default_rng(10)
    n, d, K = 30, 3, 4
    means, covariances = _random_params(rng, covariance_type, K, d, offset)
    X = offset + rng.normal(size=(n, d)) * 3.0
    with jax.enable_x64(True):
        params = gaussian.GaussianParams(means, covariances)
        got = np.asarray(gaussian.log_likelihood(params, X, covariance_type))
    expected = _scipy_log_likelihood(means, covariances, X, covariance_type)
    assert got.shape == (n, K)
    np.testing.assert_allclose(got, expected, rtol=1e-10)


@pytest.mark.parametrize("covariance_type", COVARIANCE_TYPES)
def test_log_likelihood_one_feature_one_class(covariance_type):
    """With d = 1 and K = 1 log_likelihood equals scipy.stats.norm.logpdf."""
    rng = np.random.default_rng(11)
    X = rng.normal(size=(7, 1)) * 2.0 + 1.0
    variance = 1.7
    covariances = {
        "full": np.full((1, 1, 1), variance),
        "tied": np.full((1, 1), variance),
        "diag": np.full((1, 1), variance),
        "spherical": np.full((1,), variance),
    }[covariance_type]
    with jax.enable_x64(True):
        params = gaussian.GaussianParams(np.array([[0.4]]), covariances)
        got = np.asarray(gaussian.log_likelihood(params, X, covariance_type))
    expected = stats.norm.logpdf(X, loc=0.4, scale=np.sqrt(variance))
    np.testing.assert_allclose(got, expected, rtol=1e-12)


@pytest.mark.parametrize("covariance_type", COVARIANCE_TYPES)
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_log_likelihood_keeps_accuracy_when_class_means_are_far_apart(covariance_type, dtype):
    """Class means 2e4 apart: each row's own-class log-density still matches scipy closely."""
    rng = np.random.default_rng(12)
    K, d = 2, 3
    means, covariances = _random_params(rng, covariance_type, K, d, 0.0)
    means[1] += 2e4
    labels = rng.integers(0, K, size=50)
    X = means[labels] + rng.normal(size=(50, d))
    X, means, covariances = (a.astype(dtype) for a in (X, means, covariances))
    with jax.enable_x64(dtype == np.float64):
        ours = np.asarray(
            gaussian.log_likelihood(gaussian.GaussianParams(means, covariances), X, covariance_type)
        )
    expected = _scipy_log_likelihood(
        *(a.astype(np.float64) for a in (means, covariances, X)), covariance_type
    )
    own = np.arange(50), labels
    # The own-class value is O(1-10): float64 to 1e-9, float32 to a few times its epsilon
    # times the whitened offset of a row from the shift point (~1e4 here, squared terms
    # cancel nowhere).
    atol = 1e-9 if dtype == np.float64 else 2e-2
    np.testing.assert_allclose(ours[own], expected[own], atol=atol)
