r"""Stacks of small symmetric positive definite blocks: the blocks of rows' missing entries.

Each row with $m$ missing entries brings an $m \times m$ block (a few to a few dozen
entries on a side), and a batch holds thousands of them. LAPACK pays a call per block, and
a loop over a block's entries vectorised over a stack-first array reads it with strides.
Here the stack is the *last* axis: a stack of blocks is an array ``(m, m, n)``, a stack of
vectors ``(m, n)``, and every step of a factorisation or a solve is one operation on
contiguous length-``n`` rows, several times faster for such small blocks.
"""

from __future__ import annotations

import numpy as np


def cholesky_solve(blocks: np.ndarray, right: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Cholesky factors $L$ of a stack of blocks, and $L^{-1} r$ of right-hand sides.

    Parameters
    ----------
    blocks : ndarray of shape (m, m, n)
        Symmetric positive definite; only the lower triangle is read.
    right : ndarray of shape (n_right, m, n)

    Returns
    -------
    lower : ndarray of shape (m, m, n)
        The lower triangle holds $L$ (the upper one is left as it was).
    solved : ndarray of shape (n_right, m, n)
        $L^{-1} r$ for every right-hand side $r$.
    """
    m = blocks.shape[0]
    work = np.concatenate([blocks, right], axis=0).astype(np.float64, copy=False)
    factor(work, m)
    return work[:m], work[m:]


def factor(work: np.ndarray, m: int) -> None:
    """`cholesky_solve` in place on ``work`` (m + n_right, m, n): the blocks, then the
    right-hand sides, each a row under its block.

    A row $r^\\top$ under a block $A$ factors into $(L^{-1} r)^\\top$, so the solves ride
    along with the factorisation and cost no pass of their own.
    """
    for j in range(m):
        pivot = np.sqrt(work[j, j])
        work[j, j] = pivot
        work[j + 1 :, j] /= pivot
        for i in range(j + 1, m):  # the block's trailing lower triangle, row by row
            work[i, j + 1 : i + 1] -= work[i, j] * work[j + 1 : i + 1, j]
        if j + 1 < m:  # the right-hand sides' rows, at once
            work[m:, j + 1 :] -= work[m:, j, None] * work[None, j + 1 : m, j]


def backward_substitution(lower: np.ndarray, right: np.ndarray) -> np.ndarray:
    """$L^{-\\top} r$ for a stack of factors ``lower`` (m, m, n) and ``right`` (..., m, n)."""
    solution = np.empty(np.broadcast_shapes(lower.shape[1:], right.shape))
    m = lower.shape[0]
    for i in reversed(range(m)):
        done = np.einsum("jn,...jn->...n", lower[i + 1 :, i], solution[..., i + 1 :, :])
        solution[..., i, :] = (right[..., i, :] - done) / lower[i, i]
    return solution


def forward_substitution(lower: np.ndarray, right: np.ndarray) -> np.ndarray:
    """$L^{-1} r$ for a stack of factors ``lower`` (m, m, n) and ``right`` (..., m, n)."""
    solution = np.empty(np.broadcast_shapes(lower.shape[1:], right.shape))
    for i in range(lower.shape[0]):
        done = np.einsum("jn,...jn->...n", lower[i, :i], solution[..., :i, :])
        solution[..., i, :] = (right[..., i, :] - done) / lower[i, i]
    return solution


def inverse(lower: np.ndarray) -> np.ndarray:
    """$A^{-1} = L^{-\\top} L^{-1}$ (m, m, n) from the factors ``lower`` (m, m, n) of $A$."""
    m, n = lower.shape[0], lower.shape[-1]
    identity = np.broadcast_to(np.eye(m)[:, :, None], (m, m, n))
    # Right-hand side e_i solves to row i of L^-T: (L^-1 e_i)_j = (L^-1)_ji.
    rows = forward_substitution(lower, identity)
    return np.einsum("ijn,kjn->ikn", rows, rows)


def half_log_det(lower: np.ndarray) -> np.ndarray:
    """$\\tfrac12 \\log\\det A$ (n,) from the factors ``lower`` (m, m, n) of $A$."""
    return np.sum(np.log(np.diagonal(lower, axis1=0, axis2=1)), axis=-1)
