r"""Per-class Gaussian log-densities of complete rows, in NumPy, a block of rows at a time.

The same quantities as `bayesgen.families.gaussian.log_likelihood`, for prediction:
NumPy reads the caller's array in place (handing it to JAX copies it, about 0.3 s for
400 MB here), and rows go through in blocks, so the temporaries stay a few megabytes
whatever ``n`` (a block of rows, and of rows x classes scores). Rows and means are shifted
by the average class mean first, as there.

When the row-only terms may be left out (``row_terms=False``, enough for
$p(y \mid x)$), the tied covariance needs one product of each block of rows,
$\log p(x \mid k) \doteq x^\top\Sigma^{-1}(\mu_k - s) - s^\top\Sigma^{-1}(\mu_k - s) -
\tfrac12 (\mu_k - s)^\top\Sigma^{-1}(\mu_k - s)$ (scikit-learn's linear form; no shifted
copy of the rows), and the diagonal types two per block, as they are linear in $x - s$
and $(x - s)^2$. With the row terms, differences are squared (never the expanded form),
which keeps $\log p(x)$ accurate far from every mean.

The result is computed class by class, as a ``(K, n)`` array, and returned transposed: a
``(n, K)`` view whose columns are contiguous, which is the layout in which NumPy reduces and
normalises over the few classes fastest (``estimators/log_space.py``).
"""

from __future__ import annotations

import math

import numpy as np
import scipy.linalg

from bayesgen._parallel import blas_on_one_thread_where, run_pieces
from bayesgen.families.score_blocks import ScoreBlocks

#: Rows per block: a block's whitened copy (rows x features) and its scores stay in the
#: processor's cache, which made QDA's scores 1.7 times faster than blocks of 32,768 rows
#: (1,000,000 rows, 50 features, 5 classes, 2 cores).
BLOCK_ROWS = 4_096
#: Rows per block of the tied linear form, which keeps no copy of the rows, and the most
#: scores (rows x classes) a block of it holds (4 MiB in float64).
LINEAR_BLOCK_ROWS = 65_536
LINEAR_BLOCK_SCORES = 2**19
#: Fewest rows for which the blocks are scored in threads.
PARALLEL_ROWS = 16_384
#: Fewest LAPACK calls for the factors (a Cholesky and a solve per class) for which BLAS is
#: limited to one thread even when the rows are few (see `score_blocks`).
MANY_FACTOR_CALLS = 16
#: Most features for which the factors are small enough to compute on one BLAS thread (a
#: Cholesky factor and its inverse of 256 x 256 take about a millisecond).
SMALL_FACTOR_FEATURES = 256


def _inverse_cholesky(covariance: np.ndarray) -> tuple[np.ndarray, float]:
    """$L^{-1}$ of $\\Sigma = LL^\\top$ and $\\log|L|$ (``d x d``, small)."""
    lower = np.linalg.cholesky(covariance)
    inverse = scipy.linalg.solve_triangular(lower, np.eye(lower.shape[0]), lower=True)
    return inverse.astype(covariance.dtype), float(np.sum(np.log(np.diagonal(lower))))


def log_likelihood(
    means: np.ndarray,
    covariances: np.ndarray,
    X: np.ndarray,
    covariance_type: str,
    *,
    row_terms: bool = True,
) -> np.ndarray:
    """$\\log \\mathcal N(x_i \\mid \\mu_k, \\Sigma_k)$ of complete rows, ``(n, K)``.

    Parameters
    ----------
    means : ndarray of shape (n_classes, n_features)
    covariances : ndarray
        Shaped as ``GaussianDA.covariances_`` for ``covariance_type``.
    X : ndarray of shape (n_samples, n_features)
        No missing values. The result has ``X``'s floating dtype.
    covariance_type : {"full", "tied", "diag", "spherical"}
    row_terms : bool, default=True
        ``False`` leaves out terms that are the same for every class of a row.

    Returns
    -------
    ndarray of shape (n_samples, n_classes)
    """
    blocks = score_blocks(means, covariances, X, covariance_type, row_terms=row_terms)
    by_class = np.empty((blocks.n_classes, blocks.n_rows), dtype=blocks.dtype)

    def write(start: int) -> None:
        rows = slice(start, start + blocks.block_rows)
        by_class[:, rows] = blocks.score(rows)

    run_pieces(write, range(0, blocks.n_rows, blocks.block_rows), in_threads=blocks.in_threads)
    return by_class.T


def score_blocks(
    means: np.ndarray,
    covariances: np.ndarray,
    X: np.ndarray,
    covariance_type: str,
    *,
    row_terms: bool = True,
) -> ScoreBlocks:
    """`log_likelihood` of complete rows a block of rows at a time: ``score(rows)`` is the
    ``(n_classes, rows)`` block of its transpose, class by class (`ScoreBlocks`).

    Parameters and result as `log_likelihood`, whose blocks these are.
    """
    dtype = X.dtype
    means = np.asarray(means, dtype=dtype)
    covariances = np.asarray(covariances, dtype=dtype)
    shift = means.mean(axis=0)
    centred_means = means - shift
    n_classes, n_features = means.shape
    n_rows = X.shape[0]
    constant = -0.5 * n_features * math.log(2.0 * math.pi)
    linear_form = covariance_type == "tied" and not row_terms
    # The factors are small products and solves, on one BLAS thread where there are many of
    # them or the blocks run in threads: on OpenBLAS's own threads each call wakes its pool,
    # which costs far more than the work (1,200 solves of 13 x 13 factors, the classes of
    # 400 posterior draws of a 3-class QDA: 4.7 s against 0.09 s), and leaves it awake: the
    # blocks' threads then ran about half as fast (LDA's predict_proba of 1,000,000 x 50
    # rows, 5 classes, 2 cores: 0.11 s against 0.06 s). Few rows and few calls are left
    # alone (the first limit in a process costs about 10 ms), and so are large factors,
    # whose d^3 work BLAS's threads share.
    factor_calls = 2 * (n_classes if covariance_type == "full" else 1)
    small = n_features <= SMALL_FACTOR_FEATURES
    one_thread = small and (n_rows >= PARALLEL_ROWS or factor_calls >= MANY_FACTOR_CALLS)
    with blas_on_one_thread_where(one_thread):
        if linear_form:
            weights, offsets = _tied_linear(centred_means, covariances)
            offsets = (offsets - weights @ shift + constant).astype(dtype)
        else:
            block = _BLOCKS[covariance_type](centred_means, covariances, row_terms)
    if linear_form:

        def linear(rows: slice) -> np.ndarray:
            block = X[rows] @ weights.T
            block += offsets
            return block.T

        # Row blocks times the weights, each turned class by class (0.025 s for 1,000,000
        # rows of 50 features and 5 classes, against 0.040 s for weights @ X.T), side by
        # side in threads like the other types' blocks.
        size = linear_block_rows(n_classes)
        in_threads = n_rows >= max(2 * size, PARALLEL_ROWS)
        return ScoreBlocks(linear, size, in_threads, n_rows, n_classes, dtype)
    constant = dtype.type(constant)

    def score(rows: slice) -> np.ndarray:
        scores = block(X[rows] - shift)
        scores += constant
        return scores

    # Blocks side by side in threads, BLAS on one thread in each: the small products of a
    # block left to OpenBLAS's own threads took 0.8 s one run and 1.2-1.9 s the next
    # (QDA, 1,000,000 x 50, 5 classes, 2 cores), waking its threads for every call.
    return ScoreBlocks(score, BLOCK_ROWS, n_rows >= PARALLEL_ROWS, n_rows, n_classes, dtype)


def linear_block_rows(n_classes: int) -> int:
    """Rows per block of the tied linear form: `LINEAR_BLOCK_ROWS`, fewer where the block's
    scores would pass `LINEAR_BLOCK_SCORES` (many classes)."""
    return max(1, min(LINEAR_BLOCK_ROWS, LINEAR_BLOCK_SCORES // n_classes))


def _squared_norms(rows: np.ndarray) -> np.ndarray:
    """Each row's sum of squares: in float64 with no squared copy of the rows (``einsum``);
    in float32 by NumPy's pairwise sum of the squares, which keeps a long row's sum
    accurate (``einsum`` accumulates in order: up to 8.2e-7 relative error on rows of
    4,000 standard normal entries, against 1.5e-7)."""
    if rows.dtype == np.float32:
        return np.sum(np.square(rows), axis=1)
    return np.einsum("ij,ij->i", rows, rows)


def _tied_linear(centred_means, covariance):
    r"""Rows $\Sigma^{-1}(\mu_k - s)$ and offsets of the linear tied discriminant."""
    inverse, half_log_det = _inverse_cholesky(covariance)
    whitened_means = centred_means @ inverse.T
    weights = whitened_means @ inverse  # (K, d)
    offsets = -0.5 * np.sum(np.square(whitened_means), axis=1) - half_log_det
    return weights, offsets


def _tied(centred_means, covariance, row_terms):
    inverse, half_log_det = _inverse_cholesky(covariance)
    whitened_means = centred_means @ inverse.T

    def block(Z):
        whitened = Z @ inverse.T
        out = np.empty((centred_means.shape[0], Z.shape[0]), dtype=Z.dtype)
        for k, mean in enumerate(whitened_means):
            out[k] = _squared_norms(whitened - mean)
        return -0.5 * out - half_log_det

    return block


def _full(centred_means, covariances, row_terms):
    factors = [_inverse_cholesky(covariance) for covariance in covariances]

    def block(Z):
        out = np.empty((centred_means.shape[0], Z.shape[0]), dtype=Z.dtype)
        for k, (mean, (inverse, half_log_det)) in enumerate(
            zip(centred_means, factors, strict=True)
        ):
            out[k] = -0.5 * _squared_norms((Z - mean) @ inverse.T) - half_log_det
        return out

    return block


def _diagonal(centred_means, variances, row_terms):
    precisions = 1.0 / variances
    log_norm = -0.5 * np.sum(np.log(variances), axis=1)
    if not row_terms:
        linear = centred_means * precisions
        offsets = -0.5 * np.sum(np.square(centred_means) * precisions, axis=1) + log_norm
        return lambda Z: (-0.5 * precisions) @ np.square(Z).T + linear @ Z.T + offsets[:, None]

    def block(Z):
        out = np.empty((centred_means.shape[0], Z.shape[0]), dtype=Z.dtype)
        for k in range(centred_means.shape[0]):
            out[k] = np.square(Z - centred_means[k]) @ precisions[k]
        return -0.5 * out + log_norm[:, None]

    return block


def _spherical(centred_means, variances, row_terms):
    per_feature = np.broadcast_to(variances[:, None], centred_means.shape)
    return _diagonal(centred_means, np.ascontiguousarray(per_feature), row_terms)


_BLOCKS = {"full": _full, "tied": _tied, "diag": _diagonal, "spherical": _spherical}
