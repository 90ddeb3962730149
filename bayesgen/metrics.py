r"""Calibration and selective classification: reliability bins, calibration error, risk–coverage.

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

The **risk–coverage curve** (El-Yaniv & Wiener 2010; Geifman & El-Yaniv 2017) describes a
classifier that may abstain: accepting the rows whose confidence is at least $t$,

$$
\mathrm{coverage}(t) = \frac{\#\{i : c_i \ge t\}}{n}, \qquad
\mathrm{risk}(t) = \frac{\#\{i : c_i \ge t,\ \hat y_i \ne y_i\}}{\#\{i : c_i \ge t\}},
$$

for every distinct confidence $t$. Chow's rule ``predict(X, reject=r)`` accepts exactly the
rows with $c_i \ge 1 - r$, so the point at $t$ is that rule with $r = 1 - t$.
"""

from __future__ import annotations

import numbers
from typing import NamedTuple

import numpy as np

from bayesgen.validation import check_count, unknown_labels

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


class RiskCoverage(NamedTuple):
    """Coverage and error rate on the accepted rows, per confidence threshold.

    Attributes
    ----------
    thresholds : ndarray of shape (n_thresholds,)
        The distinct top-label confidences, decreasing; a row is accepted at threshold
        ``t`` when its confidence is at least ``t``.
    coverage : ndarray of shape (n_thresholds,)
        Fraction of all rows accepted at each threshold, increasing to 1.
    risk : ndarray of shape (n_thresholds,)
        Fraction of the accepted rows whose most probable class is not the true label.
    """

    thresholds: np.ndarray
    coverage: np.ndarray
    risk: np.ndarray


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


def _top_label(y_true, proba: np.ndarray, classes) -> tuple[np.ndarray, np.ndarray]:
    """Each row's top-label confidence, and whether its most probable class is ``y_true``."""
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
    unknown = unknown_labels(y_true, classes)
    if unknown:
        raise ValueError(f"y_true has labels {unknown} that are not in classes {classes.tolist()}.")
    return proba.max(axis=1), classes[np.argmax(proba, axis=1)] == y_true


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
    n_bins = check_count(n_bins, "n_bins")
    proba = _check_proba(proba)
    confidence, correct = _top_label(y_true, proba, classes)
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


def _check_coverage(coverage) -> float:
    is_real = isinstance(coverage, numbers.Real) and not isinstance(coverage, bool)
    if not is_real or not 0 < coverage <= 1:
        raise ValueError(f"coverage must be a number in (0, 1]; got {coverage!r}.")
    return float(coverage)


def risk_coverage_curve(y_true, proba, *, classes=None) -> RiskCoverage:
    """Coverage and error rate on the accepted rows as the confidence threshold falls.

    Rows are accepted when their top-label confidence $\\max_k p_{ik}$ is at least the
    threshold, and each accepted row is predicted as its most probable class; one point
    per distinct confidence (see the module docstring). Tied confidences are accepted or
    rejected together. The point at threshold ``t`` is Chow's rule
    ``predict(X, reject=1 - t)``.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True labels.
    proba : array-like of shape (n_samples, n_classes)
        Predicted class probabilities, e.g. ``model.predict_proba(X)``; rows sum to one.
    classes : array-like of shape (n_classes,), optional
        The label of each column of ``proba`` (``model.classes_``); default
        ``0, 1, ..., n_classes - 1``.

    Returns
    -------
    RiskCoverage
        ``thresholds`` (decreasing), ``coverage`` (increasing, ending at 1) and ``risk``.

    Raises
    ------
    ValueError
        As [`calibration_bins`][bayesgen.metrics.calibration_bins], for ``proba``,
        ``y_true`` and ``classes``.

    Examples
    --------
    >>> import numpy as np
    >>> from bayesgen.metrics import risk_coverage_curve
    >>> proba = np.array([[0.9, 0.1], [0.3, 0.7], [0.6, 0.4], [0.55, 0.45]])
    >>> curve = risk_coverage_curve([0, 1, 1, 0], proba)
    >>> curve.coverage.tolist(), curve.risk.round(3).tolist()
    ([0.25, 0.5, 0.75, 1.0], [0.0, 0.0, 0.333, 0.25])
    """
    proba = _check_proba(proba)
    confidence, correct = _top_label(y_true, proba, classes)
    order = np.argsort(-confidence, kind="stable")
    confidence, errors = confidence[order], np.cumsum(~correct[order])
    # The last row of each run of tied confidences closes that threshold's accepted set.
    last = np.flatnonzero(np.r_[confidence[1:] != confidence[:-1], True])
    accepted = last + 1
    return RiskCoverage(confidence[last], accepted / confidence.shape[0], errors[last] / accepted)


def accuracy_at_coverage(y_true, proba, *, coverage: float = 0.9, classes=None) -> float:
    """Accuracy on the most confident rows when at least ``coverage`` of them are accepted.

    The threshold is the highest confidence at which at least a fraction ``coverage`` of
    the rows is accepted (a point of
    [`risk_coverage_curve`][bayesgen.metrics.risk_coverage_curve]); the result is
    ``1 - risk`` there. With tied confidences the accepted fraction can exceed
    ``coverage``: ties are never split. ``coverage=1`` is the plain accuracy.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True labels.
    proba : array-like of shape (n_samples, n_classes)
        Predicted class probabilities; rows sum to one.
    coverage : float, default=0.9
        The fraction of rows to accept, in (0, 1].
    classes : array-like of shape (n_classes,), optional
        The label of each column of ``proba``; default ``0, ..., n_classes - 1``.

    Returns
    -------
    float

    Raises
    ------
    ValueError
        As [`risk_coverage_curve`][bayesgen.metrics.risk_coverage_curve], or for
        ``coverage`` outside (0, 1].

    Examples
    --------
    >>> import numpy as np
    >>> from bayesgen.metrics import accuracy_at_coverage
    >>> proba = np.array([[0.9, 0.1], [0.3, 0.7], [0.6, 0.4], [0.55, 0.45]])
    >>> accuracy_at_coverage([0, 1, 1, 0], proba, coverage=0.5)
    1.0
    """
    coverage = _check_coverage(coverage)
    curve = risk_coverage_curve(y_true, proba, classes=classes)
    # A small tolerance: coverage=0.9 of 10 rows is reached by 9/10 despite rounding.
    point = np.searchsorted(curve.coverage, coverage - 1e-12)
    return float(1.0 - curve.risk[point])
