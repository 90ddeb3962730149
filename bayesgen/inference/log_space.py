"""Normalising joint log-probabilities over the classes, without warnings for impossible rows.

The classes are few and the rows many, so the reductions over the class axis are written
column by column (NumPy reduces a short last axis several times slower, measured here).
"""

from __future__ import annotations

import numpy as np

from bayesgen._parallel import run_pieces


def row_max(joint: np.ndarray) -> np.ndarray:
    """Maximum over the last axis, kept as a length-1 axis."""
    if joint.ndim != 2:
        return np.max(joint, axis=-1, keepdims=True)
    return _accumulate_columns(np.maximum, joint)[:, None]


def _accumulate_columns(operation, joint: np.ndarray) -> np.ndarray:
    """``operation`` folded over the columns of ``joint`` into one new array, in place."""
    result = joint[:, 0].copy()
    for k in range(1, joint.shape[1]):
        operation(result, joint[:, k], out=result)
    return result


def log_evidence(joint: np.ndarray) -> np.ndarray:
    """``log sum_k exp(joint)`` along the last axis, kept as a length-1 axis.

    A row of ``-inf`` gives ``-inf``, without warnings.
    """
    largest = row_max(joint)
    shift = np.where(np.isfinite(largest), largest, 0.0)
    terms = joint - shift
    np.exp(terms, out=terms)
    total = terms @ np.ones(terms.shape[-1], dtype=terms.dtype)
    with np.errstate(divide="ignore"):
        return np.log(total)[..., None] + shift


def normalise(joint: np.ndarray, log_class_prior: np.ndarray) -> np.ndarray:
    """``log p(k | x)`` from ``log p(x, k)`` along the last axis.

    A row with probability zero under every class gets ``log_class_prior`` (broadcast).
    """
    evidence = log_evidence(joint)
    with np.errstate(invalid="ignore"):
        log_posterior = joint - evidence
    impossible = np.isneginf(evidence[..., 0])
    if impossible.any():
        log_posterior[impossible] = np.broadcast_to(log_class_prior, log_posterior.shape)[
            impossible
        ]
    return log_posterior


#: Rows per block of `probabilities` run side by side in threads.
PROBABILITY_BLOCK_ROWS = 65_536


def probabilities(joint: np.ndarray, log_class_prior: np.ndarray) -> tuple[np.ndarray, int]:
    """``p(k | x)`` from ``log p(x, k)`` of shape ``(n, K)``, overwriting ``joint``.

    The same log-sum-exp normalisation as `normalise` (the largest term is shifted to
    0 before exponentiating, so nothing overflows), without taking the logarithm and
    exponentiating again: what ``predict_proba`` needs, in one pass less. A row with
    probability zero under every class gets ``exp(log_class_prior)``; their number is
    returned too.

    Scores laid out class by class (``joint.T`` contiguous) are normalised in blocks of
    rows side by side in threads, with the same result: the exponentials dominate (far
    from the largest term, NumPy's ``exp`` underflows about seven times slower), and on
    LDA's 1,000,000 x 5 scores two threads took 0.031 s against 0.062 s (2 cores).
    """
    n_rows = joint.shape[0]
    by_class = joint.ndim == 2 and joint.T.flags.c_contiguous and np.ndim(log_class_prior) < 2
    if not by_class or n_rows < 2 * PROBABILITY_BLOCK_ROWS:
        return block_probabilities(joint, log_class_prior)
    blocks = range(0, n_rows, PROBABILITY_BLOCK_ROWS)
    impossible = run_pieces(
        lambda start: block_probabilities(
            joint[start : start + PROBABILITY_BLOCK_ROWS], log_class_prior
        )[1],
        blocks,
    )
    return joint, sum(impossible)


def block_probabilities(joint: np.ndarray, log_class_prior: np.ndarray) -> tuple[np.ndarray, int]:
    """`probabilities` of one block of rows, here (never in threads)."""
    largest = _accumulate_columns(np.maximum, joint)
    impossible = np.isneginf(largest)
    n_impossible = int(np.count_nonzero(impossible))
    if n_impossible:
        largest[impossible] = 0.0
    for k in range(joint.shape[1]):  # column by column: see the module docstring
        column = joint[:, k]
        np.subtract(column, largest, out=column)
        np.exp(column, out=column)
    total = _accumulate_columns(np.add, joint)
    if n_impossible:
        total[impossible] = 1.0  # their zeros are replaced below
    for k in range(joint.shape[1]):
        column = joint[:, k]
        np.divide(column, total, out=column)
    if n_impossible:
        joint[impossible] = np.broadcast_to(np.exp(log_class_prior), joint.shape)[impossible]
    return joint, n_impossible
