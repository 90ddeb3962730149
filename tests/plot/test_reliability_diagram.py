"""reliability_diagram: each point is a bin's mean confidence and accuracy (checked against
scikit-learn's calibration_curve of the top label), the legend carries each method's ECE."""

import numpy as np
import pytest
from sklearn.calibration import calibration_curve

from bayesgen import GaussianNB
from bayesgen.metrics import expected_calibration_error
from bayesgen.plot import reliability_diagram


@pytest.fixture(scope="module")
def problem():
    """Few training rows (so plug-in and predictive differ), many test rows."""
    rng = np.random.default_rng(0)
    centres = np.array([[0.0, 0.0, 0.0], [1.5, 0.5, 0.0], [0.0, 1.5, 1.0]])

    def draw(n_per_class):
        X = np.vstack([rng.normal(centre, 1.0, (n_per_class, 3)) for centre in centres])
        return X, np.repeat(np.array(["a", "b", "c"]), n_per_class)

    X_train, y_train = draw(8)
    X_test, y_test = draw(300)
    return GaussianNB().fit(X_train, y_train), X_test, y_test


@pytest.mark.parametrize("n_bins", [5, 10])
def test_points_are_top_label_bin_averages(problem, n_bins, render):
    model, X, y = problem
    ax = reliability_diagram(model, X, y, n_bins=n_bins)
    render(ax)
    diagonal, *lines = ax.lines
    np.testing.assert_array_equal(diagonal.get_xydata(), [[0, 0], [1, 1]])
    assert len(lines) == 2
    legend = [text.get_text() for text in ax.get_legend().get_texts()]
    methods = zip(lines, ["plugin", "predictive"], ["plug-in", "predictive"], strict=True)
    for line, method, name in methods:
        proba = model.predict_proba(X, method=method)
        correct = model.classes_[proba.argmax(axis=1)] == y
        accuracy, confidence = calibration_curve(
            correct, proba.max(axis=1), n_bins=n_bins, strategy="uniform"
        )
        np.testing.assert_allclose(line.get_xdata(), confidence, rtol=1e-12)
        np.testing.assert_allclose(line.get_ydata(), accuracy, rtol=1e-12)
        ece = expected_calibration_error(y, proba, classes=model.classes_, n_bins=n_bins)
        assert f"{name} (ECE {ece:.3f})" in legend
    # Eight rows per class: the two methods' probabilities differ visibly.
    plugin, predictive = (model.predict_proba(X, method=m) for m in ["plugin", "predictive"])
    assert np.max(np.abs(plugin - predictive)) > 0.05


def test_one_method(problem):
    model, X, y = problem
    ax = reliability_diagram(model, X, y, methods="predictive")
    assert len(ax.lines) == 2
    assert ax.get_legend().get_texts()[1].get_text().startswith("predictive (ECE ")


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"methods": ("plugin", "bayes")}, "methods must be a non-empty selection"),
        ({"methods": ()}, "methods must be a non-empty selection"),
        ({"n_bins": 0}, "n_bins must be an integer >= 1"),
    ],
)
def test_bad_arguments_are_named(problem, kwargs, match):
    model, X, y = problem
    with pytest.raises(ValueError, match=match):
        reliability_diagram(model, X, y, **kwargs)


def test_bad_labels_and_unfitted_model(problem):
    model, X, y = problem
    with pytest.raises(
        ValueError, match=r"y has labels \['z'\] that are not in the model's classes_"
    ):
        reliability_diagram(model, X, np.full(len(y), "z"))
    with pytest.raises(ValueError, match="model must be a fitted classifier"):
        reliability_diagram(GaussianNB(), X, y)


def test_quantile_bins_match_scikit_learn_and_carry_their_counts(problem, render):
    """strategy="quantile": the points are calibration_curve(strategy="quantile")'s, the
    labels beside them the rows per bin, the legend's error the row-weighted gap."""
    model, X, y = problem
    ax = reliability_diagram(model, X, y, n_bins=5, strategy="quantile")
    render(ax)
    _, *lines = ax.lines
    labels = [text.get_text() for text in ax.texts]
    legend = [text.get_text() for text in ax.get_legend().get_texts()]
    for line, method, name in zip(
        lines, ["plugin", "predictive"], ["plug-in", "predictive"], strict=True
    ):
        proba = model.predict_proba(X, method=method)
        confidence = proba.max(axis=1)
        correct = model.classes_[proba.argmax(axis=1)] == y
        accuracy, mean_confidence = calibration_curve(
            correct, confidence, n_bins=5, strategy="quantile"
        )
        np.testing.assert_allclose(line.get_xdata(), mean_confidence, rtol=1e-12)
        np.testing.assert_allclose(line.get_ydata(), accuracy, rtol=1e-12)
        edges = np.quantile(confidence, np.linspace(0, 1, 6))
        counts = np.histogram(confidence, edges)[0]
        assert counts.sum() == len(y) and counts.min() >= len(y) // 5 - 1
        error = np.sum(counts * np.abs(accuracy - mean_confidence)) / len(y)
        assert f"{name} (ECE {error:.3f})" in legend
    # 900 rows in 5 bins per method, no two points on one spot: ten labels of 180.
    assert sorted(labels) == ["180"] * 10


def test_counts_label_every_uniform_bin(problem):
    model, X, y = problem
    ax = reliability_diagram(model, X, y, n_bins=10, methods="plugin")
    proba = model.predict_proba(X)
    counts = np.histogram(proba.max(axis=1), np.linspace(0, 1, 11))[0]
    shown = [int(text.get_text()) for text in ax.texts]
    assert sorted(shown) == sorted(counts[counts > 0].tolist())
    assert not reliability_diagram(model, X, y, show_counts=False).texts


def test_tied_confidences_merge_quantile_bins():
    from bayesgen.plot._reliability import _quantile_bins

    confidence = np.array([1.0, 1.0, 1.0, 1.0, 1.0, 0.6, 0.7, 0.9])
    correct = np.array([1, 1, 1, 1, 0, 0, 1, 1], dtype=float)
    mean_confidence, accuracy, counts = _quantile_bins(correct, confidence, 4)
    # Quantile edges 0.6, 0.85, 1, 1, 1: the three top bins are one, and no bin is empty.
    np.testing.assert_array_equal(counts, [2, 6])
    np.testing.assert_allclose(mean_confidence, [0.65, (0.9 + 5) / 6])
    np.testing.assert_allclose(accuracy, [0.5, 5 / 6])


def test_unknown_strategy_is_named(problem):
    model, X, y = problem
    with pytest.raises(ValueError, match="strategy must be one of"):
        reliability_diagram(model, X, y, strategy="equal")


def test_bins_on_one_spot_share_the_label_of_their_total():
    """Issue 33: the demo's figure labelled a point "11+10+11+11"; it now says 43."""
    import matplotlib.pyplot as plt

    from bayesgen.plot._reliability import _write_counts

    figure, ax = plt.subplots()
    confidence = np.array([0.95, 0.9999, 0.99995, 0.99999, 1.0])
    accuracy = np.array([0.818, 1.0, 1.0, 1.0, 1.0])
    _write_counts(ax, confidence, accuracy, np.array([11, 11, 10, 11, 11]), "plugin", "C0")
    assert [text.get_text() for text in ax.texts] == ["11", "43"]
    plt.close(figure)
