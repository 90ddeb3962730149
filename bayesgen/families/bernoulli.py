r"""Bernoulli features with a Beta prior (the Bernoulli event model of naive Bayes).

.. math::

    \theta_{kj} \sim \mathrm{Beta}(\alpha, \alpha), \qquad
    x_j \mid y = k \sim \mathrm{Bernoulli}(\theta_{kj}).

Every feature counts, present or absent. With :math:`O_{kj} = \sum_i R_{ik} x_{ij}` the
posterior is :math:`\mathrm{Beta}(\alpha + O_{kj}, \alpha + N_k - O_{kj})`, whose mean is
Laplace smoothing :math:`(O_{kj} + \alpha)/(N_k + 2\alpha)`.
"""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp
from jax import Array

from bayesgen.families import dirichlet
from bayesgen.families.linear import (
    LinearLogLikelihood,
    add_missing_counts,
    finite_log,
    observed_counts,
)


class BernoulliStats(NamedTuple):
    """Sufficient statistics: class counts and per-class feature occurrence counts.

    Attributes
    ----------
    counts : Array of shape (n_classes,)
        :math:`N_k`.
    feature_counts : Array of shape (n_classes, n_features)
        :math:`O_{kj} = \\sum_i R_{ik} x_{ij}` over the observed entries (``R^T X``).
    missing_counts : Array of shape (n_classes, n_features), optional
        :math:`\\sum_i R_{ik} [x_{ij}` missing]; ``None`` means none missing.
    """

    counts: Array
    feature_counts: Array
    missing_counts: Array | None = None


class Beta(NamedTuple):
    """Beta distributions over the per-class feature probabilities.

    Attributes
    ----------
    concentration1 : Array
        Pseudo-counts of ones (:math:`\\alpha` in the prior).
    concentration0 : Array
        Pseudo-counts of zeros.
    """

    concentration1: Array
    concentration0: Array


def merge(a: BernoulliStats, b: BernoulliStats) -> BernoulliStats:
    """Statistics of the union of two disjoint batches (they are sums)."""
    shape = a.feature_counts.shape
    missing = add_missing_counts(a.missing_counts, b.missing_counts, shape)
    return BernoulliStats(a.counts + b.counts, a.feature_counts + b.feature_counts, missing)


def _observed(stats: BernoulliStats) -> Array:
    return observed_counts(stats.counts, stats.missing_counts, stats.feature_counts.shape)


def posterior(prior: Beta, stats: BernoulliStats) -> Beta:
    """Conjugate update: :math:`\\mathrm{Beta}(\\alpha_1 + O, \\alpha_0 + N - O)`.

    :math:`N` counts the observed entries of each feature only.
    """
    zeros = _observed(stats) - stats.feature_counts
    return Beta(prior.concentration1 + stats.feature_counts, prior.concentration0 + zeros)


def point_estimate(prior: Beta, stats: BernoulliStats, kind: str) -> Array:
    """:math:`\\theta_{kj}` by ``"mle"``, ``"map"`` or ``"mean"`` (a two-category Dirichlet).

    Returns
    -------
    Array of shape (n_classes, n_features)
    """
    zeros = _observed(stats) - stats.feature_counts
    counts = jnp.stack([stats.feature_counts, zeros], axis=-1)
    concentration = jnp.stack(
        jnp.broadcast_arrays(prior.concentration1, prior.concentration0), axis=-1
    )
    return dirichlet.point_estimate(concentration, counts, kind)[..., 0]


def sample_params(key: Array, beta: Beta, num_samples: int) -> Array:
    """Independent draws of :math:`\\theta`, shape ``(num_samples, n_classes, n_features)``."""
    shape = (
        num_samples,
        *jnp.broadcast_shapes(beta.concentration1.shape, beta.concentration0.shape),
    )
    return jax.random.beta(key, beta.concentration1, beta.concentration0, shape=shape)


def linear_form(theta: Array) -> LinearLogLikelihood:
    """The linear form of the Bernoulli log-likelihood.

    :math:`\\log p(x \\mid k) = \\sum_j x_j \\log\\frac{\\theta_{kj}}{1-\\theta_{kj}}
    + \\sum_j \\log(1-\\theta_{kj})`.

    A one where :math:`\\theta_{kj} = 0`, or a zero where :math:`\\theta_{kj} = 1`, makes
    the class impossible: :math:`Z = [\\theta = 0] - [\\theta = 1]`, :math:`z_k = \\sum_j
    [\\theta_{kj} = 1]`, so :math:`x \\cdot Z_k + z_k` counts exactly those features.
    """
    log_one, never_one = finite_log(theta)
    log_zero, never_zero = finite_log(1.0 - theta)
    dtype = theta.dtype
    return LinearLogLikelihood(
        weights=log_one - log_zero,
        bias=jnp.sum(log_zero, axis=1),
        zero_weights=never_one.astype(dtype) - never_zero.astype(dtype),
        zero_bias=jnp.sum(never_zero, axis=1).astype(dtype),
        feature_bias=log_zero,
        feature_zero_bias=never_zero.astype(dtype),
    )
