"""``bayesgen predict --reject C``: Chow's rule of the saved model, the abstain label in the
``predicted`` column, and clear errors."""

import numpy as np
import pytest

import bayesgen
from tests.cli.conftest import FEATURES, read


@pytest.fixture
def fitted(fitted_qda):
    return fitted_qda, bayesgen.load(fitted_qda)


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_abstained_rows_get_a_blank_for_string_classes(
    invoke, tmp_path, fitted, iris_csv, iris_frame, suffix
):
    model_path, model = fitted
    out = tmp_path / f"predictions{suffix}"
    assert invoke("predict", model_path, iris_csv, "--reject", 0.01, "--out", out).exit_code == 0
    predicted = read(out)["predicted"]
    proba = model.predict_proba(iris_frame[FEATURES])
    accepted = proba.max(axis=1) >= 0.99
    assert 0 < np.sum(~accepted) < len(accepted)
    assert predicted[~accepted].isna().all()
    np.testing.assert_array_equal(
        predicted[accepted], model.classes_[proba.argmax(axis=1)][accepted]
    )


def test_a_chosen_abstain_label_and_numeric_classes(invoke, tmp_path, iris_frame):
    data = tmp_path / "iris.csv"
    iris_frame.assign(
        species=iris_frame["species"].map({"setosa": 0, "versicolor": 1, "virginica": 2})
    ).to_csv(data, index=False)
    model_path = tmp_path / "qda.bgm"
    assert invoke("fit", data, "--target", "species", "--out", model_path).exit_code == 0
    model = bayesgen.load(model_path)
    expected = model.predict(iris_frame[FEATURES], reject=0.01)
    assert set(expected) == {-1, 0, 1, 2}
    result = invoke("predict", model_path, data, "--reject", 0.01)
    assert result.exit_code == 0, result.stderr
    assert result.stdout.splitlines()[1:] == [str(label) for label in expected]
    result = invoke("predict", model_path, data, "--reject", 0.01, "--abstain-label", "unsure")
    assert result.stdout.splitlines()[1:] == [
        "unsure" if label == -1 else str(label) for label in expected
    ]


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["--reject", "1"], "Invalid value for '--reject': 1.0 is not in the range 0<x<1"),
        (["--reject", "nan"], "reject must be a number in (0, 1)"),
        (["--reject", "x"], "Invalid value for '--reject'"),
        (["--reject", "0.1", "--abstain-label", "setosa"], "--abstain-label 'setosa' is a class"),
        (["--abstain-label", "?"], "--abstain-label labels the rows --reject abstains on"),
    ],
)
def test_bad_options(invoke, fitted, iris_csv, arguments, message):
    model_path, _ = fitted
    result = invoke("predict", model_path, iris_csv, *arguments)
    assert result.exit_code == 2
    assert message in result.stderr and "Traceback" not in result.stderr


def test_help_states_the_rule(invoke):
    text = " ".join(invoke("predict", "--help").stdout.split())
    assert "Abstain where the most probable class has p(class | x) < 1 - C (Chow's rule" in text
