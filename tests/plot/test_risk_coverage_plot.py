"""risk_coverage: each curve is bayesgen.metrics.risk_coverage_curve of the method's
probabilities, with a marker at the asked coverage and the accuracy there in the legend."""

import numpy as np
import pytest

from bayesgen import GaussianNB
from bayesgen.metrics import accuracy_at_coverage, risk_coverage_curve
from bayesgen.plot import risk_coverage


@pytest.fixture(scope="module")
def problem():
    """Few training rows (so plug-in and predictive differ), overlapping classes."""
    rng = np.random.default_rng(3)
    centres = np.array([[0.0, 0.0], [1.5, 0.5], [0.0, 1.5]])

    def draw(n_per_class):
        X = np.vstack([rng.normal(centre, 1.0, (n_per_class, 2)) for centre in centres])
        return X, np.repeat(np.array(["a", "b", "c"]), n_per_class)

    X_train, y_train = draw(10)
    X_test, y_test = draw(100)
    return GaussianNB().fit(X_train, y_train), X_test, y_test


def test_curves_and_markers(problem, render):
    model, X, y = problem
    methods = ("plugin", "predictive")
    ax = risk_coverage(model, X, y, methods=methods, coverage=0.8)
    render(ax)
    assert len(ax.lines) == 4
    legend = [text.get_text() for text in ax.get_legend().get_texts()]
    for i, (method, name) in enumerate(zip(methods, ["plug-in", "predictive"], strict=True)):
        proba = model.predict_proba(X, method=method)
        curve = risk_coverage_curve(y, proba, classes=model.classes_)
        line, marker = ax.lines[2 * i], ax.lines[2 * i + 1]
        np.testing.assert_array_equal(line.get_xdata(), curve.coverage)
        np.testing.assert_array_equal(line.get_ydata(), curve.risk)
        accuracy = accuracy_at_coverage(y, proba, coverage=0.8, classes=model.classes_)
        assert legend[i] == f"{name} (accuracy {accuracy:.3f} at 80% coverage)"
        x, risk = marker.get_xydata()[0]
        assert x == curve.coverage[curve.coverage >= 0.8][0] and risk == 1 - accuracy
    assert ax.lines[0].get_ydata()[-1] == np.mean(model.predict(X) != y)


def test_bad_input(problem):
    model, X, y = problem
    with pytest.raises(ValueError, match=r"coverage must be a number in \(0, 1\]"):
        risk_coverage(model, X, y, coverage=0)
    with pytest.raises(ValueError, match="methods must be a non-empty selection"):
        risk_coverage(model, X, y, methods=("mean",))
    with pytest.raises(ValueError, match=r"y has labels \['d'\]"):
        risk_coverage(model, X, np.where(y == "a", "d", y))
    with pytest.raises(ValueError, match="model must be a fitted classifier"):
        risk_coverage(GaussianNB(), X, y)
