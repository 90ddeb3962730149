"""Posterior draws scored side by side against each draw scored on its own.

`posterior_draws.log_joint_draws` lays a chunk of draws out as one model over
``n_draws * n_classes`` classes (``family.side_by_side``); the reference is the fitted
joint under one draw at a time (`bayesgen.joint.with_params` and `bayesgen.joint.log_joint`),
and for the Gaussian, SciPy's multivariate normal density.
"""

import numpy as np
import pytest
import scipy.stats
from sklearn.datasets import load_iris

from bayesgen import joint
from bayesgen.families.categorical import CategoricalFamily
from bayesgen.families.gaussian import GaussianFamily
from bayesgen.families.poisson import PoissonFamily
from bayesgen.inference import posterior_draws


def _fit(family, X, y):
    classes, index = np.unique(y, return_inverse=True)
    R = joint.responsibilities(index, np.ones(len(y)), len(classes))
    return joint.fit(family, X, R, classes)


def _draws(family, value, n_draws, seed, with_class_prior):
    rng = np.random.default_rng(seed)
    fitted = joint.family_of(family, value)
    posterior = fitted.posterior(value.feature_prior, value.feature_stats)
    draws = {
        name: np.asarray(site)
        for name, site in fitted.sites(fitted.sample_params(rng, posterior, n_draws)).items()
    }
    if with_class_prior:
        draws["class_prior"] = rng.dirichlet(np.ones(len(value.classes)), n_draws)
    return draws


def _one_at_a_time(family, value, X, draws):
    fitted = joint.family_of(family, value)
    scores = []
    for s in range(next(iter(draws.values())).shape[0]):
        sites = {name: site[s] for name, site in draws.items() if name != "class_prior"}
        drawn = joint.with_params(
            value, fitted.params_from_sites(sites), draws.get("class_prior", [None] * (s + 1))[s]
        )
        scores.append(joint.log_joint(family, drawn, X))
    return np.stack(scores)


def _cases():
    """(family, X, y); ids from the family's repr only."""
    X, y = load_iris(return_X_y=True)
    rng = np.random.default_rng(0)
    counts = rng.poisson(1 + y[:, None] * np.arange(1, 5)).astype(np.float64)
    labels = np.where(counts > 3, "many", np.where(counts > 1, "some", "few")).astype(object)
    return [
        (GaussianFamily("full"), X, y),
        (GaussianFamily("tied"), X, y),
        (GaussianFamily("diag"), X, y),
        (GaussianFamily("spherical"), X, y),
        (PoissonFamily(alpha=0.5), counts, y),
        (CategoricalFamily(alpha=1.0), labels, y),
    ]


@pytest.mark.parametrize("with_class_prior", [False, True])
@pytest.mark.parametrize(("family", "X", "y"), _cases(), ids=[repr(case[0]) for case in _cases()])
def test_draws_side_by_side_score_as_each_draw_alone(family, X, y, with_class_prior, monkeypatch):
    value = _fit(family, X, y)
    draws = _draws(family, value, 7, seed=1, with_class_prior=with_class_prior)
    monkeypatch.setattr(posterior_draws, "CHUNK_ENTRIES", 3 * X.shape[0] * 3)  # chunks of 3
    chunks = list(posterior_draws.log_joint_draws(family, value, X, draws, np.float64))
    assert len(chunks) == 3
    scored = np.concatenate([scores for scores, _ in chunks])
    # Log densities of order 1 to 100, some near 0: absolute and relative agreement.
    expected = _one_at_a_time(family, value, X, draws)
    np.testing.assert_allclose(scored, expected, rtol=1e-12, atol=1e-12)


def test_a_tied_draw_side_by_side_is_the_normal_density_of_its_shared_covariance():
    X, y = load_iris(return_X_y=True)
    family = GaussianFamily("tied")
    value = _fit(family, X, y)
    draws = _draws(family, value, 4, seed=2, with_class_prior=False)
    assert draws["covariances"].shape == (4, 4, 4)  # one shared covariance per draw
    wide_family, params = family.side_by_side(draws)
    assert wide_family.covariance_type == "full" and family.covariance_type == "tied"
    scores = wide_family.log_likelihood(params, X)
    expected = np.stack(
        [
            scipy.stats.multivariate_normal(draws["means"][s, k], draws["covariances"][s]).logpdf(X)
            for s in range(4)
            for k in range(3)
        ],
        axis=1,
    )
    np.testing.assert_allclose(scores, expected, rtol=1e-10)
