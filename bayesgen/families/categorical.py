r"""Categorical features with a Dirichlet prior per feature and class.

$$
\theta_{kj} \sim \mathrm{Dirichlet}(\alpha \mathbf 1_{C_j + 1}), \qquad
x_j \mid y = k \sim \mathrm{Categorical}(\theta_{kj}).
$$

Feature $j$ has the $C_j$ categories seen in training plus one more that
stands for every category not seen: a new value at prediction time gets its posterior
predictive probability $\alpha / (N_{kj} + \alpha (C_j + 1))$ under ``"mean"``.

The features are one-hot encoded side by side (``M = \sum_j (C_j + 1)`` columns), which
makes the log-likelihood linear in the encoding; ``segment_ids`` maps each column to its
feature so that each block is normalised on its own.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

import numpy as np
import pandas as pd
import scipy.sparse as sp

from bayesgen.families import class_prior, count_data, dirichlet
from bayesgen.families.estimates import pseudo_counts, pseudo_log_density
from bayesgen.families.linear import LinearLogLikelihood, finite_log
from bayesgen.families.namespace import jax_numpy, namespace
from bayesgen.families.protocol import FeatureFamily

if TYPE_CHECKING:
    from jax import Array


class CategoricalStats(NamedTuple):
    """Sufficient statistics over the one-hot encoding.

    Attributes
    ----------
    counts : Array of shape (n_classes,)
        $N_k$.
    category_counts : Array of shape (n_classes, n_columns)
        Weighted count of each category of each feature per class (``R^T onehot(X)``).
    """

    counts: Array
    category_counts: Array


def learn_categories(column: np.ndarray) -> np.ndarray:
    """The distinct values of ``column`` (missing ones left out), sorted when they can be.

    Values that cannot be ordered with each other keep their order of appearance.

    Returns
    -------
    ndarray of object
    """
    unique = pd.unique(pd.Series(column, dtype=object).dropna())
    try:
        return np.asarray(sorted(unique), dtype=object)
    except TypeError:
        return np.asarray(unique, dtype=object)


def merge_categories(known: np.ndarray, column: np.ndarray) -> np.ndarray:
    """``known`` extended by the values of ``column`` it lacks (``known`` itself if none).

    Returns
    -------
    ndarray of object
    """
    new = learn_categories(column)
    unseen = new[pd.Index(known).get_indexer(new) < 0]
    return learn_categories(np.concatenate([known, unseen])) if unseen.size else known


def encode(categories, X: np.ndarray) -> np.ndarray:
    """Category codes of ``X``: ``0..C_j - 1`` for the known categories of feature ``j``.

    A value not among ``categories[j]`` gets ``C_j`` (the "unseen" category); a missing
    one (NaN or None) gets -1.

    Returns
    -------
    ndarray of int64, same shape as ``X``
    """
    codes = np.empty(X.shape, dtype=np.int64)
    for j, known in enumerate(categories):
        column = pd.Series(X[:, j], dtype=object)
        found = pd.Index(known).get_indexer(column)
        codes[:, j] = np.where(column.isna(), -1, np.where(found < 0, len(known), found))
    return codes


def relay_category_counts(counts: np.ndarray, before, after, unseen: bool = True) -> np.ndarray:
    """Side-by-side category counts laid out for the categories ``after`` ⊇ ``before``.

    ``counts`` (n_classes, sum_j (len(before[j]) + 1)) has one block per feature, the
    unseen category last (without ``unseen``, blocks of ``len(before[j])``); a category
    new in ``after`` starts at 0, and the unseen column starts at 0 too (training rows
    never fall in it).

    Returns
    -------
    ndarray of shape (n_classes, sum_j (len(after[j]) + 1)), dtype of ``counts``
    """
    counts = np.asarray(counts)
    extra = 1 if unseen else 0
    old_offsets = np.concatenate([[0], np.cumsum([len(c) + extra for c in before])[:-1]])
    new_offsets = np.concatenate([[0], np.cumsum([len(c) + extra for c in after])[:-1]])
    relaid = np.zeros((counts.shape[0], sum(len(c) + extra for c in after)))
    for j, (old, new) in enumerate(zip(before, after, strict=True)):
        where = pd.Index(new).get_indexer(old) + new_offsets[j]
        relaid[:, where] = counts[:, old_offsets[j] : old_offsets[j] + len(old)]
    return relaid.astype(counts.dtype)


def merge(a: CategoricalStats, b: CategoricalStats) -> CategoricalStats:
    """Statistics of the union of two disjoint batches (they are sums)."""
    return CategoricalStats(a.counts + b.counts, a.category_counts + b.category_counts)


def posterior(concentration: Array, stats: CategoricalStats) -> Array:
    """Posterior Dirichlet concentrations $\\alpha + c$ of every block.

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
    import jax
    import jax.numpy as jnp

    shape = (num_samples, *posterior_concentration.shape)
    gammas = jax.random.gamma(key, posterior_concentration, shape=shape)
    totals = jax.ops.segment_sum(jnp.moveaxis(gammas, -1, 0), segment_ids, n_features)
    return gammas / jnp.moveaxis(totals, 0, -1)[..., segment_ids]


def linear_form(theta: Array, log_theta: Array | None = None) -> LinearLogLikelihood:
    """$\\log p(x \\mid k) = \\mathrm{onehot}(x) \\cdot \\log\\theta_k$.

    ``log_theta``, when the caller holds the logarithms already, is used as it is (taking
    the logarithm of their exponential again would round).
    """
    if log_theta is None:
        log_theta, is_zero = finite_log(theta)
    else:
        is_zero = theta <= 0
        log_theta = namespace(log_theta).where(is_zero, 0.0, log_theta)
    zeros = namespace(theta).zeros(theta.shape[0], theta.dtype)
    return LinearLogLikelihood(log_theta, zeros, is_zero.astype(theta.dtype), zeros)


class CategoricalFamily(FeatureFamily):
    """The Dirichlet–categorical family behind [`bayesgen.CategoricalNB`][bayesgen.CategoricalNB].

    ``X`` holds category codes: ``0..C_j - 1`` for the categories seen in training,
    ``C_j`` for any other value, -1 for a missing one (its factor is dropped). Parameters
    are the probabilities of every block side by side, shape (n_classes, n_columns) with
    ``n_columns = sum(sizes)``; the prior and posterior are concentrations of that layout.

    Parameters
    ----------
    alpha : float, default=1.0
        Dirichlet concentration of every category.
    sizes : sequence of int
        ``C_j + 1`` for every feature ``j`` (its seen categories plus the unseen one), or
        ``C_j`` without ``unseen``.
    unseen : bool, default=True
        Whether the last category of every block stands for the values not seen in
        training. Without it the blocks hold the seen categories only, and the ``"mean"``
        estimate is the usual additive smoothing $(n + \alpha)/(N + \alpha C_j)$.
    """

    name = "categorical"
    estimator = "CategoricalNB"

    def __init__(self, alpha=1.0, sizes=(), unseen=True):
        self.alpha = alpha
        self.sizes = sizes
        self.unseen = unseen

    def layout(self):
        """``(sizes, offsets, segment_ids)`` of the side-by-side one-hot encoding."""
        sizes = np.asarray(self.sizes, dtype=np.int64)
        offsets = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
        return sizes, offsets, np.repeat(np.arange(len(sizes)), sizes)

    def one_hot(self, codes: np.ndarray) -> sp.csr_matrix:
        """The side-by-side one-hot encoding; a missing value (-1) has no entry in its block."""
        sizes, offsets, _ = self.layout()
        rows, features = np.nonzero(codes >= 0)
        columns = codes[rows, features] + offsets[features]
        data = np.ones(columns.shape[0])
        shape = (codes.shape[0], int(sizes.sum()))
        return sp.csr_matrix((data, (rows, columns)), shape=shape)

    def blocks(self, columns) -> list:
        """Split (..., n_columns) into one (..., C_j + 1) array per feature."""
        _, offsets, _ = self.layout()
        return [columns[..., o : o + s] for o, s in zip(offsets, self.sizes, strict=True)]

    def block_concentrations(self, prior) -> list:
        """The prior concentration of each feature's Dirichlet, one array per feature."""
        jnp = jax_numpy()
        return [jnp.full(int(size), float(prior)) for size in self.sizes]

    def suff_stats(self, X, responsibilities, dtype) -> CategoricalStats:
        """Class counts and ``R^T onehot(codes)``."""
        xp = namespace(responsibilities)
        sums = count_data.class_sums(responsibilities, self.one_hot(X).astype(dtype))
        counts = xp.sum(responsibilities, axis=0)
        return CategoricalStats(counts, xp.asarray(sums, dtype))

    def merge(self, a, b):
        """Statistics of the union of two disjoint batches."""
        return merge(a, b)

    def prior_for(self, n_features: int | None = None, dtype=None, *, xp=None):
        """The scalar concentration ``alpha`` (every block shares it; a JAX array unless
        ``xp`` names another namespace)."""
        xp = jax_numpy() if xp is None else xp
        return xp.asarray(self.alpha, dtype)

    def prior(self, stats):
        """The scalar concentration ``alpha`` in the statistics' precision."""
        return self.prior_for(dtype=stats.counts.dtype, xp=namespace(stats))

    def posterior(self, prior, stats):
        """Posterior concentrations of every block, shape (n_classes, n_columns)."""
        return posterior(prior, stats)

    def point_estimate(self, prior, stats, kind: str):
        """Per-block probabilities by ``"mle"``, ``"map"`` or ``"mean"``."""
        _, _, segment_ids = self.layout()
        segment_ids = namespace(prior, stats).asarray(segment_ids)
        return point_estimate(prior, stats, kind, segment_ids, len(self.sizes))

    def log_prior(self, prior, params, kind: str = "map") -> float:
        """$\\sum a \\log\\theta$, the log prior whose mode the ``kind`` estimate is."""
        return pseudo_log_density(pseudo_counts(prior, kind), np.asarray(params))

    def log_likelihood(self, params, X, *, row_terms: bool = True, log_params=None):
        """``(n_samples, n_classes)`` $\\log p(x \\mid k)$ of codes ``X``.

        ``log_params``: the logarithms of ``params``, when the caller keeps them (used as
        they are, see `linear_form`).
        """
        params = np.asarray(params)
        one_hot = self.one_hot(X).astype(params.dtype)
        return count_data.evaluate(linear_form(params, log_params), one_hot)

    def predictive_log_likelihood(self, posterior, X):
        """The Dirichlet–categorical predictive: features are independent a posteriori, so
        it is the categorical likelihood at each block's posterior-mean probabilities."""
        concentration = np.asarray(posterior)
        means = [block / block.sum(axis=-1, keepdims=True) for block in self.blocks(concentration)]
        return self.log_likelihood(np.concatenate(means, axis=-1), X)

    def sample_params(self, key, posterior, num_samples: int):
        """Posterior draws of every block, shape (num_samples, n_classes, n_columns)."""
        _, _, segment_ids = self.layout()
        segment_ids = jax_numpy().asarray(segment_ids)
        return sample_params(key, posterior, segment_ids, len(self.sizes), num_samples)

    def conditional(self, params, X, class_weights, method: str, rng):
        """Codes with every -1 filled by a seen category.

        ``"mean"``: the most probable seen category under the class mixture; ``"sample"``:
        a class drawn from the weights, then a seen category given it (the unseen
        category has no value to return, so its probability is spread over the others).
        """
        filled = X.copy()
        chosen = class_prior.draw_classes(class_weights, rng) if method == "sample" else None
        for j, block in enumerate(self.blocks(np.asarray(params))):
            rows = np.flatnonzero(X[:, j] < 0)
            if rows.size == 0:
                continue
            seen = block[:, :-1] if self.unseen else block
            seen = seen / seen.sum(axis=1, keepdims=True)  # (n_classes, C_j)
            if method == "mean":
                codes = np.argmax(class_weights[rows] @ seen, axis=1)
            else:
                cumulative = np.cumsum(seen[chosen[rows]], axis=1)
                codes = (rng.random((rows.size, 1)) > cumulative).sum(axis=1)
                codes = np.minimum(codes, seen.shape[1] - 1)
            filled[rows, j] = codes
        return filled
