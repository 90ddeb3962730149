"""The risk–coverage curve and accuracy at a coverage: against the definition computed one
threshold at a time, and against Chow's rule ``predict(X, reject=1 - t)`` of a fitted model."""

import numpy as np
import pytest
from sklearn.datasets import load_wine
from sklearn.model_selection import train_test_split

from bayesgen import GaussianNB
from bayesgen.metrics import accuracy_at_coverage, risk_coverage_curve


def direct_curve(y_true, proba, classes):
    """The definition: for every distinct confidence t, the rows with confidence >= t."""
    confidence = proba.max(axis=1)
    predicted = classes[proba.argmax(axis=1)]
    points = []
    for t in sorted(set(confidence.tolist()), reverse=True):
        accepted = confidence >= t
        points.append((t, accepted.mean(), np.mean(predicted[accepted] != y_true[accepted])))
    return np.array(points)


@pytest.mark.parametrize("seed", range(4))
def test_curve_is_the_definition(seed):
    rng = np.random.default_rng(seed)
    proba = rng.dirichlet(np.ones(3), size=200)
    proba[:40] = proba[0]  # tied confidences are accepted together
    classes = np.array(["x", "y", "z"])
    y_true = classes[[rng.choice(3, p=row) for row in proba]]
    curve = risk_coverage_curve(y_true, proba, classes=classes)
    expected = direct_curve(y_true, proba, classes)
    np.testing.assert_array_equal(curve.thresholds, expected[:, 0])
    np.testing.assert_allclose(curve.coverage, expected[:, 1], rtol=1e-15)
    np.testing.assert_allclose(curve.risk, expected[:, 2], rtol=1e-15)
    assert curve.coverage[-1] == 1.0 and len(curve.thresholds) == 200 - 39


def test_accuracy_at_coverage_is_the_first_point_reaching_it():
    rng = np.random.default_rng(5)
    proba = rng.dirichlet(np.ones(4), size=50)
    y_true = np.array([rng.choice(4, p=row) for row in proba])
    expected = direct_curve(y_true, proba, np.arange(4))
    for coverage in [0.1, 0.5, 0.9, 1.0]:
        point = expected[expected[:, 1] >= coverage][0]
        assert accuracy_at_coverage(y_true, proba, coverage=coverage) == pytest.approx(
            1 - point[2], abs=1e-15
        )
    assert accuracy_at_coverage(y_true, proba, coverage=1.0) == np.mean(
        proba.argmax(axis=1) == y_true
    )
    assert accuracy_at_coverage(y_true, proba, coverage=0.9) == accuracy_at_coverage(
        y_true, proba, coverage=45 / 50
    )


def test_each_point_is_chow_rule_of_the_model():
    X, y = load_wine(return_X_y=True)
    X_train, X_test, y_train, y_test = train_test_split(
        X, y, test_size=0.5, stratify=y, random_state=1
    )
    model = GaussianNB().fit(X_train, y_train)
    curve = risk_coverage_curve(y_test, model.predict_proba(X_test), classes=model.classes_)
    checked = 0
    for threshold, coverage, risk in zip(*curve, strict=True):
        reject = 1.0 - threshold
        if not 0 < reject < 1 or 1.0 - reject != threshold:  # c that do not round-trip
            continue
        decided = model.predict(X_test, reject=reject)
        accepted = decided != -1
        assert accepted.mean() == coverage
        assert np.mean(decided[accepted] != y_test[accepted]) == risk
        checked += 1
    assert checked >= 10


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (([0, 1], np.array([[0.5, 0.5], [0.2, 0.9]])), "Every row of proba must sum to one"),
        (([0, 1, 1], np.full((2, 2), 0.5)), "y_true must be 1-D with one label per row"),
        (([0, 2], np.full((2, 2), 0.5)), r"y_true has labels \[2\]"),
        (([0, 1], np.full(2, 0.5)), "proba must be a 2-D array"),
    ],
)
def test_bad_input_names_the_argument(arguments, message):
    with pytest.raises(ValueError, match=message):
        risk_coverage_curve(*arguments)
    with pytest.raises(ValueError, match=message):
        accuracy_at_coverage(*arguments)


@pytest.mark.parametrize("coverage", [0, -0.5, 1.2, np.nan, "0.9", True])
def test_coverage_outside_the_unit_interval(coverage):
    with pytest.raises(ValueError, match=r"coverage must be a number in \(0, 1\]"):
        accuracy_at_coverage([0, 1], np.full((2, 2), 0.5), coverage=coverage)
