"""Model files written by the layout before the family protocol still load and predict alike.

``legacy/`` holds one file per estimator configuration, written by
``make_legacy_files.py`` on main at c275fd0, with what each model predicted then. Today's
code must read every file and reproduce those numbers bit for bit.
"""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from test_model_file_round_trip import CASES

import bayesgen
from bayesgen.inference import sampling

LEGACY = Path(__file__).parent / "legacy"
METHODS = ("predict_proba", "predict_joint_log_proba", "score_samples", "predict")


def test_every_case_has_a_legacy_file():
    assert sorted(path.stem for path in LEGACY.glob("*.bgm")) == sorted(CASES)


@pytest.mark.parametrize("case", CASES)
def test_legacy_file_predicts_bit_for_bit(case):
    _, data = CASES[case]
    X, _ = data()
    model = bayesgen.load(LEGACY / f"{case}.bgm")
    with np.load(LEGACY / f"{case}.npz") as stored:
        expected = dict(stored)
    for method in METHODS:
        found = getattr(model, method)(X)
        if found.dtype == object:
            found = found.astype(str)
        assert found.dtype == expected[method].dtype, method
        np.testing.assert_array_equal(found, expected[method], err_msg=method)
    # The story run forward with JAX's stream, as sample() did when the files were written
    # (sample now draws in NumPy where the family can: tests/estimators/test_numpy_draws.py).
    for i, part in enumerate(sampling.story_sample(model, 7, random_state=0, **_lengths(model))):
        if isinstance(part, pd.DataFrame):
            for column in part.columns:
                np.testing.assert_array_equal(
                    _comparable(part[column].to_numpy()), expected[f"sample{i}:{column}"]
                )
        else:
            np.testing.assert_array_equal(_comparable(np.asarray(part)), expected[f"sample{i}"])


def _lengths(model) -> dict:
    """The row totals ``MultinomialNB.sample`` passed to its story (the mean total)."""
    if not isinstance(model, bayesgen.MultinomialNB):
        return {}
    mean_total = model.feature_count_.sum() / model.class_count_.sum()
    return {"lengths": np.full(7, int(round(float(mean_total))))}


def _comparable(values: np.ndarray) -> np.ndarray:
    return values.astype(str) if values.dtype == object else values
