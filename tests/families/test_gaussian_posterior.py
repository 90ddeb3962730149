"""Gaussian conjugate posterior and point estimates against SciPy densities and NumPy."""

import jax
import numpy as np
import pytest
from scipy import stats

from bayesgen.families import gaussian

COVARIANCE_TYPES = ("full", "tied", "diag", "spherical")
D, K = 2, 3


def _random_spd(rng, d, jitter=0.5):
    A = rng.normal(size=(d, d))
    return A @ A.T + jitter * np.eye(d)


def _random_covariances(rng, covariance_type):
    if covariance_type == "full":
        return np.stack([_random_spd(rng, D) for _ in range(K)])
    if covariance_type == "tied":
        return _random_spd(rng, D)
    if covariance_type == "diag":
        return rng.uniform(0.3, 3.0, size=(K, D))
    return rng.uniform(0.3, 3.0, size=K)


def _prior(rng, covariance_type):
    """A NormalInverseWishart prior without class axis, scale of the type's shape."""
    dof = D + 2.5 if covariance_type in ("full", "tied") else 3.5
    scale = {
        "full": _random_spd(rng, D),
        "tied": _random_spd(rng, D),
        "diag": rng.uniform(0.5, 2.0, size=D),
        "spherical": np.float64(1.3),
    }[covariance_type]
    return gaussian.NormalInverseWishart(
        rng.normal(size=D), np.float64(0.7), np.float64(dof), scale
    )


def _data(rng, n=24, empty_class=False, weighted=False):
    """Rows X, labels and the responsibilities R = one-hot(labels) * weight."""
    X = rng.normal(size=(n, D)) * [1.5, 0.7] + [1.0, -2.0]
    labels = rng.integers(0, K - 1 if empty_class else K, size=n)
    weights = rng.uniform(0.3, 2.0, size=n) if weighted else np.ones(n)
    return X, labels, np.eye(K)[labels] * weights[:, None]


def _class_covariance(covariances, covariance_type, k):
    if covariance_type == "full":
        return covariances[k]
    if covariance_type == "tied":
        return covariances
    if covariance_type == "diag":
        return np.diag(covariances[k])
    return covariances[k] * np.eye(D)


def _log_niw(means, covariances, niw, covariance_type):
    """SciPy log density of (means, covariances) under a prior (no class axis) or posterior."""
    m = np.broadcast_to(np.asarray(niw.mean), (K, D))
    kappa = np.broadcast_to(np.asarray(niw.mean_precision), (K,))
    nu, psi = np.asarray(niw.dof), np.asarray(niw.scale)
    total = 0.0
    if covariance_type == "tied":
        total += stats.invwishart.logpdf(covariances, df=float(nu), scale=psi)
    for k in range(K):
        cov = _class_covariance(covariances, covariance_type, k)
        total += stats.multivariate_normal.logpdf(means[k], m[k], cov / kappa[k])
        nu_k = np.broadcast_to(nu, (K,))[k] if covariance_type != "tied" else None
        if covariance_type == "full":
            psi_k = np.broadcast_to(psi, (K, D, D))[k]
            total += stats.invwishart.logpdf(covariances[k], df=nu_k, scale=psi_k)
        elif covariance_type == "diag":
            psi_k = np.broadcast_to(psi, (K, D))[k]
            total += np.sum(stats.invgamma.logpdf(covariances[k], a=nu_k / 2, scale=psi_k / 2))
        elif covariance_type == "spherical":
            psi_k = np.broadcast_to(psi, (K,))[k]
            total += stats.invgamma.logpdf(covariances[k], a=nu_k / 2, scale=psi_k / 2)
    return total


def _log_lik(means, covariances, X, R, covariance_type):
    """Weighted log-likelihood sum_i sum_k R_ik log N(x_i | mu_k, Sigma_k) with SciPy."""
    return sum(
        R[:, k]
        @ stats.multivariate_normal.logpdf(
            X, means[k], _class_covariance(covariances, covariance_type, k)
        )
        for k in range(K)
    )


@pytest.mark.parametrize("covariance_type", COVARIANCE_TYPES)
@pytest.mark.parametrize(
    ("empty_class", "weighted"), [(False, False), (True, False), (False, True)]
)
def test_conjugacy_identity(covariance_type, empty_class, weighted):
    """log prior + log lik - log posterior (all SciPy) is the same at random parameter values."""
    rng = np.random.default_rng(20)
    prior = _prior(rng, covariance_type)
    X, _, R = _data(rng, empty_class=empty_class, weighted=weighted)
    with jax.enable_x64(True):
        post = gaussian.posterior(
            prior, gaussian.suff_stats(X, R, covariance_type), covariance_type
        )
    post = gaussian.NormalInverseWishart(*(np.asarray(field) for field in post))
    per_class_shapes = {"full": (K, D, D), "tied": (D, D), "diag": (K, D), "spherical": (K,)}
    assert post.mean.shape == (K, D) and post.mean_precision.shape == (K,)
    assert post.dof.shape == (() if covariance_type == "tied" else (K,))
    assert post.scale.shape == per_class_shapes[covariance_type]
    constants = []
    for _ in range(3):
        means = rng.normal(size=(K, D)) * 2.0
        covariances = _random_covariances(rng, covariance_type)
        constants.append(
            _log_niw(means, covariances, prior, covariance_type)
            + _log_lik(means, covariances, X, R, covariance_type)
            - _log_niw(means, covariances, post, covariance_type)
        )
    np.testing.assert_allclose(constants[1:], constants[0], rtol=1e-10, atol=1e-9)


@pytest.mark.parametrize("covariance_type", COVARIANCE_TYPES)
def test_point_estimate_mle_matches_numpy(covariance_type):
    """kind="mle" equals NumPy class means and S_k/N_k (pooled, trace forms); empty class -> 0."""
    rng = np.random.default_rng(21)
    prior = _prior(rng, covariance_type)
    X, labels, R = _data(rng, n=30, empty_class=True)
    with jax.enable_x64(True):
        stats_ = gaussian.suff_stats(X, R, covariance_type)
        est = gaussian.point_estimate(prior, stats_, covariance_type, "mle")
    means = np.zeros((K, D))
    scatters = np.zeros((K, D, D))
    for k in range(K - 1):
        rows = X[labels == k]
        means[k] = rows.mean(axis=0)
        scatters[k] = np.cov(rows, rowvar=False, bias=True) * len(rows)
    counts = np.bincount(labels, minlength=K).astype(float)
    safe = np.where(counts > 0, counts, 1.0)
    expected = {
        "full": scatters / safe[:, None, None],
        "tied": scatters.sum(axis=0) / counts.sum(),
        "diag": np.diagonal(scatters, axis1=1, axis2=2) / safe[:, None],
        "spherical": np.trace(scatters, axis1=1, axis2=2) / (D * safe),
    }[covariance_type]
    np.testing.assert_allclose(np.asarray(est.means), means, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(np.asarray(est.covariances), expected, rtol=1e-10, atol=1e-12)


def _perturb(rng, means, covariances, covariance_type, eps):
    """A nearby point: shifted means, covariances kept positive definite."""
    means = means + eps * rng.normal(size=means.shape)
    if covariance_type in ("full", "tied"):
        B = rng.normal(size=covariances.shape)
        sym = (B + np.swapaxes(B, -1, -2)) / 2
        smallest = np.min(np.linalg.eigvalsh(covariances))
        covariances = covariances + eps * smallest * sym / np.max(np.abs(sym))
        assert np.all(np.linalg.eigvalsh(covariances) > 0)
    else:
        covariances = covariances * np.exp(eps * rng.normal(size=covariances.shape))
    return means, covariances


@pytest.mark.parametrize("covariance_type", COVARIANCE_TYPES)
@pytest.mark.parametrize("weighted", [False, True])
def test_point_estimate_map_is_a_local_mode(covariance_type, weighted):
    """kind="map" beats nearby points on the SciPy log prior + log likelihood (unnormalised)."""
    rng = np.random.default_rng(22)
    prior = _prior(rng, covariance_type)
    X, _, R = _data(rng, n=12, weighted=weighted)
    with jax.enable_x64(True):
        stats_ = gaussian.suff_stats(X, R, covariance_type)
        est = gaussian.point_estimate(prior, stats_, covariance_type, "map")
    means, covariances = np.asarray(est.means), np.asarray(est.covariances)

    def log_post(mu, cov):
        return _log_niw(mu, cov, prior, covariance_type) + _log_lik(mu, cov, X, R, covariance_type)

    best = log_post(means, covariances)
    for eps in (1e-3, 1e-2):
        # Pure rescalings of the covariances: the direction a wrong divisor moves the mode.
        for factor in (1 - eps, 1 + eps):
            assert best >= log_post(means, covariances * factor)
        for _ in range(10):
            assert best >= log_post(*_perturb(rng, means, covariances, covariance_type, eps))


@pytest.mark.parametrize("covariance_type", COVARIANCE_TYPES)
def test_point_estimate_rejects_unknown_kind(covariance_type):
    """An unknown kind raises ValueError naming `estimate` (as estimates.check_estimate_kind)."""
    rng = np.random.default_rng(23)
    prior = _prior(rng, covariance_type)
    X, _, R = _data(rng)
    with jax.enable_x64(True):
        stats_ = gaussian.suff_stats(X, R, covariance_type)
        with pytest.raises(ValueError, match="estimate"):
            gaussian.point_estimate(prior, stats_, covariance_type, "median")


@pytest.mark.parametrize("covariance_type", COVARIANCE_TYPES)
def test_add_ridge_adds_to_diagonal_only(covariance_type):
    """add_ridge adds the ridge on the diagonal of every covariance, nothing off it."""
    rng = np.random.default_rng(24)
    means = rng.normal(size=(K, D))
    covariances = _random_covariances(rng, covariance_type)
    # Per-feature ridge; the spherical type has one variance per class, so a scalar ridge.
    ridge = np.float64(0.25) if covariance_type == "spherical" else np.array([0.1, 0.4])
    with jax.enable_x64(True):
        out = gaussian.add_ridge(
            gaussian.GaussianParams(means, covariances), ridge, covariance_type
        )
    expected = covariances + (np.diag(ridge) if covariance_type in ("full", "tied") else ridge)
    np.testing.assert_array_equal(np.asarray(out.means), means)
    np.testing.assert_allclose(np.asarray(out.covariances), expected, rtol=1e-15)
    if covariance_type in ("full", "tied"):
        off_diagonal = ~np.eye(D, dtype=bool)
        np.testing.assert_array_equal(
            np.asarray(out.covariances)[..., off_diagonal], covariances[..., off_diagonal]
        )


@pytest.mark.parametrize("covariance_type", ("full", "tied"))
def test_add_ridge_scalar_on_matrices(covariance_type):
    """A scalar ridge on full/tied covariances equals Sigma + lambda * I (NumPy)."""
    rng = np.random.default_rng(25)
    covariances = _random_covariances(rng, covariance_type)
    with jax.enable_x64(True):
        out = gaussian.add_ridge(
            gaussian.GaussianParams(np.zeros((K, D)), covariances), np.float64(0.3), covariance_type
        )
    np.testing.assert_allclose(np.asarray(out.covariances), covariances + 0.3 * np.eye(D))


@pytest.mark.parametrize("covariance_type", COVARIANCE_TYPES)
def test_default_scale_is_total_covariance(covariance_type):
    """default_scale equals np.cov(bias=True) / np.var (their mean for spherical) of all rows."""
    rng = np.random.default_rng(26)
    X, _, R = _data(rng, n=40)
    with jax.enable_x64(True):
        scale = gaussian.default_scale(gaussian.suff_stats(X, R, covariance_type), covariance_type)
    expected = {
        "full": np.cov(X, rowvar=False, bias=True),
        "tied": np.cov(X, rowvar=False, bias=True),
        "diag": X.var(axis=0),
        "spherical": X.var(axis=0).mean(),
    }[covariance_type]
    np.testing.assert_allclose(np.asarray(scale), expected, rtol=1e-10)


@pytest.mark.parametrize("covariance_type", COVARIANCE_TYPES)
def test_default_dof_gives_finite_prior_mean(covariance_type):
    """default_dof is the smallest integer with a finite SciPy prior covariance mean."""
    dof = gaussian.default_dof(covariance_type, D)
    if covariance_type in ("full", "tied"):
        assert np.all(np.isfinite(stats.invwishart.mean(df=dof, scale=np.eye(D))))
        assert dof - 1 <= D + 1  # invwishart mean needs df > d + 1
    else:
        assert np.isfinite(stats.invgamma.mean(a=dof / 2))
        assert not np.isfinite(stats.invgamma.mean(a=(dof - 1) / 2))
