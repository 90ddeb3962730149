r"""The E-step over missing entries: statistics of the rows completed given their class.

Under class $k$ each row's missing block gets its conditional mean
$\mathbb E[x_m \mid x_o, k]$ and the scatter the conditional covariance
$\mathrm{Cov}[x_m \mid x_o, k]$ in that block, both weighted by the row's responsibility
$R_{ik}$, so the expected sufficient statistics are exact (`missing` has the formulas).
The same factorisations give the observed-data log-likelihood
$\sum_{i,k} R_{ik} \log \mathcal N(x_{i,o} \mid \mu_{k,o}, \Sigma_{k,oo})$, EM's objective
at these parameters, at no extra cost.

Only the pairs with $R_{ik} \ne 0$ are worked out: with labelled rows, one class per
row instead of all $K$. Diagonal covariances need no factorisation at all: the missing
block's conditional mean and variances are the class's own.
"""

from __future__ import annotations

import math

import numpy as np

from bayesgen.families.gaussian import missing, missing_blocks
from bayesgen.families.gaussian.stats import GaussianStats, suff_stats


def completed_stats(
    means, covariances, X, responsibilities, covariance_type, *, with_log_likelihood=False
):
    """Expected `GaussianStats` of ``X`` completed class by class (module docstring).

    Parameters
    ----------
    means : ndarray of shape (n_classes, n_features)
    covariances : ndarray of shape (n_classes, n_features, n_features)
        Full matrices (`missing.full_covariances`), whatever ``covariance_type``.
    X : ndarray of shape (n_samples, n_features)
        NaN marks a missing entry.
    responsibilities : ndarray of shape (n_samples, n_classes)
    covariance_type : {"full", "tied", "diag", "spherical"}
        The layout of the returned scatter.
    with_log_likelihood : bool, default=False
        Also return the observed-data log-likelihood weighted by ``responsibilities``.

    Returns
    -------
    GaussianStats, or ``(GaussianStats, float)`` with ``with_log_likelihood``
    """
    if covariance_type in ("diag", "spherical"):
        pieces = [
            _completed_diagonal(
                means[k], covariances[k], X, responsibilities[:, k], with_log_likelihood
            )
            for k in range(means.shape[0])
        ]
        counts = np.concatenate([piece[0].counts for piece in pieces])
        class_means = np.concatenate([piece[0].means for piece in pieces])
        corrections = np.stack([piece[1] for piece in pieces])
        scatter = np.concatenate([piece[0].scatter for piece in pieces]) + corrections
        stats = GaussianStats(counts, class_means, scatter)
        log_likelihood = float(sum(piece[2] for piece in pieces))
    else:
        stats, log_likelihood = _completed(
            means, covariances, X, responsibilities, covariance_type, with_log_likelihood
        )
    if with_log_likelihood:
        return stats, log_likelihood
    return stats


def _completed(means, covariances, X, responsibilities, covariance_type, with_log_likelihood):
    """``(stats, log-likelihood)`` for full matrices, every (row, class) pair with a
    nonzero responsibility at once: pairs with the same number of missing entries share
    one stack of factorisations whatever their class."""
    n_classes, n_features = means.shape
    rows, labels = np.nonzero(responsibilities)
    weights = responsibilities[rows, labels]
    completed = X[rows]
    classes = missing_blocks.class_precisions(means, covariances)
    correction = np.zeros(n_classes * n_features * n_features)
    log_likelihood = 0.0
    for block_rows, block, chunks in missing.row_blocks(
        completed, n_classes, complete=with_log_likelihood
    ):
        block_labels = labels[block_rows]
        projected, quadratic = missing_blocks.pair_products(classes, block, block_labels)
        for chunk, index in chunks:
            at, own = block_rows[chunk], block_labels[chunk]
            solution = missing_blocks.pair_solutions(classes, projected[chunk], index, own)
            m = index.shape[1]
            if with_log_likelihood and m < n_features:  # nothing observed: log 1
                squared = quadratic[chunk] - solution.reduction
                half_log_det = 0.5 * classes.log_det[own] + solution.half_log_det
                log_density = -0.5 * squared - half_log_det
                log_density -= 0.5 * (n_features - m) * math.log(2.0 * math.pi)
                log_likelihood += float(weights[at] @ log_density)
            if m == 0:
                continue
            completed[at[:, None], index] = np.take(classes.shift, index) - solution.deviation
            columns = own[:, None] * n_features + index
            cells = columns[:, :, None] * n_features + index[:, None, :]
            correction += np.bincount(
                cells.ravel(),
                weights=(solution.inverse * weights[at, None, None]).ravel(),
                minlength=correction.size,
            )
    one_hot = np.zeros((rows.size, n_classes))
    one_hot[np.arange(rows.size), labels] = weights
    # NumPy blocks: the same statistics as the JAX kernel, compiled for no row count.
    counts, class_means, scatter = suff_stats(completed, one_hot, "full")
    scatter = scatter + correction.reshape(n_classes, n_features, n_features)
    if covariance_type == "tied":
        scatter = np.sum(scatter, axis=0)
    return GaussianStats(counts, class_means, scatter), log_likelihood


def _completed_diagonal(mean, covariance, X, weights, with_log_likelihood):
    """`_completed` for a diagonal ``covariance``: the correction is a diagonal (d,)."""
    rows = np.flatnonzero(weights)
    completed, weights = X[rows], weights[rows]
    variances = np.diagonal(covariance)
    gaps = np.isnan(completed)
    log_likelihood = 0.0
    if with_log_likelihood:
        per_entry = (completed - mean) ** 2 / variances + np.log(2.0 * math.pi * variances)
        log_likelihood = float(weights @ (-0.5 * np.sum(np.where(gaps, 0.0, per_entry), axis=1)))
    completed = np.where(gaps, np.asarray(mean, dtype=completed.dtype), completed)
    stats = suff_stats(completed, weights[:, None], "diag")
    return stats, (weights @ gaps) * variances, log_likelihood
