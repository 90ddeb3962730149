"""Top-label calibration: bins and ECE against a brute-force loop, scikit-learn, and data
that are calibrated by construction."""

import numpy as np
import pytest
from sklearn.calibration import calibration_curve

from bayesgen.metrics import calibration_bins, expected_calibration_error


def brute_force_ece(y_true, proba, classes, n_bins):
    """The definition, one row and one bin at a time: bins (e_{b-1}, e_b], the first with 0."""
    edges = np.linspace(0.0, 1.0, n_bins + 1)
    n = len(y_true)
    total = 0.0
    for b in range(n_bins):
        confidences, hits = [], []
        for label, row in zip(y_true, proba, strict=True):
            confidence = max(row)
            inside = edges[b] < confidence <= edges[b + 1] or (b == 0 and confidence == 0)
            if inside:
                confidences.append(confidence)
                hits.append(classes[int(np.argmax(row))] == label)
        if confidences:
            total += len(confidences) / n * abs(np.mean(hits) - np.mean(confidences))
    return total


def random_problem(rng, n_rows, n_classes, concentration=1.0):
    proba = rng.dirichlet(np.full(n_classes, concentration), size=n_rows)
    y = np.array([rng.choice(n_classes, p=row) for row in proba])
    return y, proba


@pytest.mark.parametrize("n_bins", [1, 5, 10, 15])
@pytest.mark.parametrize("n_classes", [2, 3, 7])
def test_ece_equals_the_brute_force_definition(n_bins, n_classes):
    rng = np.random.default_rng(n_bins * 10 + n_classes)
    y, proba = random_problem(rng, 300, n_classes, concentration=0.5)
    y = rng.permutation(y)  # far from calibrated, so every bin's gap counts
    expected = brute_force_ece(y, proba, np.arange(n_classes), n_bins)
    assert expected_calibration_error(y, proba, n_bins=n_bins) == pytest.approx(expected, rel=1e-12)


def test_a_worked_example_by_hand():
    # n_bins=5, edges 0, .2, .4, .6, .8, 1. Row 1: confidence .9, correct -> bin (.8, 1].
    # Rows 2 and 3: confidence .7 -> bin (.6, .8]; row 2 wrong, row 3 right: accuracy .5.
    # ECE = 1/3 |1 - .9| + 2/3 |.5 - .7| = .1/3 + .4/3 = 1/6.
    proba = np.array([[0.9, 0.1], [0.7, 0.3], [0.3, 0.7]])
    assert expected_calibration_error([0, 1, 1], proba, n_bins=5) == pytest.approx(1 / 6)
    bins = calibration_bins([0, 1, 1], proba, n_bins=5)
    np.testing.assert_array_equal(bins.counts, [0, 0, 0, 2, 1])
    np.testing.assert_allclose(bins.confidence[3:], [0.7, 0.9])
    np.testing.assert_allclose(bins.accuracy[3:], [0.5, 1.0])
    assert np.isnan(bins.confidence[:3]).all() and np.isnan(bins.accuracy[:3]).all()


def test_exactly_zero_when_every_bin_is_calibrated():
    # Four rows at confidence .75 with three right; two at .5 with one right.
    proba = np.array([[0.75, 0.25]] * 4 + [[0.5, 0.5]] * 2)
    y = np.array([0, 0, 0, 1, 0, 1])
    assert expected_calibration_error(y, proba) == pytest.approx(0.0, abs=1e-15)


def test_labels_of_any_type_through_classes():
    rng = np.random.default_rng(1)
    y, proba = random_problem(rng, 200, 3)
    names = np.array(["cat", "dog", "eel"])
    assert expected_calibration_error(names[y], proba, classes=names) == pytest.approx(
        expected_calibration_error(y, proba)
    )


@pytest.mark.parametrize("n_bins", [3, 10])
def test_bins_match_scikit_learn_calibration_curve(n_bins):
    """Top-label reliability is the binary calibration curve of (correct, confidence)."""
    rng = np.random.default_rng(n_bins)
    y, proba = random_problem(rng, 500, 4)
    correct = np.argmax(proba, axis=1) == y
    accuracy, confidence = calibration_curve(
        correct, proba.max(axis=1), n_bins=n_bins, strategy="uniform"
    )
    bins = calibration_bins(y, proba, n_bins=n_bins)
    filled = bins.counts > 0
    np.testing.assert_allclose(bins.accuracy[filled], accuracy, rtol=1e-12)
    np.testing.assert_allclose(bins.confidence[filled], confidence, rtol=1e-12)
    assert bins.counts.sum() == 500


def test_near_zero_on_calibrated_data_and_large_on_overconfident_data():
    """Labels drawn from the probabilities themselves are calibrated by construction.

    Then each bin's accuracy differs from its mean confidence only by sampling error, of
    standard deviation at most 0.5 / sqrt(n_b). With every bin within three of those (for
    10 bins, probability >= 1 - 10 * 0.0027 = 0.97 under the normal approximation),
    ECE <= sum_b (n_b / n) 1.5 / sqrt(n_b) <= 1.5 sqrt(n_bins / n) (Cauchy-Schwarz), which
    is 0.0335 for n = 20000 and 10 bins. Sharpening the same probabilities (cubed,
    renormalised) makes them overconfident, far beyond that.
    """
    rng = np.random.default_rng(0)
    n, n_bins = 20000, 10
    y, proba = random_problem(rng, n, 3)
    bound = 1.5 * np.sqrt(n_bins / n)
    calibrated = expected_calibration_error(y, proba, n_bins=n_bins)
    sharpened = proba**3 / np.sum(proba**3, axis=1, keepdims=True)
    overconfident = expected_calibration_error(y, sharpened, n_bins=n_bins)
    assert calibrated < bound  # measured 0.0089
    assert overconfident > 5 * bound  # measured 0.207


@pytest.mark.parametrize(
    ("y_true", "proba", "kwargs", "match"),
    [
        ([0, 1], [0.5, 0.5], {}, "proba must be a 2-D array"),
        ([0, 1], [[0.5, 0.6], [0.5, 0.5]], {}, "must sum to one"),
        ([0, 1], [[1.5, -0.5], [0.5, 0.5]], {}, r"probabilities in \[0, 1\]"),
        ([0, 1], [[np.nan, 0.5], [0.5, 0.5]], {}, "finite probabilities"),
        ([0, 1, 1], [[0.5, 0.5], [0.5, 0.5]], {}, "y_true must be 1-D with one label per row"),
        ([0, 2], [[0.5, 0.5], [0.5, 0.5]], {}, r"labels \[2\] that are not in classes"),
        ([0, 1], [[0.5, 0.5], [0.5, 0.5]], {"classes": [0, 1, 2]}, "classes must hold one"),
        ([0, 1], [[0.5, 0.5], [0.5, 0.5]], {"n_bins": 0}, "n_bins must be an integer >= 1"),
        ([0, 1], [[0.5, 0.5], [0.5, 0.5]], {"n_bins": 2.5}, "n_bins must be an integer >= 1"),
    ],
)
def test_bad_input_names_the_argument(y_true, proba, kwargs, match):
    with pytest.raises(ValueError, match=match):
        expected_calibration_error(y_true, proba, **kwargs)
