r"""Log-densities $\log \mathcal N(x_i \mid \mu_k, \Sigma_k)$ of every row under every class.

All four covariance types are evaluated through Cholesky factors and triangular solves
(never an explicit inverse), with differences x - mu taken before any squaring, one class
at a time so that the temporaries stay (n, d). Inputs and means are first shifted by the
average class mean, which keeps the whitening of offset data accurate.

`log_likelihood` owns the quantity and has two kernels: NumPy blocks for a NumPy
array (`scores`, which read it in place) and the jitted
JAX kernel here for a ``jax.Array`` or traced values inside ``jit``.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from bayesgen._lazy import lazy_attribute, lazy_jit, lazy_module
from bayesgen.families.gaussian import scores
from bayesgen.families.gaussian.posterior import GaussianParams
from bayesgen.families.namespace import is_tracer, tree_leaves

if TYPE_CHECKING:
    from jax import Array

jax = lazy_module("jax")
jnp = lazy_module("jax.numpy")
solve_triangular = lazy_attribute("jax.scipy.linalg", "solve_triangular")


def _full(means: Array, covariances: Array, X: Array) -> Array:
    cholesky = jnp.linalg.cholesky(covariances)

    # One class at a time, so the temporaries stay (n, d) rather than (K, n, d).
    def per_class(args):
        lower, mean = args
        whitened = solve_triangular(lower, (X - mean).T, lower=True)
        half_log_det = jnp.sum(jnp.log(jnp.diagonal(lower)))
        return -0.5 * jnp.sum(jnp.square(whitened), axis=0) - half_log_det

    return jax.lax.map(per_class, (cholesky, means)).T


def _squared_distances(X: Array, points: Array, weights: Array) -> Array:
    """(n, K) weighted squared distances sum_j w_kj (x_ij - p_kj)^2, one class at a time.

    Differences are taken before squaring (never the expanded x^2 - 2xp + p^2), which
    would cancel catastrophically for rows far from the shift point, e.g. when the class
    means are far apart.
    """

    def per_class(args):
        point, weight = args
        return jnp.square(X - point) @ weight

    return jax.lax.map(per_class, (points, weights)).T


def _tied(means: Array, covariance: Array, X: Array) -> Array:
    lower = jnp.linalg.cholesky(covariance)
    whitened_X = solve_triangular(lower, X.T, lower=True).T
    whitened_means = solve_triangular(lower, means.T, lower=True).T
    ones = jnp.ones_like(whitened_means)
    squared_distance = _squared_distances(whitened_X, whitened_means, ones)
    return -0.5 * squared_distance - jnp.sum(jnp.log(jnp.diagonal(lower)))


def _diag(means: Array, variances: Array, X: Array) -> Array:
    squared_distance = _squared_distances(X, means, 1.0 / variances)
    return -0.5 * squared_distance - 0.5 * jnp.sum(jnp.log(variances), axis=1)


def _spherical(means: Array, variances: Array, X: Array) -> Array:
    n_features = X.shape[1]
    precisions = jnp.broadcast_to((1.0 / variances)[:, None], means.shape)
    squared_distance = _squared_distances(X, means, precisions)
    return -0.5 * squared_distance - 0.5 * n_features * jnp.log(variances)


_KERNELS = {"full": _full, "tied": _tied, "diag": _diag, "spherical": _spherical}


def log_likelihood(
    params: GaussianParams, X, covariance_type: str, *, row_terms: bool = True
) -> Array | np.ndarray:
    """Log-density of each complete row under each class.

    A NumPy ``X`` (with concrete parameters) goes through the NumPy blocks and gives a NumPy
    array in ``X``'s dtype; anything else (a ``jax.Array``, values traced by ``jit``) through
    the jitted JAX kernel. Both compute the same densities.

    Parameters
    ----------
    params : GaussianParams
    X : array of shape (n_samples, n_features)
        Complete rows (a NaN entry makes its row NaN).
    covariance_type : {"full", "tied", "diag", "spherical"}
    row_terms : bool, default=True
        ``False`` lets the NumPy kernel leave out terms that are the same for every class of
        a row (enough for $p(y \\mid x)$); the JAX kernel always includes them.

    Returns
    -------
    array of shape (n_samples, n_classes)
        $\\log \\mathcal N(x_i \\mid \\mu_k, \\Sigma_k)$, normalising constant included.
    """
    leaves = tree_leaves(params)
    if isinstance(X, np.ndarray) and not any(is_tracer(a) for a in leaves):
        means, covariances = (np.asarray(leaf) for leaf in params)
        return scores.log_likelihood(means, covariances, X, covariance_type, row_terms=row_terms)
    return jax_log_likelihood(params, X, covariance_type)


@lazy_jit(static_argnames="covariance_type")
def jax_log_likelihood(params: GaussianParams, X: Array, covariance_type: str) -> Array:
    """The JAX kernel of `log_likelihood` (Cholesky whitening, one class at a time)."""
    shift = jnp.mean(params.means, axis=0)
    kernel = _KERNELS[covariance_type]
    log_density = kernel(params.means - shift, params.covariances, X - shift)
    return log_density - 0.5 * X.shape[1] * math.log(2.0 * math.pi)
