r"""The Gaussian density of a row's observed block, every row at once: $\Sigma_{oo} \oplus I$.

A row with missing entries (NaN) has the marginal density
$\mathcal N(x_o \mid \mu_o, \Sigma_{oo})$ of its observed block $o$. Rows with
different patterns have blocks of different sizes; to evaluate them side by side (in one
batched Cholesky, or in a NumPyro distribution over all rows) the covariance is *masked*,

$$
\tilde\Sigma = M \Sigma M + (I - M), \qquad M = \mathrm{diag}(\text{observed}),
$$

which is $\Sigma_{oo}$ on the observed block and the identity on the missing one,
zero across. With the deviation $x - \mu$ set to 0 on the missing entries,
$\tilde\Sigma$ has the observed block's determinant and quadratic form; the only
difference is the normalising constant of the $m$ identity coordinates,
$-\tfrac m2 \log 2\pi$, which `missing_log_norm` gives back.

Pure JAX: the stories (Gaussian, mixture, kernel density), the NumPy pattern code in
`missing` (for rows with many distinct patterns) and the
Student-t predictive all use this one module.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from bayesgen._lazy import lazy_attribute, lazy_jit, lazy_module

if TYPE_CHECKING:
    from jax import Array

jax = lazy_module("jax")
jnp = lazy_module("jax.numpy")
solve_triangular = lazy_attribute("jax.scipy.linalg", "solve_triangular")


def masked_covariance(covariances: Array, present: Array) -> Array:
    """$\\Sigma_{oo} \\oplus I$ per row.

    Parameters
    ----------
    covariances : Array of shape (..., n_features, n_features)
    present : Array of bool of shape (..., n_features)
        True where an entry is observed; broadcast against ``covariances``' batch shape.

    Returns
    -------
    Array of shape (..., n_features, n_features)
    """
    mask = present.astype(covariances.dtype)
    identity = jnp.eye(present.shape[-1], dtype=covariances.dtype)
    return (
        mask[..., :, None] * mask[..., None, :] * covariances
        + identity * (1.0 - mask)[..., :, None]
    )


def masked_cholesky(covariances: Array, present: Array) -> Array:
    """The lower Cholesky factor of `masked_covariance`."""
    return jnp.linalg.cholesky(masked_covariance(covariances, present))


def masked_mean(means: Array, present: Array) -> Array:
    """``means`` with 0 at the missing entries (a filled row then deviates by 0 there)."""
    return jnp.where(present, means, 0.0)


def missing_log_norm(present: Array) -> Array:
    """$\\tfrac m2 \\log 2\\pi$ per row: what to add to the masked density.

    The identity block of `masked_covariance` contributes
    $-\\tfrac m2 \\log 2\\pi$ for the $m$ missing entries of a row.
    """
    n_missing = jnp.sum(~present, axis=-1)
    return 0.5 * n_missing * math.log(2.0 * math.pi)


def whitened_squares(lower: Array, deviations: Array) -> Array:
    """$\\|L^{-1} d_j\\|^2$ for the columns $d_j$ of ``deviations``.

    Parameters
    ----------
    lower : Array of shape (..., n_features, n_features)
        From `masked_cholesky`.
    deviations : Array of shape (..., n_features, n_columns)
        Zero on each row's missing entries.

    Returns
    -------
    Array of shape (..., n_columns)
    """
    whitened = solve_triangular(lower, deviations, lower=True)
    return jnp.sum(jnp.square(whitened), axis=-2)


def half_log_det(lower: Array) -> Array:
    """$\\tfrac12\\log\\det\\Sigma_{oo}$ from `masked_cholesky`'s factor."""
    return jnp.sum(jnp.log(jnp.diagonal(lower, axis1=-2, axis2=-1)), axis=-1)


@lazy_jit
def forms(means: Array, covariances: Array, X: Array) -> tuple[Array, Array, Array]:
    """What an elliptical density of each row's observed block needs, per row and class.

    Parameters
    ----------
    means : Array of shape (n_classes, n_features)
    covariances : Array of shape (n_classes, n_features, n_features)
    X : Array of shape (n_samples, n_features)
        NaN marks a missing entry.

    Returns
    -------
    squared : Array of shape (n_samples, n_classes)
        $(x_o - \\mu_{k,o})^\\top \\Sigma_{k,oo}^{-1} (x_o - \\mu_{k,o})$.
    half_log_det : Array of shape (n_samples, n_classes)
        $\\tfrac12 \\log\\det \\Sigma_{k,oo}$.
    n_observed : Array of shape (n_samples,)
    """
    present = ~jnp.isnan(X)
    filled = jnp.where(present, X, 0.0)

    # One class at a time, so the temporaries stay (n, d, d), never (K, n, d, d).
    def per_class(args):
        mean, covariance = args
        lower = masked_cholesky(covariance, present)
        deviation = jnp.where(present, filled - mean, 0.0)
        squared = whitened_squares(lower, deviation[..., None])[..., 0]
        return squared, half_log_det(lower)

    squared, log_dets = jax.lax.map(per_class, (means, covariances))
    return squared.T, log_dets.T, jnp.sum(present, axis=-1)


def log_density(means: Array, covariances: Array, X: Array) -> Array:
    """$\\log \\mathcal N(x_{i,o} \\mid \\mu_{k,o}, \\Sigma_{k,oo})$ per row and class.

    A row with every entry missing gets 0 (log 1).

    Parameters
    ----------
    means, covariances, X : as in `forms`

    Returns
    -------
    Array of shape (n_samples, n_classes)
    """
    squared, log_dets, n_observed = forms(means, covariances, X)
    return -0.5 * squared - log_dets - 0.5 * n_observed[:, None] * math.log(2.0 * math.pi)
