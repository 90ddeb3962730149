"""``unlabeled_marker``: which label marks an unlabelled row, and the warning when -1 is
probably a class."""

import warnings

import numpy as np
import pytest
import sklearn.naive_bayes
from sklearn.base import clone
from sklearn.datasets import load_iris, load_wine

import bayesgen as bg
from bayesgen.inference.semi_supervised import UnlabeledMarkerWarning, unlabeled_rows

PUBLIC_ESTIMATORS = [
    bg.GaussianDA,
    bg.LDA,
    bg.QDA,
    bg.GaussianNB,
    bg.BernoulliNB,
    bg.MultinomialNB,
    bg.PoissonNB,
    bg.CategoricalNB,
    bg.ExponentialNB,
    bg.MixedNB,
    bg.MixtureDA,
    bg.KernelDensityDA,
    bg.ComplementNB,
]


@pytest.fixture(scope="module")
def wine():
    X, y = load_wine(return_X_y=True)
    return X, y


def _hide(y, every=3):
    """Labels with every ``every``-th row replaced by -1."""
    hidden = np.asarray(y).copy()
    hidden[::every] = -1
    return hidden


@pytest.mark.parametrize("estimator", PUBLIC_ESTIMATORS, ids=lambda cls: cls.__name__)
def test_every_estimator_has_the_marker_parameter_defaulting_to_minus_one(estimator):
    assert estimator().get_params()["unlabeled_marker"] == -1
    assert clone(estimator(unlabeled_marker="?")).unlabeled_marker == "?"


def test_rdacv_takes_the_marker_of_its_estimator(wine):
    X, y = wine
    minus_one_class = np.where(y == 2, -1, y)
    with pytest.raises(ValueError, match=r"unlabeled_marker=-1\); RDACV scores labelled"):
        bg.RDACV(reg_alphas=[1.0], reg_gammas=[1.0], cv=3).fit(X, minus_one_class)
    model = bg.RDACV(bg.GaussianDA(unlabeled_marker=None), reg_alphas=[1.0], reg_gammas=[1.0])
    assert model.fit(X, minus_one_class).classes_.tolist() == [-1, 0, 1]


def test_default_marker_makes_minus_one_rows_unlabelled(wine):
    X, y = wine
    hidden = _hide(y)
    model = bg.GaussianNB().fit(X, hidden)
    assert model.classes_.tolist() == [0, 1, 2]
    assert model.fitted_with_unlabeled_
    # The same rows marked by a string marker give the same EM fit.
    named = np.array(["a", "b", "c"], dtype=object)[y]
    named[::3] = "?"
    by_name = bg.GaussianNB(unlabeled_marker="?").fit(X, named)
    np.testing.assert_allclose(
        by_name.predict_proba(X), model.predict_proba(X), rtol=1e-10, atol=1e-12
    )


def test_marker_none_makes_minus_one_an_ordinary_class(wine):
    X, y = wine
    minus_one_class = np.where(y == 0, -1, y)
    ours = bg.GaussianNB(unlabeled_marker=None).fit(X, minus_one_class)
    renamed = bg.GaussianNB().fit(X, y)  # class 0 sorts first, as -1 does
    assert ours.classes_.tolist() == [-1, 1, 2]
    assert not ours.fitted_with_unlabeled_
    np.testing.assert_array_equal(ours.predict_proba(X), renamed.predict_proba(X))
    np.testing.assert_array_equal(ours.class_count_, renamed.class_count_)


def test_marker_none_still_reads_missing_labels_as_unlabelled(wine):
    X, y = wine
    labels = y.astype(object)
    labels[::4] = None
    model = bg.GaussianNB(unlabeled_marker=None).fit(X, labels)
    assert model.classes_.tolist() == [0, 1, 2]
    assert model.fitted_with_unlabeled_


def test_another_number_can_be_the_marker(wine):
    X, y = wine
    shifted = y + 1  # classes 1, 2, 3; 0 marks the unlabelled rows
    shifted[::3] = 0
    by_zero = bg.GaussianNB(unlabeled_marker=0).fit(X, shifted)
    by_default = bg.GaussianNB().fit(X, _hide(y))
    assert by_zero.classes_.tolist() == [1, 2, 3]
    np.testing.assert_allclose(
        by_zero.predict_proba(X), by_default.predict_proba(X), rtol=1e-10, atol=1e-12
    )


def test_a_number_marks_only_numbers_and_a_string_only_strings():
    mixed = np.array([-1, "-1", "?", None, 2], dtype=object)
    assert unlabeled_rows(mixed, -1).tolist() == [True, False, False, True, False]
    assert unlabeled_rows(mixed, "-1").tolist() == [False, True, False, True, False]
    assert unlabeled_rows(mixed, None).tolist() == [False, False, False, True, False]
    assert unlabeled_rows(np.array(["-1", "a"]), -1).tolist() == [False, False]
    assert unlabeled_rows(np.array([-1.0, np.nan, 1.0]), None).tolist() == [False, True, False]


@pytest.mark.parametrize(
    "labelled",
    [[1, 2], [-2, 0, 1], [1, 3, 5]],
    ids=["plus-one-without-zero", "below-minus-one", "odd-codes"],
)
def test_warns_when_minus_one_looks_like_a_class(wine, labelled):
    X, _ = wine
    rng = np.random.default_rng(0)
    y = np.array(labelled)[rng.integers(0, len(labelled), X.shape[0])]
    y[::5] = -1
    with pytest.warns(UnlabeledMarkerWarning, match="pass unlabeled_marker=None"):
        bg.GaussianNB().fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        as_class = bg.GaussianNB(unlabeled_marker=None).fit(X, y)
    assert as_class.classes_.tolist() == sorted({-1, *labelled})


def test_warns_on_iris_coded_minus_one_zero_one():
    X, y = load_iris(return_X_y=True)
    with pytest.warns(UnlabeledMarkerWarning, match=r"labelled classes \[0, 1\]"):
        model = bg.GaussianNB().fit(X, y - 1)
    assert model.classes_.tolist() == [0, 1]  # what the default reading does
    assert bg.GaussianNB(unlabeled_marker=None).fit(X, y - 1).classes_.tolist() == [-1, 0, 1]


def test_no_warning_when_a_third_of_iris_is_hidden_at_random():
    """scikit-learn's semi-supervised example: 30 % of iris unlabelled at random, more -1
    rows than any class keeps."""
    X, y = load_iris(return_X_y=True)
    hidden = y.copy()
    hidden[np.random.RandomState(42).rand(y.size) < 0.3] = -1
    assert np.sum(hidden == -1) > np.bincount(hidden[hidden >= 0]).max()
    with warnings.catch_warnings():
        warnings.simplefilter("error", UnlabeledMarkerWarning)
        bg.GaussianNB().fit(X, hidden)


def test_no_warning_for_the_scikit_learn_convention(wine):
    X, y = wine
    with warnings.catch_warnings():
        warnings.simplefilter("error", UnlabeledMarkerWarning)
        bg.GaussianNB().fit(X, _hide(y))  # classes 0, 1, 2 and -1: the usual reading
        bg.GaussianNB(unlabeled_marker=-1.0).fit(X, _hide(y).astype(float))
        named = np.array(["a", "b", "c"], dtype=object)[y]
        named[::3] = -1  # strings with a numeric -1: -1 can't be one of the classes
        bg.GaussianNB().fit(X, named)


def test_one_labelled_class_error_names_the_marker(wine):
    X, _ = wine
    y = np.full(X.shape[0], -1)
    y[:5] = 1
    with pytest.raises(ValueError, match=r"unlabeled_marker=-1 is a class, pass"):
        bg.GaussianNB().fit(X, y)


@pytest.mark.parametrize("marker", [True, np.nan, [1], {"a": 1}])
def test_bad_marker_is_an_error_naming_it(wine, marker):
    X, y = wine
    with pytest.raises(ValueError, match="unlabeled_marker must be a number, a string or None"):
        bg.GaussianNB(unlabeled_marker=marker).fit(X, _hide(y))


def test_complement_nb_refusal_names_the_marker_and_none_lifts_it():
    rng = np.random.default_rng(1)
    X = rng.poisson(3.0, (60, 5))
    y = np.repeat([-1, 1], 30)
    with pytest.raises(ValueError, match=r"unlabeled_marker=-1\)"):
        bg.ComplementNB().fit(X, y)
    theirs = sklearn.naive_bayes.ComplementNB().fit(X, y)
    ours = bg.ComplementNB(unlabeled_marker=None).fit(X, y)
    np.testing.assert_array_equal(ours.predict(X), theirs.predict(X))


def test_marker_survives_a_model_file(tmp_path, wine):
    X, y = wine
    named = np.array(["a", "b", "c"], dtype=object)[y]
    named[::3] = "?"
    model = bg.GaussianNB(unlabeled_marker="?").fit(X, named)
    model.save(tmp_path / "model.bgm")
    loaded = bg.load(tmp_path / "model.bgm")
    assert loaded.get_params()["unlabeled_marker"] == "?"
    np.testing.assert_array_equal(loaded.predict_proba(X), model.predict_proba(X))


def test_model_files_from_before_the_parameter_read_minus_one():
    from pathlib import Path

    legacy = sorted((Path(__file__).parents[1] / "model_files" / "legacy").glob("*.bgm"))
    assert legacy
    for path in legacy:
        model = bg.load(path)
        if "unlabeled_marker" in type(model)._get_param_names():
            assert model.get_params()["unlabeled_marker"] == -1, path.name


@pytest.mark.parametrize(
    "estimator",
    [cls for cls in PUBLIC_ESTIMATORS if cls is not bg.ComplementNB],
    ids=lambda cls: cls.__name__,
)
def test_every_estimator_reads_the_marker(estimator):
    """With the default, -1 rows are unlabelled (EM); with None, -1 is a class."""
    rng = np.random.default_rng(2)
    y = np.repeat([0, 1, 2], 40)
    X = rng.poisson(np.array([2.0, 5.0, 9.0])[y, None] * np.ones(3)) + 1
    if estimator is bg.BernoulliNB:
        X = (X > 5).astype(int)
    minus_one_class = np.where(y == 0, -1, y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnlabeledMarkerWarning)  # 1, 2 and -1: it may warn
        semi = estimator().fit(X, minus_one_class)
    assert semi.classes_.tolist() == [1, 2]
    assert semi.fitted_with_unlabeled_
    full = estimator(unlabeled_marker=None).fit(X, minus_one_class)
    assert full.classes_.tolist() == [-1, 1, 2]
    assert not full.fitted_with_unlabeled_
    assert set(full.predict(X)) <= {-1, 1, 2}
