"""The reliability diagram: top-label confidence against accuracy, per way of predicting."""

from __future__ import annotations

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


def reliability_diagram(model, X, y, *, n_bins: int = 10, methods=METHODS, ax=None):
    """Calibration of the plug-in and posterior-predictive class probabilities.

    For each method, the rows of ``X`` are put into ``n_bins`` equal-width bins of their
    top-label confidence (the largest class probability); each non-empty bin is one point
    at (mean confidence, fraction of rows whose most probable class is ``y``), as in
    :func:`bayesgen.metrics.calibration_bins`. A calibrated model has its points on the
    diagonal. The legend gives each method's expected calibration error.

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

    Returns
    -------
    matplotlib.axes.Axes
        ``ax.lines[0]`` is the diagonal, then one line per method with the points of its
        non-empty bins.

    Raises
    ------
    ValueError
        For an unfitted ``model``, an unknown method, ``n_bins`` < 1, or labels of ``y``
        not in ``classes_``.
    """
    check_fitted(model)
    methods = _check_methods(methods)
    class_positions(model, y)
    rows = model_rows(model, X)
    ax = new_axes(ax)
    ax.plot([0, 1], [0, 1], color="0.5", linestyle=":", linewidth=1, label="calibrated")
    for method in methods:
        proba = model.predict_proba(rows, method=method)
        bins = calibration_bins(y, proba, classes=model.classes_, n_bins=n_bins)
        error = expected_calibration_error(y, proba, classes=model.classes_, n_bins=n_bins)
        filled = bins.counts > 0
        ax.plot(
            bins.confidence[filled],
            bins.accuracy[filled],
            marker=_MARKERS[method],
            label=f"{_NAMES[method]} (ECE {error:.3f})",
        )
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.set_aspect("equal")
    ax.set_xlabel("confidence (top-label probability)")
    ax.set_ylabel("accuracy")
    ax.legend(loc="upper left", fontsize="small")
    return ax
