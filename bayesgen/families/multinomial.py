r"""Count vectors with a Dirichlet prior: the Dirichlet–multinomial event model.

.. math::

    \theta_k \sim \mathrm{Dirichlet}(\alpha), \qquad
    x \mid y = k,\ L \sim \mathrm{Multinomial}(L, \theta_k), \quad L = \textstyle\sum_j x_j.

The row total :math:`L` is conditioned on, not modelled. With :math:`C_{kj} = \sum_i
R_{ik} x_{ij}` the posterior is :math:`\mathrm{Dirichlet}(\alpha + C_k)`; its mean is
additive smoothing :math:`(C_{kj} + \alpha_j) / \sum_j (C_{kj} + \alpha_j)`.
"""

from __future__ import annotations

from typing import NamedTuple

import jax
from jax import Array

from bayesgen.families import dirichlet
from bayesgen.families.linear import LinearLogLikelihood, finite_log


class MultinomialStats(NamedTuple):
    """Sufficient statistics: class counts and per-class feature totals.

    Attributes
    ----------
    counts : Array of shape (n_classes,)
        :math:`N_k`, the (weighted) number of rows.
    feature_counts : Array of shape (n_classes, n_features)
        :math:`C_{kj} = \\sum_i R_{ik} x_{ij}` (``R^T X``).
    """

    counts: Array
    feature_counts: Array


def merge(a: MultinomialStats, b: MultinomialStats) -> MultinomialStats:
    """Statistics of the union of two disjoint batches (they are sums)."""
    return MultinomialStats(a.counts + b.counts, a.feature_counts + b.feature_counts)


def posterior(concentration: Array, stats: MultinomialStats) -> Array:
    """Posterior Dirichlet concentrations :math:`\\alpha + C_k`, shape (n_classes, n_features)."""
    return concentration + stats.feature_counts


def point_estimate(concentration: Array, stats: MultinomialStats, kind: str) -> Array:
    """:math:`\\theta_k` by ``"mle"``, ``"map"`` or ``"mean"``, shape (n_classes, n_features)."""
    return dirichlet.point_estimate(concentration, stats.feature_counts, kind)


def sample_params(key: Array, posterior_concentration: Array, num_samples: int) -> Array:
    """Draws of :math:`\\theta`, shape ``(num_samples, n_classes, n_features)``."""
    shape = (num_samples, posterior_concentration.shape[0])
    return jax.random.dirichlet(key, posterior_concentration, shape=shape)


def linear_form(theta: Array) -> LinearLogLikelihood:
    """:math:`\\log p(x \\mid k, L) = \\sum_j x_j \\log\\theta_{kj}` + the multinomial coefficient.

    The coefficient :math:`\\log L! - \\sum_j \\log x_j!` depends on the row only and is
    added by the caller; a count of a feature with :math:`\\theta_{kj} = 0` makes class
    :math:`k` impossible.
    """
    log_theta, is_zero = finite_log(theta)
    n_classes = theta.shape[0]
    zeros = jax.numpy.zeros(n_classes, theta.dtype)
    return LinearLogLikelihood(log_theta, zeros, is_zero.astype(theta.dtype), zeros)
