"""GroupTiedGaussian: full-covariance sub-classes sharing one covariance per group, and the
Gaussian family's log prior split by class."""

import numpy as np
import pytest

from bayesgen.families.gaussian import GaussianFamily
from bayesgen.families.gaussian.group_tied import GroupTiedGaussian
from bayesgen.families.protocol import NoClosedForm


def _rows(n=120, groups=2, size=3, seed=0):
    rng = np.random.default_rng(seed)
    sub = rng.integers(0, groups * size, n)
    X = rng.normal(size=(n, 3)) @ np.array([[1.0, 0.4, 0.0], [0.0, 0.7, 0.2], [0.0, 0.0, 0.5]])
    X += sub[:, None] * np.array([0.5, -0.3, 0.2])
    return X, np.eye(groups * size)[sub]


@pytest.mark.parametrize("kind", ["mle", "map"])
def test_one_group_is_the_tied_gaussian_family(kind):
    """With one group the estimate and the log prior are GaussianFamily("tied")'s."""
    X, R = _rows(groups=1, size=4)
    grouped, tied = GroupTiedGaussian(4), GaussianFamily("tied")
    stats = grouped.suff_stats(X, R)
    prior, params = grouped.estimate(stats, kind)
    tied_prior, tied_params = tied.estimate(tied.suff_stats(X, R), kind)
    np.testing.assert_allclose(params.means, tied_params.means, rtol=1e-12)
    for covariance in params.covariances:
        np.testing.assert_allclose(covariance, tied_params.covariances, rtol=1e-12)
    np.testing.assert_allclose(
        grouped.log_prior(prior, params, kind),
        tied.log_prior(tied_prior, tied_params, kind),
        rtol=1e-12,
    )


@pytest.mark.parametrize("kind", ["mle", "map"])
def test_each_group_is_its_own_tied_fit(kind):
    """Two groups: each group's covariance is the tied estimate of its own sub-classes
    under the shared prior and ridge; the densities are the full family's."""
    X, R = _rows(groups=2, size=3)
    grouped = GroupTiedGaussian(3)
    stats = grouped.suff_stats(X, R)
    prior, params = grouped.estimate(stats, kind)
    ridge = grouped.ridge(stats)
    tied = GaussianFamily("tied")
    for k in range(2):
        block = slice(3 * k, 3 * k + 3)
        rows = R[:, block].any(axis=1)
        own = tied.point_estimate(
            prior, tied.suff_stats(X[rows], R[rows][:, block]), kind, ridge=ridge
        )
        for covariance in params.covariances[block]:
            np.testing.assert_allclose(covariance, own.covariances, rtol=1e-10)
        np.testing.assert_allclose(params.means[block], own.means, rtol=1e-10)
    full = GaussianFamily("full")
    np.testing.assert_allclose(
        grouped.log_likelihood(params, X), full.log_likelihood(params, X), rtol=1e-12
    )
    terms = grouped.sub_class_log_prior(prior, params, kind)
    assert terms.shape == (6,)
    np.testing.assert_allclose(terms.sum(), grouped.log_prior(prior, params, kind), rtol=1e-12)
    assert grouped.params_from_sites(grouped.sites(params)).covariances.shape == (6, 3, 3)


@pytest.mark.parametrize("covariance_type", ["full", "diag", "spherical"])
def test_the_gaussian_log_prior_splits_by_class(covariance_type):
    X, R = _rows()
    family = GaussianFamily(covariance_type)
    prior, params = family.estimate(family.suff_stats(X, R), "map")
    terms = family.sub_class_log_prior(prior, params, "map")
    assert terms.shape == (R.shape[1],)
    np.testing.assert_allclose(terms.sum(), family.log_prior(prior, params, "map"), rtol=1e-10)
    np.testing.assert_array_equal(family.sub_class_log_prior(prior, params, "mle"), 0.0)


def test_a_tied_covariance_does_not_split_and_groups_must_divide():
    X, R = _rows()
    tied = GaussianFamily("tied")
    prior, params = tied.estimate(tied.suff_stats(X, R), "map")
    with pytest.raises(NoClosedForm, match="tied covariance's prior is not split"):
        tied.sub_class_log_prior(prior, params, "map")
    grouped = GroupTiedGaussian(4)
    with pytest.raises(ValueError, match="6 sub-classes do not split into groups of 4"):
        grouped.estimate(grouped.suff_stats(X, R), "mle")
    with pytest.raises(NoClosedForm, match="no per-component conjugate posterior"):
        grouped.posterior(prior, grouped.suff_stats(X, R))
