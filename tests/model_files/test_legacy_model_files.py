"""Model files written by the layout before the family protocol still load and predict alike.

``legacy/`` holds one file per estimator configuration, written by
``make_legacy_files.py`` on main at c275fd0, with what each model predicted then. Today's
code must read every file and reproduce those numbers: labels exactly, floating-point
numbers to rounding.

Why rounding and not bit for bit: the files were written on one CPU, and the last bits of
a floating-point result depend on the CPU the arithmetic runs on (the width of its vector
instructions changes the order of sums in BLAS and XLA). Measured on an AMD EPYC with
AVX-512, the code of c275fd0 itself, loading these files, differed from its own stored
numbers by up to 2.9 x eps x (the row's largest |log p(x, k)|), while today's code matched
c275fd0's output on that machine bit for bit. A misread file changes results by far more.
"""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from test_model_file_round_trip import CASES

import bayesgen

LEGACY = Path(__file__).parent / "legacy"
METHODS = ("predict_proba", "predict_joint_log_proba", "score_samples", "predict")

#: Allowed difference of a float, in units of eps(dtype) x the row's largest magnitude
#: (module docstring: 2.9 measured across CPUs).
ROUNDING_ULPS = 16


def test_every_case_has_a_legacy_file():
    assert sorted(path.stem for path in LEGACY.glob("*.bgm")) == sorted(CASES)


@pytest.mark.parametrize("case", CASES)
def test_legacy_file_predicts_alike(case):
    _, data = CASES[case]
    X, _ = data()
    model = bayesgen.load(LEGACY / f"{case}.bgm")
    with np.load(LEGACY / f"{case}.npz") as stored:
        expected = dict(stored)
    # Rounding in a row scales with its largest log-density term, also for the
    # probabilities and log p(x) computed from those terms.
    scale = np.abs(expected["predict_joint_log_proba"]).max(axis=1)
    for method in METHODS:
        found = getattr(model, method)(X)
        if found.dtype == object:
            found = found.astype(str)
        _assert_equal_to_rounding(found, expected[method], method, scale)
    # The story run forward with JAX's stream, as sample() did when the files were written
    # (sample now draws in NumPy where the family can: tests/estimators/test_numpy_draws.py).
    story_rows = model.sample(7, random_state=0, method="story", **_lengths(model))
    for i, part in enumerate(story_rows):
        if isinstance(part, pd.DataFrame):
            for column in part.columns:
                found = _comparable(part[column].to_numpy())
                _assert_equal_to_rounding(found, expected[f"sample{i}:{column}"], f"{i}:{column}")
        else:
            _assert_equal_to_rounding(_comparable(np.asarray(part)), expected[f"sample{i}"], i)


def _assert_equal_to_rounding(found, expected, what, scale=None):
    """Same dtype; labels, integers and non-finite values equal; finite floats within
    `ROUNDING_ULPS` x eps x the row's ``scale`` (one value per row; by default the row's
    largest magnitude, or the largest of a 1-D array)."""
    assert found.dtype == expected.dtype, what
    finite = np.isfinite(expected) if found.dtype.kind == "f" else np.zeros(found.shape, bool)
    np.testing.assert_array_equal(found[~finite], expected[~finite], err_msg=str(what))
    if not finite.any():
        return
    if scale is None:
        magnitude = np.where(finite, np.abs(expected), 0.0)
        scale = magnitude.max(axis=1) if magnitude.ndim == 2 else np.full(1, magnitude.max())
    difference = np.where(finite, np.abs(found - expected), 0.0).astype(np.float64)
    if difference.ndim == 2:
        difference = difference.max(axis=1)
    allowed = ROUNDING_ULPS * np.finfo(found.dtype).eps * np.asarray(scale, dtype=np.float64)
    worst = np.argmax(difference - allowed)
    assert np.all(difference <= allowed), (what, worst, difference[worst], allowed[worst])


def _lengths(model) -> dict:
    """The row totals ``MultinomialNB.sample`` passed to its story (the mean total)."""
    if not isinstance(model, bayesgen.MultinomialNB):
        return {}
    mean_total = model.feature_count_.sum() / model.class_count_.sum()
    return {"lengths": np.full(7, int(round(float(mean_total))))}


def _comparable(values: np.ndarray) -> np.ndarray:
    return values.astype(str) if values.dtype == object else values
