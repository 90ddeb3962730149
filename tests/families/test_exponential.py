"""The Gamma–exponential family against SciPy and its closed forms."""

import re

import jax
import numpy as np
import pytest
import scipy.sparse as sp
from scipy import stats

from bayesgen import registry
from bayesgen._precision import precision
from bayesgen.families import exponential
from bayesgen.families.exponential import ExponentialFamily, ExponentialStats, Gamma

RNG = np.random.default_rng(0)
RATES = np.array([[0.5, 2.0, 1.0], [3.0, 0.7, 0.2]])
X = RNG.exponential(1.0, (12, 3))
X[1, 2] = X[4, 0] = np.nan
R = RNG.dirichlet(np.ones(2), 12)


@pytest.fixture(autouse=True)
def _float64():
    """Callers run a family inside the precision of their data (here float64)."""
    with precision(np.float64):
        yield


def test_registered_under_its_name():
    assert registry.family("exponential") is ExponentialFamily
    assert registry.story_part("exponential") is not None


def test_log_likelihood_matches_scipy_with_missing_entries_dropped():
    found = ExponentialFamily().log_likelihood(RATES, X)
    logpdf = stats.expon.logpdf(X[:, None, :], scale=1 / RATES[None])
    expected = np.nansum(logpdf, axis=-1)
    np.testing.assert_allclose(found, expected, rtol=1e-12)


def test_a_zero_rate_makes_an_observed_entry_impossible():
    rates = RATES.copy()
    rates[0, 0] = 0.0
    found = ExponentialFamily().log_likelihood(rates, X)
    observed = ~np.isnan(X[:, 0])
    assert np.all(np.isneginf(found[observed, 0]))
    assert np.all(np.isfinite(found[~observed, 0]))


def test_statistics_and_posterior_are_the_weighted_sums():
    family = ExponentialFamily(alpha=2.0, beta=0.5)
    stats_ = family.suff_stats(X, R, np.float64)
    present = ~np.isnan(X)
    np.testing.assert_allclose(stats_.counts, R.sum(0))
    np.testing.assert_allclose(stats_.observed_counts, R.T @ present)
    np.testing.assert_allclose(stats_.feature_sums, R.T @ np.where(present, X, 0.0))
    post = family.posterior(family.prior(stats_), stats_)
    np.testing.assert_allclose(post.shape, 2.0 + R.T @ present)
    np.testing.assert_allclose(post.rate, 0.5 + R.T @ np.where(present, X, 0.0))


def test_merge_of_two_batches_is_the_statistics_of_both():
    family = ExponentialFamily()
    merged = family.merge(
        family.suff_stats(X[:5], R[:5], np.float64), family.suff_stats(X[5:], R[5:], np.float64)
    )
    whole = family.suff_stats(X, R, np.float64)
    for a, b in zip(merged, whole, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-12)


def test_point_estimates_are_the_closed_forms_on_hand_data():
    # One class, one feature: N = 3 observed values summing to S = 6.
    stats_ = ExponentialStats(np.array([3.0]), np.array([[3.0]]), np.array([[6.0]]))
    family = ExponentialFamily(alpha=2.0, beta=1.0)
    prior = family.prior(stats_)
    assert float(family.point_estimate(prior, stats_, "mle")[0, 0]) == pytest.approx(3 / 6)
    assert float(family.point_estimate(prior, stats_, "map")[0, 0]) == pytest.approx(4 / 7)
    assert float(family.point_estimate(prior, stats_, "mean")[0, 0]) == pytest.approx(5 / 7)
    # alpha + N < 1: the posterior mode is clipped to the boundary 0.
    empty = ExponentialStats(np.array([0.0]), np.array([[0.0]]), np.array([[0.0]]))
    small = ExponentialFamily(alpha=0.5)
    assert float(small.point_estimate(small.prior(empty), empty, "map")[0, 0]) == 0.0


def test_posterior_mean_and_mode_agree_with_scipy_gamma():
    family = ExponentialFamily(alpha=1.5, beta=2.0)
    stats_ = family.suff_stats(X, R, np.float64)
    post = family.posterior(family.prior(stats_), stats_)
    reference = stats.gamma(np.asarray(post.shape), scale=1 / np.asarray(post.rate))
    prior = family.prior(stats_)
    np.testing.assert_allclose(family.point_estimate(prior, stats_, "mean"), reference.mean())
    mode = (np.asarray(post.shape) - 1) / np.asarray(post.rate)
    np.testing.assert_allclose(family.point_estimate(prior, stats_, "map"), mode)


def test_predictive_is_the_lomax_density():
    post = Gamma(np.array([[2.5, 3.0, 1.2], [4.0, 1.5, 2.0]]), np.array([[1.0, 2.0, 0.3]] * 2))
    found = ExponentialFamily().predictive_log_likelihood(post, X)
    shape, rate = np.asarray(post.shape), np.asarray(post.rate)
    logpdf = stats.lomax.logpdf(X[:, None, :], shape[None], scale=rate[None])
    np.testing.assert_allclose(found, np.nansum(logpdf, axis=-1), rtol=1e-12)


def test_predictive_is_the_likelihood_averaged_over_posterior_draws():
    post = Gamma(np.full((2, 3), 3.0), np.full((2, 3), 2.0))
    draws = np.asarray(ExponentialFamily().sample_params(jax.random.key(0), post, 200_000))
    row = X[:1]
    likelihood = np.exp([ExponentialFamily().log_likelihood(d, row)[0] for d in draws[:20_000]])
    found = np.exp(ExponentialFamily().predictive_log_likelihood(post, row)[0])
    np.testing.assert_allclose(likelihood.mean(axis=0), found, rtol=0.05)
    np.testing.assert_allclose(draws.mean(axis=0), 1.5, rtol=0.01)


def test_log_prior_differences_match_scipy_gamma():
    family = ExponentialFamily(alpha=2.5, beta=1.5)
    prior = Gamma(np.full(3, 2.5), np.full(3, 1.5))
    other = RATES * 1.7
    found = family.log_prior(prior, RATES) - family.log_prior(prior, other)
    logpdf = stats.gamma.logpdf
    expected = (logpdf(RATES, 2.5, scale=1 / 1.5) - logpdf(other, 2.5, scale=1 / 1.5)).sum()
    assert found == pytest.approx(expected, rel=1e-12)
    assert family.log_prior(prior, RATES, kind="mle") == 0.0


def test_conditional_mean_is_the_mixture_mean_and_draws_follow_the_class():
    weights = np.tile([0.25, 0.75], (X.shape[0], 1))
    family = ExponentialFamily()
    filled = family.conditional(RATES, X, weights, "mean", np.random.default_rng(0))
    assert filled[1, 2] == pytest.approx(0.25 / RATES[0, 2] + 0.75 / RATES[1, 2])
    assert filled[4, 0] == pytest.approx(0.25 / RATES[0, 0] + 0.75 / RATES[1, 0])
    observed = ~np.isnan(X)
    np.testing.assert_array_equal(filled[observed], X[observed])
    many = np.full((4000, 3), np.nan)
    one_hot = np.tile([0.0, 1.0], (4000, 1))
    drawn = family.conditional(RATES, many, one_hot, "sample", np.random.default_rng(1))
    for j in range(3):
        assert stats.kstest(drawn[:, j], stats.expon(scale=1 / RATES[1, j]).cdf).pvalue > 1e-3


@pytest.mark.parametrize(
    "bad, message",
    [
        (np.array([[1.0, -0.5, 2.0]]), "Negative"),
        (np.array([[1.0, np.inf, 2.0]]), "inf"),
        (np.array([[1.0, 2.0]]), "shape"),
        (np.ones(3), "shape"),
        (sp.csr_matrix(np.ones((1, 3))), "dense"),
    ],
)
def test_bad_values_are_refused_naming_the_argument(bad, message):
    with pytest.raises(ValueError, match=message) as error:
        ExponentialFamily().log_likelihood(RATES, bad)
    assert re.search(r"\bX\b", str(error.value))


def test_bad_hyperparameters_are_refused_naming_them():
    stats_ = ExponentialFamily().suff_stats(X, R, np.float64)
    with pytest.raises(ValueError, match="alpha"):
        ExponentialFamily(alpha=-1.0).prior(stats_)
    with pytest.raises(ValueError, match="beta"):
        ExponentialFamily(beta=0.0).prior(stats_)


def test_module_functions_are_the_family_methods():
    family = ExponentialFamily()
    stats_ = family.suff_stats(X, R, np.float64)
    np.testing.assert_array_equal(
        family.point_estimate(family.prior(stats_), stats_, "mean"),
        exponential.point_estimate(family.prior(stats_), stats_, "mean"),
    )
