"""Normalising joint log-probabilities over the classes, without warnings for impossible rows.

The classes are few and the rows many, so the reductions over the class axis are written
column by column (NumPy reduces a short last axis several times slower, measured here).
"""

from __future__ import annotations

from functools import reduce

import numpy as np


def row_max(joint: np.ndarray) -> np.ndarray:
    """Maximum over the last axis, kept as a length-1 axis."""
    if joint.ndim != 2:
        return np.max(joint, axis=-1, keepdims=True)
    return reduce(np.maximum, (joint[:, k] for k in range(joint.shape[1])))[:, None]


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


def probabilities(joint: np.ndarray, log_class_prior: np.ndarray) -> np.ndarray:
    """``p(k | x)`` from ``log p(x, k)`` along the last axis, overwriting ``joint``.

    The same log-sum-exp normalisation as :func:`normalise` (the largest term is shifted to
    0 before exponentiating, so nothing overflows), without taking the logarithm and
    exponentiating again: what ``predict_proba`` needs, in one pass less. A row with
    probability zero under every class gets ``exp(log_class_prior)``.
    """
    if joint.ndim != 2:
        return np.exp(normalise(joint, log_class_prior))
    largest = row_max(joint)[:, 0]
    impossible = np.isneginf(largest)
    if impossible.any():
        largest[impossible] = 0.0
    for k in range(joint.shape[1]):  # column by column: see the module docstring
        column = joint[:, k]
        np.subtract(column, largest, out=column)
        np.exp(column, out=column)
    total = reduce(np.add, (joint[:, k] for k in range(joint.shape[1])))
    total[impossible] = 1.0  # their zeros are replaced below
    for k in range(joint.shape[1]):
        column = joint[:, k]
        np.divide(column, total, out=column)
    if impossible.any():
        joint[impossible] = np.broadcast_to(np.exp(log_class_prior), joint.shape)[impossible]
    return joint
