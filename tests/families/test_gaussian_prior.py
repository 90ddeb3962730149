"""The Normal–Inverse-Wishart log prior against SciPy and against the story's parameter sites."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from numpyro.infer.util import log_density
from scipy import stats

from bayesgen.families import gaussian
from bayesgen.stories.gaussian import gaussian_part

COVARIANCE_TYPES = ("full", "tied", "diag", "spherical")


def _prior_and_params(rng, covariance_type, K, d):
    m0 = rng.normal(size=d)
    kappa0, nu0 = 0.7, d + 3.5
    if covariance_type in ("full", "tied"):
        A = rng.normal(size=(d, d))
        psi0 = A @ A.T + d * np.eye(d)
        B = rng.normal(size=(K, d, d))
        covariances = B @ np.swapaxes(B, 1, 2) + np.eye(d)
        if covariance_type == "tied":
            covariances = covariances[0]
    elif covariance_type == "diag":
        psi0 = rng.uniform(0.5, 2.0, size=d)
        covariances = rng.uniform(0.5, 3.0, size=(K, d))
    else:
        psi0 = 1.3
        covariances = rng.uniform(0.5, 3.0, size=K)
    prior = gaussian.NormalInverseWishart(m0, kappa0, nu0, psi0)
    return prior, gaussian.GaussianParams(rng.normal(size=(K, d)), covariances)


def _scipy_log_prior(prior, params, covariance_type):
    m0, kappa0, nu0, psi0 = prior
    means, covariances = params
    total = 0.0
    for k, mean in enumerate(means):
        if covariance_type == "full":
            total += stats.invwishart.logpdf(covariances[k], nu0, psi0)
            total += stats.multivariate_normal.logpdf(mean, m0, covariances[k] / kappa0)
        elif covariance_type == "tied":
            total += stats.multivariate_normal.logpdf(mean, m0, covariances / kappa0)
        else:
            variances = covariances[k] * np.ones_like(mean)
            if covariance_type == "diag":
                total += stats.invgamma.logpdf(variances, nu0 / 2, scale=psi0 / 2).sum()
            else:
                total += stats.invgamma.logpdf(covariances[k], nu0 / 2, scale=psi0 / 2)
            total += stats.norm.logpdf(mean, m0, np.sqrt(variances / kappa0)).sum()
    if covariance_type == "tied":
        total += stats.invwishart.logpdf(covariances, nu0, psi0)
    return total


@pytest.mark.parametrize("array", ("numpy", "jax"))
@pytest.mark.parametrize("covariance_type", COVARIANCE_TYPES)
def test_log_prior_matches_scipy(covariance_type, array):
    """NumPy input is scored by Cholesky factors and SciPy's normals, JAX input by NumPyro:
    both equal SciPy's sum."""
    rng = np.random.default_rng(0)
    prior, params = _prior_and_params(rng, covariance_type, 3, 4)
    with jax.enable_x64(True):
        given = (prior, params) if array == "numpy" else jax.tree.map(jnp.asarray, (prior, params))
        got = float(gaussian.log_prior(*given, covariance_type))
    np.testing.assert_allclose(got, _scipy_log_prior(prior, params, covariance_type), rtol=1e-10)


@pytest.mark.parametrize("array", ("numpy", "jax"))
@pytest.mark.parametrize("covariance_type", COVARIANCE_TYPES)
def test_log_prior_is_the_story_density_of_the_parameter_sites(covariance_type, array):
    rng = np.random.default_rng(1)
    prior, params = _prior_and_params(rng, covariance_type, 3, 4)
    with jax.enable_x64(True):
        if array == "jax":
            prior, params = jax.tree.map(jnp.asarray, (prior, params))
        part = gaussian_part(jax.tree.map(np.asarray, prior), covariance_type, 3)
        sites = {"means": params.means, "covariances": params.covariances}
        story, _ = log_density(part.parameters, (), {}, sites)
        got = gaussian.log_prior(prior, params, covariance_type)
    np.testing.assert_allclose(float(got), float(story), rtol=1e-12)


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"mean_prior": [0.0]}, r"mean_prior must be a finite array of shape \(2,\)"),
        ({"degrees_of_freedom_prior": 0.5}, "must exceed n_features - 1 = 1"),
        ({"degrees_of_freedom_prior": -1.0}, "degrees_of_freedom_prior must be > 0"),
        ({"covariance_prior": np.eye(3)}, r"covariance_prior must have shape \(2, 2\)"),
        ({"covariance_prior": -np.eye(2)}, "symmetric positive definite"),
    ],
)
def test_resolve_prior_refuses_bad_hyperparameters(settings, message):
    X = np.random.default_rng(2).normal(size=(20, 2))
    stats_ = gaussian.suff_stats(X, np.eye(2)[np.arange(20) % 2], "full")
    with pytest.raises(ValueError, match=message):
        gaussian.resolve_prior(stats_, np.zeros(2), "full", **settings)


@pytest.mark.parametrize("covariance_type", ("full", "tied"))
def test_mean_log_prior_of_columns_on_very_different_scales(covariance_type):
    """Covariances of columns whose scales span 1e-3 to 1e4 (breast-cancer areas beside
    fractal dimensions) are positive definite, but SciPy's ``multivariate_normal`` refuses
    them; the log density equals SciPy's on the columns rescaled to unit variance, less
    the log-determinant of the scaling (x = D z)."""
    rng = np.random.default_rng(3)
    d, K = 6, 3
    scales = np.logspace(-3, 4, d)
    B = rng.normal(size=(K, d, d))
    correlations = B @ np.swapaxes(B, 1, 2) + 0.5 * np.eye(d)
    covariances = scales[:, None] * correlations * scales[None, :]
    if covariance_type == "tied":
        covariances = covariances[0]
    m0 = scales * rng.normal(size=d)
    means = m0 + scales * rng.normal(size=(K, d))
    kappa0 = 0.7
    prior = gaussian.NormalInverseWishart(m0, kappa0, d + 3.5, np.diag(scales**2))
    per_class = covariances if covariance_type == "full" else [covariances] * K
    with pytest.raises(np.linalg.LinAlgError):  # what the fit met (issue 32)
        stats.multivariate_normal.logpdf(means[0], m0, per_class[0] / kappa0)
    got = gaussian.mean_log_prior(prior, means, covariances, covariance_type)
    expected = [
        stats.multivariate_normal.logpdf(
            mean / scales, m0 / scales, sigma / np.outer(scales, scales) / kappa0
        )
        - np.sum(np.log(scales))
        for mean, sigma in zip(means, per_class, strict=True)
    ]
    np.testing.assert_allclose(got, expected, rtol=1e-10)
