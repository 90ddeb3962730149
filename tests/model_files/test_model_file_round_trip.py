"""Save -> load gives the same model: bit-for-bit predictions, draws and partial_fit."""

import jax
import numpy as np
import pandas as pd
import pytest
from sklearn.base import BaseEstimator
from sklearn.datasets import load_digits, load_iris, load_wine

import bayesgen

IRIS_X, IRIS_Y = load_iris(return_X_y=True)
WINE_X, WINE_Y = load_wine(return_X_y=True)


def _split(X, y, seed=0):
    """Two batches: most rows to fit, the rest for a later partial_fit."""
    order = np.random.default_rng(seed).permutation(len(y))
    first, second = order[: int(0.8 * len(y))], order[int(0.8 * len(y)) :]
    take = (lambda rows: X.iloc[rows]) if isinstance(X, pd.DataFrame) else (lambda rows: X[rows])
    return (take(first), y[first]), (take(second), y[second])


def _counts(seed=0, n=120, n_features=6):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    rates = rng.gamma(2.0, 1.0, (3, n_features))
    return rng.poisson(rates[y]), y


def _missing_iris():
    X = IRIS_X.copy()
    rng = np.random.default_rng(1)
    X[rng.random(X.shape) < 0.1] = np.nan
    return X, IRIS_Y


def _semi_supervised_iris():
    y = IRIS_Y.copy()
    y[np.random.default_rng(2).random(len(y)) < 0.5] = -1
    return IRIS_X, y


def _categories():
    rng = np.random.default_rng(3)
    y = rng.choice(["spam", "ham"], 80).astype(object)
    X = np.empty((80, 3), dtype=object)
    X[:, 0] = rng.choice(["red", "green", "blue"], 80)
    X[:, 1] = rng.choice([1, 2.5, True, "x"], 80)  # mixed hashable categories
    X[:, 2] = np.where(y == "spam", rng.choice(["a", "b"], 80), rng.choice(["b", "c"], 80))
    return X, y


def _frame():
    rng = np.random.default_rng(4)
    y = rng.integers(0, 2, 90)
    frame = pd.DataFrame(
        {
            "height": rng.normal(170 + 5 * y, 7),
            "smoker": rng.random(90) < 0.2 + 0.4 * y,
            "visits": rng.poisson(1 + 2 * y),
            "city": rng.choice(["rome", "oslo", "lima"], 90),
        }
    )
    return frame, y


def _digits_float32():
    X, y = load_digits(return_X_y=True)
    return X[:400].astype(np.float32), y[:400]


# name -> (estimator, data); the estimator is fitted on the first batch, the second is
# for partial_fit.
CASES = {
    "GaussianDA": (lambda: bayesgen.GaussianDA(estimate="map"), lambda: (IRIS_X, IRIS_Y)),
    "QDA": (lambda: bayesgen.QDA(), lambda: (WINE_X, WINE_Y)),
    "QDA-rda": (lambda: bayesgen.QDA(reg_alpha=0.5, reg_gamma=0.3), lambda: (WINE_X, WINE_Y)),
    "QDA-ledoit-wolf": (lambda: bayesgen.QDA(shrinkage="ledoit-wolf"), lambda: (IRIS_X, IRIS_Y)),
    "LDA-shrinkage": (lambda: bayesgen.LDA(shrinkage=0.2), lambda: (WINE_X, WINE_Y)),
    "LDA-n_components": (lambda: bayesgen.LDA(n_components=1), lambda: (IRIS_X, IRIS_Y)),
    "GaussianNB-float32": (lambda: bayesgen.GaussianNB(), _digits_float32),
    "GaussianDA-missing": (lambda: bayesgen.GaussianDA(), _missing_iris),
    "GaussianDA-semi-supervised": (
        lambda: bayesgen.GaussianDA(random_state=0),
        _semi_supervised_iris,
    ),
    "BernoulliNB": (lambda: bayesgen.BernoulliNB(), lambda: ((_counts()[0] > 1), _counts()[1])),
    "MultinomialNB": (lambda: bayesgen.MultinomialNB(alpha=0.5), _counts),
    "PoissonNB": (lambda: bayesgen.PoissonNB(), _counts),
    "CategoricalNB": (lambda: bayesgen.CategoricalNB(), _categories),
    "MixedNB": (lambda: bayesgen.MixedNB(), _frame),
    "MixedNB-array": (
        lambda: bayesgen.MixedNB(features={0: "gaussian", 1: "poisson", 3: "categorical"}),
        lambda: (np.column_stack([IRIS_X[:, 0], _counts(n=150, n_features=3)[0]]), IRIS_Y),
    ),
    "MixtureDA": (
        lambda: bayesgen.MixtureDA(n_components=2, random_state=0),
        lambda: (IRIS_X, IRIS_Y),
    ),
    "KernelDensityDA": (lambda: bayesgen.KernelDensityDA(), lambda: (IRIS_X, IRIS_Y)),
}
# A mixture's statistics are not sums over rows: a second batch is refused.
REFUSES_PARTIAL_FIT = {"MixtureDA"}


def assert_same(a, b, where="value"):
    """Equal values of the same type, arrays bit for bit, estimators by type and state."""
    assert type(a) is type(b), f"{where}: {type(a)} != {type(b)}"
    if isinstance(a, np.ndarray):
        assert a.dtype == b.dtype, f"{where}: {a.dtype} != {b.dtype}"
        np.testing.assert_array_equal(a, b, err_msg=where)
    elif isinstance(a, pd.DataFrame):
        pd.testing.assert_frame_equal(a, b)
    elif isinstance(a, BaseEstimator):
        assert_same(vars(a), vars(b), f"{where}.__dict__")
    elif isinstance(a, dict):
        assert list(a) == list(b), f"{where}: keys {list(a)} != {list(b)}"
        for key in a:
            assert_same(a[key], b[key], f"{where}[{key!r}]")
    elif isinstance(a, list | tuple):
        assert len(a) == len(b), f"{where}: length {len(a)} != {len(b)}"
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            assert_same(x, y, f"{where}[{i}]")
    elif isinstance(a, float) and np.isnan(a):
        assert np.isnan(b), where
    else:
        assert a == b, f"{where}: {a!r} != {b!r}"


def _round_trip(model, tmp_path, name="model.npz"):
    path = tmp_path / name
    model.save(path)
    return bayesgen.load(path)


def _assert_predicts_alike(model, loaded, X):
    for method in ("predict_proba", "predict_joint_log_proba", "score_samples", "predict"):
        expected, found = getattr(model, method)(X), getattr(loaded, method)(X)
        assert found.dtype == expected.dtype, method
        np.testing.assert_array_equal(found, expected, err_msg=method)
    for expected, found in zip(
        model.sample(7, random_state=0), loaded.sample(7, random_state=0), strict=True
    ):
        assert_same(found, expected, "sample")


@pytest.mark.parametrize("case", CASES)
def test_round_trip_predicts_bit_for_bit_and_continues(case, tmp_path):
    make, data = CASES[case]
    X, y = data()
    (X_first, y_first), (X_second, y_second) = _split(X, y)
    model = make().fit(X_first, y_first)
    loaded = _round_trip(model, tmp_path)

    assert type(loaded) is type(model)
    assert_same(loaded.get_params(), model.get_params(), "get_params()")
    assert_same(vars(loaded), vars(model), "state")
    _assert_predicts_alike(model, loaded, X)

    # partial_fit on the loaded model continues exactly where the saved one stood.
    X_more = X_second.iloc[:20] if isinstance(X_second, pd.DataFrame) else X_second[:20]
    y_more = y_second[:20]
    if case == "GaussianDA-missing":  # partial_fit takes complete rows only
        complete = ~np.isnan(X_more).any(axis=1)
        X_more, y_more = X_more[complete], y_more[complete]
    if case == "GaussianDA-semi-supervised":  # and labelled rows only
        X_more, y_more = X_more[y_more != -1], y_more[y_more != -1]
    if case in REFUSES_PARTIAL_FIT:
        with pytest.raises(ValueError) as refused:
            model.partial_fit(X_more, y_more)
        with pytest.raises(ValueError) as also_refused:
            loaded.partial_fit(X_more, y_more)
        assert str(also_refused.value) == str(refused.value)
        return
    model.partial_fit(X_more, y_more)
    loaded.partial_fit(X_more, y_more)
    assert_same(vars(loaded), vars(model), "state after partial_fit")
    _assert_predicts_alike(model, loaded, X)


def test_partial_fit_built_model_round_trips(tmp_path):
    """A model built chunk by chunk, saved between chunks, equals the unbroken one."""
    X, y = WINE_X, WINE_Y
    chunks = np.array_split(np.random.default_rng(5).permutation(len(y)), 3)
    unbroken = bayesgen.QDA(shrinkage="ledoit-wolf")
    resumed = bayesgen.QDA(shrinkage="ledoit-wolf")
    for i, rows in enumerate(chunks):
        unbroken.partial_fit(X[rows], y[rows], classes=np.unique(y))
        resumed.partial_fit(X[rows], y[rows], classes=np.unique(y))
        resumed = _round_trip(resumed, tmp_path, f"chunk{i}.npz")
    assert_same(vars(resumed), vars(unbroken), "state")
    _assert_predicts_alike(unbroken, resumed, X)


@pytest.mark.parametrize(
    "model",
    [
        bayesgen.LDA(shrinkage=0.5, reg_covar=0),
        bayesgen.QDA(reg_alpha=0.5, reg_gamma=0.5, reg_covar=0),
    ],
    ids=["LDA-shrinkage", "QDA-rda"],
)
def test_a_covariance_only_regularisation_keeps_invertible_round_trips(model, tmp_path):
    """More features than rows and no ridge: the plain estimate is singular, the regularised
    one is not. Loading checks the value's layout, not the family's own estimate, which
    refused such a file."""
    rng = np.random.default_rng(3)
    X = rng.normal(size=(10, 12)) + np.repeat([0.0, 2.0], 5)[:, None]
    y = np.repeat([0, 1], 5)
    model.fit(X, y)
    loaded = _round_trip(model, tmp_path)
    _assert_predicts_alike(model, loaded, X)


def test_categorical_partial_fit_with_new_categories_after_loading(tmp_path):
    """A category the saved model never saw extends the loaded model's counts as the original's."""
    X, y = _categories()
    model = bayesgen.CategoricalNB().fit(X[:60], y[:60])
    loaded = _round_trip(model, tmp_path)
    X_new = X[60:].copy()
    X_new[:5, 0] = "violet"
    model.partial_fit(X_new, y[60:])
    loaded.partial_fit(X_new, y[60:])
    assert "violet" in list(loaded.categories_[0])
    assert_same(vars(loaded), vars(model), "state")
    _assert_predicts_alike(model, loaded, X_new)


def test_rdacv_round_trip(tmp_path):
    model = bayesgen.RDACV(
        bayesgen.GaussianDA(reg_covar=1e-4), reg_alphas=[0.0, 0.5, 1.0], reg_gammas=(0.0, 1.0)
    ).fit(WINE_X, WINE_Y)
    loaded = _round_trip(model, tmp_path)

    assert_same(loaded.get_params(), model.get_params(), "get_params()")
    assert_same(loaded.cv_results_, model.cv_results_, "cv_results_")
    assert loaded.best_params_ == model.best_params_
    assert type(loaded.best_estimator_) is bayesgen.GaussianDA
    for method in ("predict_proba", "predict_log_proba", "decision_function", "predict"):
        np.testing.assert_array_equal(
            getattr(loaded, method)(WINE_X), getattr(model, method)(WINE_X), err_msg=method
        )
    np.testing.assert_array_equal(loaded.score_samples(WINE_X), model.score_samples(WINE_X))
    for expected, found in zip(
        model.sample(5, random_state=0), loaded.sample(5, random_state=0), strict=True
    ):
        np.testing.assert_array_equal(found, expected)


def test_string_labels_and_feature_names_round_trip(tmp_path):
    """classes_ of strings and feature_names_in_ (object array) come back as they were."""
    frame = pd.DataFrame(IRIS_X, columns=["sl", "sw", "pl", "pw"])
    labels = np.array(["setosa", "versicolor", "virginica"])[IRIS_Y]
    model = bayesgen.LDA().fit(frame, labels)
    loaded = _round_trip(model, tmp_path)
    assert_same(loaded.feature_names_in_, model.feature_names_in_, "feature_names_in_")
    assert loaded.classes_.dtype == model.classes_.dtype
    np.testing.assert_array_equal(loaded.predict(frame), model.predict(frame))
    with pytest.raises(ValueError, match="feature names"):
        loaded.predict(frame.rename(columns={"sl": "other"}))


def test_adapted_class_prior_round_trips(tmp_path):
    """A label-shift copy keeps its fixed prior and its PriorAdaptation record."""
    model = bayesgen.GaussianNB().fit(IRIS_X, IRIS_Y)
    adapted = model.adapt_class_prior(IRIS_X[IRIS_Y == 0][:30])
    loaded = _round_trip(adapted, tmp_path)
    assert_same(loaded.class_prior_adaptation_, adapted.class_prior_adaptation_, "adaptation")
    assert_same(loaded.get_params(), adapted.get_params(), "get_params()")
    np.testing.assert_array_equal(loaded.predict_proba(IRIS_X), adapted.predict_proba(IRIS_X))


def test_shared_arrays_stay_shared(tmp_path):
    """An array two attributes hold is stored once and comes back as one array."""
    model = bayesgen.MixtureDA(n_components=1).fit(IRIS_X, IRIS_Y)
    # The prior EM held is the components' resolved prior: one array, two places.
    assert model.joint_.frozen[1].scale is model.joint_.feature_prior.leaves.scale
    loaded = _round_trip(model, tmp_path)
    assert loaded.joint_.frozen[1].scale is loaded.joint_.feature_prior.leaves.scale


def test_unfitted_estimator_round_trips_as_unfitted(tmp_path):
    model = bayesgen.QDA(reg_alpha=0.3, priors=np.array([0.2, 0.3, 0.5]))
    model.save(tmp_path / "unfitted.npz")
    info = bayesgen.model_file_info(tmp_path / "unfitted.npz")
    assert info["fitted"] is False
    loaded = bayesgen.load(tmp_path / "unfitted.npz")
    assert_same(loaded.get_params(), model.get_params(), "get_params()")
    assert vars(loaded).keys() == vars(model).keys()
    refit, fitted = loaded.fit(IRIS_X, IRIS_Y), model.fit(IRIS_X, IRIS_Y)
    np.testing.assert_array_equal(refit.predict_proba(IRIS_X), fitted.predict_proba(IRIS_X))


def test_jax_arrays_are_stored_as_numpy(tmp_path):
    model = bayesgen.GaussianNB().fit(IRIS_X, IRIS_Y)
    model.extra_ = jax.numpy.arange(3.0)
    loaded = _round_trip(model, tmp_path)
    assert type(loaded.extra_) is np.ndarray
    np.testing.assert_array_equal(loaded.extra_, np.asarray(model.extra_))


def _without_field(path, field: str, out):
    """A copy of the model file at ``path`` whose FittedJoint lacks ``field``."""
    import json
    import zipfile

    with zipfile.ZipFile(path) as source, zipfile.ZipFile(out, "w") as target:
        for item in source.infolist():
            data = source.read(item.filename)
            if item.filename == "header.json":

                def drop(node):
                    if isinstance(node, dict):
                        if node.get("name") == "FittedJoint":
                            node["fields"].pop(field)
                        for value in node.values():
                            drop(value)
                    elif isinstance(node, list):
                        for value in node:
                            drop(value)

                header = json.loads(data)
                drop(header)
                data = json.dumps(header).encode()
            target.writestr(item, data)
    return out


def test_a_value_written_before_its_frozen_field_loads_and_a_missing_field_is_refused(tmp_path):
    """FittedJoint's ``frozen`` (what an EM held fixed) came later, with a default: a file
    without it loads as a closed-form fit; a field without a default must be there."""
    model = bayesgen.GaussianNB().fit(IRIS_X, IRIS_Y)
    model.save(tmp_path / "model.bgm")
    older = _without_field(tmp_path / "model.bgm", "frozen", tmp_path / "older.bgm")
    loaded = bayesgen.load(older)
    assert loaded.joint_.frozen is None
    _assert_predicts_alike(model, loaded, IRIS_X)
    broken = _without_field(tmp_path / "model.bgm", "params", tmp_path / "broken.bgm")
    with pytest.raises(bayesgen.ModelFileError, match="FittedJoint has fields"):
        bayesgen.load(broken)
