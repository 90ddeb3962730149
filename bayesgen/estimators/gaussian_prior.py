"""Turning ``GaussianDA``'s prior hyperparameters into a validated Normal–Inverse-Wishart.

Defaults are empirical Bayes from the sufficient statistics themselves (the mean and
covariance of all rows), so ``partial_fit`` over chunks resolves the same prior as ``fit``.
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from bayesgen.families import gaussian
from bayesgen.validation import check_positive


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


def resolve_prior(estimator, stats: gaussian.GaussianStats, ridge) -> gaussian.NormalInverseWishart:
    """The Normal–Inverse-Wishart prior of a ``GaussianDA`` with its defaults filled in.

    Parameters
    ----------
    estimator : GaussianDA
        Supplies ``covariance_type``, ``mean_prior``, ``mean_precision_prior``,
        ``degrees_of_freedom_prior`` and ``covariance_prior``.
    stats : GaussianStats
        Statistics of all rows seen so far (JAX arrays in the computation's dtype).
    ridge : Array
        Added to the default scale, so that it is positive definite even when a
        feature is constant.

    Returns
    -------
    NormalInverseWishart

    Raises
    ------
    ValueError
        If a given hyperparameter has the wrong shape or an invalid value.
    """
    covariance_type = estimator.covariance_type
    dtype = stats.means.dtype
    n_features = stats.means.shape[1]
    total_mean, _ = gaussian.total_moments(stats, covariance_type)

    if estimator.mean_prior is None:
        mean = total_mean
    else:
        mean = np.asarray(estimator.mean_prior, dtype=np.float64)
        if mean.shape != (n_features,) or not np.all(np.isfinite(mean)):
            raise ValueError(
                f"mean_prior must be a finite array of shape ({n_features},); got {mean!r}."
            )

    if estimator.degrees_of_freedom_prior is None:
        dof = gaussian.default_dof(covariance_type, n_features)
    else:
        dof = check_positive(estimator.degrees_of_freedom_prior, "degrees_of_freedom_prior")
        if covariance_type in ("full", "tied") and dof <= n_features - 1:
            raise ValueError(
                f"degrees_of_freedom_prior must exceed n_features - 1 = {n_features - 1} for "
                f"an inverse-Wishart prior; got {dof}."
            )

    if estimator.covariance_prior is None:
        scale = gaussian.default_scale(stats, covariance_type)
        if covariance_type in ("full", "tied"):
            scale = scale + jnp.diag(ridge)
        else:
            scale = scale + ridge
    else:
        scale = np.asarray(estimator.covariance_prior, dtype=np.float64)
        _check_scale(scale, covariance_type, n_features)

    return gaussian.NormalInverseWishart(
        mean=jnp.asarray(mean, dtype=dtype),
        mean_precision=jnp.asarray(estimator.mean_precision_prior, dtype=dtype),
        dof=jnp.asarray(dof, dtype=dtype),
        scale=jnp.asarray(scale, dtype=dtype),
    )
