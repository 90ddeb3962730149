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
    for i, part in enumerate(model.sample(7, random_state=0)):
        if isinstance(part, pd.DataFrame):
            for column in part.columns:
                np.testing.assert_array_equal(
                    _comparable(part[column].to_numpy()), expected[f"sample{i}:{column}"]
                )
        else:
            np.testing.assert_array_equal(_comparable(np.asarray(part)), expected[f"sample{i}"])


def _comparable(values: np.ndarray) -> np.ndarray:
    return values.astype(str) if values.dtype == object else values
