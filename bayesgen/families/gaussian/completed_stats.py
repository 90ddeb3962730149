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

from bayesgen.families.gaussian import missing, missing_blocks, small_blocks
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
    n_classes, n_features = means.shape
    diagonal = covariance_type in ("diag", "spherical")
    complete = _completed_diagonal if diagonal else _completed
    pieces = [
        complete(means[k], covariances[k], X, responsibilities[:, k], with_log_likelihood)
        for k in range(n_classes)
    ]
    counts = np.concatenate([piece[0].counts for piece in pieces])
    class_means = np.concatenate([piece[0].means for piece in pieces])
    corrections = np.stack([piece[1] for piece in pieces])
    scatter = np.concatenate([piece[0].scatter for piece in pieces]) + corrections
    if covariance_type == "tied":
        scatter = np.sum(scatter, axis=0)
    stats = GaussianStats(counts, class_means, scatter)
    if with_log_likelihood:
        return stats, float(sum(piece[2] for piece in pieces))
    return stats


def _completed(mean, covariance, X, weights, with_log_likelihood):
    """``(stats, scatter correction (d, d), log-likelihood)`` of one class, full matrix."""
    n_features = X.shape[1]
    rows = np.flatnonzero(weights)
    completed, weights = X[rows], weights[rows]
    one = missing_blocks.class_precisions(mean[None], covariance[None])
    correction = np.zeros(n_features * n_features)
    log_likelihood = 0.0
    for block_rows, block, chunks in missing.row_blocks(completed, 1, complete=with_log_likelihood):
        projected, quadratic = missing_blocks.block_products(one, block)
        for chunk, index in chunks:
            lower, whitened = missing_blocks.chunk_blocks(one, projected[chunk], index)
            m, at = index.shape[1], block_rows[chunk]
            if with_log_likelihood and m < n_features:  # nothing observed: log 1
                squared = quadratic[0, chunk] - np.sum(np.square(whitened), axis=0)
                half_log_det = 0.5 * one.log_det[0] + small_blocks.half_log_det(lower)
                log_density = -0.5 * squared - half_log_det
                log_density -= 0.5 * (n_features - m) * math.log(2.0 * math.pi)
                log_likelihood += float(weights[at] @ log_density)
            if m == 0:
                continue
            mean_m = missing_blocks.conditional_means(one, lower, whitened, index)[0]
            completed[at[:, None], index] = mean_m
            inverse = small_blocks.inverse(lower) * weights[at]
            columns = index.T
            cells = columns[:, None, :] * n_features + columns[None, :, :]
            correction += np.bincount(
                cells.ravel(), weights=inverse.ravel(), minlength=n_features * n_features
            )
    # NumPy blocks: the same statistics as the JAX kernel, compiled for no row count.
    stats = suff_stats(completed, weights[:, None], "full")
    return stats, correction.reshape(n_features, n_features), log_likelihood


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
