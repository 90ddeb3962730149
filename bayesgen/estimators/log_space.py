"""Normalising joint log-probabilities over the classes, without warnings for impossible rows."""

from __future__ import annotations

import numpy as np


def log_evidence(joint: np.ndarray) -> np.ndarray:
    """``log sum_k exp(joint)`` along the last axis, kept as a length-1 axis.

    A row of ``-inf`` gives ``-inf``, without warnings.
    """
    largest = np.max(joint, axis=-1, keepdims=True)
    shift = np.where(np.isfinite(largest), largest, 0.0)
    with np.errstate(divide="ignore"):
        return np.log(np.sum(np.exp(joint - shift), axis=-1, keepdims=True)) + shift


def normalise(joint: np.ndarray, log_class_prior: np.ndarray) -> np.ndarray:
    """``log p(k | x)`` from ``log p(x, k)`` along the last axis.

    A row with probability zero under every class gets ``log_class_prior`` (broadcast).
    """
    evidence = log_evidence(joint)
    with np.errstate(invalid="ignore"):
        log_posterior = joint - evidence
    return np.where(np.isneginf(evidence), log_class_prior, log_posterior)
