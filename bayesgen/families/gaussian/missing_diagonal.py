"""Rows with missing entries under diagonal (and spherical) class covariances.

With independent coordinates the observed block's density is the product of the observed
coordinates' densities: a missing entry contributes nothing, and no factorisation is
needed, only matrix products over blocks of rows.
"""

from __future__ import annotations

import math

import numpy as np


def diagonal_log_likelihood(
    means: np.ndarray, variances: np.ndarray, X: np.ndarray, *, row_terms: bool = True
):
    """The observed-entry log density for diagonal covariances, without pattern grouping.

    With independent coordinates the marginal of the observed block is the product of the
    observed coordinates' densities, so missing entries simply contribute nothing: with
    $o_{ij}$ the indicator of an observed entry, $\\log p(x_{i,o} \\mid k) =
    -\\tfrac12 \\sum_j o_{ij} [(x_{ij} - \\mu_{kj})^2 / \\sigma^2_{kj} +
    \\log 2\\pi\\sigma^2_{kj}]$, matrix products over a block of rows. Rows and means are
    shifted by the average class mean first; ``row_terms=False`` expands the square (three
    products, as the complete rows' linear form does), else differences are squared.

    Parameters
    ----------
    means, variances : ndarray of shape (n_classes, n_features)
    X : ndarray of shape (n_samples, n_features), NaN where missing
    row_terms : bool, default=True
        ``False`` allows leaving out terms that are the same for every class of a row.

    Returns
    -------
    ndarray of shape (n_samples, n_classes)
    """
    dtype = X.dtype
    shift = means.mean(axis=0)
    centred, precisions = means - shift, 1.0 / variances
    # Per observed entry: -1/2 (mu^2 / s^2 + log 2 pi s^2), and the linear coefficients.
    offsets = (-0.5 * (np.square(centred) * precisions + np.log(2 * math.pi * variances))).T
    linear = (centred * precisions).T
    result = np.empty((X.shape[0], means.shape[0]), dtype=dtype)
    for start in range(0, X.shape[0], BLOCK_ROWS):
        block = X[start : start + BLOCK_ROWS] - shift
        gaps = np.isnan(block)
        block[gaps] = 0.0
        observed = (~gaps).astype(dtype)
        rows = slice(start, start + block.shape[0])
        if not row_terms:
            result[rows] = -0.5 * (np.square(block) @ precisions.T) + block @ linear
            result[rows] += observed @ offsets
            continue
        log_norm = -0.5 * (observed @ np.log(2 * math.pi * variances).T)
        for k in range(means.shape[0]):
            deviations = np.square(block - centred[k])
            deviations[gaps] = 0.0
            result[rows, k] = -0.5 * (deviations @ precisions[k]) + log_norm[:, k]
    return result


#: Rows per block of `diagonal_log_likelihood` (temporaries of a few megabytes).
BLOCK_ROWS = 16_384
