"""Simulation-based calibration of the exact posterior (Talts et al. 2018).

Draw parameters from the prior and a data set from the story given them, fit, and ask
where the true parameters fall among the exact posterior draws. If the posterior is
right, every central credible interval covers the truth at its nominal rate over the
replications. The prior here is explicit (not the empirical-Bayes default, which looks at
the data), and ``partial_fit`` with all classes keeps a replication whose data lack a class.
"""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from numpyro.infer import Predictive

import bayesgen as bg
from bayesgen import stories
from bayesgen.families.bernoulli import Beta
from bayesgen.families.class_prior import Dirichlet
from bayesgen.families.gaussian import NormalInverseWishart
from bayesgen.families.poisson import Gamma

REPLICATIONS = 100
N_ROWS = 25
N_DRAWS = 400
N_CLASSES = 2
N_FEATURES = 2


def _simulate(story, **kwargs) -> dict:
    """Parameters from the prior and rows from the story, for every replication."""
    with jax.enable_x64(True):
        draws = Predictive(story, num_samples=REPLICATIONS)(
            jax.random.key(0), n_samples=N_ROWS, **kwargs
        )
    return {name: np.asarray(value) for name, value in draws.items()}


def _coverage(model_factory, simulated, sites, features=lambda X: X) -> dict:
    """Fraction of true scalars inside the central 50% and 90% posterior intervals."""
    inside = {0.5: [], 0.9: []}
    for r in range(REPLICATIONS):
        X, y = features(simulated["X"][r]), simulated["y"][r]
        model = model_factory().partial_fit(X, y, classes=np.arange(N_CLASSES))
        idata = model.posterior(N_DRAWS, random_state=r)
        for site in sites:
            draws = idata.posterior[site].values[0]
            truth = simulated[site][r]
            for level in inside:
                low, high = np.quantile(draws, [(1 - level) / 2, (1 + level) / 2], axis=0)
                inside[level].append(((low <= truth) & (truth <= high)).ravel())
    return {level: float(np.mean(np.concatenate(flags))) for level, flags in inside.items()}


def _assert_calibrated(coverage):
    # Over ~1000 correlated indicators: a few standard errors of a binomial proportion.
    assert abs(coverage[0.5] - 0.5) < 0.06, coverage
    assert abs(coverage[0.9] - 0.9) < 0.04, coverage


@pytest.mark.slow
@pytest.mark.parametrize("covariance_type", ["full", "tied", "diag", "spherical"])
def test_gaussian_exact_posterior_is_calibrated(covariance_type):
    scale = {
        "full": np.eye(N_FEATURES),
        "tied": np.eye(N_FEATURES),
        "diag": np.ones(N_FEATURES),
        "spherical": 1.0,
    }[covariance_type]
    prior = NormalInverseWishart(
        jnp.zeros(N_FEATURES), jnp.asarray(0.5), jnp.asarray(4.0), jnp.asarray(scale)
    )
    simulated = _simulate(
        stories.gaussian_story,
        class_prior=Dirichlet(jnp.ones(N_CLASSES)),
        prior=prior,
        covariance_type=covariance_type,
    )
    coverage = _coverage(
        lambda: bg.GaussianDA(
            covariance_type=covariance_type,
            mean_prior=np.zeros(N_FEATURES),
            mean_precision_prior=0.5,
            degrees_of_freedom_prior=4.0,
            covariance_prior=scale,
        ),
        simulated,
        ["class_prior", "means", "covariances"],
    )
    _assert_calibrated(coverage)


@pytest.mark.slow
def test_bernoulli_exact_posterior_is_calibrated():
    simulated = _simulate(
        stories.bernoulli_story,
        class_prior=Dirichlet(jnp.ones(N_CLASSES)),
        prior=Beta(jnp.full(3, 2.0), jnp.full(3, 2.0)),
    )
    coverage = _coverage(
        lambda: bg.BernoulliNB(alpha=2.0), simulated, ["class_prior", "feature_probs"]
    )
    _assert_calibrated(coverage)


@pytest.mark.slow
def test_poisson_exact_posterior_is_calibrated():
    simulated = _simulate(
        stories.poisson_story,
        class_prior=Dirichlet(jnp.ones(N_CLASSES)),
        prior=Gamma(jnp.full(3, 3.0), jnp.asarray(0.5)),
    )
    coverage = _coverage(
        lambda: bg.PoissonNB(alpha=3.0, beta=0.5), simulated, ["class_prior", "rates"]
    )
    _assert_calibrated(coverage)


@pytest.mark.slow
def test_multinomial_exact_posterior_is_calibrated():
    simulated = _simulate(
        stories.multinomial_story,
        class_prior=Dirichlet(jnp.ones(N_CLASSES)),
        concentration=jnp.full(4, 1.5),
        lengths=jnp.full(N_ROWS, 8),
    )
    coverage = _coverage(
        lambda: bg.MultinomialNB(alpha=1.5), simulated, ["class_prior", "feature_probs"]
    )
    _assert_calibrated(coverage)
