r"""Poisson counts with a Gamma prior on the rates.

.. math::

    \lambda_{kj} \sim \mathrm{Gamma}(a, b), \qquad
    x_j \mid y = k \sim \mathrm{Poisson}(\lambda_{kj}).

With :math:`S_{kj} = \sum_i R_{ik} x_{ij}` the posterior is :math:`\mathrm{Gamma}(a +
S_{kj},\ b + N_k)`.

The log-likelihood :math:`\sum_j x_j \log\lambda_{kj} - \sum_j \lambda_{kj} - \sum_j
\log x_j!` contains :math:`\Lambda_k = \sum_j \lambda_{kj}`, the expected length of a
document of class :math:`k`. This is the document-length correction of
``001_8fd34bf03af75598.txt`` §3.4: a long document has more non-zero counts and so a larger
linear part for classes with high word rates; subtracting :math:`\Lambda_k` stops long
documents from favouring such classes. Unlike the multinomial model, the Poisson model
makes the classification depend on the document's length.
"""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp
from jax import Array

from bayesgen.families.estimates import check_estimate_kind
from bayesgen.families.linear import (
    LinearLogLikelihood,
    add_missing_counts,
    finite_log,
    observed_counts,
)


class PoissonStats(NamedTuple):
    """Sufficient statistics: class counts and per-class feature sums.

    Attributes
    ----------
    counts : Array of shape (n_classes,)
        :math:`N_k`.
    feature_sums : Array of shape (n_classes, n_features)
        :math:`S_{kj} = \\sum_i R_{ik} x_{ij}` over the observed entries (``R^T X``).
    missing_counts : Array of shape (n_classes, n_features), optional
        :math:`\\sum_i R_{ik} [x_{ij}` missing]; ``None`` means none missing.
    """

    counts: Array
    feature_sums: Array
    missing_counts: Array | None = None


class Gamma(NamedTuple):
    """Gamma distributions over the rates: ``shape`` :math:`a`, ``rate`` :math:`b`."""

    shape: Array
    rate: Array


def merge(a: PoissonStats, b: PoissonStats) -> PoissonStats:
    """Statistics of the union of two disjoint batches (they are sums)."""
    missing = add_missing_counts(a.missing_counts, b.missing_counts, a.feature_sums.shape)
    return PoissonStats(a.counts + b.counts, a.feature_sums + b.feature_sums, missing)


def _observed(stats: PoissonStats) -> Array:
    return observed_counts(stats.counts, stats.missing_counts, stats.feature_sums.shape)


def posterior(prior: Gamma, stats: PoissonStats) -> Gamma:
    """Conjugate update: :math:`\\mathrm{Gamma}(a + S_{kj}, b + N_{kj})`, with
    :math:`N_{kj}` the weighted count of observed entries (:math:`N_k` when none is missing)."""
    shape = prior.shape + stats.feature_sums
    rate = jnp.broadcast_to(prior.rate + _observed(stats), shape.shape)
    return Gamma(shape, rate)


def point_estimate(prior: Gamma, stats: PoissonStats, kind: str) -> Array:
    """Rates :math:`\\lambda_{kj}`: ``"mle"`` :math:`S/N`, ``"mean"`` :math:`(a+S)/(b+N)`,
    ``"map"`` :math:`(a+S-1)_+/(b+N)`. A class with no rows gets rate 0 under ``"mle"``.

    Returns
    -------
    Array of shape (n_classes, n_features)
    """
    check_estimate_kind(kind)
    if kind == "mle":
        counts = _observed(stats)
        return jnp.where(counts > 0, stats.feature_sums / jnp.where(counts > 0, counts, 1), 0.0)
    post = posterior(prior, stats)
    if kind == "mean":
        return post.shape / post.rate
    return jnp.clip(post.shape - 1.0, 0.0, None) / post.rate


def sample_params(key: Array, gamma: Gamma, num_samples: int) -> Array:
    """Draws of the rates, shape ``(num_samples, n_classes, n_features)``."""
    return jax.random.gamma(key, gamma.shape, shape=(num_samples, *gamma.shape.shape)) / gamma.rate


def linear_form(rates: Array) -> LinearLogLikelihood:
    """:math:`\\sum_j x_j \\log\\lambda_{kj} - \\Lambda_k`, each feature observed adding
    :math:`-\\lambda_{kj}` to the bias.

    The caller adds the row term :math:`-\\sum_j \\log x_j!`.

    A positive count of a feature with :math:`\\lambda_{kj} = 0` makes class ``k`` impossible.
    """
    log_rates, is_zero = finite_log(rates)
    zeros = jnp.zeros(rates.shape[0], rates.dtype)
    return LinearLogLikelihood(
        log_rates,
        -jnp.sum(rates, axis=1),
        is_zero.astype(rates.dtype),
        zeros,
        feature_bias=-rates,
        feature_zero_bias=jnp.zeros_like(rates),
    )
