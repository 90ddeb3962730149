r"""Sufficient statistics of Gaussian class densities, computed from responsibilities.

For class $k$ with responsibilities $R_{ik}$ (one-hot times sample weight for
labelled rows, soft weights in EM) the statistics are

$$
N_k = \sum_i R_{ik}, \qquad
\bar x_k = \frac{1}{N_k}\sum_i R_{ik} x_i, \qquad
S_k = \sum_i R_{ik} (x_i - \bar x_k)(x_i - \bar x_k)^\top .
$$

The scatter is accumulated around each class mean (two passes), never as
$\sum x x^\top - N \bar x \bar x^\top$, which loses every digit in float32 when the
data are offset. What is stored depends on the covariance type: the full $S_k$
(``"full"``), their sum over classes (``"tied"``), or their diagonals (``"diag"`` and
``"spherical"``; the spherical likelihood needs only the trace, the diagonal also gives
the per-feature total variance used by the default prior and the ridge).

`suff_stats` owns the quantity and has two kernels: NumPy blocks that read a NumPy
array in place (`blocked_stats`; handing the array to JAX
would copy it) and a jitted JAX kernel for a ``jax.Array`` (on its own device) or traced
values inside ``jit``.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from bayesgen.families.gaussian import blocked_stats
from bayesgen.families.namespace import is_numpy, namespace, numpy_or_jit

if TYPE_CHECKING:
    from jax import Array

COVARIANCE_TYPES = ("full", "tied", "diag", "spherical")
"""``"full"``: one covariance per class (QDA); ``"tied"``: one shared covariance (LDA);
``"diag"``: diagonal per class (Gaussian naive Bayes); ``"spherical"``: one variance per
class."""


class GaussianStats(NamedTuple):
    """Sufficient statistics of the Gaussian class densities.

    Attributes
    ----------
    counts : Array of shape (n_classes,)
        $N_k$, summed responsibilities.
    means : Array of shape (n_classes, n_features)
        $\\bar x_k$ (zero for a class with $N_k = 0$).
    scatter : Array
        Centred second moments: ``(n_classes, n_features, n_features)`` for ``"full"``,
        ``(n_features, n_features)`` (summed over classes) for ``"tied"``,
        ``(n_classes, n_features)`` (diagonals) for ``"diag"`` and ``"spherical"``.
    """

    counts: Array
    means: Array
    scatter: Array


def check_covariance_type(covariance_type: str) -> None:
    """Raise a ``ValueError`` unless ``covariance_type`` is one of `COVARIANCE_TYPES`."""
    if covariance_type not in COVARIANCE_TYPES:
        raise ValueError(
            f"covariance_type must be one of {COVARIANCE_TYPES}; got {covariance_type!r}."
        )


def suff_stats(X, responsibilities, covariance_type: str) -> GaussianStats:
    """Statistics of the rows of ``X`` weighted by ``responsibilities``.

    A NumPy ``X`` (with concrete responsibilities) goes through the NumPy blocks, which read
    it in place and return NumPy arrays in its dtype; anything else (a ``jax.Array``, values
    traced by ``jit``) through the jitted JAX kernel, in the precision of the enclosing
    `bayesgen._precision.precision` scope. Both compute the same statistics.

    Parameters
    ----------
    X : array of shape (n_samples, n_features)
        Complete rows (a NaN entry makes its classes' statistics NaN).
    responsibilities : array of shape (n_samples, n_classes)
    covariance_type : {"full", "tied", "diag", "spherical"}

    Returns
    -------
    GaussianStats
    """
    if isinstance(X, np.ndarray) and not _is_tracer(responsibilities):
        counts, means, scatter = blocked_stats.suff_stats(
            X, np.asarray(responsibilities), covariance_type
        )
        return GaussianStats(counts, means, scatter)
    return jax_suff_stats(X, responsibilities, covariance_type)


def _is_tracer(value) -> bool:
    if is_numpy(value):
        return False
    import jax

    return isinstance(value, jax.core.Tracer)


def jax_suff_stats(X: Array, responsibilities: Array, covariance_type: str) -> GaussianStats:
    """The JAX kernel of `suff_stats` (two passes, one class at a time), jitted."""
    return _jitted_suff_stats()(X, responsibilities, covariance_type)


@functools.cache
def _jitted_suff_stats():
    import jax

    return jax.jit(_jax_suff_stats, static_argnames="covariance_type")


def _jax_suff_stats(X: Array, responsibilities: Array, covariance_type: str) -> GaussianStats:
    import jax
    import jax.numpy as jnp

    counts = jnp.sum(responsibilities, axis=0)
    # Sum deviations from a data point, not raw values: on offset float32 data the raw sums
    # would lose several units in the last place of the means.
    pilot = X[0]
    sums = responsibilities.T @ (X - pilot)
    safe_counts = jnp.where(counts > 0, counts, 1)[:, None]
    means = jnp.where(counts[:, None] > 0, pilot + sums / safe_counts, 0)

    # One class at a time (a sequential map), so the temporaries stay (n, d), never (K, n, d).
    if covariance_type in ("full", "tied"):

        def class_scatter(args):
            weights, mean = args
            centred = X - mean
            return (centred * weights[:, None]).T @ centred

        scatter = jax.lax.map(class_scatter, (responsibilities.T, means))
        if covariance_type == "tied":
            scatter = jnp.sum(scatter, axis=0)
    else:

        def class_scatter_diagonal(args):
            weights, mean = args
            return weights @ jnp.square(X - mean)

        scatter = jax.lax.map(class_scatter_diagonal, (responsibilities.T, means))
    return GaussianStats(counts, means, scatter)


@numpy_or_jit(static_argnames="covariance_type")
def merge(a: GaussianStats, b: GaussianStats, covariance_type: str) -> GaussianStats:
    """Statistics of the union of two disjoint batches (Chan, Golub and LeVeque's update).

    Exact up to rounding: fitting on all rows equals merging the statistics of any split.
    """
    xp = namespace(a, b)
    counts = a.counts + b.counts
    safe_counts = xp.where(counts > 0, counts, xp.ones_like(counts))
    delta = b.means - a.means
    means = a.means + delta * (b.counts / safe_counts)[:, None]
    pair_weight = a.counts * b.counts / safe_counts
    if covariance_type == "full":
        correction = pair_weight[:, None, None] * delta[:, :, None] * delta[:, None, :]
    elif covariance_type == "tied":
        correction = xp.einsum("k,ki,kj->ij", pair_weight, delta, delta)
    else:
        correction = pair_weight[:, None] * xp.square(delta)
    return GaussianStats(counts, means, a.scatter + b.scatter + correction)


@numpy_or_jit(static_argnames="covariance_type")
def total_variances(stats: GaussianStats, covariance_type: str) -> Array:
    """Each feature's (maximum-likelihood) variance over all rows, classes pooled: the
    diagonal of `total_moments`' covariance, without forming the rest."""
    xp = namespace(stats)
    total = xp.sum(stats.counts)
    mean = stats.counts @ stats.means / total
    deviation = stats.means - mean
    if covariance_type == "tied":
        within = xp.diagonal(stats.scatter)
    elif covariance_type == "full":
        within = xp.sum(xp.diagonal(stats.scatter, axis1=1, axis2=2), axis=0)
    else:
        within = xp.sum(stats.scatter, axis=0)
    return (within + stats.counts @ xp.square(deviation)) / total


def total_moments(stats: GaussianStats, covariance_type: str) -> tuple[Array, Array]:
    """Mean and (maximum-likelihood) covariance of all rows, classes pooled.

    Parameters
    ----------
    stats : GaussianStats
    covariance_type : {"full", "tied", "diag", "spherical"}

    Returns
    -------
    mean : Array of shape (n_features,)
    covariance : Array
        ``(n_features, n_features)`` for ``"full"``/``"tied"``; the per-feature variances
        ``(n_features,)`` for ``"diag"``/``"spherical"``.
    """
    xp = namespace(stats)
    total = xp.sum(stats.counts)
    mean = stats.counts @ stats.means / total
    deviation = stats.means - mean
    if covariance_type in ("full", "tied"):
        within = stats.scatter if covariance_type == "tied" else xp.sum(stats.scatter, axis=0)
        between = xp.einsum("k,ki,kj->ij", stats.counts, deviation, deviation)
    else:
        within = xp.sum(stats.scatter, axis=0)
        between = stats.counts @ xp.square(deviation)
    return mean, (within + between) / total
