"""The observed-block density (Σ_oo ⊕ I) against SciPy on each row's observed sub-vector."""

import jax
import numpy as np
import pytest
from numpyro import handlers
from scipy import stats

from bayesgen.families import gaussian
from bayesgen.families.class_prior import Dirichlet
from bayesgen.families.gaussian import missing, observed_block
from bayesgen.stories import gaussian_story


def _covariances(rng, K, d):
    A = rng.normal(size=(K, d, d))
    return A @ np.swapaxes(A, 1, 2) + 0.5 * np.eye(d)


def _gappy(rng, n, d, offset=0.0):
    X = offset + rng.normal(size=(n, d)) * 2.0
    X[rng.uniform(size=(n, d)) < 0.4] = np.nan
    X[0] = np.nan  # nothing observed
    X[1] = offset  # everything observed
    return X


def _scipy(means, covariances, X):
    out = np.zeros((X.shape[0], means.shape[0]))
    for i, row in enumerate(X):
        seen = ~np.isnan(row)
        if not seen.any():
            continue
        for k in range(means.shape[0]):
            block = covariances[k][np.ix_(seen, seen)]
            out[i, k] = stats.multivariate_normal.logpdf(row[seen], means[k, seen], block)
    return out


@pytest.mark.parametrize("offset", [0.0, 100.0])
def test_log_density_matches_scipy_on_the_observed_block(offset):
    rng = np.random.default_rng(0)
    K, d = 3, 5
    means = offset + rng.normal(size=(K, d))
    covariances = _covariances(rng, K, d)
    X = _gappy(rng, 80, d, offset)
    with jax.enable_x64(True):
        got = np.asarray(observed_block.log_density(means, covariances, X))
    np.testing.assert_allclose(got, _scipy(means, covariances, X), rtol=1e-10, atol=1e-10)


def test_masked_covariance_is_observed_block_plus_identity():
    rng = np.random.default_rng(1)
    covariance = _covariances(rng, 1, 4)[0]
    present = np.array([True, False, True, False])
    with jax.enable_x64(True):
        masked = np.asarray(observed_block.masked_covariance(covariance, present))
    expected = np.eye(4)
    expected[np.ix_(present, present)] = covariance[np.ix_(present, present)]
    np.testing.assert_array_equal(masked, expected)


@pytest.mark.parametrize("n_patterns", ["few", "many"])
def test_missing_log_likelihood_matches_scipy(n_patterns):
    """Pattern grouping (few patterns) and the masked batch (many) both equal SciPy."""
    rng = np.random.default_rng(2)
    K, d = 2, 8 if n_patterns == "many" else 3
    means = rng.normal(size=(K, d))
    covariances = _covariances(rng, K, d)
    X = _gappy(rng, 300, d)
    patterns, _ = missing.missing_patterns(X)
    assert (len(patterns) > missing.MANY_PATTERNS) == (n_patterns == "many")
    got = missing.log_likelihood(means, covariances, X)
    np.testing.assert_allclose(got, _scipy(means, covariances, X), rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("covariance_type", ["full", "tied"])
def test_story_scores_rows_with_missing_entries_by_their_observed_block(covariance_type):
    """The Gaussian story's "X" and "X_missing" sites add up to SciPy's observed-block density."""
    rng = np.random.default_rng(3)
    K, d = 2, 4
    means = rng.normal(size=(K, d))
    covariances = _covariances(rng, K, d)
    if covariance_type == "tied":
        covariances = covariances[0]
    X = _gappy(rng, 30, d)
    y = rng.integers(0, K, size=30)
    prior = gaussian.NormalInverseWishart(np.zeros(d), 1.0, d + 2.0, np.eye(d))
    sites = {"class_prior": np.full(K, 1 / K), "means": means, "covariances": covariances}
    with jax.enable_x64(True):
        model = handlers.substitute(handlers.seed(gaussian_story, 0), sites)
        trace = handlers.trace(model).get_trace(
            X, y, class_prior=Dirichlet(np.ones(K)), prior=prior, covariance_type=covariance_type
        )
        names = ("X", "X_missing")
        terms = [trace[name]["fn"].log_prob(trace[name]["value"]).sum() for name in names]
        total = float(sum(terms))
    full = covariances if covariance_type == "full" else np.broadcast_to(covariances, (K, d, d))
    expected = _scipy(means, full, X)[np.arange(30), y].sum()
    np.testing.assert_allclose(total, expected, rtol=1e-10)
