r"""The Normal–Inverse-Wishart prior: resolved from hyperparameters, and its log density.

Defaults are empirical Bayes from the sufficient statistics themselves (the mean and
covariance of all rows), so ``partial_fit`` over chunks resolves the same prior as ``fit``.

The log density is the parameter part of
[`bayesgen.stories.gaussian_story`][bayesgen.stories.gaussian_story]:

$$
\log p(\mu, \Sigma) = \sum_k \log \mathcal{IW}(\Sigma_k \mid \nu_0, \Psi_0)
+ \sum_k \log \mathcal N(\mu_k \mid m_0, \Sigma_k / \kappa_0)
$$

(``"tied"``: one inverse-Wishart term for the shared $\Sigma$; ``"diag"`` and
``"spherical"``: inverse-gamma $\mathcal{IG}(\nu_0/2, \Psi_0/2)$ per variance).
"""

from __future__ import annotations

import numbers
from typing import TYPE_CHECKING

import numpy as np

from bayesgen.families.gaussian.posterior import (
    GaussianParams,
    NormalInverseWishart,
    default_dof,
    default_scale,
)
from bayesgen.families.gaussian.stats import GaussianStats, total_moments
from bayesgen.families.namespace import namespace

if TYPE_CHECKING:
    from jax import Array


def resolve_prior(
    stats: GaussianStats,
    ridge,
    covariance_type: str,
    *,
    mean_prior=None,
    mean_precision_prior=1.0,
    degrees_of_freedom_prior=None,
    covariance_prior=None,
) -> NormalInverseWishart:
    """The Normal–Inverse-Wishart prior with its defaults filled in.

    Parameters
    ----------
    stats : GaussianStats
        Statistics of all rows seen so far in the computation's dtype (NumPy arrays give a
        NumPy prior, JAX arrays a JAX one).
    ridge : Array
        Added to the default scale, so that it is positive definite even when a feature
        is constant.
    covariance_type : {"full", "tied", "diag", "spherical"}
    mean_prior : array-like of shape (n_features,), optional
        $m_0$; default: the mean of all rows.
    mean_precision_prior : float, default=1.0
        $\\kappa_0$.
    degrees_of_freedom_prior : float, optional
        $\\nu_0$; default `default_dof`.
    covariance_prior : array-like, optional
        $\\Psi_0$; default: the covariance of all rows plus the ridge.

    Returns
    -------
    NormalInverseWishart

    Raises
    ------
    ValueError
        If a given hyperparameter has the wrong shape or an invalid value.
    """
    xp = namespace(stats, ridge)
    dtype = stats.means.dtype
    n_features = stats.means.shape[1]
    total_mean, _ = total_moments(stats, covariance_type)

    if mean_prior is None:
        mean = total_mean
    else:
        mean = np.asarray(mean_prior, dtype=np.float64)
        if mean.shape != (n_features,) or not np.all(np.isfinite(mean)):
            raise ValueError(
                f"mean_prior must be a finite array of shape ({n_features},); got {mean!r}."
            )

    if degrees_of_freedom_prior is None:
        dof = default_dof(covariance_type, n_features)
    else:
        dof = _check_positive(degrees_of_freedom_prior, "degrees_of_freedom_prior")
        if covariance_type in ("full", "tied") and dof <= n_features - 1:
            raise ValueError(
                f"degrees_of_freedom_prior must exceed n_features - 1 = {n_features - 1} for "
                f"an inverse-Wishart prior; got {dof}."
            )

    if covariance_prior is None:
        scale = default_scale(stats, covariance_type)
        scale = scale + (xp.diag(ridge) if covariance_type in ("full", "tied") else ridge)
    else:
        scale = np.asarray(covariance_prior, dtype=np.float64)
        _check_scale(scale, covariance_type, n_features)

    return NormalInverseWishart(
        mean=xp.asarray(mean, dtype=dtype),
        mean_precision=xp.asarray(mean_precision_prior, dtype=dtype),
        dof=xp.asarray(dof, dtype=dtype),
        scale=xp.asarray(scale, dtype=dtype),
    )


def _check_positive(value, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not np.isfinite(value):
        raise ValueError(f"{name} must be a finite real number; got {value!r}.")
    if value <= 0:
        raise ValueError(f"{name} must be > 0; got {value!r}.")
    return float(value)


def _scale_shape(covariance_type: str, n_features: int) -> tuple[int, ...]:
    if covariance_type in ("full", "tied"):
        return (n_features, n_features)
    return (n_features,) if covariance_type == "diag" else ()


def _check_scale(scale: np.ndarray, covariance_type: str, n_features: int) -> None:
    expected = _scale_shape(covariance_type, n_features)
    if scale.shape != expected:
        raise ValueError(
            f"covariance_prior must have shape {expected} for covariance_type="
            f"{covariance_type!r}; got shape {scale.shape}."
        )
    if not np.all(np.isfinite(scale)):
        raise ValueError("covariance_prior must be finite.")
    if covariance_type in ("full", "tied"):
        symmetric = np.allclose(scale, scale.T)
        if not symmetric or np.any(np.linalg.eigvalsh((scale + scale.T) / 2) <= 0):
            raise ValueError("covariance_prior must be a symmetric positive definite matrix.")
    elif np.any(scale <= 0):
        raise ValueError("covariance_prior must be positive.")


def covariance_log_prior(
    prior: NormalInverseWishart, covariances: Array, covariance_type: str
) -> Array:
    """$\\log p(\\Sigma)$ of each covariance under the prior.

    Parameters
    ----------
    prior : NormalInverseWishart
    covariances : Array
        ``(..., n_features, n_features)`` for ``"full"``/``"tied"``, ``(..., n_features)``
        variances for ``"diag"``, ``(...)`` for ``"spherical"``.
    covariance_type : {"full", "tied", "diag", "spherical"}

    Returns
    -------
    Array of the batch shape ``(...)``
        Inverse-Wishart densities, or inverse-gamma densities (summed over the features of
        a ``"diag"`` covariance).
    """
    _, _, nu0, psi0 = prior
    if namespace(prior, covariances) is np:
        return _scipy_covariance_log_prior(nu0, psi0, np.asarray(covariances), covariance_type)
    import jax.numpy as jnp
    import numpyro.distributions as dist

    if covariance_type in ("full", "tied"):
        return dist.InverseWishart(nu0, scale_matrix=psi0).log_prob(covariances)
    values = dist.InverseGamma(nu0 / 2, psi0 / 2).log_prob(covariances)
    return jnp.sum(values, axis=-1) if covariance_type == "diag" else values


def _scipy_covariance_log_prior(nu0, psi0, covariances, covariance_type):
    """`covariance_log_prior` on NumPy input, by SciPy (no JAX dispatch: EM evaluates it
    every iteration). Every covariance in one call, the last axis counting them (SciPy's
    ``invwishart.logpdf`` takes them so, and scores each as it scores one alone): one call
    for each of 20 components cost Fair's copula fits about a tenth of their time."""
    from scipy import stats as scipy_stats

    if covariance_type in ("full", "tied"):
        batch = covariances.shape[:-2]
        stacked = covariances.reshape(-1, *covariances.shape[-2:])
        values = scipy_stats.invwishart.logpdf(
            np.moveaxis(stacked, 0, -1), float(nu0), np.asarray(psi0)
        )
        return np.reshape(values, batch)
    values = scipy_stats.invgamma.logpdf(
        covariances, np.asarray(nu0) / 2, scale=np.asarray(psi0) / 2
    )
    return np.sum(values, axis=-1) if covariance_type == "diag" else values


def mean_log_prior(
    prior: NormalInverseWishart, means: Array, covariances: Array, covariance_type: str
) -> Array:
    """$\\log \\mathcal N(\\mu \\mid m_0, \\Sigma / \\kappa_0)$ of each mean.

    Parameters
    ----------
    prior : NormalInverseWishart
    means : Array of shape (..., n_features)
    covariances : Array
        Each mean's covariance, shaped as in `covariance_log_prior` and broadcast
        against the batch shape of ``means`` (a ``"tied"`` covariance serves every mean).
    covariance_type : {"full", "tied", "diag", "spherical"}

    Returns
    -------
    Array of shape ``means.shape[:-1]``
    """
    m0, kappa0, _, _ = prior
    if namespace(prior, means, covariances) is np:
        return _scipy_mean_log_prior(m0, kappa0, means, np.asarray(covariances), covariance_type)
    import jax.numpy as jnp
    import numpyro.distributions as dist

    if covariance_type in ("full", "tied"):
        return dist.MultivariateNormal(m0, covariance_matrix=covariances / kappa0).log_prob(means)
    if covariance_type == "spherical":
        covariances = covariances[..., None]
    return jnp.sum(dist.Normal(m0, jnp.sqrt(covariances / kappa0)).log_prob(means), axis=-1)


def _scipy_mean_log_prior(m0, kappa0, means, covariances, covariance_type):
    """`mean_log_prior` on NumPy input: a Cholesky factor per covariance (SciPy's
    ``multivariate_normal`` refuses matrices whose eigenvalues span more than about 1e9,
    which the covariances of columns on very different scales do although they are
    positive definite), and SciPy's normals for the diagonal types."""
    from scipy import stats as scipy_stats
    from scipy.linalg import solve_triangular

    means = np.asarray(means)
    if covariance_type in ("full", "tied"):
        batch = means.shape[:-1]
        d = means.shape[-1]
        scaled = np.broadcast_to(covariances, (*batch, d, d)) / np.asarray(kappa0)
        lower = np.linalg.cholesky(scaled).reshape(-1, d, d)
        differences = (means - np.asarray(m0)).reshape(-1, d)
        squares = [
            np.sum(solve_triangular(factor, difference, lower=True) ** 2)
            for factor, difference in zip(lower, differences, strict=True)
        ]
        log_determinant = 2.0 * np.sum(np.log(np.diagonal(lower, axis1=-2, axis2=-1)), axis=-1)
        values = -0.5 * (d * np.log(2.0 * np.pi) + log_determinant + np.asarray(squares))
        return values.reshape(batch)
    if covariance_type == "spherical":
        covariances = covariances[..., None]
    scale = np.sqrt(covariances / np.asarray(kappa0))
    return np.sum(scipy_stats.norm.logpdf(means, np.asarray(m0), scale), axis=-1)


def log_prior(prior: NormalInverseWishart, params: GaussianParams, covariance_type: str) -> Array:
    """$\\log p(\\mu, \\Sigma)$ of the class parameters (see the module docstring).

    Parameters
    ----------
    prior : NormalInverseWishart
    params : GaussianParams
        Means ``(n_classes, n_features)``, covariances shaped as ``GaussianDA.covariances_``.
    covariance_type : {"full", "tied", "diag", "spherical"}

    Returns
    -------
    Array
        A scalar, normalising constants included.
    """
    xp = namespace(prior, params)
    means, covariances = params
    return xp.sum(covariance_log_prior(prior, covariances, covariance_type)) + xp.sum(
        mean_log_prior(prior, means, covariances, covariance_type)
    )
