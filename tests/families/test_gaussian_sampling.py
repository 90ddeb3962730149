"""Gaussian posterior draws against SciPy moments and marginals, within Monte-Carlo error.

Both samplers of `gaussian.sample_params` are checked: a JAX key (jitted, the stories' law)
and a NumPy generator (NumPy/SciPy, used by data augmentation's one-draw steps)."""

import jax
import numpy as np
import pytest
from scipy import stats

from bayesgen.families import gaussian

COVARIANCE_TYPES = ("full", "tied", "diag", "spherical")
D, K = 2, 3
NUM_SAMPLES = 4000
Z = 4.0  # Monte-Carlo standard errors allowed
KS_PVALUE = 1e-3
SAMPLERS = ("jax", "numpy")


def _random_spd(rng, d):
    A = rng.normal(size=(d, d))
    return A @ A.T + 0.5 * np.eye(d)


def _posterior_and_draws(covariance_type, seed, sampler="jax"):
    """A posterior from labelled data, its draws (``sampler``: a JAX key or a NumPy
    generator) and its "mean" point estimate, as NumPy."""
    rng = np.random.default_rng(seed)
    dof = D + 2.5 if covariance_type in ("full", "tied") else 3.5
    scale = {
        "full": _random_spd(rng, D),
        "tied": _random_spd(rng, D),
        "diag": rng.uniform(0.5, 2.0, size=D),
        "spherical": np.float64(1.3),
    }[covariance_type]
    prior = gaussian.NormalInverseWishart(
        rng.normal(size=D), np.float64(0.7), np.float64(dof), scale
    )
    X = rng.normal(size=(24, D)) * [1.5, 0.7] + [1.0, -2.0]
    R = np.eye(K)[np.arange(24) % K]
    with jax.enable_x64(True):
        stats_ = gaussian.suff_stats(X, R, covariance_type)
        post = gaussian.posterior(prior, stats_, covariance_type)
        key = jax.random.key(seed) if sampler == "jax" else np.random.default_rng(seed)
        draws = gaussian.sample_params(key, post, covariance_type, NUM_SAMPLES)
        estimate = gaussian.point_estimate(prior, stats_, covariance_type, "mean")
    post = gaussian.NormalInverseWishart(*(np.asarray(field) for field in post))
    draws = gaussian.GaussianParams(*(np.asarray(field) for field in draws))
    estimate = gaussian.GaussianParams(*(np.asarray(field) for field in estimate))
    return post, draws, estimate


def _assert_mc_mean(samples, expected):
    """Sample mean over axis 0 within Z standard errors of ``expected``, elementwise."""
    se = samples.std(axis=0, ddof=1) / np.sqrt(samples.shape[0])
    err = np.abs(samples.mean(axis=0) - expected)
    assert np.all(err <= Z * se), (err / se).max()


def _scipy_covariance_mean(post, covariance_type):
    """E[Sigma] from SciPy's invwishart / invgamma with the posterior's fields."""
    if covariance_type == "full":
        return np.stack(
            [stats.invwishart.mean(df=post.dof[k], scale=post.scale[k]) for k in range(K)]
        )
    if covariance_type == "tied":
        return stats.invwishart.mean(df=float(post.dof), scale=post.scale)
    dof = post.dof[:, None] if covariance_type == "diag" else post.dof
    return stats.invgamma.mean(a=dof / 2, scale=post.scale / 2)


@pytest.mark.parametrize("sampler", SAMPLERS)
@pytest.mark.parametrize("covariance_type", COVARIANCE_TYPES)
def test_sample_shapes(covariance_type, sampler):
    """Draws have a leading num_samples axis on the documented GaussianParams shapes."""
    _, draws, _ = _posterior_and_draws(covariance_type, seed=30, sampler=sampler)
    covariance_shape = {"full": (K, D, D), "tied": (D, D), "diag": (K, D), "spherical": (K,)}
    assert draws.means.shape == (NUM_SAMPLES, K, D)
    assert draws.covariances.shape == (NUM_SAMPLES,) + covariance_shape[covariance_type]
    assert np.all(np.isfinite(draws.means)) and np.all(np.isfinite(draws.covariances))


@pytest.mark.parametrize("sampler", SAMPLERS)
@pytest.mark.parametrize("covariance_type", COVARIANCE_TYPES)
def test_covariance_draws_have_scipy_mean(covariance_type, sampler):
    """Mean of covariance draws equals SciPy's invwishart/invgamma mean within MC error."""
    post, draws, _ = _posterior_and_draws(covariance_type, seed=31, sampler=sampler)
    _assert_mc_mean(draws.covariances, _scipy_covariance_mean(post, covariance_type))


@pytest.mark.parametrize("sampler", SAMPLERS)
@pytest.mark.parametrize("covariance_type", ("full", "tied"))
def test_inverse_wishart_precision_mean(covariance_type, sampler):
    """Mean of the inverse of IW draws equals the Wishart mean nu * Psi^-1 within MC error."""
    post, draws, _ = _posterior_and_draws(covariance_type, seed=32, sampler=sampler)
    precisions = np.linalg.inv(draws.covariances)
    if covariance_type == "full":
        expected = post.dof[:, None, None] * np.linalg.inv(post.scale)
    else:
        expected = post.dof * np.linalg.inv(post.scale)
    _assert_mc_mean(precisions, expected)


@pytest.mark.parametrize("sampler", SAMPLERS)
@pytest.mark.parametrize("covariance_type", COVARIANCE_TYPES)
def test_variance_marginals_match_scipy_invgamma(covariance_type, sampler):
    """Each drawn variance (IW diagonal: InvGamma((nu-d+1)/2, Psi_jj/2)) passes a KS test."""
    post, draws, _ = _posterior_and_draws(covariance_type, seed=33, sampler=sampler)
    checks = []  # (samples, shape a, scale b)
    if covariance_type == "full":
        for k in range(K):
            for j in range(D):
                a = (post.dof[k] - D + 1) / 2
                checks.append((draws.covariances[:, k, j, j], a, post.scale[k, j, j] / 2))
    elif covariance_type == "tied":
        for j in range(D):
            a = (post.dof - D + 1) / 2
            checks.append((draws.covariances[:, j, j], a, post.scale[j, j] / 2))
    elif covariance_type == "diag":
        for k in range(K):
            for j in range(D):
                checks.append((draws.covariances[:, k, j], post.dof[k] / 2, post.scale[k, j] / 2))
    else:
        for k in range(K):
            checks.append((draws.covariances[:, k], post.dof[k] / 2, post.scale[k] / 2))
    for samples, a, b in checks:
        result = stats.kstest(samples, stats.invgamma(a, scale=b).cdf)
        assert result.pvalue > KS_PVALUE, (a, b, result)


def _class_cholesky(covariances, covariance_type, k):
    """Cholesky factors, one per draw, of class k's covariance."""
    if covariance_type == "full":
        return np.linalg.cholesky(covariances[:, k])
    if covariance_type == "tied":
        return np.linalg.cholesky(covariances)
    if covariance_type == "diag":
        return np.sqrt(covariances[:, k])[:, :, None] * np.eye(D)
    return np.sqrt(covariances[:, k])[:, None, None] * np.eye(D)


@pytest.mark.parametrize("sampler", SAMPLERS)
@pytest.mark.parametrize("covariance_type", COVARIANCE_TYPES)
def test_mean_draws_are_normal_given_covariance(covariance_type, sampler):
    """sqrt(kappa_k) L^-1 (mu_k - m_k), L from each drawn covariance, is iid N(0, 1) (KS test)."""
    post, draws, _ = _posterior_and_draws(covariance_type, seed=34, sampler=sampler)
    whitened = []
    for k in range(K):
        lower = _class_cholesky(draws.covariances, covariance_type, k)
        offset = draws.means[:, k] - post.mean[k]
        z = np.linalg.solve(lower, offset[:, :, None])[:, :, 0]
        whitened.append(np.sqrt(post.mean_precision[k]) * z)
    whitened = np.concatenate(whitened).ravel()
    result = stats.kstest(whitened, stats.norm.cdf)
    assert result.pvalue > KS_PVALUE, result
    # Variance check: the KS test is weak in the tails, the second moment is not.
    se = np.sqrt(2.0 / whitened.size)
    assert abs(np.mean(whitened**2) - 1.0) <= Z * se


@pytest.mark.parametrize("sampler", SAMPLERS)
@pytest.mark.parametrize("covariance_type", COVARIANCE_TYPES)
def test_point_estimate_mean_is_posterior_mean(covariance_type, sampler):
    """kind="mean" equals the MC mean of sample_params and SciPy's closed-form posterior mean."""
    post, draws, estimate = _posterior_and_draws(covariance_type, seed=35, sampler=sampler)
    _assert_mc_mean(draws.means, estimate.means)
    _assert_mc_mean(draws.covariances, estimate.covariances)
    np.testing.assert_allclose(estimate.means, post.mean, rtol=1e-12)
    np.testing.assert_allclose(
        estimate.covariances, _scipy_covariance_mean(post, covariance_type), rtol=1e-10
    )


def _scipy_mean_is_finite(post, covariance_type):
    """Whether SciPy gives a finite covariance mean for every class (None: undefined)."""
    if covariance_type in ("full", "tied"):
        dofs = np.atleast_1d(post.dof)
        scales = post.scale if covariance_type == "full" else post.scale[None]
        means = [
            stats.invwishart.mean(df=nu, scale=psi) for nu, psi in zip(dofs, scales, strict=True)
        ]
        return all(m is not None and np.all(np.isfinite(m)) for m in means)
    return bool(np.all(np.isfinite(_scipy_covariance_mean(post, covariance_type))))


@pytest.mark.parametrize("covariance_type", COVARIANCE_TYPES)
def test_mean_exists_matches_scipy(covariance_type):
    """mean_exists agrees with SciPy's covariance mean being finite, also if one class lacks it."""
    post, _, _ = _posterior_and_draws(covariance_type, seed=36)
    low_dof = D + 0.5 if covariance_type in ("full", "tied") else 1.5
    candidates = [post, post._replace(dof=np.zeros_like(post.dof) + low_dof)]
    if covariance_type != "tied":
        candidates.append(post._replace(dof=np.where(np.arange(K) == 1, low_dof, post.dof)))
    for candidate in candidates:
        with jax.enable_x64(True):
            got = bool(gaussian.mean_exists(candidate, covariance_type))
        assert got == _scipy_mean_is_finite(candidate, covariance_type)
    assert _scipy_mean_is_finite(post, covariance_type)
    assert not _scipy_mean_is_finite(candidates[1], covariance_type)
