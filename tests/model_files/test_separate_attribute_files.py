"""MixedNB and LatentClassNB files of the layout before the fitted value still load and
predict, draw and impute alike (``make_separate_attribute_files.py`` wrote them at 8429aee).

Both were fitted on rows with missing cells, so the Gaussian group's EM over its missing
entries held its prior fixed (``_frozen`` then, ``joint_.frozen`` now), and LatentClassNB's
weights were an attribute of their own. Floats are compared to rounding, as in
``test_legacy_model_files.py``.
"""

from pathlib import Path

import numpy as np
import pytest
from make_separate_attribute_files import CASES, METHODS, outputs
from test_legacy_model_files import _assert_equal_to_rounding

import bayesgen

FOLDER = Path(__file__).parent / "separate_attributes"


@pytest.mark.parametrize("case", CASES)
def test_file_of_separate_attributes_predicts_draws_and_imputes_alike(case):
    frame, _ = CASES[case][1]()
    model = bayesgen.load(FOLDER / f"{case}.bgm")
    with np.load(FOLDER / f"{case}.npz") as stored:
        expected = dict(stored)
    found = outputs(model, frame)
    assert sorted(found) == sorted(expected)
    scale = np.abs(expected["predict_joint_log_proba"]).max(axis=1)
    for key in set(METHODS) & set(found):
        _assert_equal_to_rounding(found[key], expected[key], key, scale)
    for key in sorted(set(found) - set(METHODS)):  # drawn and filled values, kept as text
        try:  # a column of numbers: to rounding
            numbers = expected[key].astype(np.float64), found[key].astype(np.float64)
        except ValueError:  # labels and categories: exactly
            np.testing.assert_array_equal(found[key], expected[key], err_msg=key)
            continue
        _assert_equal_to_rounding(numbers[1], numbers[0], key)


@pytest.mark.parametrize("case", CASES)
def test_the_file_becomes_the_fitted_value_of_a_refit(case):
    """The translated value is the one a fit makes today: the same predictions, and for the
    gappy tables the prior EM over the missing numbers held (``frozen``)."""
    X, y = CASES[case][1]()
    model = bayesgen.load(FOLDER / f"{case}.bgm")
    refit = type(model)(**model.get_params()).fit(X, y)
    np.testing.assert_allclose(
        model.predict_joint_log_proba(X), refit.predict_joint_log_proba(X), rtol=1e-9
    )
    if isinstance(model, bayesgen.ComplementNB):
        np.testing.assert_allclose(model.feature_log_prob_, refit.feature_log_prob_, rtol=1e-12)
        assert model.joint_.frozen is None
        return
    assert set(model.joint_.frozen) == set(model.column_groups_)
    held = {group for group, frozen in model.joint_.frozen.items() if frozen is not None}
    assert held == {"gaussian"}  # the gappy numbers were fitted by EM, the rest skip NaN
