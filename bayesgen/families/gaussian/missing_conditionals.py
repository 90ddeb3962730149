r"""The Gaussian of each row's missing block given its observed block, in chunks.

$\mathbb E[x_m \mid x_o, k] = \mu_{k,m} - A^{-1} b$ and
$\mathrm{Cov}[x_m \mid x_o, k] = A^{-1}$ with $A = \Lambda_{k,mm}$ and
$b = (\Lambda_k z)_m$ (`missing` has the derivation), every row with missing entries at
the cost of its missing block, batched by missing count (`missing.row_chunks`). Three
views: every class (`conditionals`), one class drawn per row (`chosen_conditionals`, for
sampling), and the means mixed over the classes (`conditional_means`, for imputing),
which needs no covariance and, with a covariance shared by the classes, one solve per row.
"""

from __future__ import annotations

import numpy as np

from bayesgen.families.gaussian import missing_blocks, missing_tied, small_blocks
from bayesgen.families.gaussian.missing import row_blocks, shared_covariance


def conditionals(means, covariances, X):
    r"""The Gaussian of each row's missing block given its observed one, class by class.

    Yields, for chunks of the rows of ``X`` with missing entries (`row_chunks`),
    ``(rows, index, mean, covariance)``: ``mean`` of shape (n_classes, rows, m) is
    $\mathbb E[x_m \mid x_o, k]$ and ``covariance`` of shape (n_classes, rows, m, m)
    is $\mathrm{Cov}[x_m \mid x_o, k]$ (module docstring), in float64.

    Parameters
    ----------
    means : ndarray of shape (n_classes, n_features)
    covariances : ndarray of shape (n_classes, n_features, n_features)
    X : ndarray of shape (n_samples, n_features), NaN where missing
    """
    n_classes = means.shape[0]
    classes = missing_blocks.class_precisions(means, covariances)
    for rows, index, lower, whitened in _factored_chunks(classes, X, n_classes):
        mean = missing_blocks.conditional_means(classes, lower, whitened, index)
        m = index.shape[1]
        covariance = small_blocks.inverse(lower).reshape(m, m, n_classes, rows.size)
        yield rows, index, mean, covariance.transpose(2, 3, 0, 1)


def _factored_chunks(classes, X, n_classes: int):
    """``(rows, index, lower, whitened)`` per chunk of ``X``'s rows with missing entries:
    each class's missing-block factor and whitened offset (`missing_blocks.chunk_blocks`)."""
    for rows, block, chunks in row_blocks(X, n_classes):
        projected, _ = missing_blocks.block_products(classes, block)
        for chunk, index in chunks:
            lower, whitened = missing_blocks.chunk_blocks(classes, projected[chunk], index)
            yield rows[chunk], index, lower, whitened


def chosen_conditionals(means, covariances, X, classes):
    r"""`conditionals` under one class per row, ``classes`` (n_samples,) of int.

    Yields ``(rows, index, mean, lower)`` with ``mean`` (rows, m) and ``lower`` (m, m,
    rows), stack last: the Cholesky factor $L$ of each row's conditional precision
    $A = \Lambda_{k,mm}$, so that $\mathrm{Cov}[x_m \mid x_o, k] = L^{-\top} L^{-1}$ and
    ``mean`` $+ L^{-\top}\varepsilon$ with $\varepsilon \sim \mathcal N(0, I)$ is a
    draw (`draw_from_factor`). Every (row, class) pair with the same number of missing
    entries is one stack of factorisations, whatever its class
    (`missing_blocks.pair_blocks`): $K$ times less work than every class's.
    """
    precisions = missing_blocks.class_precisions(means, covariances)
    for block_rows, block, chunks in row_blocks(X, 1):
        labels = np.asarray(classes)[block_rows]
        projected, _ = missing_blocks.pair_products(precisions, block, labels)
        for chunk, index in chunks:
            lower, whitened = missing_blocks.pair_blocks(
                precisions, projected[chunk], index, labels[chunk]
            )
            deviation = small_blocks.backward_substitution(lower, whitened)
            yield block_rows[chunk], index, np.take(precisions.shift, index) - deviation.T, lower


def draw_from_factor(mean: np.ndarray, lower: np.ndarray, rng) -> np.ndarray:
    r"""``mean`` (rows, m) $+ L^{-\top}\varepsilon$: draws from the Gaussians whose
    precisions have the Cholesky factors ``lower`` (m, m, rows), one triangular solve
    per row and no covariance formed."""
    noise = rng.standard_normal(mean.shape)
    return mean + small_blocks.backward_substitution(lower, noise.T).T


def conditional_means(means, covariances, X, class_weights):
    r"""$\sum_k w_{ik}\,\mathbb E[x_m \mid x_o, k]$ for every row with missing entries.

    Yields ``(rows, index, mean)`` per chunk (`row_chunks`), ``mean`` (rows, m) in
    float64, without the conditional covariances `conditionals` also gives.

    Parameters
    ----------
    means : ndarray of shape (n_classes, n_features)
    covariances : ndarray of shape (n_classes, n_features, n_features)
        Or one (n_features, n_features) matrix shared by the classes.
    X : ndarray of shape (n_samples, n_features), NaN where missing
    class_weights : ndarray of shape (n_samples, n_classes)
    """
    n_classes = means.shape[0]
    shared = shared_covariance(covariances)
    if shared is not None:
        tied = missing_tied.shared_precision(means, shared)
        for rows, block, chunks in row_blocks(X, n_classes):
            _, projected = missing_tied.block_products(tied, block)
            for chunk, index in chunks:
                weights = class_weights[rows[chunk]]
                mean = missing_tied.chunk_conditional_means(tied, projected[chunk], index, weights)
                yield rows[chunk], index, mean
        return
    classes = missing_blocks.class_precisions(means, covariances)
    for rows, index, lower, whitened in _factored_chunks(classes, X, n_classes):
        by_class = missing_blocks.conditional_means(classes, lower, whitened, index)
        yield rows, index, np.einsum("rk,krm->rm", class_weights[rows], by_class)
