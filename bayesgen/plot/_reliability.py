"""The reliability diagram: top-label confidence against accuracy, per way of predicting."""

from __future__ import annotations

import numpy as np

from bayesgen.metrics import calibration_bins, expected_calibration_error
from bayesgen.plot._common import check_fitted, class_positions, model_rows, new_axes

METHODS = ("plugin", "predictive")
_MARKERS = {"plugin": "o", "predictive": "s"}
_NAMES = {"plugin": "plug-in", "predictive": "predictive"}


def _check_methods(methods) -> tuple[str, ...]:
    methods = (methods,) if isinstance(methods, str) else tuple(methods)
    unknown = [m for m in methods if m not in METHODS]
    if not methods or unknown:
        raise ValueError(f"methods must be a non-empty selection of {METHODS}; got {methods!r}.")
    return methods


STRATEGIES = ("uniform", "quantile")


def _quantile_bins(correct, confidence, n_bins: int):
    """Bins holding about equally many rows: (mean confidence, accuracy, count) per bin.

    Edges are quantiles of the confidences; ties (many rows at one confidence) merge bins,
    so every bin has rows.
    """
    edges = np.unique(np.quantile(confidence, np.linspace(0, 1, n_bins + 1)))
    which = np.clip(np.searchsorted(edges, confidence, side="right") - 1, 0, len(edges) - 2)
    if len(edges) == 1:
        which = np.zeros(len(confidence), dtype=int)
    counts = np.bincount(which, minlength=max(len(edges) - 1, 1))
    filled = counts > 0
    mean_confidence = np.bincount(which, weights=confidence, minlength=counts.size)[filled]
    accuracy = np.bincount(which, weights=correct, minlength=counts.size)[filled]
    counts = counts[filled]
    return mean_confidence / counts, accuracy / counts, counts


def _write_counts(ax, confidence, accuracy, counts, method: str, color) -> None:
    """Each bin's row count beside its point; bins drawn on one spot share one label, the
    number of rows they hold together."""
    groups: list[list[int]] = []
    for i in range(len(counts)):
        near = groups and (
            abs(confidence[i] - confidence[groups[-1][0]]) < 0.01
            and abs(accuracy[i] - accuracy[groups[-1][0]]) < 0.01
        )
        if near:
            groups[-1].append(i)
        else:
            groups.append([i])
    offset, align = ((6, -12), "left") if method == "plugin" else ((-6, 6), "right")
    for group in groups:
        first = group[0]
        ax.annotate(
            str(int(sum(counts[i] for i in group))),
            (confidence[first], accuracy[first]),
            xytext=offset,
            textcoords="offset points",
            ha=align,
            fontsize="x-small",
            color=color,
        )


def reliability_diagram(
    model,
    X,
    y,
    *,
    n_bins: int = 10,
    methods=METHODS,
    ax=None,
    strategy: str = "uniform",
    show_counts: bool = True,
):
    r"""Calibration of the plug-in and posterior-predictive class probabilities.

    For each method, the rows of ``X`` are put into ``n_bins`` equal-width bins of their
    top-label confidence (the largest class probability); each non-empty bin is one point
    at (mean confidence, fraction of rows whose most probable class is ``y``), as in
    [`bayesgen.metrics.calibration_bins`][bayesgen.metrics.calibration_bins]. A calibrated model
    has its points on the
    diagonal. The legend gives each method's expected calibration error; the number beside
    each point is how many rows its bin holds (a point of 3 rows says little; bins whose
    points fall on one spot share one label, the rows they hold together).

    With few rows, ``strategy="quantile"`` makes bins of about equal counts instead (edges
    at quantiles of the confidences; tied confidences merge bins), and the error in the
    legend is computed over those bins: the row-weighted mean of
    $\lvert \mathrm{accuracy} - \mathrm{confidence} \rvert$.

    Parameters
    ----------
    model : fitted classifier
    X : array-like of shape (n_samples, n_features)
        Rows to assess, ideally not the training rows.
    y : array-like of shape (n_samples,)
        Their true labels, from ``model.classes_``.
    n_bins : int, default=10
        Number of equal-width confidence bins on [0, 1].
    methods : sequence of {"plugin", "predictive"}, default=("plugin", "predictive")
        Which class probabilities: ``model.predict_proba(X, method=m)``.
    ax : matplotlib Axes, optional
        Where to draw; a new figure when None.
    strategy : {"uniform", "quantile"}, default="uniform"
        Equal-width bins on [0, 1], or bins of about equal counts.
    show_counts : bool, default=True
        Write each bin's number of rows beside its point.

    Returns
    -------
    matplotlib.axes.Axes
        ``ax.lines[0]`` is the diagonal, then one line per method with the points of its
        non-empty bins.

    Raises
    ------
    ValueError
        For an unfitted ``model``, an unknown method or strategy, ``n_bins`` < 1, or labels
        of ``y`` not in ``classes_``.
    """
    check_fitted(model)
    methods = _check_methods(methods)
    positions = class_positions(model, y)
    rows = model_rows(model, X)
    ax = new_axes(ax)
    ax.plot([0, 1], [0, 1], color="0.5", linestyle=":", linewidth=1, label="calibrated")
    if strategy not in STRATEGIES:
        raise ValueError(f"strategy must be one of {STRATEGIES}; got {strategy!r}.")
    for method in methods:
        proba = model.predict_proba(rows, method=method)
        bins = calibration_bins(y, proba, classes=model.classes_, n_bins=n_bins)
        if strategy == "uniform":
            error = expected_calibration_error(y, proba, classes=model.classes_, n_bins=n_bins)
            filled = bins.counts > 0
            confidence, accuracy = bins.confidence[filled], bins.accuracy[filled]
            counts = bins.counts[filled]
        else:
            correct = (np.asarray(proba).argmax(axis=1) == positions).astype(float)
            top = np.asarray(proba).max(axis=1)
            confidence, accuracy, counts = _quantile_bins(correct, top, n_bins)
            error = float(np.sum(counts * np.abs(accuracy - confidence)) / counts.sum())
        (line,) = ax.plot(
            confidence,
            accuracy,
            marker=_MARKERS[method],
            label=f"{_NAMES[method]} (ECE {error:.3f})",
        )
        if show_counts:
            _write_counts(ax, confidence, accuracy, counts, method, line.get_color())
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.set_aspect("equal")
    ax.set_xlabel("confidence (top-label probability)")
    ax.set_ylabel("accuracy (fraction of the bin's rows predicted right)")
    ax.legend(loc="upper left", fontsize="small", title="numbers: rows per bin")
    return ax
