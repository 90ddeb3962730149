"""The risk–coverage curve: what abstaining on the least sure rows buys."""

from __future__ import annotations

from bayesgen.metrics import accuracy_at_coverage, risk_coverage_curve
from bayesgen.plot._common import check_fitted, class_positions, model_rows, new_axes
from bayesgen.plot._reliability import _NAMES, _check_methods


def risk_coverage(model, X, y, *, methods=("plugin",), coverage: float = 0.9, ax=None):
    r"""Error rate on the accepted rows against the fraction of rows accepted.

    Each method's class probabilities ``model.predict_proba(X, method=m)`` are turned into
    a curve by [`bayesgen.metrics.risk_coverage_curve`][bayesgen.metrics.risk_coverage_curve]:
    rows are accepted most confident first, and each point is (coverage, error rate on the
    accepted rows) at one confidence threshold $t$, which is Chow's rule
    ``model.predict(X, reject=1 - t, method=m)``. A model that knows what it does not know
    has a curve that rises from low risk at low coverage to its plain error rate at
    coverage 1. A marker sits on each curve at ``coverage``, and the legend gives the
    accuracy there
    ([`accuracy_at_coverage`][bayesgen.metrics.accuracy_at_coverage]).

    Parameters
    ----------
    model : fitted classifier
    X : array-like of shape (n_samples, n_features)
        Rows to assess, ideally not the training rows.
    y : array-like of shape (n_samples,)
        Their true labels, from ``model.classes_``.
    methods : sequence of {"plugin", "predictive"}, default=("plugin",)
        Which class probabilities, one curve each.
    coverage : float, default=0.9
        Where to mark each curve, in (0, 1].
    ax : matplotlib Axes, optional
        Where to draw; a new figure when None.

    Returns
    -------
    matplotlib.axes.Axes
        Per method, ``ax.lines`` holds its curve (through the points of
        `risk_coverage_curve`) and then its marker at ``coverage``.

    Raises
    ------
    ValueError
        For an unfitted ``model``, an unknown method, ``coverage`` outside (0, 1], or
        labels of ``y`` not in ``classes_``.
    """
    check_fitted(model)
    methods = _check_methods(methods)
    class_positions(model, y)
    rows = model_rows(model, X)
    curves = {}
    for method in methods:
        proba = model.predict_proba(rows, method=method)
        accuracy = accuracy_at_coverage(y, proba, coverage=coverage, classes=model.classes_)
        curves[method] = risk_coverage_curve(y, proba, classes=model.classes_), accuracy
    ax = new_axes(ax)
    for method, (curve, accuracy) in curves.items():
        (line,) = ax.plot(
            curve.coverage,
            curve.risk,
            label=f"{_NAMES[method]} (accuracy {accuracy:.3f} at {coverage:.0%} coverage)",
        )
        reached = curve.coverage[curve.coverage >= coverage - 1e-12][0]
        ax.plot([reached], [1.0 - accuracy], marker="o", color=line.get_color())
    ax.set_xlim(0, 1.02)
    ax.set_ylim(bottom=0)
    ax.set_xlabel("coverage (fraction of rows accepted, most confident first)")
    ax.set_ylabel("risk (error rate on the accepted rows)")
    ax.legend(loc="upper left", fontsize="small")
    return ax
