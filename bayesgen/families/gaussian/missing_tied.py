r"""Rows with missing entries under one covariance shared by the classes (``"tied"``).

With $\Lambda = \Sigma^{-1}$ and $A = \Lambda_{mm}$ for a row's missing block $m$, the
matrix $P = \Lambda - \Lambda_{:m} A^{-1} \Lambda_{m:}$ is $\Sigma_{oo}^{-1}$ on the
observed block and zero on every row and column of a missing entry, so a row may hold
anything at its missing entries: they are set to 0. With $\tilde x$ the row so filled
(after the shift $s$ of `shared_precision`), $g = (\Lambda \tilde x)_m$,
$a_k = \Lambda \mu_k$, $A = LL^\top$, $h = L^{-1} g$ and $e_k = L^{-1} a_{k,m}$,

$$
(\tilde x - \mu_k)^\top P (\tilde x - \mu_k)
= \|C^{-1}(\tilde x - \mu_k)\|^2 - \|h - e_k\|^2 \quad (\Sigma = CC^\top),
$$

$$
\mu_k^\top P \tilde x - \tfrac12 \mu_k^\top P \mu_k
= a_k^\top \tilde x - e_k^\top h - \tfrac12 (\mu_k^\top a_k - \|e_k\|^2),
$$

the second being all of $\log \mathcal N(x_o \mid \mu_{k,o}, \Sigma_{oo})$ that depends on
the class, enough for $p(k \mid x_o)$. The conditional mean of the missing block is
$\mathbb E[x_m \mid x_o, k] = L^{-\top}(e_k - h)$ (plus $s_m$). Per row: one product
with $\Lambda$, one factorisation of $A$ and $K + 1$ triangular solves, shared by the
classes, where a class-specific precision pays a product and a factorisation per class.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from bayesgen._parallel import run_pieces
from bayesgen.families.gaussian import gap_layout, small_blocks


class SharedPrecision(NamedTuple):
    """What every chunk of rows needs from the class means and the shared covariance.

    Attributes
    ----------
    shift : ndarray of shape (n_features,)
        The average class mean $s$, subtracted from rows and means (accuracy).
    means : ndarray of shape (n_classes, n_features)
        $\\mu_k - s$.
    precision : ndarray of shape (n_features, n_features)
        $\\Lambda$.
    inverse_cholesky : ndarray of shape (n_features, n_features)
        $C^{-1}$ with $\\Sigma = CC^\\top$.
    whitened_means : ndarray of shape (n_classes, n_features)
        $C^{-1}(\\mu_k - s)$.
    projected_means : ndarray of shape (n_classes, n_features)
        $a_k = \\Lambda(\\mu_k - s)$.
    mean_forms : ndarray of shape (n_classes,)
        $(\\mu_k - s)^\\top a_k$.
    half_log_det : float
        $\\tfrac12 \\log\\det\\Sigma$.
    """

    shift: np.ndarray
    means: np.ndarray
    precision: np.ndarray
    inverse_cholesky: np.ndarray
    whitened_means: np.ndarray
    projected_means: np.ndarray
    mean_forms: np.ndarray
    half_log_det: float


def shared_precision(means: np.ndarray, covariance: np.ndarray) -> SharedPrecision:
    """`SharedPrecision` of class ``means`` (K, d) and one ``covariance`` (d, d), float64."""
    means = np.asarray(means, dtype=np.float64)
    lower = np.linalg.cholesky(np.asarray(covariance, dtype=np.float64))
    inverse_cholesky = np.linalg.solve(lower, np.eye(lower.shape[0]))
    precision = inverse_cholesky.T @ inverse_cholesky
    shift = means.mean(axis=0)
    centred = means - shift
    projected = centred @ precision
    return SharedPrecision(
        shift=shift,
        means=centred,
        precision=precision,
        inverse_cholesky=inverse_cholesky,
        whitened_means=centred @ inverse_cholesky.T,
        projected_means=projected,
        mean_forms=np.einsum("kd,kd->k", centred, projected),
        half_log_det=float(np.sum(np.log(np.diagonal(lower)))),
    )


def block_products(shared: SharedPrecision, block: np.ndarray):
    """``(filled, projected)`` of a block of rows: $\\tilde x$ and $\\Lambda \\tilde x$, both
    (rows, d), one matrix product for the whole block."""
    filled = np.subtract(block, shared.shift, dtype=np.float64)
    np.copyto(filled, 0.0, where=np.isnan(filled))
    return filled, filled @ shared.precision


def chunk_solves(shared: SharedPrecision, projected: np.ndarray, index: np.ndarray):
    """``(L, h, e)`` of a chunk whose rows miss the columns ``index`` (rows x m).

    ``projected`` (rows, d) is the chunk's rows of `block_products`' product. Stack
    last (`small_blocks`): shapes (m, m, rows), (m, rows), (n_classes, m, rows).
    """
    return stack_solves(shared, index.T, np.take_along_axis(projected, index, axis=1).T)


def stack_solves(shared: SharedPrecision, missing: np.ndarray, projected: np.ndarray):
    """`chunk_solves` from the rows' missing columns ``missing`` (m, rows) and their
    $g$ ``projected`` (m, rows)."""
    n_features, m = shared.precision.shape[0], missing.shape[0]
    # The blocks A, then g, then the a_{k,m}, as one stack `small_blocks.factor` solves.
    work = np.empty((m + 1 + shared.means.shape[0], m, missing.shape[1]))
    rows_of_precision = missing * n_features
    for i in range(m):  # the lower triangle of A, all `small_blocks.factor` reads
        cells = rows_of_precision[i] + missing[: i + 1]
        np.take(shared.precision, cells, out=work[i, : i + 1], mode="clip")  # in range
    work[m] = projected
    np.take(shared.projected_means, missing, axis=1, out=work[m + 1 :], mode="clip")
    small_blocks.factor(work, m)
    return work[:m], work[m], work[m + 1 :]


def row_pass(shared: SharedPrecision, X: np.ndarray, *, row_terms: bool):
    """``(scores, projected, gaps)`` of the rows of ``X`` (NaN where missing): one
    product with $\\Lambda$ (and with $C^{-1}$ for ``row_terms``) per block of rows
    (`gap_layout`).

    ``scores`` (n_classes, n_samples) are the rows' terms as if their missing entries were
    the shift: with ``row_terms`` $\\|C^{-1}(\\tilde x - \\mu_k)\\|^2$, else
    $a_k^\\top \\tilde x - \\tfrac12 (\\mu_k - s)^\\top a_k$ (module docstring);
    ``projected`` (n_missing,) is $g = (\\Lambda \\tilde x)_m$ at the missing entries, in
    the order of ``gaps`` (`gap_layout.Gaps`).
    """
    n_samples, n_features = X.shape
    blocks, size = gap_layout.block_starts(n_samples, 2 * n_features)
    parallel = n_samples >= gap_layout.PARALLEL_ROWS
    gaps = gap_layout.counted_gaps(X, blocks, size, in_threads=parallel)
    scores = np.empty((shared.means.shape[0], n_samples))
    projected_at_gaps = np.empty(gaps.columns.size)

    def block_pass(start: int) -> None:  # writes only its own rows and entries
        rows = slice(start, start + size)
        filled, at = gap_layout.filled_block(X, start, size, shared.shift, gaps)
        projected = filled @ shared.precision
        if row_terms:
            whitened = filled @ shared.inverse_cholesky.T
            for k, mean in enumerate(shared.whitened_means):
                scores[k, rows] = np.sum(np.square(whitened - mean), axis=1)
        else:
            scores[:, rows] = shared.projected_means @ filled.T
            scores[:, rows] -= 0.5 * shared.mean_forms[:, None]
        stop = min(start + size, n_samples)
        projected_at_gaps[gaps.starts[start] : gaps.starts[stop]] = projected.ravel()[at]

    run_pieces(block_pass, blocks, in_threads=parallel)
    return scores, projected_at_gaps, gaps


def forms(shared: SharedPrecision, X: np.ndarray, *, row_terms: bool = True):
    """``(scores, half_log_det, counts)`` of the rows of ``X`` (NaN where missing).

    With ``row_terms``, ``scores`` (n_classes, n_samples) is $(x_o - \\mu_{k,o})^\\top
    \\Sigma_{oo}^{-1} (x_o - \\mu_{k,o})$ and ``half_log_det`` (n_samples,) is
    $\\tfrac12 \\log\\det\\Sigma_{oo}$; without, ``scores`` is all of
    $\\log \\mathcal N(x_o \\mid \\mu_{k,o}, \\Sigma_{oo})$ that depends on the class
    (module docstring) and ``half_log_det`` is None. ``counts``: missing entries per row.
    Rows with every entry missing are left as the first pass scored them.
    """
    n_classes, n_features = shared.means.shape
    scores, projected, gaps = row_pass(shared, X, row_terms=row_terms)
    half_log_det = np.full(X.shape[0], shared.half_log_det) if row_terms else None

    def solve_stack(stack) -> None:  # writes only its own rows
        m, rows = stack
        at = gap_layout.entries(gaps, rows, m)
        lower, h, e = stack_solves(shared, np.take(gaps.columns, at), np.take(projected, at))
        # Sums over the middle axis as einsum's products: a reduction along it is
        # strided, about ten times slower here.
        if row_terms:
            gap = h - e
            scores[:, rows] -= np.einsum("kmr,kmr->kr", gap, gap)
            half_log_det[rows] += small_blocks.half_log_det(lower)
        else:
            by_class = np.einsum("kmr,kmr->kr", e, e)
            by_class *= 0.5
            by_class -= np.einsum("kmr,mr->kr", e, h)
            scores[:, rows] += by_class

    stacks = gap_layout.stacks(gaps.counts, n_features, lambda m: m * (m + 1 + n_classes))
    run_pieces(solve_stack, stacks, in_threads=X.shape[0] >= gap_layout.PARALLEL_ROWS)
    return scores, half_log_det, gaps.counts


def log_likelihood(shared: SharedPrecision, X: np.ndarray, *, row_terms: bool) -> np.ndarray:
    """$\\log \\mathcal N(x_o \\mid \\mu_{k,o}, \\Sigma_{oo})$ of every row, (n_classes,
    n_samples), from `forms`; without ``row_terms`` up to a term the same for every class
    of a row. A row with every entry missing gets 0 (log 1).
    """
    scores, half_log_det, counts = forms(shared, X, row_terms=row_terms)
    n_features = X.shape[1]
    if row_terms:
        n_observed = n_features - counts
        scores = -0.5 * scores - half_log_det - 0.5 * n_observed * math.log(2.0 * math.pi)
    scores[:, counts == n_features] = 0.0
    return scores


def chunk_conditional_means(shared: SharedPrecision, projected, index, class_weights):
    """$\\sum_k w_k \\mathbb E[x_m \\mid x_o, k]$ of a chunk (rows, m), from its rows
    ``projected`` (rows, d) of `block_products`' product and ``class_weights`` (rows, n_classes)."""
    lower, h, e = chunk_solves(shared, projected, index)
    # The solve is linear: one serves the whole mixture.
    total = np.sum(class_weights, axis=1)
    gap = np.einsum("rk,kmr->mr", class_weights, e) - total * h
    shift = np.take(shared.shift, index)
    return small_blocks.backward_substitution(lower, gap).T + total[:, None] * shift
