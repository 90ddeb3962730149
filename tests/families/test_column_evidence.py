"""Column evidence: each family's log p(x | y) against an independent computation."""

import numpy as np
import pytest
from scipy import stats
from scipy.special import gammaln

from bayesgen._precision import precision
from bayesgen.families import column_evidence
from bayesgen.families.gaussian import GaussianFamily, suff_stats


def _labelled(n=60, seed=0):
    rng = np.random.default_rng(seed)
    class_index = rng.integers(0, 2, n)
    return rng, class_index


def test_gaussian_prequential_evidence_equals_the_normal_inverse_gamma_closed_form():
    """The chain rule of Student-t predictives is the closed-form NIG evidence, per class."""
    rng, class_index = _labelled()
    x = rng.normal(3.0 + class_index, 2.0)
    got = column_evidence.gaussian(x, class_index, 2, discrete=False, reg_covar=1e-6)
    # The closed form from the library's own NIG posterior (GaussianNB's family and prior).
    family = GaussianFamily("diag", reg_covar=1e-6)
    with precision(np.float64):
        gaussian_stats = suff_stats(x[:, None], np.eye(2)[class_index], "diag")
        prior = family.prior(gaussian_stats, family.ridge(gaussian_stats))
        post = family.posterior(prior, gaussian_stats)
    a0, b0 = float(prior.dof) / 2, float(prior.scale[0]) / 2
    expected = 0.0
    for k in range(2):
        n = np.count_nonzero(class_index == k)
        an, bn = float(post.dof[k]) / 2, float(post.scale[k, 0]) / 2
        expected += (
            gammaln(an)
            - gammaln(a0)
            + a0 * np.log(b0)
            - an * np.log(bn)
            + 0.5 * np.log(float(prior.mean_precision) / float(post.mean_precision[k]))
            - n / 2 * np.log(2 * np.pi)
        )
    np.testing.assert_allclose(got, expected, rtol=1e-10)


def test_gaussian_as_a_model_of_integers_is_a_probability_and_tends_to_the_density():
    rng, class_index = _labelled(200, seed=1)
    wide = np.round(rng.normal(500 + 40 * class_index, 60))
    discrete = column_evidence.gaussian(wide, class_index, 2, discrete=True)
    continuous = column_evidence.gaussian(wide, class_index, 2, discrete=False)
    # Unit intervals are narrow next to a standard deviation of 60: mass = density x 1.
    np.testing.assert_allclose(discrete, continuous, atol=1e-3 * wide.size)
    narrow = np.where(np.arange(200) % 20 == 0, 1.0, 0.0)  # mostly zeros: a density exceeds 1
    assert column_evidence.gaussian(narrow, class_index, 2, discrete=True) < 0
    assert column_evidence.gaussian(narrow, class_index, 2, discrete=False) > 0


def test_a_column_of_whole_numbers_far_apart_warns_of_nothing():
    """59 zeros and one 10^9 (issue 33): the tail not used underflows; no warning escapes,
    and the unit-interval masses are the densities (the predictive is wide at 10^9)."""
    import warnings

    _, class_index = _labelled()
    x = np.r_[np.zeros(59), 1e9]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        discrete = column_evidence.gaussian(x, class_index, 2, discrete=True)
    assert np.isfinite(discrete)
    continuous = column_evidence.gaussian(x, class_index, 2, discrete=False)
    np.testing.assert_allclose(discrete, continuous, rtol=1e-6)
    # At 10^17 the interval [x - 1/2, x + 1/2] is one float: its mass is the density (was -inf).
    huge = np.round(np.random.default_rng(1).normal(0, 1e17, 60))
    discrete = column_evidence.gaussian(huge, class_index, 2, discrete=True)
    continuous = column_evidence.gaussian(huge, class_index, 2, discrete=False)
    np.testing.assert_allclose(discrete, continuous, rtol=1e-12)


def _sequential(x, class_index, predictive_logpmf):
    """Chain rule: sum of log p(x_i | earlier rows of its class)."""
    total = 0.0
    for k in np.unique(class_index):
        values = x[class_index == k]
        for i, value in enumerate(values):
            total += predictive_logpmf(values[:i], value)
    return total


def test_poisson_evidence_is_the_chain_of_negative_binomial_predictives():
    rng, class_index = _labelled()
    x = rng.poisson(2.0 + 3 * class_index).astype(float)
    alpha, beta = 1.5, 0.5

    def predictive(earlier, value):
        shape, rate = alpha + earlier.sum(), beta + earlier.size
        return stats.nbinom.logpmf(value, shape, rate / (rate + 1))

    expected = _sequential(x, class_index, predictive)
    got = column_evidence.poisson(x, class_index, 2, alpha=alpha, beta=beta)
    np.testing.assert_allclose(got, expected, rtol=1e-10)


def test_exponential_evidence_is_the_chain_of_lomax_predictives():
    rng, class_index = _labelled()
    x = rng.exponential(1.0 + class_index)
    alpha, beta = 2.0, 1.5

    def predictive(earlier, value):
        shape, rate = alpha + earlier.size, beta + earlier.sum()
        return stats.lomax.logpdf(value, shape, scale=rate)

    expected = _sequential(x, class_index, predictive)
    got = column_evidence.exponential(x, class_index, 2, alpha=alpha, beta=beta)
    np.testing.assert_allclose(got, expected, rtol=1e-10)


def test_categorical_evidence_is_the_chain_of_dirichlet_predictives_with_an_unseen_level():
    rng, class_index = _labelled()
    x = rng.choice([3.0, 7.0, 9.0], size=class_index.size)
    alpha, size = 0.7, 4  # three levels seen, plus the unseen one

    def predictive(earlier, value):
        return np.log((np.count_nonzero(earlier == value) + alpha) / (earlier.size + size * alpha))

    expected = _sequential(x, class_index, predictive)
    got = column_evidence.categorical(x, class_index, 2, alpha=alpha)
    np.testing.assert_allclose(got, expected, rtol=1e-10)


@pytest.mark.parametrize("family", ["gaussian", "poisson", "exponential", "categorical"])
def test_missing_entries_are_skipped(family):
    rng, class_index = _labelled()
    x = rng.poisson(4.0, class_index.size).astype(float)
    with_missing = x.copy()
    with_missing[[2, 5]] = np.nan
    keep = ~np.isnan(with_missing)
    options = {"discrete": True} if family == "gaussian" else {}
    evidence = getattr(column_evidence, family)
    np.testing.assert_allclose(
        evidence(with_missing, class_index, 2, **options),
        evidence(x[keep], class_index[keep], 2, **options),
        rtol=1e-12,
    )


def test_categorical_evidence_over_an_integer_range_counts_every_integer_as_a_level():
    """Levels 3..9 (seven, four never seen) plus the unseen one."""
    rng, class_index = _labelled()
    x = rng.choice([3.0, 7.0, 9.0], size=class_index.size)
    alpha, size = 0.7, 8

    def predictive(earlier, value):
        return np.log((np.count_nonzero(earlier == value) + alpha) / (earlier.size + size * alpha))

    expected = _sequential(x, class_index, predictive)
    got = column_evidence.categorical(x, class_index, 2, alpha=alpha, integer_range=True)
    np.testing.assert_allclose(got, expected, rtol=1e-10)
