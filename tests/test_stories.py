"""The NumPyro story is the model: its density, its forward draws and NUTS on it."""

import jax
import numpy as np
import pytest
from numpyro import handlers
from numpyro.infer import MCMC, NUTS, Predictive
from numpyro.infer.util import log_density
from scipy import stats
from sklearn.datasets import load_iris

from bayesgen import GaussianDA
from bayesgen.families import gaussian

COVARIANCE_TYPES = ["full", "tied", "diag", "spherical"]


def _scipy_log_prior(model, pi, means, covariances):
    """log p(pi) + log p(means, covariances) under the model's prior, computed with SciPy."""
    m0, kappa0, nu0, psi0 = (np.asarray(field, dtype=np.float64) for field in model.prior_)
    kappa0, nu0 = float(kappa0), float(nu0)
    alpha = np.full(len(model.classes_), model.class_concentration_prior)
    total = stats.dirichlet.logpdf(pi, alpha)
    kind = model.covariance_type
    for k, mean in enumerate(means):
        if kind == "full":
            total += stats.invwishart.logpdf(covariances[k], nu0, psi0)
            total += stats.multivariate_normal.logpdf(mean, m0, covariances[k] / kappa0)
        elif kind == "tied":
            total += stats.multivariate_normal.logpdf(mean, m0, covariances / kappa0)
        elif kind == "diag":
            total += stats.invgamma.logpdf(covariances[k], nu0 / 2, scale=psi0 / 2).sum()
            total += stats.norm.logpdf(mean, m0, np.sqrt(covariances[k] / kappa0)).sum()
        else:
            total += stats.invgamma.logpdf(covariances[k], nu0 / 2, scale=psi0 / 2)
            total += stats.norm.logpdf(mean, m0, np.sqrt(covariances[k] / kappa0)).sum()
    if kind == "tied":
        total += stats.invwishart.logpdf(covariances, nu0, psi0)
    return total


@pytest.mark.parametrize("covariance_type", COVARIANCE_TYPES)
def test_story_log_density_equals_closed_form_joint(covariance_type):
    """log_density(story) = log prior (SciPy) + sum_i [log pi_yi + log N(x_i | class y_i)]."""
    X, y = load_iris(return_X_y=True)
    model = GaussianDA(covariance_type=covariance_type, estimate="map").fit(X, y)
    params = {
        "class_prior": model.class_prior_,
        "means": model.means_,
        "covariances": model.covariances_,
    }
    with jax.enable_x64(True):
        story_density, _ = log_density(model.story, (X, y), {}, params)
        per_class = gaussian.log_likelihood(
            gaussian.GaussianParams(model.means_, model.covariances_), X, covariance_type
        )
    labels = np.searchsorted(model.classes_, y)
    own_class = np.asarray(per_class)[np.arange(len(y)), labels]
    likelihood = np.sum(np.log(model.class_prior_[labels]) + own_class)
    expected = likelihood + _scipy_log_prior(model, *params.values())
    np.testing.assert_allclose(float(story_density), expected, rtol=1e-10)


@pytest.mark.parametrize("covariance_type", COVARIANCE_TYPES)
def test_story_forward_draws_follow_the_fitted_parameters(covariance_type):
    """Predictive on the story with fitted parameters reproduces pi, class means and variances."""
    X, y = load_iris(return_X_y=True)
    model = GaussianDA(covariance_type=covariance_type).fit(X, y)
    fitted = {
        "class_prior": model.class_prior_,
        "means": model.means_,
        "covariances": model.covariances_,
    }
    n = 20_000
    with jax.enable_x64(True):
        story = handlers.substitute(model.story, data=fitted)
        draws = Predictive(story, num_samples=1)(jax.random.key(0), n_samples=n)
    labels, features = np.asarray(draws["y"][0]), np.asarray(draws["X"][0])
    frequencies = np.bincount(labels, minlength=3) / n
    np.testing.assert_allclose(frequencies, model.class_prior_, atol=4 * np.sqrt(0.25 / n))
    refit = GaussianDA(covariance_type=covariance_type, reg_covar=0).fit(features, labels)
    scale = np.sqrt(np.diag(np.cov(X.T)))
    np.testing.assert_allclose(refit.means_ / scale, model.means_ / scale, atol=0.05)
    np.testing.assert_allclose(refit.covariances_, model.covariances_, rtol=0.1, atol=0.01)


def test_story_with_fixed_class_prior_has_no_class_prior_site():
    """Known class probabilities are constants of the story, not a random site."""
    X, y = load_iris(return_X_y=True)
    model = GaussianDA(priors=[0.2, 0.3, 0.5]).fit(X, y)
    with jax.enable_x64(True):
        trace = handlers.trace(handlers.seed(model.story, 0)).get_trace(X, y)
    assert "class_prior" not in trace
    assert set(trace) >= {"means", "covariances", "y", "X"}


@pytest.mark.slow
@pytest.mark.nuts
def test_nuts_on_the_story_agrees_with_the_exact_posterior():
    """NUTS on the story and the exact conjugate posterior agree on the class means."""
    rng = np.random.default_rng(0)
    X = np.concatenate([rng.normal(0, 1, (40, 2)), rng.normal(2, 1, (40, 2))])
    y = np.repeat([0, 1], 40)
    model = GaussianDA(covariance_type="diag", estimate="mean").fit(X, y)
    with jax.enable_x64(True):
        mcmc = MCMC(NUTS(model.story), num_warmup=500, num_samples=1000, progress_bar=False)
        mcmc.run(jax.random.key(1), X, y)
        nuts_means = np.asarray(mcmc.get_samples()["means"])
        posterior = gaussian.posterior(
            jax.tree.map(np.asarray, model.prior_), model.suff_stats_, "diag"
        )
        exact = gaussian.sample_params(jax.random.key(2), posterior, "diag", 4000)
    exact_means = np.asarray(exact.means)
    spread = exact_means.std(axis=0)
    # NUTS draws are autocorrelated: allow 5 standard errors of an effective size of 200.
    np.testing.assert_array_less(
        np.abs(nuts_means.mean(axis=0) - exact_means.mean(axis=0)), 5 * spread / np.sqrt(200)
    )
    np.testing.assert_allclose(nuts_means.std(axis=0), spread, rtol=0.3)


def test_restricted_weights_are_the_dirichlet_of_a_class_with_fewer_components():
    """A Dirichlet(1, 1, 1) draw restricted to its first two entries and renormalised is a
    Dirichlet(1, 1) draw (subcomposition): its first entry is uniform, variance 1/12 (the
    unrestricted entry's is 1/18)."""
    import numpy as np

    from bayesgen.stories.latent_class import restricted_weights

    draws = np.random.default_rng(0).dirichlet(np.ones(3), size=(20000, 2))
    active = np.array([[True, True, False], [True, True, True]])
    kept = np.asarray(restricted_weights(draws, active))
    np.testing.assert_allclose(kept.sum(axis=-1), 1.0, rtol=1e-6)
    assert np.all(kept[:, 0, 2] == 0.0)
    assert abs(kept[:, 0, 0].var() - 1 / 12) < 0.003
    assert abs(kept[:, 1, 0].var() - 1 / 18) < 0.003
    np.testing.assert_array_equal(restricted_weights(draws, None), draws)


def test_an_unfitted_model_has_no_story_yet():
    """Every estimator with a story says it is not fitted (scikit-learn's NotFittedError),
    whatever its story needs from the fit."""
    from sklearn.exceptions import NotFittedError

    from bayesgen import estimators
    from bayesgen.estimators.base import GenerativeClassifier

    classes = [getattr(estimators, name) for name in estimators.__all__]
    for cls in classes:
        if not issubclass(cls, GenerativeClassifier) or cls is estimators.ComplementNB:
            continue  # ComplementNB has no story: it refuses with its own error
        with pytest.raises(NotFittedError, match=f"This {cls.__name__} instance is not fitted"):
            cls().story(n_samples=2)
