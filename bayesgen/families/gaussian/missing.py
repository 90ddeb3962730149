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

$O(d^2 + m^3)$ per row and class instead of a factorisation of $\Sigma_{k,oo}$; rows are
taken in blocks (`row_blocks`: one matrix product per block) and their missing blocks
factored in chunks of rows with the same number $m$ of missing entries (`row_chunks`),
both of bounded memory. The pieces: `missing_blocks` (class-specific precisions),
`missing_tied` (one precision shared by the classes: one factorisation per row, not per
class), `missing_diagonal`, `missing_conditionals` (impute, sample) and `completed_stats`
(the EM E-step), on `small_blocks` (stacks of small factorisations). This module is
NumPy/SciPy rather than JAX on purpose: the blocks have a different shape for every
pattern, which ``jit`` would compile anew each time.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.linalg import cho_solve, solve_triangular

from bayesgen.families.gaussian import missing_blocks, missing_tied
from bayesgen.families.gaussian.missing_diagonal import (  # the family and mixtures call it here
    diagonal_log_likelihood as diagonal_log_likelihood,
)


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


def missing_patterns(X: np.ndarray):
    """``(patterns, row_groups)``: each distinct boolean row of ``isnan(X)`` and its rows.

    The patterns come in lexicographic order (False before True), each group's rows in
    increasing order.
    """
    missing = np.isnan(X)
    _, first, inverse = np.unique(_pattern_keys(missing), return_index=True, return_inverse=True)
    patterns = missing[first]
    order = np.argsort(inverse, kind="stable")
    boundaries = np.cumsum(np.bincount(inverse, minlength=len(patterns)))[:-1]
    return patterns, np.split(order, boundaries)


def _pattern_keys(missing: np.ndarray) -> np.ndarray:
    """One sortable key per boolean row, ordered as the rows are lexicographically.

    The rows packed to bits, big-endian, as one unsigned integer when they fit in 64 bits
    (sorting 8-byte integers, not d-byte records: about 20 times faster at d = 50).
    """
    packed = np.packbits(missing, axis=1)
    if packed.shape[1] <= 8:
        wide = np.zeros((packed.shape[0], 8), dtype=np.uint8)
        wide[:, : packed.shape[1]] = packed
        return wide.view(">u8").ravel()
    return np.ascontiguousarray(packed).view(np.dtype((np.void, packed.shape[1]))).ravel()


def has_many_patterns(X: np.ndarray) -> bool:
    """Whether the rows of ``X`` hold more than `MANY_PATTERNS` distinct missing patterns.

    ``X`` is the data (NaN where missing) or its boolean ``isnan``. The first rows decide
    when they already do, which saves reading every row.
    """

    def gaps(rows):
        return rows if rows.dtype == bool else np.isnan(rows)

    probe = X[: 16 * MANY_PATTERNS]
    if np.unique(_pattern_keys(gaps(probe))).size > MANY_PATTERNS:
        return True
    if probe.shape[0] == X.shape[0]:
        return False
    return np.unique(_pattern_keys(gaps(X))).size > MANY_PATTERNS


def missing_counts(X: np.ndarray) -> np.ndarray:
    """The number of missing entries of each row, read a block of rows at a time (no
    ``(n, d)`` temporary)."""
    counts = np.empty(X.shape[0], dtype=np.intp)
    for start in range(0, X.shape[0], _COUNT_ROWS):
        counts[start : start + _COUNT_ROWS] = np.isnan(X[start : start + _COUNT_ROWS]).sum(axis=1)
    return counts


_COUNT_ROWS = 32_768


def log_likelihood(
    means: np.ndarray, covariances: np.ndarray, X: np.ndarray, *, row_terms: bool = True
) -> np.ndarray:
    """$\\log \\mathcal N(x_{i,o} \\mid \\mu_{k,o}, \\Sigma_{k,oo})$ for rows with NaN.

    Parameters
    ----------
    means : ndarray of shape (n_classes, n_features)
    covariances : ndarray of shape (n_classes, n_features, n_features)
        See `full_covariances`; or one (n_features, n_features) matrix shared by the
        classes.
    X : ndarray of shape (n_samples, n_features)
        NaN marks a missing entry. A row with every entry missing gets 0 (log 1).
    row_terms : bool, default=True
        ``False`` allows leaving out terms that are the same for every class of a row
        (enough for $p(k \\mid x_o)$), which a shared covariance saves work on.

    Returns
    -------
    ndarray of shape (n_samples, n_classes)
    """
    shared = shared_covariance(covariances)
    if shared is not None and has_many_patterns(X):
        return _shared_log_likelihood(means, shared, X, row_terms)
    squared, log_det, n_observed = observed_block_forms(means, covariances, X)
    return -0.5 * squared - log_det - 0.5 * n_observed[:, None] * math.log(2 * math.pi)


def shared_covariance(covariances: np.ndarray):
    """The one (n_features, n_features) covariance every class has, or None."""
    covariances = np.asarray(covariances)
    if covariances.ndim == 2:
        return covariances
    first = covariances[0]
    return first if np.array_equal(covariances, np.broadcast_to(first, covariances.shape)) else None


def _shared_log_likelihood(means, covariance, X, row_terms: bool) -> np.ndarray:
    """`log_likelihood` under one covariance (`missing_tied`)."""
    shared = missing_tied.shared_precision(means, covariance)
    return missing_tied.log_likelihood(shared, X, row_terms=row_terms).T.astype(X.dtype)


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
    if has_many_patterns(X):
        return schur_forms(means, covariances, X)
    patterns, groups = missing_patterns(X)
    n_classes = means.shape[0]
    covariances = np.broadcast_to(covariances, (n_classes, *covariances.shape[-2:]))
    squared = np.zeros((X.shape[0], n_classes), dtype=X.dtype)
    half_log_det = np.zeros_like(squared)
    # A pattern's rows a chunk at a time: its observed block and whitened copies stay within
    # CHUNK_VALUES however many rows share the pattern (every row of a table given at once).
    size = max(1, CHUNK_VALUES // (n_classes * max(1, X.shape[1])))
    for missing, rows in zip(patterns, groups, strict=True):
        observed = ~missing
        if not observed.any():
            continue
        lowers = [
            np.linalg.cholesky(covariances[k][np.ix_(observed, observed)]) for k in range(n_classes)
        ]
        for start in range(0, rows.size, size):
            chunk = rows[start : start + size]
            block = X[np.ix_(chunk, observed)]
            for k, lower in enumerate(lowers):
                whitened = solve_triangular(lower, (block - means[k, observed]).T, lower=True)
                squared[chunk, k] = np.sum(whitened**2, axis=0)
                half_log_det[chunk, k] = np.sum(np.log(np.diag(lower)))
    return squared, half_log_det, np.sum(~np.isnan(X), axis=1)


MANY_PATTERNS = 64
"""Above this many distinct missing patterns, rows are evaluated in batches instead."""


#: Values (rows x classes x missing block) held per chunk of the Schur-complement passes.
CHUNK_VALUES = 2**22


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


def row_blocks(X: np.ndarray, n_classes: int, *, complete: bool = False):
    """``(rows, block, chunks)``: blocks of the rows of ``X`` with missing entries.

    ``rows`` are a block's positions in ``X`` (rows taken in order of their number of
    missing entries, so that a block's chunks are long), ``block`` is ``X[rows]`` and
    ``chunks`` its `row_chunks` (positions in the block). A block is sized for the
    products of its rows with every class's $d \\times d$ matrix to hold at most
    `CHUNK_VALUES` values: a few matrix products per block, not per chunk (OpenBLAS pays a
    cost per call when the machine is busy).
    ``complete``: the complete rows too.
    """
    counts = missing_counts(X)
    candidates = np.argsort(counts, kind="stable")
    if not complete:
        candidates = candidates[counts[candidates] > 0]
    size = max(1, CHUNK_VALUES // (n_classes * max(1, X.shape[1])))
    for start in range(0, candidates.size, size):
        rows = candidates[start : start + size]
        block = X[rows]
        yield rows, block, row_chunks(block, n_classes, complete=complete)


def schur_forms(means, covariances, X):
    """`observed_block_forms` at the cost of each row's missing block (module docstring).

    A row with every entry missing gets 0 and 0.
    """
    shared = shared_covariance(covariances)
    if shared is not None:
        return _shared_schur_forms(means, shared, X)
    classes = missing_blocks.class_precisions(means, covariances)
    squared, half_log_det, counts = missing_blocks.forms(classes, X)
    n_observed = X.shape[1] - counts
    squared[:, n_observed == 0], half_log_det[:, n_observed == 0] = 0.0, 0.0
    dtype = X.dtype
    return squared.T.astype(dtype), half_log_det.T.astype(dtype), n_observed


def _shared_schur_forms(means, covariance, X):
    """`schur_forms` under one covariance shared by the classes (`missing_tied`)."""
    shared = missing_tied.shared_precision(means, covariance)
    squared, half_log_det, counts = missing_tied.forms(shared, X)
    n_observed = X.shape[1] - counts
    squared[:, n_observed == 0], half_log_det[n_observed == 0] = 0.0, 0.0
    half_log_det = np.broadcast_to(half_log_det[:, None], squared.T.shape).astype(X.dtype)
    return squared.T.astype(X.dtype), half_log_det, n_observed


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
