r"""Calibration of class probabilities: reliability bins and the expected calibration error.

Both look at the *top label* only: a row's confidence is its largest class probability
$c_i = \max_k p_{ik}$, and it is correct when that class is its true label. The
interval $[0, 1]$ is cut into ``n_bins`` equal-width bins, closed on the right
($(e_{b-1}, e_b]$, the first one also holding 0, as ``sklearn.calibration.calibration_curve``
with ``strategy="uniform"``). For bin $B_b$ with $n_b$ rows,

$$
\mathrm{ECE} = \sum_b \frac{n_b}{n}\,\Big|\,\mathrm{acc}(B_b) - \mathrm{conf}(B_b)\Big|,
$$

with $\mathrm{acc}$ the fraction of correct rows and $\mathrm{conf}$ their mean
confidence (Guo et al., 2017). A calibrated classifier has every point of the reliability
diagram, $(\mathrm{conf}(B_b), \mathrm{acc}(B_b))$, on the diagonal.
"""

from __future__ import annotations

import numbers
from typing import NamedTuple

import numpy as np

_SUM_TOLERANCE = 1e-4  # rows of float32 probabilities sum to one only up to rounding


class CalibrationBins(NamedTuple):
    """Top-label reliability statistics per equal-width confidence bin.

    Attributes
    ----------
    edges : ndarray of shape (n_bins + 1,)
        Bin edges, ``linspace(0, 1, n_bins + 1)``.
    counts : ndarray of shape (n_bins,)
        Rows whose confidence falls in each bin.
    confidence : ndarray of shape (n_bins,)
        Mean confidence of the rows in each bin; NaN for an empty bin.
    accuracy : ndarray of shape (n_bins,)
        Fraction of those rows whose most probable class is the true label; NaN when empty.
    """

    edges: np.ndarray
    counts: np.ndarray
    confidence: np.ndarray
    accuracy: np.ndarray


def _check_n_bins(n_bins) -> int:
    if isinstance(n_bins, bool) or not isinstance(n_bins, numbers.Integral) or n_bins < 1:
        raise ValueError(f"n_bins must be an integer >= 1; got {n_bins!r}.")
    return int(n_bins)


def _check_proba(proba) -> np.ndarray:
    proba = np.asarray(proba, dtype=float)
    if proba.ndim != 2 or proba.shape[0] == 0 or proba.shape[1] < 2:
        raise ValueError(
            "proba must be a 2-D array of shape (n_samples, n_classes) with at least one row "
            f"and two classes; got shape {proba.shape}."
        )
    if not np.all(np.isfinite(proba)) or proba.min() < 0 or proba.max() > 1:
        raise ValueError("proba must hold finite probabilities in [0, 1].")
    worst = np.max(np.abs(proba.sum(axis=1) - 1))
    if worst > _SUM_TOLERANCE:
        raise ValueError(
            f"Every row of proba must sum to one; the worst row is off by {worst:.3g}."
        )
    return proba


def calibration_bins(y_true, proba, *, classes=None, n_bins: int = 10) -> CalibrationBins:
    """Top-label confidence and accuracy in equal-width bins (the reliability diagram).

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True labels.
    proba : array-like of shape (n_samples, n_classes)
        Predicted class probabilities, e.g. ``model.predict_proba(X)``; rows sum to one.
    classes : array-like of shape (n_classes,), optional
        The label of each column of ``proba`` (``model.classes_``); default
        ``0, 1, ..., n_classes - 1``.
    n_bins : int, default=10
        Number of equal-width bins on [0, 1].

    Returns
    -------
    CalibrationBins
        ``edges``, ``counts``, ``confidence`` and ``accuracy`` per bin.

    Raises
    ------
    ValueError
        If ``proba`` is not a 2-D array of probabilities whose rows sum to one, ``y_true``
        and ``proba`` have different numbers of rows, ``classes`` does not match the
        columns, a label of ``y_true`` is not in ``classes``, or ``n_bins`` < 1.
    """
    n_bins = _check_n_bins(n_bins)
    proba = _check_proba(proba)
    y_true = np.asarray(y_true)
    if y_true.ndim != 1 or y_true.shape[0] != proba.shape[0]:
        raise ValueError(
            f"y_true must be 1-D with one label per row of proba ({proba.shape[0]}); got "
            f"shape {y_true.shape}."
        )
    classes = np.arange(proba.shape[1]) if classes is None else np.asarray(classes)
    if classes.shape != (proba.shape[1],):
        raise ValueError(
            f"classes must hold one label per column of proba ({proba.shape[1]}); got shape "
            f"{classes.shape}."
        )
    unknown = np.setdiff1d(y_true, classes)
    if unknown.size:
        raise ValueError(
            f"y_true has labels {unknown.tolist()} that are not in classes {classes.tolist()}."
        )
    confidence = proba.max(axis=1)
    correct = classes[np.argmax(proba, axis=1)] == y_true
    edges = np.linspace(0.0, 1.0, n_bins + 1)
    bin_of_row = np.searchsorted(edges[1:-1], confidence)  # right-closed bins
    counts = np.bincount(bin_of_row, minlength=n_bins)
    with np.errstate(invalid="ignore", divide="ignore"):  # empty bins become NaN
        mean_confidence = np.bincount(bin_of_row, confidence, n_bins) / counts
        accuracy = np.bincount(bin_of_row, correct.astype(float), n_bins) / counts
    return CalibrationBins(edges, counts, mean_confidence, accuracy)


def expected_calibration_error(y_true, proba, *, classes=None, n_bins: int = 10) -> float:
    """Top-label expected calibration error with equal-width bins.

    The gap between accuracy and mean confidence in each bin, averaged with the bins'
    shares of the rows as weights (see the module docstring). 0 for a calibrated
    classifier (up to sampling error), at most 1.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True labels.
    proba : array-like of shape (n_samples, n_classes)
        Predicted class probabilities; rows sum to one.
    classes : array-like of shape (n_classes,), optional
        The label of each column of ``proba``; default ``0, ..., n_classes - 1``.
    n_bins : int, default=10
        Number of equal-width bins on [0, 1].

    Returns
    -------
    float

    Raises
    ------
    ValueError
        As [`calibration_bins`][bayesgen.metrics.calibration_bins].

    Examples
    --------
    >>> import numpy as np
    >>> from bayesgen.metrics import expected_calibration_error
    >>> proba = np.array([[0.9, 0.1], [0.7, 0.3], [0.3, 0.7]])
    >>> round(expected_calibration_error([0, 1, 1], proba, n_bins=5), 4)
    0.1667
    """
    bins = calibration_bins(y_true, proba, classes=classes, n_bins=n_bins)
    filled = bins.counts > 0
    gaps = np.abs(bins.accuracy[filled] - bins.confidence[filled])
    return float(np.sum(bins.counts[filled] * gaps) / np.sum(bins.counts))
