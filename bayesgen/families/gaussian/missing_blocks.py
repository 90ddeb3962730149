r"""Rows with missing entries under class-specific precisions, a block of rows at a time.

For class $k$ with precision $\Lambda_k = \Sigma_k^{-1}$, a row $\tilde x$ (shifted by
$s$, the average class mean, with its missing entries set to 0) and
$z = \tilde x - (\mu_k - s)$, the block $A = \Lambda_{k,mm} = LL^\top$ of its missing
entries $m$ and $b = (\Lambda_k z)_m$ give everything `missing` needs (its module
docstring has the formulas): $z^\top \Lambda_k z - \|L^{-1} b\|^2$ is the squared
distance of the observed block, and $-A^{-1} b$ (plus $s_m$) the conditional mean of the
missing one. $z$ is not zero at the missing entries, but
$\Lambda - \Lambda_{:m} A^{-1} \Lambda_{m:}$ is, on every row and column of $m$, so
their values cancel exactly; and $\Lambda_k z = \tilde x \Lambda_k - \Lambda_k(\mu_k - s)$
is one matrix product per block of rows for every class at once.

The products are taken per block of rows (`block_products`), the $m \times m$ blocks
factored per chunk of rows with the same $m$ (`chunk_blocks`), stack last
(`small_blocks`), every row and class of a chunk in one stack.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from bayesgen._parallel import run_pieces
from bayesgen.families.gaussian import gap_layout, small_blocks


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


class ClassPrecisions(NamedTuple):
    """What every block of rows needs from the classes' means and covariances, float64.

    Attributes
    ----------
    shift : ndarray of shape (n_features,)
        $s$, the average class mean.
    means : ndarray of shape (n_classes, n_features)
        $\\mu_k - s$.
    precision : ndarray of shape (n_classes, n_features, n_features)
    projected_means : ndarray of shape (n_classes, n_features)
        $\\Lambda_k (\\mu_k - s)$.
    log_det : ndarray of shape (n_classes,)
        $\\log\\det\\Sigma_k$.
    shared : bool
        Whether every class has the same covariance (one product serves them all).
    """

    shift: np.ndarray
    means: np.ndarray
    precision: np.ndarray
    projected_means: np.ndarray
    log_det: np.ndarray
    shared: bool = False


def class_precisions(means, covariances) -> ClassPrecisions:
    """`ClassPrecisions` of ``means`` (K, d) and ``covariances`` (K, d, d)."""
    precision, log_det = precisions(covariances)
    means = np.asarray(means, dtype=np.float64)
    shift = means.mean(axis=0)
    centred = means - shift
    projected = np.einsum("kde,ke->kd", precision, centred)
    covariances = np.asarray(covariances)
    shared = bool(np.array_equal(covariances, np.broadcast_to(covariances[0], covariances.shape)))
    return ClassPrecisions(shift, centred, precision, projected, log_det, shared)


def block_products(classes: ClassPrecisions, block: np.ndarray):
    """``(projected, quadratic)`` of a block of rows: $\\Lambda_k z$ and $z^\\top\\Lambda_k z$.

    Shapes (rows, n_classes, n_features) and (n_classes, rows); ``block`` (rows,
    n_features) has NaN where missing.
    """
    filled = np.subtract(block, classes.shift, dtype=np.float64)
    np.copyto(filled, 0.0, where=np.isnan(filled))
    n_classes, n_features = classes.means.shape
    wide = np.moveaxis(classes.precision, 0, 1).reshape(n_features, n_classes * n_features)
    projected = (filled @ wide).reshape(-1, n_classes, n_features)
    projected -= classes.projected_means
    # z' Lambda z with z = filled - mean, read off the product without a (rows, K, d) copy.
    quadratic = np.einsum("rd,rkd->kr", filled, projected)
    quadratic -= np.einsum("kd,rkd->kr", classes.means, projected)
    return projected, quadratic


def chunk_blocks(classes: ClassPrecisions, projected: np.ndarray, index: np.ndarray):
    """``(L, L^-1 b)`` of a chunk of rows with the same number m of missing entries.

    Parameters
    ----------
    classes : ClassPrecisions
    projected : ndarray of shape (rows, n_classes, n_features)
        The chunk's rows of `block_products`' ``projected``.
    index : ndarray of int of shape (rows, m)
        Each row's missing columns.

    Returns
    -------
    lower : ndarray of shape (m, m, n_classes * rows)
        Stack last, class-major: entry ``k * rows + r`` is class ``k``, row ``r``.
    whitened : ndarray of shape (m, n_classes * rows)
    """
    b = np.take_along_axis(projected, index[:, None, :], axis=2)  # (rows, K, m)
    return stack_blocks(classes, index.T, b.transpose(2, 1, 0).reshape(index.shape[1], -1))


def stack_blocks(classes: ClassPrecisions, missing: np.ndarray, b: np.ndarray):
    """`chunk_blocks` from the rows' missing columns ``missing`` (m, rows) and their
    $b$ (m, n_classes * rows), class-major as the result."""
    n_classes, n_features = classes.means.shape
    m, rows = missing.shape
    # The blocks A = Lambda_k,mm (their lower triangle, all the factorisation reads), then
    # b, as one stack for `small_blocks.factor`.
    work = np.empty((m + 1, m, n_classes * rows))
    offsets = (np.arange(n_classes) * (n_features * n_features))[:, None]
    for i in range(m):
        cells = (offsets + missing[i] * n_features) + missing[: i + 1, None, :]
        target = work[i, : i + 1].reshape(i + 1, n_classes, rows)
        np.take(classes.precision, cells, out=target, mode="clip")  # in range: unbuffered
    work[m] = b
    small_blocks.factor(work, m)
    return work[:m], work[m]


def forms(classes: ClassPrecisions, X: np.ndarray):
    """``(quadratic, half_log_det, counts)`` of the rows of ``X`` (NaN where missing), in
    two passes (`gap_layout`): $(x_o - \\mu_{k,o})^\\top \\Sigma_{k,oo}^{-1}
    (x_o - \\mu_{k,o})$ and $\\tfrac12 \\log\\det \\Sigma_{k,oo}$, both (n_classes,
    n_samples), and the missing entries per row. Rows with every entry missing are left as
    the first pass scored them."""
    n_samples, n_features = X.shape
    n_classes = classes.means.shape[0]
    quadratic = np.empty((n_classes, n_samples))
    blocks, size = gap_layout.block_starts(n_samples, (n_classes + 1) * n_features)
    parallel = n_samples >= gap_layout.PARALLEL_ROWS
    gaps = gap_layout.counted_gaps(X, blocks, size, in_threads=parallel)
    b = np.empty((gaps.columns.size, n_classes))
    wide = np.moveaxis(classes.precision, 0, 1).reshape(n_features, n_classes * n_features)

    def block_pass(start: int) -> None:  # writes only its own rows and entries
        rows = slice(start, start + size)
        filled, at = gap_layout.filled_block(X, start, size, classes.shift, gaps)
        projected = (filled @ wide).reshape(-1, n_classes, n_features)
        projected -= classes.projected_means
        # z' Lambda z with z = filled - mean, read off the product without a copy.
        quadratic[:, rows] = np.einsum("rd,rkd->kr", filled, projected)
        quadratic[:, rows] -= np.einsum("kd,rkd->kr", classes.means, projected)
        gappy_rows, gap_columns = np.divmod(at, n_features)
        stop = min(start + size, n_samples)
        b[gaps.starts[start] : gaps.starts[stop]] = projected[gappy_rows, :, gap_columns]

    run_pieces(block_pass, blocks, in_threads=parallel)
    half_log_det = np.repeat(0.5 * classes.log_det[:, None], n_samples, axis=1)

    def solve_stack(stack) -> None:  # writes only its own rows
        m, rows = stack
        at = gap_layout.entries(gaps, rows, m)
        stacked = np.take(b, at, axis=0).transpose(0, 2, 1).reshape(m, n_classes * rows.size)
        lower, whitened = stack_blocks(classes, np.take(gaps.columns, at), stacked)
        quadratic[:, rows] -= np.sum(np.square(whitened), axis=0).reshape(n_classes, -1)
        half_log_det[:, rows] += small_blocks.half_log_det(lower).reshape(n_classes, -1)

    stacks = gap_layout.stacks(gaps.counts, n_features, lambda m: (m + 1) * m * n_classes)
    run_pieces(solve_stack, stacks, in_threads=parallel)
    return quadratic, half_log_det, gaps.counts


def conditional_means(classes: ClassPrecisions, lower, whitened, index) -> np.ndarray:
    """$\\mathbb E[x_m \\mid x_o, k]$ (n_classes, rows, m) from `chunk_blocks`."""
    m, (rows, n_classes) = index.shape[1], (index.shape[0], classes.means.shape[0])
    deviation = small_blocks.backward_substitution(lower, whitened)
    return np.take(classes.shift, index) - deviation.reshape(m, n_classes, rows).transpose(1, 2, 0)


def pair_products(classes: ClassPrecisions, block: np.ndarray, labels: np.ndarray):
    """`block_products` for rows paired each with one class ``labels`` (rows,): shapes
    (rows, n_features) and (rows,), one matrix product per class present."""
    filled = np.subtract(block, classes.shift, dtype=np.float64)
    np.copyto(filled, 0.0, where=np.isnan(filled))
    present = np.unique(labels)
    if present.size == 1 or classes.shared:
        projected = filled @ classes.precision[present[0]]
    else:
        projected = np.empty_like(filled)
        for k in present:
            rows = labels == k
            projected[rows] = filled[rows] @ classes.precision[k]
    projected -= classes.projected_means[labels]
    # z' Lambda z with z = filled - mean: the product read twice, no (rows, d) difference.
    quadratic = np.einsum("rd,rd->r", filled, projected)
    quadratic -= np.einsum("rd,rd->r", classes.means[labels], projected)
    return projected, quadratic


def pair_blocks(classes: ClassPrecisions, projected, index, labels):
    """`chunk_blocks` for rows paired each with one class ``labels`` (rows,), from their
    rows ``projected`` (rows, n_features) of `pair_products`: ``(L, L^-1 b)``, shapes
    (m, m, rows) and (m, rows)."""
    n_features, m = projected.shape[1], index.shape[1]
    missing = index.T
    work = np.empty((m + 1, m, index.shape[0]))
    offsets = labels * (n_features * n_features)
    for i in range(m):
        cells = (offsets + missing[i] * n_features) + missing[: i + 1]
        np.take(classes.precision, cells, out=work[i, : i + 1], mode="clip")  # in range
    work[m] = np.take_along_axis(projected, index, axis=1).T
    small_blocks.factor(work, m)
    return work[:m], work[m]


class PairSolution(NamedTuple):
    """What the E-step needs from the missing blocks of a chunk of (row, class) pairs.

    Attributes
    ----------
    half_log_det : ndarray of shape (rows,)
        $\\tfrac12 \\log\\det A$.
    reduction : ndarray of shape (rows,)
        $b^\\top A^{-1} b$, what the observed block's squared distance loses.
    deviation : ndarray of shape (rows, m)
        $A^{-1} b$: the conditional mean is $s_m$ minus it.
    inverse : ndarray of shape (rows, m, m)
        $A^{-1}$, the conditional covariance.
    """

    half_log_det: np.ndarray
    reduction: np.ndarray
    deviation: np.ndarray
    inverse: np.ndarray


#: Chunks of at most this many pairs are factored by LAPACK, one call per block and step,
#: stack first; longer ones by `small_blocks` (one NumPy call per entry, over the stack).
LAPACK_PAIRS = 512


def pair_solutions(classes: ClassPrecisions, projected, index, labels) -> PairSolution:
    """`PairSolution` of a chunk of pairs, from their rows ``projected`` (rows,
    n_features) of `pair_products`, missing columns ``index`` (rows, m) and classes
    ``labels`` (rows,).

    A short chunk costs NumPy's per-call overhead, which `small_blocks` pays $O(m^2)$ times
    per chunk and LAPACK's batched calls a few times; a long one the work per block,
    which `small_blocks` does in contiguous sweeps.
    """
    rows, m = index.shape
    if rows > LAPACK_PAIRS:
        lower, whitened = pair_blocks(classes, projected, index, labels)
        deviation = small_blocks.backward_substitution(lower, whitened)
        return PairSolution(
            small_blocks.half_log_det(lower),
            np.sum(np.square(whitened), axis=0),
            deviation.T,
            np.moveaxis(small_blocks.inverse(lower), -1, 0),
        )
    blocks = classes.precision[labels[:, None, None], index[:, :, None], index[:, None, :]]
    b = np.take_along_axis(projected, index, axis=1)
    if m == 0:
        return PairSolution(np.zeros(rows), np.zeros(rows), b, blocks)
    lower = np.linalg.cholesky(blocks)
    inverse_lower = np.linalg.inv(lower)
    whitened = np.einsum("rij,rj->ri", inverse_lower, b)
    return PairSolution(
        np.sum(np.log(np.diagonal(lower, axis1=1, axis2=2)), axis=1),
        np.einsum("ri,ri->r", whitened, whitened),
        np.einsum("rji,rj->ri", inverse_lower, whitened),
        np.swapaxes(inverse_lower, 1, 2) @ inverse_lower,
    )
