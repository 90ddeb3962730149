"""Estimators that are views of their fitted joint (``joint_``): the count naive Bayes.

Their whole fitted state is one value; the scikit-learn names are read off it, the model is
``(family_, joint_)``, and a model file holding a damaged value is refused.
"""

import io
import json
import zipfile
from pathlib import Path

import numpy as np
import pytest
from sklearn.base import clone

import bayesgen
from bayesgen import joint
from bayesgen.model_files.errors import ModelFileError


def _data(seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, 90)
    X = rng.poisson(1.0 + 2.0 * y[:, None], (90, 4)).astype(np.float64)
    return X, y


def _models():
    X, y = _data()
    colours = np.array(["red", "green", "blue"], dtype=object)[np.minimum(X, 2).astype(int)]
    return [
        (bayesgen.PoissonNB(), X, y, ("feature_count_", "rates_")),
        (bayesgen.MultinomialNB(), X, y, ("feature_count_", "feature_log_prob_")),
        (bayesgen.BernoulliNB(), (X > 2).astype(float), y, ("feature_count_", "feature_log_prob_")),
        (bayesgen.ExponentialNB(), X + 0.5, y, ("feature_count_", "observed_count_", "rates_")),
        (bayesgen.CategoricalNB(), colours, y, ("categories_", "category_count_")),
    ]


MODELS = _models()
IDS = [type(case[0]).__name__ for case in MODELS]


@pytest.mark.parametrize(("model", "X", "y", "names"), MODELS, ids=IDS)
def test_the_fitted_state_is_one_value_and_the_model_is_family_and_value(model, X, y, names):
    model.fit(X, y)
    fitted = {name for name in vars(model) if name.endswith("_")}
    assert "joint_" in fitted
    assert not fitted & {"class_count_", "class_prior_", *names}  # read off the value
    assert isinstance(model.joint_, joint.FittedJoint)
    np.testing.assert_array_equal(model.joint_.classes, model.classes_)
    np.testing.assert_allclose(
        joint.log_joint(model.family_, model.joint_, X), model.predict_joint_log_proba(X)
    )
    np.testing.assert_array_equal(model.class_count_, np.bincount(y))


@pytest.mark.parametrize(("model", "X", "y", "names"), MODELS, ids=IDS)
def test_fitted_names_are_absent_before_fit_and_read_only_after(model, X, y, names):
    unfitted = clone(model)
    for name in ("class_prior_", *names):
        assert not hasattr(unfitted, name)
    model.fit(X, y)
    with pytest.raises(AttributeError, match="read off the fitted value joint_"):
        setattr(model, names[-1], getattr(model, names[-1]))


def test_setting_the_class_prior_replaces_it_in_the_value():
    X, y = _data()
    model = bayesgen.PoissonNB().fit(X, y)
    model.class_prior_ = np.array([0.2, 0.3, 0.5])
    np.testing.assert_array_equal(model.joint_.class_probabilities, [0.2, 0.3, 0.5])
    expected = joint.log_joint(model.family_, model.joint_, X)
    np.testing.assert_allclose(model.predict_joint_log_proba(X), expected)


def test_a_posterior_draw_is_the_value_with_other_parameters():
    X, y = _data()
    model = bayesgen.PoissonNB().fit(X, y)
    draws = model.posterior(3, random_state=0)
    proba = model.predict_proba_draws(X[:5], posterior=draws)
    rates = np.asarray(draws.posterior["rates"]).reshape(-1, 3, 4)
    pi = np.asarray(draws.posterior["class_prior"]).reshape(-1, 3)
    for index in range(3):
        drawn = joint.with_params(model.joint_, rates[index], pi[index])
        log_joint = joint.log_joint(model.family_, drawn, X[:5])
        expected = np.exp(log_joint - log_joint.max(axis=1, keepdims=True))
        expected /= expected.sum(axis=1, keepdims=True)
        np.testing.assert_allclose(proba[index], expected, rtol=1e-10)


def _saved(tmp_path):
    X, y = _data()
    path = tmp_path / "model.bgm"
    bayesgen.PoissonNB().fit(X, y).save(path)
    with zipfile.ZipFile(path) as archive:
        members = {name: archive.read(name) for name in archive.namelist()}
    return path, members, json.loads(members["header.json"])


def _rewrite(path, members, header, member, array):
    buffer = io.BytesIO()
    np.save(buffer, array)
    members = {**members, member: buffer.getvalue(), "header.json": json.dumps(header).encode()}
    damaged = path.with_name("damaged.bgm")
    with zipfile.ZipFile(damaged, "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return damaged


def _value_field(header, name):
    return header["estimator"]["state"]["joint_"]["fields"][name]


@pytest.mark.parametrize(
    ("field", "array", "problem"),
    [
        ("class_probabilities", np.array([np.nan, 0.5, 0.5]), "class_prior_ must be finite"),
        ("class_probabilities", np.array([0.2, 0.2, 0.2]), "class_prior_ must sum to 1"),
        ("params", np.ones((3, 7)), "rates_ has 7 columns for n_features_in_ = 4"),
        ("params", np.ones((2, 4)), "rates_ has 2 rows for 3 classes"),
    ],
)
def test_a_file_with_a_damaged_value_is_refused(tmp_path, field, array, problem):
    path, members, header = _saved(tmp_path)
    node = _value_field(header, field)
    node["shape"] = list(array.shape)
    damaged = _rewrite(path, members, header, node["member"], array)
    with pytest.raises(ModelFileError, match=problem):
        bayesgen.load(damaged)


def test_a_file_whose_value_names_other_classes_is_refused(tmp_path):
    path, members, header = _saved(tmp_path)
    node = _value_field(header, "classes")
    node["member"] = "arrays/99.npy"
    damaged = _rewrite(path, members, header, "arrays/99.npy", np.array([0, 1, 7]))
    with pytest.raises(ModelFileError, match="joint_.classes must equal classes_"):
        bayesgen.load(damaged)


LEGACY = Path(__file__).parents[1] / "model_files" / "legacy"


@pytest.mark.parametrize("name", ["BernoulliNB", "CategoricalNB"])
def test_a_file_of_the_earlier_layout_loads_as_a_value(name):
    model = bayesgen.load(LEGACY / f"{name}.bgm")
    assert isinstance(model.joint_, joint.FittedJoint)
    assert not {"_stats", "_class_stats", "class_prior_", "feature_log_prob_"} & set(vars(model))


def test_a_file_of_the_earlier_layout_with_a_damaged_class_prior_is_refused(tmp_path):
    with zipfile.ZipFile(LEGACY / "BernoulliNB.bgm") as archive:
        members = {name: archive.read(name) for name in archive.namelist()}
    header = json.loads(members["header.json"])
    node = header["estimator"]["state"]["class_prior_"]
    damaged = _rewrite(
        tmp_path / "legacy.bgm", members, header, node["member"], np.full(node["shape"], np.nan)
    )
    with pytest.raises(ModelFileError, match="class_prior_ must be finite"):
        bayesgen.load(damaged)
