r"""Gaussian sufficient statistics in NumPy, a block of rows at a time.

The same :class:`GaussianStats` as :func:`bayesgen.families.gaussian.suff_stats` (means
around a pilot row, scatter around each class mean: two passes, never
:math:`\sum xx^\top - N\bar x\bar x^\top`), for fitting from a NumPy array: NumPy reads it in
place, where handing it to JAX copies it, and the temporaries are a block of rows, never
:math:`n \times K \times d`. Sums are accumulated in float64 and returned in ``X``'s dtype.

Labelled rows have one-hot responsibilities (one class per row, times its weight). Then
each row is centred once, at its own class mean, and the scatter is one product per class
over that class's rows: :math:`n d^2` work in all, where soft responsibilities (EM) need
every row for every class, :math:`K n d^2`. ``"tied"`` sums the per-class scatters.
"""

from __future__ import annotations

import numpy as np

from bayesgen.families.gaussian.stats import GaussianStats

BLOCK_ROWS = 32_768


def _blocks(n_rows: int):
    for start in range(0, n_rows, BLOCK_ROWS):
        yield slice(start, start + BLOCK_ROWS)


def suff_stats(X: np.ndarray, responsibilities: np.ndarray, covariance_type: str) -> GaussianStats:
    """Statistics of the rows of ``X`` weighted by ``responsibilities`` (NumPy arrays).

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        Complete rows.
    responsibilities : ndarray of shape (n_samples, n_classes)
    covariance_type : {"full", "tied", "diag", "spherical"}

    Returns
    -------
    GaussianStats
        NumPy arrays in ``X``'s dtype.
    """
    dtype = X.dtype
    R = np.asarray(responsibilities, dtype=np.float64)
    n_classes = R.shape[1]
    counts = R.sum(axis=0)
    pilot = X[0].astype(np.float64)
    sums = np.zeros((n_classes, X.shape[1]))
    for rows in _blocks(X.shape[0]):
        sums += R[rows].T @ (X[rows] - pilot)
    safe = np.where(counts > 0, counts, 1.0)[:, None]
    means = np.where(counts[:, None] > 0, pilot + sums / safe, 0.0)
    one_hot = bool(np.all(np.count_nonzero(R, axis=1) <= 1))
    scatter = (_one_hot_scatter if one_hot else _soft_scatter)(X, R, means, covariance_type)
    return GaussianStats(counts.astype(dtype), means.astype(dtype), scatter.astype(dtype))


def _one_hot_scatter(X, R, means, covariance_type):
    labels = np.argmax(R, axis=1)
    weights = R[np.arange(R.shape[0]), labels]
    n_classes, n_features = means.shape
    if covariance_type in ("full", "tied"):
        scatter = np.zeros((n_classes, n_features, n_features))
        for k in range(n_classes):
            members = np.flatnonzero((labels == k) & (weights > 0))
            for start in range(0, members.size, BLOCK_ROWS):
                chosen = members[start : start + BLOCK_ROWS]
                centred = X[chosen] - means[k]
                scatter[k] += (centred * weights[chosen, None]).T @ centred
        # "tied" sums the class scatters exactly as pooled_scatter does, so that RDA's
        # pooled covariance from "full" statistics equals LDA's bit for bit.
        return pooled_scatter(scatter) if covariance_type == "tied" else scatter
    scatter = np.zeros((n_classes, n_features))
    for rows in _blocks(X.shape[0]):
        centred = X[rows] - means[labels[rows]]
        scatter += R[rows].T @ np.square(centred)
    return scatter


def _soft_scatter(X, R, means, covariance_type):
    n_classes, n_features = means.shape
    diagonal = covariance_type in ("diag", "spherical")
    shape = (n_classes, n_features) if diagonal else (n_classes, n_features, n_features)
    scatter = np.zeros(shape)
    for rows in _blocks(X.shape[0]):
        for k in range(n_classes):
            centred = X[rows] - means[k]
            if diagonal:
                scatter[k] += R[rows, k] @ np.square(centred)
            else:
                scatter[k] += (centred * R[rows, k, None]).T @ centred
    return pooled_scatter(scatter) if covariance_type == "tied" else scatter


def pooled_scatter(class_scatter) -> np.ndarray:
    """The within-class scatter summed over classes, ``(K, d, d) -> (d, d)``."""
    return np.sum(np.asarray(class_scatter), axis=0)
