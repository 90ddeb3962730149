"""The discrete families through the FeatureFamily protocol, against SciPy."""

import numpy as np
import pytest
from scipy import stats

from bayesgen import registry
from bayesgen._precision import precision
from bayesgen.families.bernoulli import BernoulliFamily, Beta
from bayesgen.families.categorical import CategoricalFamily
from bayesgen.families.multinomial import MultinomialFamily
from bayesgen.families.poisson import Gamma, PoissonFamily
from bayesgen.families.protocol import FeatureFamily

RNG = np.random.default_rng(1)
COUNTS = RNG.poisson(2.0, (15, 4)).astype(float)
BINARY = (RNG.random((15, 4)) < 0.4).astype(float)
R = RNG.dirichlet(np.ones(3), 15)


@pytest.fixture(autouse=True)
def _float64():
    with precision(np.float64):
        yield


@pytest.mark.parametrize(
    "name, cls",
    [
        ("bernoulli", BernoulliFamily),
        ("multinomial", MultinomialFamily),
        ("poisson", PoissonFamily),
        ("categorical", CategoricalFamily),
    ],
)
def test_each_family_registers_itself_and_its_story_part(name, cls):
    assert issubclass(cls, FeatureFamily)
    assert registry.family(name) is cls
    assert callable(registry.story_part(name))


def test_poisson_predictive_is_the_negative_binomial():
    post = Gamma(RNG.uniform(1, 4, (3, 4)), RNG.uniform(0.5, 3, (3, 4)))
    found = PoissonFamily().predictive_log_likelihood(post, COUNTS)
    shape, rate = post
    logpmf = stats.nbinom.logpmf(COUNTS[:, None, :], shape[None], rate[None] / (rate[None] + 1))
    np.testing.assert_allclose(found, logpmf.sum(axis=-1), rtol=1e-10)


def test_multinomial_predictive_is_the_dirichlet_multinomial():
    concentration = RNG.uniform(0.5, 3, (3, 4))
    found = MultinomialFamily().predictive_log_likelihood(concentration, COUNTS)
    lengths = COUNTS.sum(axis=1)
    expected = np.array(
        [
            [stats.dirichlet_multinomial.logpmf(x, a, n) for a in concentration]
            for x, n in zip(COUNTS, lengths, strict=True)
        ]
    )
    np.testing.assert_allclose(found, expected, rtol=1e-10)


def test_bernoulli_predictive_is_the_beta_binomial_of_one_trial():
    post = Beta(RNG.uniform(0.5, 3, (3, 4)), RNG.uniform(0.5, 3, (3, 4)))
    found = BernoulliFamily().predictive_log_likelihood(post, BINARY)
    a, b = post
    logpmf = stats.betabinom.logpmf(BINARY[:, None, :], 1, a[None], b[None])
    np.testing.assert_allclose(found, logpmf.sum(axis=-1), rtol=1e-6)


@pytest.mark.parametrize("family", [BernoulliFamily(), PoissonFamily()])
def test_a_missing_entry_drops_its_factor(family):
    X = BINARY if isinstance(family, BernoulliFamily) else COUNTS
    params = RNG.uniform(0.1, 0.9, (3, 4))
    with_nan = X.copy()
    with_nan[:, 2] = np.nan
    dropped = family.log_likelihood(params[:, [0, 1, 3]], X[:, [0, 1, 3]])
    np.testing.assert_allclose(family.log_likelihood(params, with_nan), dropped, rtol=1e-6)


def test_multinomial_missing_words_renormalise_theta():
    theta = RNG.dirichlet(np.ones(4), 3)
    with_nan = COUNTS.copy()
    with_nan[:, 3] = np.nan
    observed = theta[:, :3] / theta[:, :3].sum(axis=1, keepdims=True)
    reference = MultinomialFamily().log_likelihood(observed, COUNTS[:, :3])
    np.testing.assert_allclose(MultinomialFamily().log_likelihood(theta, with_nan), reference)


def test_multinomial_statistics_refuse_missing_counts():
    with_nan = COUNTS.copy()
    with_nan[0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        MultinomialFamily().suff_stats(with_nan, R, np.float64)


@pytest.mark.parametrize("kind", ["map", "mean"])
def test_poisson_log_prior_differences_match_scipy(kind):
    family = PoissonFamily(alpha=2.5, beta=0.5)
    prior = family.prior(family.suff_stats(COUNTS, R, np.float64))
    a, b = np.full(4, 2.5), 0.5
    shape = a if kind == "map" else a + 1  # "mean" is the mode under Gamma(a + 1, b)
    first, second = RNG.uniform(0.5, 3, (2, 3, 4))
    found = family.log_prior(prior, first, kind=kind) - family.log_prior(prior, second, kind=kind)
    logpdf = stats.gamma.logpdf
    expected = (logpdf(first, shape, scale=1 / b) - logpdf(second, shape, scale=1 / b)).sum()
    assert found == pytest.approx(expected, rel=1e-10)


def test_categorical_codes_predictive_and_imputation():
    family = CategoricalFamily(alpha=1.0, sizes=[3, 4])
    codes = np.array([[0, 1], [1, 3], [-1, 2], [2, -1]])
    stats_ = family.suff_stats(codes, R[:4], np.float64)
    observed_per_row = (codes >= 0).sum(axis=1)
    per_class = np.asarray(stats_.category_counts).sum(axis=1)
    np.testing.assert_allclose(per_class, R[:4].T @ observed_per_row)
    post = np.asarray(family.posterior(family.prior(stats_), stats_))
    found = family.predictive_log_likelihood(post, codes)
    first, second = post[:, :3], post[:, 3:]
    expected = np.zeros((4, 3))
    for i, (a, b) in enumerate(codes):
        if a >= 0:
            expected[i] += np.log(first[:, a] / first.sum(axis=1))
        if b >= 0:
            expected[i] += np.log(second[:, b] / second.sum(axis=1))
    np.testing.assert_allclose(found, expected, rtol=1e-12)
    weights = np.tile([1.0, 0.0, 0.0], (4, 1))
    theta = family.point_estimate(family.prior(stats_), stats_, "mean")
    filled = family.conditional(np.asarray(theta), codes, weights, "mean", None)
    assert filled[2, 0] == np.argmax(np.asarray(theta)[0, :2])
    assert filled[3, 1] == np.argmax(np.asarray(theta)[0, 3:6])
