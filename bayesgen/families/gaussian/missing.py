r"""Gaussian densities and conditionals when some features are missing (NaN).

A missing feature is integrated out exactly: the observed block $x_o$ of a row is
Gaussian with mean $\mu_{k,o}$ and covariance $\Sigma_{k,oo}$, and the missing
block given the observed one is Gaussian with

$$
\mathbb E[x_m \mid x_o, k] = \mu_{k,m} + \Sigma_{k,mo}\Sigma_{k,oo}^{-1}(x_o - \mu_{k,o}),
\qquad
\mathrm{Cov}[x_m \mid x_o, k] = \Sigma_{k,mm} - \Sigma_{k,mo}\Sigma_{k,oo}^{-1}\Sigma_{k,om}.
$$

Rows are grouped by their pattern of missing features, with one Cholesky factor of
$\Sigma_{k,oo}$ per pattern and class. This module is NumPy/SciPy rather than JAX on
purpose: the blocks have a different shape for every pattern, which ``jit`` would compile
anew each time.
"""

from __future__ import annotations

import math

import jax.numpy as jnp
import numpy as np
from scipy.linalg import cho_solve, solve_triangular

from bayesgen._precision import precision
from bayesgen.families.gaussian import observed_block


def full_covariances(
    covariances: np.ndarray, covariance_type: str, n_classes: int, n_features: int
):
    """Every class's covariance as a (n_classes, n_features, n_features) array."""
    covariances = np.asarray(covariances)
    if covariance_type == "full":
        return covariances
    if covariance_type == "tied":
        return np.broadcast_to(covariances, (n_classes, n_features, n_features))
    if covariance_type == "diag":
        return np.stack([np.diag(variances) for variances in covariances])
    return np.stack([variance * np.eye(n_features) for variance in covariances])


def diagonal_log_likelihood(means: np.ndarray, variances: np.ndarray, X: np.ndarray):
    """The observed-entry log density for diagonal covariances, without pattern grouping.

    With independent coordinates the marginal of the observed block is the product of the
    observed coordinates' densities, so missing entries simply contribute nothing.

    Parameters
    ----------
    means, variances : ndarray of shape (n_classes, n_features)
    X : ndarray of shape (n_samples, n_features), NaN where missing

    Returns
    -------
    ndarray of shape (n_samples, n_classes)
    """
    observed = ~np.isnan(X)
    filled = np.where(observed, X, 0.0)
    result = np.empty((X.shape[0], means.shape[0]), dtype=X.dtype)
    for k in range(means.shape[0]):
        terms = (filled - means[k]) ** 2 / variances[k] + np.log(2 * math.pi * variances[k])
        result[:, k] = -0.5 * np.sum(np.where(observed, terms, 0.0), axis=1)
    return result


def missing_patterns(X: np.ndarray):
    """``(patterns, row_groups)``: each distinct boolean row of ``isnan(X)`` and its rows."""
    missing = np.isnan(X)
    patterns, inverse = np.unique(missing, axis=0, return_inverse=True)
    inverse = inverse.ravel()
    order = np.argsort(inverse, kind="stable")
    boundaries = np.cumsum(np.bincount(inverse, minlength=len(patterns)))[:-1]
    return patterns, np.split(order, boundaries)


def log_likelihood(means: np.ndarray, covariances: np.ndarray, X: np.ndarray) -> np.ndarray:
    """$\\log \\mathcal N(x_{i,o} \\mid \\mu_{k,o}, \\Sigma_{k,oo})$ for rows with NaN.

    Parameters
    ----------
    means : ndarray of shape (n_classes, n_features)
    covariances : ndarray of shape (n_classes, n_features, n_features)
        See `full_covariances`.
    X : ndarray of shape (n_samples, n_features)
        NaN marks a missing entry. A row with every entry missing gets 0 (log 1).

    Returns
    -------
    ndarray of shape (n_samples, n_classes)
    """
    squared, log_det, n_observed = observed_block_forms(means, covariances, X)
    return -0.5 * squared - log_det - 0.5 * n_observed[:, None] * math.log(2 * math.pi)


def observed_block_forms(means: np.ndarray, covariances: np.ndarray, X: np.ndarray):
    """What an elliptical density of each row's observed block needs, per row and class.

    Few distinct missing patterns: one Cholesky factor per pattern and class. Many
    patterns: every row at once, in chunks, with its covariance masked to
    $\\Sigma_{oo} \\oplus I$ (`bayesgen.families.gaussian.observed_block.forms`).

    Parameters
    ----------
    means, covariances, X : as in `log_likelihood`

    Returns
    -------
    squared : ndarray of shape (n_samples, n_classes)
        $(x_o - \\mu_{k,o})^\\top \\Sigma_{k,oo}^{-1} (x_o - \\mu_{k,o})$.
    half_log_det : ndarray of shape (n_samples, n_classes)
        $\\tfrac12 \\log\\det \\Sigma_{k,oo}$.
    n_observed : ndarray of shape (n_samples,)
        Number of observed entries of each row.
    """
    patterns, groups = missing_patterns(X)
    if len(patterns) > MANY_PATTERNS:
        return _masked_forms(means, covariances, X)
    n_classes = means.shape[0]
    squared = np.zeros((X.shape[0], n_classes), dtype=X.dtype)
    half_log_det = np.zeros_like(squared)
    for missing, rows in zip(patterns, groups, strict=True):
        observed = ~missing
        if not observed.any():
            continue
        block = X[np.ix_(rows, observed)]
        for k in range(n_classes):
            lower = np.linalg.cholesky(covariances[k][np.ix_(observed, observed)])
            whitened = solve_triangular(lower, (block - means[k, observed]).T, lower=True)
            squared[rows, k] = np.sum(whitened**2, axis=0)
            half_log_det[rows, k] = np.sum(np.log(np.diag(lower)))
    return squared, half_log_det, np.sum(~np.isnan(X), axis=1)


MANY_PATTERNS = 64
"""Above this many distinct missing patterns, rows are evaluated in batches instead."""


def _masked_forms(means, covariances, X, chunk_rows: int = 2048):
    """`observed_block_forms` of many patterns: the masked covariances, in chunks."""
    squared = np.empty((X.shape[0], means.shape[0]), dtype=X.dtype)
    half_log_det = np.empty_like(squared)
    with precision(X.dtype):
        means = jnp.asarray(means, X.dtype)
        covariances = jnp.asarray(covariances, X.dtype)
        for start in range(0, X.shape[0], chunk_rows):
            rows = slice(start, start + chunk_rows)
            chunk_squared, chunk_log_det, _ = observed_block.forms(means, covariances, X[rows])
            squared[rows], half_log_det[rows] = chunk_squared, chunk_log_det
    return squared, half_log_det, np.sum(~np.isnan(X), axis=1)


def conditional(means, covariances, X, rows, missing, k):
    """Mean and covariance of the missing block of ``X[rows]`` given its observed block.

    Parameters
    ----------
    means, covariances : as in `log_likelihood`
    X : ndarray of shape (n_samples, n_features)
    rows : ndarray of int
        Rows sharing the missing pattern ``missing``.
    missing : ndarray of bool of shape (n_features,)
    k : int
        The class.

    Returns
    -------
    mean : ndarray of shape (len(rows), n_missing)
    covariance : ndarray of shape (n_missing, n_missing)
    """
    observed = ~missing
    mean_m, mean_o = means[k, missing], means[k, observed]
    sigma = covariances[k]
    if not observed.any():
        return np.broadcast_to(mean_m, (len(rows), missing.sum())), sigma[np.ix_(missing, missing)]
    factor = np.linalg.cholesky(sigma[np.ix_(observed, observed)]), True
    cross = sigma[np.ix_(missing, observed)]
    deviation = X[np.ix_(rows, observed)] - mean_o
    mean = mean_m + cho_solve(factor, deviation.T).T @ cross.T
    covariance = sigma[np.ix_(missing, missing)] - cross @ cho_solve(factor, cross.T)
    return mean, covariance
