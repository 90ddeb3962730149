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

from bayesgen.families.gaussian import small_blocks


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
    n_features, m = projected.shape[1], index.shape[1]
    missing = index.T
    # The blocks A, then g, then the a_{k,m}, as one stack `small_blocks.factor` solves.
    work = np.empty((m + 1 + shared.means.shape[0], m, index.shape[0]))
    rows_of_precision = missing * n_features
    for i in range(m):  # the lower triangle of A, all `small_blocks.factor` reads
        cells = rows_of_precision[i] + missing[: i + 1]
        np.take(shared.precision, cells, out=work[i, : i + 1], mode="clip")  # in range
    work[m] = np.take_along_axis(projected, index, axis=1).T
    np.take(shared.projected_means, missing, axis=1, out=work[m + 1 :], mode="clip")
    small_blocks.factor(work, m)
    return work[:m], work[m], work[m + 1 :]


def block_forms(shared: SharedPrecision, block: np.ndarray, chunks):
    """``(squared, half_log_det)`` of a block of rows, from its ``chunks`` (`row_chunks`
    of the block, complete rows included).

    ``squared`` (n_classes, rows) is $(x_o - \\mu_{k,o})^\\top \\Sigma_{oo}^{-1}
    (x_o - \\mu_{k,o})$ and ``half_log_det`` (rows,) is $\\tfrac12 \\log\\det\\Sigma_{oo}$.
    """
    filled, projected = block_products(shared, block)
    whitened = filled @ shared.inverse_cholesky.T
    squared = np.stack(
        [np.sum(np.square(whitened - mean), axis=1) for mean in shared.whitened_means]
    )
    half_log_det = np.full(block.shape[0], shared.half_log_det)
    for rows, index in chunks:
        if index.shape[1]:
            lower, h, e = chunk_solves(shared, projected[rows], index)
            squared[:, rows] -= np.sum(np.square(h - e), axis=1)
            half_log_det[rows] += small_blocks.half_log_det(lower)
    return squared, half_log_det


def block_class_scores(shared: SharedPrecision, block: np.ndarray, chunks):
    """$\\log \\mathcal N(x_o \\mid \\mu_{k,o}, \\Sigma_{oo})$ of a block, (n_classes, rows),
    up to a term that is the same for every class of a row (module docstring)."""
    filled, projected = block_products(shared, block)
    scores = shared.projected_means @ filled.T - 0.5 * shared.mean_forms[:, None]
    for rows, index in chunks:
        if index.shape[1]:
            _, h, e = chunk_solves(shared, projected[rows], index)
            scores[:, rows] += np.einsum("kmr,kmr->kr", e, 0.5 * e - h)
    return scores


def block_log_likelihood(shared: SharedPrecision, block, chunks, *, row_terms: bool = True):
    """``(n_classes, rows)``: `block_forms` as a log density, or `block_class_scores`."""
    if not row_terms:
        return block_class_scores(shared, block, chunks)
    squared, half_log_det = block_forms(shared, block, chunks)
    n_observed = np.sum(~np.isnan(block), axis=1)
    return -0.5 * squared - half_log_det - 0.5 * n_observed * math.log(2.0 * math.pi)


def chunk_conditional_means(shared: SharedPrecision, projected, index, class_weights):
    """$\\sum_k w_k \\mathbb E[x_m \\mid x_o, k]$ of a chunk (rows, m), from its rows
    ``projected`` (rows, d) of `block_products`' product and ``class_weights`` (rows, n_classes)."""
    lower, h, e = chunk_solves(shared, projected, index)
    # The solve is linear: one serves the whole mixture.
    total = np.sum(class_weights, axis=1)
    gap = np.einsum("rk,kmr->mr", class_weights, e) - total * h
    shift = np.take(shared.shift, index)
    return small_blocks.backward_substitution(lower, gap).T + total[:, None] * shift
