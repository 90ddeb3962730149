r"""What runs on the workers: one block of rows in, its statistics (and objective) out.

Every function takes the estimator (shipped once per graph), the block's arrays and the
index of its first row, and returns NumPy pytrees, so results travel between processes.
A block's result is a `BlockResult`; two results merge into the result of the
union of their rows (`merge_results`), with the family's own exact merge.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from sklearn.utils.validation import column_or_1d

from bayesgen import joint, training_range
from bayesgen._precision import precision
from bayesgen.dask import _family
from bayesgen.families.namespace import as_numpy
from bayesgen.inference.log_space import log_evidence, normalise
from bayesgen.inference.semi_supervised import unlabeled_rows
from bayesgen.validation import check_labels, check_weights


class BlockResult(NamedTuple):
    """What a block contributes.

    Attributes
    ----------
    objective : float
        The block's part of the EM objective (0 outside EM).
    stats : tuple of (ClassCounts, family statistics) pairs
        One pair per responsibilities matrix the pass fits from, as NumPy pytrees.
    ranges : ColumnRecord or None
        The block's column ranges and missing cells
        (`bayesgen.training_range.column_ranges`), from the first pass over the rows; None
        in the passes after it.
    """

    objective: float
    stats: tuple
    ranges: tuple | None = None


class Rows(NamedTuple):
    X: np.ndarray
    fixed: np.ndarray  # (n, K): one-hot times weight for labelled rows, 0 for unlabelled
    unlabeled: np.ndarray
    weights: np.ndarray


def _where(name: str, start: int, size: int) -> str:
    return (
        f"In rows {start} to {start + size - 1} of {name} (one block; row numbers below count "
        "from its first row): "
    )


def block_labels(y, start: int, marker=-1) -> tuple[np.ndarray, int]:
    """The distinct labels of a block of y, and its number of unlabelled rows."""
    y = column_or_1d(y)
    unlabeled = unlabeled_rows(y, marker)
    labels = y[~unlabeled]
    if labels.size:
        try:
            labels = np.unique(check_labels(labels))
        except ValueError as error:
            raise ValueError(_where("y", start, y.shape[0]) + str(error)) from error
    return labels, int(unlabeled.sum())


def _rows(estimator, X, y, weights, classes, start) -> Rows:
    """Validate a block as ``fit`` validates all rows, and build its labelled part of R."""
    try:
        X = estimator._check_X(X, reset=True)
        _family.check_block(estimator, X)
        weights = check_weights(weights, X)
    except ValueError as error:
        raise ValueError(_where("X", start, X.shape[0]) + str(error)) from error
    y = column_or_1d(y)
    unlabeled = unlabeled_rows(y, estimator.unlabeled_marker)
    labelled = np.flatnonzero(~unlabeled)
    labels = y[labelled]
    index = np.minimum(np.searchsorted(classes, labels), classes.shape[0] - 1)
    unknown = labels[classes[index] != labels]
    if unknown.size:
        raise ValueError(
            _where("y", start, y.shape[0]) + f"y contains labels {np.unique(unknown).tolist()} "
            f"that are not in classes {classes.tolist()}."
        )
    fixed = np.zeros((X.shape[0], classes.shape[0]), dtype=np.float64)
    fixed[labelled, index] = weights[labelled]
    return Rows(X, fixed, unlabeled, weights)


def _stats(estimator, X, responsibilities, dtype):
    R = responsibilities.astype(dtype, copy=False)
    return as_numpy(joint.batch_stats(estimator._feature_family(), X, R))


def labelled_stats(estimator, X, y, weights, start, dtype, classes) -> BlockResult:
    """The statistics of a block of labelled rows (R one-hot times the sample weight)."""
    estimator = _family.worker_copy(estimator)
    rows = _rows(estimator, X, y, weights, classes, start)
    stats = (_stats(estimator, rows.X, rows.fixed, dtype),)
    return BlockResult(0.0, stats, training_range.column_ranges(rows.X, rows.weights))


def em_start(
    estimator, X, y, weights, start, dtype, classes, unlabeled_weight, spread, random=None
) -> BlockResult:
    """The statistics EM starts from.

    The first pair is from the labelled rows plus, when ``random`` is given (an
    (n_unlabelled, n_classes) block of Dirichlet draws), unlabelled rows with those class
    probabilities. With ``spread``, a second pair from R with EM's row totals (each
    unlabelled row's weight spread evenly over the classes), to resolve a prior from.
    """
    estimator = _family.worker_copy(estimator)
    rows = _rows(estimator, X, y, weights, classes, start)
    unlabelled_weights = unlabeled_weight * rows.weights[rows.unlabeled]
    initial = rows.fixed
    if random is not None:
        initial = rows.fixed.copy()
        initial[rows.unlabeled] = random * unlabelled_weights[:, None]
    stats = [_stats(estimator, rows.X, initial, dtype)]
    if spread:
        spread_rows = rows.fixed.copy()
        spread_rows[rows.unlabeled] += unlabelled_weights[:, None] / classes.shape[0]
        stats.append(_stats(estimator, rows.X, spread_rows, dtype))
    return BlockResult(0.0, tuple(stats), training_range.column_ranges(rows.X, rows.weights))


def em_step(
    estimator, X, y, weights, start, dtype, classes, unlabeled_weight, value
) -> BlockResult:
    """E-step under the fitted ``value``, then the statistics of the M-step.

    The objective part is that of the current parameters, without the log prior (which
    the driver adds once): $\\sum_{\\text{labelled}} w_i \\log p(x_i, y_i) +
    \\lambda \\sum_{\\text{unlabelled}} w_i \\log p(x_i)$ over the block, as
    `bayesgen.inference.semi_supervised.e_step` computes it.
    """
    estimator = _family.worker_copy(estimator)
    rows = _rows(estimator, X, y, weights, classes, start)
    unlabelled_weights = unlabeled_weight * rows.weights[rows.unlabeled]
    family = joint.family_of(estimator._base_family(), value)
    with precision(dtype):
        log_likelihood = np.asarray(joint.log_likelihood(family, value.params, rows.X, dtype))
    with np.errstate(divide="ignore"):
        log_prior = np.log(value.class_probabilities).astype(log_likelihood.dtype)
    log_joint = log_likelihood + log_prior
    log_posterior = normalise(log_joint, log_prior)
    with np.errstate(invalid="ignore"):
        labelled_term = np.sum(np.where(rows.fixed > 0, rows.fixed * log_joint, 0.0))
    evidence = log_evidence(log_joint[rows.unlabeled])[:, 0]
    objective = float(labelled_term + np.sum(unlabelled_weights * evidence))
    responsibilities = rows.fixed.copy()
    responsibilities[rows.unlabeled] = (
        np.exp(log_posterior[rows.unlabeled]) * unlabelled_weights[:, None]
    )
    return BlockResult(objective, (_stats(estimator, rows.X, responsibilities, dtype),))


def merge_results(estimator, a: BlockResult, b: BlockResult, dtype) -> BlockResult:
    """The result of the union of two disjoint sets of rows (objectives add)."""
    family = estimator._feature_family()
    merged = tuple(
        joint.merge_batch_stats(family, as_numpy(left, dtype), as_numpy(right, dtype))
        for left, right in zip(a.stats, b.stats, strict=True)
    )
    ranges = None if a.ranges is None else training_range.merged(a.ranges, b.ranges)
    return BlockResult(a.objective + b.objective, merged, ranges)
