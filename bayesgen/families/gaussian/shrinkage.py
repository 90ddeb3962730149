r"""Shrunk covariances: regularised discriminant analysis and Ledoit–Wolf shrinkage.

Regularised discriminant analysis (Friedman 1989; ``004_dce6e695048eec0f.txt``,
"Regularized discriminant analysis") moves each class covariance toward the pooled one and
the pooled one toward a multiple of the identity,

$$
\hat\Sigma_k(\alpha, \gamma) = \alpha\hat\Sigma_k + (1-\alpha)\hat\Sigma(\gamma), \qquad
\hat\Sigma(\gamma) = \gamma\hat\Sigma + (1-\gamma)\hat\sigma^2 I, \qquad
\hat\sigma^2 = \operatorname{tr}(\hat\Sigma)/d .
$$

Shrinkage toward $\hat\sigma^2 I$ with intensity $s$, $(1-s)\hat\Sigma +
s\,\hat\sigma^2 I$, moves every eigenvalue a fraction $s$ of the way to their mean.
Ledoit and Wolf (2004) give the intensity that minimises the expected Frobenius loss,

$$
s = \min\Bigl(1, \frac{\beta}{\delta}\Bigr), \quad
\delta = \tfrac1d\lVert S - \mu I\rVert_F^2, \quad
\beta = \frac{1}{d\,n}\Bigl(\frac1n\sum_i \lVert c_i\rVert^4 - \lVert S\rVert_F^2\Bigr),
$$

with $c_i$ the centred rows, $S = \frac1n\sum_i c_i c_i^\top$ and $\mu =
\operatorname{tr}(S)/d$ (``sklearn.covariance.ledoit_wolf``). Besides the scatter it needs
the fourth moment $\sum_i w_i\lVert c_i\rVert^4$; `FourthMoments` keeps it, with
the third moment that merging two batches needs, so that ``partial_fit`` stays exact.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from bayesgen._lazy import lazy_jit, lazy_module
from bayesgen.families.gaussian.stats import GaussianStats, merge, suff_stats

if TYPE_CHECKING:
    from jax import Array

jax = lazy_module("jax")
jnp = lazy_module("jax.numpy")


class FourthMoments(NamedTuple):
    """Per-class moments of the centred rows up to the fourth, weighted by responsibilities.

    Attributes
    ----------
    stats : GaussianStats
        ``"full"`` statistics: counts, class means, per-class scatter ``(K, d, d)``.
    third : Array of shape (n_classes, n_features)
        $\\sum_i w_{ik}\\lVert c_{ik}\\rVert^2 c_{ik}$, with $c_{ik} = x_i -
        \\bar x_k$.
    fourth : Array of shape (n_classes,)
        $\\sum_i w_{ik}\\lVert c_{ik}\\rVert^4$.
    """

    stats: GaussianStats
    third: Array
    fourth: Array


@lazy_jit
def fourth_moments(X: Array, responsibilities: Array) -> FourthMoments:
    """The `FourthMoments` of the rows of ``X`` weighted by ``responsibilities``."""
    stats = suff_stats(X, responsibilities, "full")

    def class_moments(args):
        weights, mean = args
        centred = X - mean
        squared_norms = jnp.sum(jnp.square(centred), axis=1)
        return (weights * squared_norms) @ centred, weights @ jnp.square(squared_norms)

    third, fourth = jax.lax.map(class_moments, (responsibilities.T, stats.means))
    return FourthMoments(stats, third, fourth)


def _about(moments: FourthMoments, means: Array) -> tuple[Array, Array]:
    """Third and fourth moments of one batch about new centres ``means`` (exact)."""
    counts, scatter = moments.stats.counts, moments.stats.scatter
    shift = moments.stats.means - means
    trace = jnp.trace(scatter, axis1=1, axis2=2)
    scatter_shift = jnp.einsum("kij,kj->ki", scatter, shift)
    shift_norm = jnp.sum(jnp.square(shift), axis=1)
    fourth = (
        moments.fourth
        + 4 * jnp.sum(shift * scatter_shift, axis=1)
        + counts * jnp.square(shift_norm)
        + 4 * jnp.sum(moments.third * shift, axis=1)
        + 2 * trace * shift_norm
    )
    third = (
        moments.third
        + trace[:, None] * shift
        + 2 * scatter_shift
        + (counts * shift_norm)[:, None] * shift
    )
    return third, fourth


@lazy_jit
def merge_fourth_moments(a: FourthMoments, b: FourthMoments) -> FourthMoments:
    """Moments of the union of two disjoint batches: exact, like `merge`."""
    stats = merge(a.stats, b.stats, "full")
    third_a, fourth_a = _about(a, stats.means)
    third_b, fourth_b = _about(b, stats.means)
    return FourthMoments(stats, third_a + third_b, fourth_a + fourth_b)


@lazy_jit(static_argnames="pooled")
def ledoit_wolf_intensity(moments: FourthMoments, *, pooled: bool) -> Array:
    """The Ledoit–Wolf shrinkage intensity, per class or of the pooled within-class rows.

    Parameters
    ----------
    moments : FourthMoments
    pooled : bool
        ``False``: one intensity per class, of its rows centred at its mean (shape
        ``(n_classes,)``). ``True``: one intensity, of all rows centred at their class means
        (the pooled covariance of LDA; shape ``()``).

    Returns
    -------
    Array
        In $[0, 1]$; 0 for one feature, and for a class without weight.
    """
    counts, scatter, fourth = moments.stats.counts, moments.stats.scatter, moments.fourth
    if pooled:
        counts, scatter, fourth = jnp.sum(counts), jnp.sum(scatter, axis=0), jnp.sum(fourth)
    n_features = scatter.shape[-1]
    safe_counts = jnp.where(counts > 0, counts, 1.0)
    covariance = scatter / safe_counts[..., None, None]
    mu = jnp.trace(covariance, axis1=-2, axis2=-1) / n_features
    squared_norm = jnp.sum(jnp.square(covariance), axis=(-2, -1))
    beta = (fourth / safe_counts - squared_norm) / (n_features * safe_counts)
    delta = (squared_norm - n_features * jnp.square(mu)) / n_features
    beta = jnp.minimum(beta, delta)
    intensity = jnp.where(beta > 0, beta / jnp.where(delta > 0, delta, 1.0), 0.0)
    if n_features == 1:
        return jnp.zeros_like(intensity)
    return jnp.where(counts > 0, intensity, 0.0)


def shrink_toward_identity(covariances: Array, intensity) -> Array:
    """$(1-s)\\Sigma + s\\,(\\operatorname{tr}\\Sigma/d) I$ for each matrix of a stack.

    Parameters
    ----------
    covariances : Array of shape (..., d, d)
    intensity : float or Array broadcasting to ``covariances.shape[:-2]``
    """
    n_features = covariances.shape[-1]
    intensity = jnp.asarray(intensity, covariances.dtype)[..., None, None]
    target = jnp.trace(covariances, axis1=-2, axis2=-1)[..., None, None] / n_features
    return (1 - intensity) * covariances + intensity * target * jnp.eye(n_features)


def regularised_covariances(class_covariances: Array, pooled: Array, alpha, gamma) -> Array:
    """Friedman's $\\hat\\Sigma_k(\\alpha, \\gamma)$ from class and pooled covariances.

    Parameters
    ----------
    class_covariances : Array of shape (n_classes, d, d)
    pooled : Array of shape (d, d)
    alpha, gamma : float in [0, 1]
        ``alpha=1`` returns ``class_covariances`` unchanged (QDA); ``alpha=0, gamma=1``
        returns ``pooled`` for every class (LDA).
    """
    if alpha == 1:
        return class_covariances
    if gamma != 1:
        pooled = shrink_toward_identity(pooled, 1 - gamma)
    if alpha == 0:
        return jnp.broadcast_to(pooled, class_covariances.shape)
    return alpha * class_covariances + (1 - alpha) * pooled
