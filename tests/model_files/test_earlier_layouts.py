"""The one translator of earlier model-file layouts (`bayesgen.model_files.earlier_layouts`):
today's state passes through it unchanged, and no estimator class knows an earlier layout.
(`test_legacy_model_files.py` reads files the earlier layouts wrote.)"""

import json
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from make_record_attribute_files import RECORDED, outputs
from sklearn.datasets import load_iris

import bayesgen
from bayesgen import (
    LDA,
    KernelDensityDA,
    LatentClassNB,
    MixedNB,
    MixtureDA,
    MultinomialNB,
    registry,
)
from bayesgen.model_files import ModelFileError, earlier_layouts
from bayesgen.training_range import ColumnRecord

X, y = load_iris(return_X_y=True)
FRAME = pd.DataFrame({"a": X[:, 0], "b": (X[:, 1] > 3).astype(int), "c": X[:, 2]})


@pytest.mark.parametrize(
    "model, rows",
    [
        (LDA(), X),
        (MixtureDA(n_components=2, random_state=0), X),
        (KernelDensityDA(), X),
        (MultinomialNB(), np.rint(X).astype(int)),
        (MixedNB(), FRAME),
        (LatentClassNB(n_components=2, random_state=0), FRAME),
    ],
    ids=lambda case: type(case).__name__ if hasattr(case, "fit") else "",
)
def test_todays_state_passes_through(model, rows):
    model.fit(rows, y)
    state = dict(vars(model))
    upgraded = earlier_layouts.upgraded(model, state)
    assert upgraded is not state
    assert upgraded.keys() == state.keys()
    assert all(upgraded[key] is state[key] for key in state)


def test_no_estimator_class_translates_files():
    """The earlier layouts live in the translator only."""
    for cls in registry.estimators().values():
        for name in ("_upgrade_saved_state", "_saved_value"):
            assert not hasattr(cls, name), (cls.__name__, name)


@pytest.mark.parametrize("cls", [MixedNB, LatentClassNB])
def test_parameters_survive_a_round_trip(cls, tmp_path):
    """The translator leaves the file's parameters alone (``family_params`` was set to None
    on every load)."""
    model = cls(family_params={"gaussian": {"estimate": "mle"}}, random_state=0).fit(FRAME, y)
    path = tmp_path / "model.bgm"
    model.save(path)
    loaded = bayesgen.load(path)
    assert loaded.get_params() == model.get_params()
    np.testing.assert_array_equal(loaded.predict_proba(FRAME), model.predict_proba(FRAME))


def test_latent_classes_without_weights_are_an_earlier_layout_that_cannot_be_read(tmp_path):
    """A latent-class file of the layout with separate attributes whose ``weights_`` is
    null is reported as such, not as a value that does not fit the family."""
    source = Path(__file__).parent / "separate_attributes" / "LatentClassNB-gappy.bgm"
    broken = tmp_path / "broken.bgm"
    with zipfile.ZipFile(source) as old, zipfile.ZipFile(broken, "w") as new:
        for name in old.namelist():
            data = old.read(name)
            if name == "header.json":
                header = json.loads(data)
                header["estimator"]["state"]["weights_"] = None
                data = json.dumps(header)
            new.writestr(name, data)
    with pytest.raises(ModelFileError, match="LatentClassNB of an earlier layout cannot be read"):
        bayesgen.load(broken)


RECORD_FILES = Path(__file__).parent / "record_attributes"


@pytest.mark.parametrize("case", ["MixedNB-table", "PoissonNB-batches", "QDA-gappy"])
def test_a_record_kept_beside_the_value_becomes_the_values(case):
    """Files of the layout that kept ``data_min_`` ... ``data_step_`` (and a gappy
    Gaussian's ``_missing_fit_rows``) as attributes (``make_record_attribute_files.py``,
    at 180a642) read them into ``joint_.record`` (and ``joint_.rows``), and draw inside the
    training range, with its gaps and on its grids (and from the posterior), as they did."""
    model = bayesgen.load(RECORD_FILES / f"{case}.bgm")
    assert isinstance(model.joint_.record, ColumnRecord)
    beside = {*RECORDED, "_missing_fit_rows", "_missing_fit_weights"}
    assert not beside & set(vars(model))  # read off the value, not kept beside it
    assert (model.joint_.rows is not None) == (case == "QDA-gappy")
    with np.load(RECORD_FILES / f"{case}.npz") as stored:
        expected = dict(stored)
    found = outputs(model)
    assert sorted(found) == sorted(expected)
    for key in found:
        np.testing.assert_array_equal(found[key], expected[key], err_msg=key)


def test_a_record_of_ranges_only_stays_ranges_only():
    """A state that kept ranges but no missing cells or grids (files before those) has a
    record without them, so the uses that need them refuse by name."""
    model = MultinomialNB().fit(np.rint(X).astype(int), y)
    record = model.joint_.record
    state = {
        **{k: v for k, v in vars(model).items() if k != "joint_"},
        "joint_": model.joint_._replace(record=None),
        "data_min_": record.low,
        "data_max_": record.high,
    }
    upgraded = earlier_layouts.upgraded(model, state)
    kept = upgraded["joint_"].record
    np.testing.assert_array_equal(kept.low, record.low)
    np.testing.assert_array_equal(kept.high, record.high)
    assert (kept.n_missing, kept.n_rows, kept.decimals, kept.step) == (None,) * 4
    assert "data_min_" not in upgraded


FAMILY_SETTING_FILES = Path(__file__).parent / "family_settings"


@pytest.mark.parametrize(
    "case",
    ["poisson-beta-per-feature", "gaussian-0d-prior-weight", "lognormal-infinite-prior-weight"],
)
def test_family_settings_written_before_the_families_checked_them_load_as_written(case):
    """Files of e3d1b4c (``make_family_setting_files.py``) whose family settings the
    families' checks now read (arrays, an infinite prior weight) load and predict as they
    did, bit for bit."""
    from make_family_setting_files import rows

    X, _ = rows()
    model = bayesgen.load(FAMILY_SETTING_FILES / f"{case}.bgm")
    expected = np.load(FAMILY_SETTING_FILES / f"{case}.npy")
    np.testing.assert_array_equal(model.predict_proba(X), expected)
