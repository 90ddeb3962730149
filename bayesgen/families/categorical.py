r"""Categorical features with a Dirichlet prior per feature and class.

.. math::

    \theta_{kj} \sim \mathrm{Dirichlet}(\alpha \mathbf 1_{C_j + 1}), \qquad
    x_j \mid y = k \sim \mathrm{Categorical}(\theta_{kj}).

Feature :math:`j` has the :math:`C_j` categories seen in training plus one more that
stands for every category not seen: a new value at prediction time gets its posterior
predictive probability :math:`\alpha / (N_{kj} + \alpha (C_j + 1))` under ``"mean"``.

The features are one-hot encoded side by side (``M = \sum_j (C_j + 1)`` columns), which
makes the log-likelihood linear in the encoding; ``segment_ids`` maps each column to its
feature so that each block is normalised on its own.
"""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp
from jax import Array

from bayesgen.families import dirichlet
from bayesgen.families.linear import LinearLogLikelihood, finite_log


class CategoricalStats(NamedTuple):
    """Sufficient statistics over the one-hot encoding.

    Attributes
    ----------
    counts : Array of shape (n_classes,)
        :math:`N_k`.
    category_counts : Array of shape (n_classes, n_columns)
        Weighted count of each category of each feature per class (``R^T onehot(X)``).
    """

    counts: Array
    category_counts: Array


def merge(a: CategoricalStats, b: CategoricalStats) -> CategoricalStats:
    """Statistics of the union of two disjoint batches (they are sums)."""
    return CategoricalStats(a.counts + b.counts, a.category_counts + b.category_counts)


def posterior(concentration: Array, stats: CategoricalStats) -> Array:
    """Posterior Dirichlet concentrations :math:`\\alpha + c` of every block.

    Returns
    -------
    Array of shape (n_classes, n_columns)
    """
    return concentration + stats.category_counts


def point_estimate(
    concentration: Array, stats: CategoricalStats, kind: str, segment_ids: Array, n_features: int
) -> Array:
    """Per-block category probabilities, shape (n_classes, n_columns); each block sums to one."""
    return dirichlet.point_estimate(
        concentration, stats.category_counts, kind, segment_ids, n_features
    )


def sample_params(
    key: Array,
    posterior_concentration: Array,
    segment_ids: Array,
    n_features: int,
    num_samples: int,
) -> Array:
    """Draws of every block, shape ``(num_samples, n_classes, n_columns)``.

    Independent Dirichlet draws per block, through normalised Gamma variates.
    """
    shape = (num_samples, *posterior_concentration.shape)
    gammas = jax.random.gamma(key, posterior_concentration, shape=shape)
    totals = jax.ops.segment_sum(jnp.moveaxis(gammas, -1, 0), segment_ids, n_features)
    return gammas / jnp.moveaxis(totals, 0, -1)[..., segment_ids]


def linear_form(theta: Array) -> LinearLogLikelihood:
    """:math:`\\log p(x \\mid k) = \\mathrm{onehot}(x) \\cdot \\log\\theta_k`."""
    log_theta, is_zero = finite_log(theta)
    zeros = jnp.zeros(theta.shape[0], theta.dtype)
    return LinearLogLikelihood(log_theta, zeros, is_zero.astype(theta.dtype), zeros)
