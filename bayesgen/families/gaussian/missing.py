r"""Gaussian densities and conditionals when some features are missing (NaN).

A missing feature is integrated out exactly: the observed block $x_o$ of a row is
Gaussian with mean $\mu_{k,o}$ and covariance $\Sigma_{k,oo}$, and the missing
block given the observed one is Gaussian with

$$
\mathbb E[x_m \mid x_o, k] = \mu_{k,m} + \Sigma_{k,mo}\Sigma_{k,oo}^{-1}(x_o - \mu_{k,o}),
\qquad
\mathrm{Cov}[x_m \mid x_o, k] = \Sigma_{k,mm} - \Sigma_{k,mo}\Sigma_{k,oo}^{-1}\Sigma_{k,om}.
$$

With few distinct patterns of missing features, rows are grouped by pattern, with one
Cholesky factor of $\Sigma_{k,oo}$ per pattern and class. With many (every row its own
pattern, as when entries are missing at random), each row costs only its missing block,
through the precision $\Lambda_k = \Sigma_k^{-1}$ (Schur complement): with
$z = x - \mu_k$ and its missing entries set to 0, $b = (\Lambda_k z)_m$ and
$A = \Lambda_{k,mm}$,

$$
(x_o - \mu_{k,o})^\top \Sigma_{k,oo}^{-1} (x_o - \mu_{k,o}) = z^\top \Lambda_k z
- b^\top A^{-1} b, \qquad
\log\det \Sigma_{k,oo} = \log\det \Sigma_k + \log\det A,
$$

$$
\mathbb E[x_m \mid x_o, k] = \mu_{k,m} - A^{-1} b, \qquad
\mathrm{Cov}[x_m \mid x_o, k] = A^{-1},
$$

$O(d^2 + m^3)$ per row and class instead of a factorisation of $\Sigma_{k,oo}$; rows with
the same number $m$ of missing entries are batched, in chunks of bounded memory. This
module is NumPy/SciPy rather than JAX on purpose: the blocks have a different shape for
every pattern, which ``jit`` would compile anew each time.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.linalg import cho_solve, solve_triangular


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
    patterns: every row at the cost of its missing block (`schur_forms`).

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
        return schur_forms(means, covariances, X)
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


#: Values (rows x classes x missing block) held per chunk of the Schur-complement passes.
CHUNK_VALUES = 2**22


def precisions(covariances: np.ndarray):
    """``(Lambda, log det Sigma)`` of every class, in float64.

    Float64 whatever the input: the Schur forms subtract two quadratic forms, which in
    float32 would lose the digits of their difference.
    """
    covariances = np.asarray(covariances, dtype=np.float64)
    lower = np.linalg.cholesky(covariances)
    identity = np.broadcast_to(np.eye(covariances.shape[-1]), covariances.shape)
    inverse_lower = np.linalg.solve(lower, identity)
    precision = np.swapaxes(inverse_lower, -1, -2) @ inverse_lower
    log_det = 2.0 * np.sum(np.log(np.diagonal(lower, axis1=-2, axis2=-1)), axis=-1)
    return precision, log_det


def row_chunks(X: np.ndarray, n_classes: int, *, complete: bool = False):
    """``(rows, index)`` for chunks of the rows with missing entries, ``m`` at a time.

    Every row of a chunk has the same number ``m`` of missing entries, whose columns are
    ``index`` (rows x m, increasing); a chunk holds at most `CHUNK_VALUES` values of the
    per-class blocks. ``complete``: the complete rows too (``m = 0``).
    """
    gaps = np.isnan(X)
    counts = gaps.sum(axis=1)
    for m in np.unique(counts if complete else counts[counts > 0]):
        same = np.flatnonzero(counts == m)
        per_chunk = max(1, CHUNK_VALUES // (n_classes * (m * m + X.shape[1])))
        for start in range(0, same.size, per_chunk):
            rows = same[start : start + per_chunk]
            yield rows, np.nonzero(gaps[rows])[1].reshape(rows.size, m)


def _forward_substitution(lower, b):
    """$L^{-1} b$ for stacks of small lower-triangular ``lower`` (..., m, m), b (..., m).

    A loop over the m columns, each step vectorised over the stack: for the small blocks
    of missing entries this is several times faster than a batched general solve.
    """
    solution = np.empty_like(b)
    for i in range(b.shape[-1]):
        done = np.einsum("...j,...j->...", lower[..., i, :i], solution[..., :i])
        solution[..., i] = (b[..., i] - done) / lower[..., i, i]
    return solution


def _backward_substitution(lower, b):
    """$L^{-\\top} b$, the transpose solve of `_forward_substitution`."""
    solution = np.empty_like(b)
    for i in reversed(range(b.shape[-1])):
        done = np.einsum("...j,...j->...", lower[..., i + 1 :, i], solution[..., i + 1 :])
        solution[..., i] = (b[..., i] - done) / lower[..., i, i]
    return solution


def _schur(means, precision, block, index):
    """``(z' Lambda z, Cholesky factor of A, L^-1 b)`` of every class for a chunk of rows.

    Shapes (n_classes, rows), (n_classes, rows, m, m) and (n_classes, rows, m).
    """
    gaps = np.isnan(block)
    observed = (~gaps).astype(np.float64)
    deviations = np.where(gaps, 0.0, block)[None] - means[:, None, :]
    deviations *= observed
    projected = deviations @ precision
    quadratic = np.einsum("krd,krd->kr", deviations, projected)
    n_classes, rows = quadratic.shape
    n_features, m = block.shape[1], index.shape[1]
    if m == 0:  # complete rows: nothing to take out
        return quadratic, np.ones((n_classes, rows, 0, 0)), np.zeros((n_classes, rows, 0))
    b = np.take_along_axis(projected, np.broadcast_to(index, (n_classes, rows, m)), axis=2)
    # A = Lambda_mm of every row, gathered from the flattened precisions (one np.take);
    # a covariance shared by the classes (tied) has one A per row, factored once.
    cells = index[:, :, None] * n_features + index[:, None, :]
    shared = np.array_equal(precision, np.broadcast_to(precision[0], precision.shape))
    flat = precision[:1] if shared else precision
    lower = np.linalg.cholesky(np.take(flat.reshape(flat.shape[0], -1), cells, axis=1))
    if shared:
        lower = np.broadcast_to(lower, (n_classes, *lower.shape[1:]))
    return quadratic, lower, _forward_substitution(lower, b)


def schur_forms(means, covariances, X):
    """`observed_block_forms` at the cost of each row's missing block (module docstring).

    A row with every entry missing gets 0 and 0.
    """
    n_classes = means.shape[0]
    precision, log_det = precisions(covariances)
    means = np.asarray(means, dtype=np.float64)
    squared = np.zeros((n_classes, X.shape[0]))
    half_log_det = np.zeros_like(squared)
    for rows, index in row_chunks(X, n_classes, complete=True):
        block = np.asarray(X[rows], dtype=np.float64)
        quadratic, lower, whitened = _schur(means, precision, block, index)
        squared[:, rows] = quadratic - np.sum(whitened**2, axis=2)
        log_diagonal = np.log(np.diagonal(lower, axis1=2, axis2=3))
        half_log_det[:, rows] = 0.5 * log_det[:, None] + np.sum(log_diagonal, axis=2)
    dtype = X.dtype
    return squared.T.astype(dtype), half_log_det.T.astype(dtype), np.sum(~np.isnan(X), axis=1)


def conditionals(means, covariances, X):
    r"""The Gaussian of each row's missing block given its observed one, class by class.

    Yields, for chunks of the rows of ``X`` with missing entries (`row_chunks`),
    ``(rows, index, mean, covariance)``: ``mean`` of shape (n_classes, rows, m) is
    $\mathbb E[x_m \mid x_o, k]$ and ``covariance`` of shape (n_classes, rows, m, m)
    is $\mathrm{Cov}[x_m \mid x_o, k]$ (module docstring), in float64.
    """
    n_classes = means.shape[0]
    precision, _ = precisions(covariances)
    means = np.asarray(means, dtype=np.float64)
    for rows, index in row_chunks(X, n_classes):
        block = np.asarray(X[rows], dtype=np.float64)
        _, lower, whitened = _schur(means, precision, block, index)
        mean = np.take(means, index, axis=1) - _backward_substitution(lower, whitened)
        # Row j of the solve is L^-1 e_j, so the stack is L^-T, and A^-1 = L^-T L^-1.
        identity = np.broadcast_to(np.eye(index.shape[1]), lower.shape)
        inverse_transpose = _forward_substitution(lower[..., None, :, :], identity)
        covariance = inverse_transpose @ np.swapaxes(inverse_transpose, 2, 3)
        yield rows, index, mean, covariance


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
