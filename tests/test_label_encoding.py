"""Labels encoded by counting equal NumPy's sorted unique labels and their inverse, with
scikit-learn's checks and warning."""

import warnings

import numpy as np
import pytest

import bayesgen
from bayesgen import validation
from bayesgen.validation import check_labels, encode_labels

RNG = np.random.default_rng(0)

CASES = {
    "0..K-1": RNG.integers(0, 5, 1000),
    "int8 across zero": RNG.integers(-100, 100, 1000).astype(np.int8),
    "uint64 beyond int64": np.array([2**63 + 5, 2**63 + 1, 2**63 + 5], dtype=np.uint64),
    "int64 extremes, sorted instead": np.array([-(2**62), 2**62]),
    "wide range, sorted instead": RNG.integers(0, 900, 50),
    "most labels distinct": RNG.integers(0, 40, 50),
    "one label": np.array([5]),
    "uint8": np.array([1, 0, 1], dtype=np.uint8),
    "strings": np.array(["b", "a", "b"]),
    "whole floats": np.array([2.0, 1.0, 2.0]),
}


def _recorded(function, y):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = function(y)
    return result, [str(w.message) for w in caught]


@pytest.mark.parametrize("name", CASES)
def test_encoding_equals_sorting(name):
    y = CASES[name]
    (classes, index), said = _recorded(encode_labels, y)
    (expected, expected_index), expected_said = _recorded(
        lambda labels: np.unique(check_labels(labels), return_inverse=True), y
    )
    assert classes.dtype == expected.dtype and index.dtype == expected_index.dtype
    np.testing.assert_array_equal(classes, expected)
    np.testing.assert_array_equal(index, expected_index)
    assert said == expected_said


def test_whole_numbers_of_a_narrow_range_are_counted_not_sorted(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("sorted")

    monkeypatch.setattr(validation, "check_labels", refuse)
    monkeypatch.setattr(validation.np, "unique", refuse)
    classes, index = encode_labels(np.array([7, 3, 7, 4]))
    assert classes.tolist() == [3, 4, 7] and index.tolist() == [2, 0, 2, 1]


@pytest.mark.parametrize(
    "y", [np.array([0.5, 1.5]), np.array([1, "a"], dtype=object), np.array([[0, 1], [1, 0]])]
)
def test_bad_labels_get_the_same_errors(y):
    with pytest.raises(ValueError) as expected:
        check_labels(y)
    with pytest.raises(ValueError) as found:
        encode_labels(y)
    assert str(found.value) == str(expected.value)


def test_a_fit_from_counted_labels_equals_one_from_strings():
    X = RNG.normal(size=(60, 3))
    y = RNG.integers(0, 3, 60)
    counted = bayesgen.GaussianNB().fit(X, y)
    named = bayesgen.GaussianNB().fit(X, np.array(["a", "b", "c"])[y])
    np.testing.assert_array_equal(counted.classes_, [0, 1, 2])
    np.testing.assert_allclose(counted.predict_proba(X), named.predict_proba(X), rtol=1e-14)
