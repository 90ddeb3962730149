"""``bayesgen sample --given COLUMN=VALUE``: conditional draws from the command line."""

import io

import numpy as np
import pandas as pd

import bayesgen
from tests.cli.conftest import FEATURES, read


def test_given_values_are_in_every_row_and_match_the_library(invoke, fitted_qda, tmp_path):
    out = tmp_path / "given.csv"
    result = invoke(
        "sample",
        fitted_qda,
        "-n",
        "40",
        "--given",
        "petal length (cm)=6.5",
        "--seed",
        "3",
        "--out",
        out,
    )
    assert result.exit_code == 0, result.stderr
    table = read(out)
    assert (table["petal length (cm)"] == 6.5).all()
    model = bayesgen.load(fitted_qda)
    X, y = model.sample(40, given={"petal length (cm)": 6.5}, random_state=3)
    np.testing.assert_allclose(table[FEATURES].to_numpy(), np.asarray(X, dtype=float))
    assert table["species"].tolist() == list(y)
    assert set(y) <= {"virginica", "versicolor"}  # a petal that long is no setosa's


def test_given_and_class_together(invoke, fitted_qda):
    result = invoke(
        "sample",
        fitted_qda,
        "-n",
        "5",
        "--class",
        "versicolor",
        "--given",
        "sepal width (cm)=2.0",
        "--given",
        "petal width (cm)=1.1",
    )
    assert result.exit_code == 0, result.stderr
    table = pd.read_csv(io.StringIO(result.stdout))
    assert (table["species"] == "versicolor").all()
    assert (table["sepal width (cm)"] == 2.0).all() and (table["petal width (cm)"] == 1.1).all()


def _one_line_error(result, *fragments):
    assert result.exit_code == 2, (result.stdout, result.stderr)
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and "Traceback" not in result.output, result.stderr
    for fragment in fragments:
        assert fragment in lines[0], lines[0]


def test_bad_given_options_are_one_line(invoke, fitted_qda):
    _one_line_error(invoke("sample", fitted_qda, "-n", "2", "--given", "petal"), "COLUMN=VALUE")
    _one_line_error(
        invoke("sample", fitted_qda, "-n", "2", "--given", "stem=1"), "no column 'stem'"
    )
    _one_line_error(
        invoke("sample", fitted_qda, "-n", "2", "--given", "petal width (cm)=wide"),
        "takes numbers",
    )
    _one_line_error(
        invoke("sample", fitted_qda, "-n", "2", "--given", "petal width (cm)=inf"), "sample: given:"
    )


def test_support_training_keeps_every_column_in_its_training_range(invoke, fitted_qda, tmp_path):
    out = tmp_path / "within.csv"
    result = invoke("sample", fitted_qda, "-n", "300", "--support", "training", "--out", out)
    assert result.exit_code == 0, result.stderr
    table = read(out)
    model = bayesgen.load(fitted_qda)
    values = table[FEATURES].to_numpy()
    assert np.all(values >= model.data_min_) and np.all(values <= model.data_max_)
    _one_line_error(
        invoke(
            "sample",
            fitted_qda,
            "-n",
            "2",
            "--support",
            "training",
            "--given",
            "petal width (cm)=9",
        ),
        "outside that column's training range",
    )


def test_text_categories_and_booleans_are_read_as_the_columns_hold_them(invoke, tmp_path):
    rng = np.random.default_rng(0)
    n = 200
    label = rng.choice(["yes", "no"], n)
    table = pd.DataFrame(
        {
            "grade": np.where(label == "yes", rng.choice(["1", "A"], n), rng.choice(["A", "B"], n)),
            "flag": rng.uniform(size=n) < np.where(label == "yes", 0.8, 0.3),
            "size": rng.normal(5.0, 1.0, n),
            "label": label,
        }
    )
    data, model_path = tmp_path / "t.csv", tmp_path / "m.bgm"
    table.to_csv(data, index=False)
    fitted = invoke("fit", data, "--target", "label", "--model", "mixed-nb", "--out", model_path)
    assert fitted.exit_code == 0, fitted.stderr
    out = tmp_path / "given.csv"
    result = invoke(
        "sample",
        model_path,
        "-n",
        "300",
        "--given",
        "grade=1",
        "--given",
        "flag=true",
        "--seed",
        "1",
        "--out",
        out,
    )
    assert result.exit_code == 0, result.stderr
    drawn = read(out)
    model = bayesgen.load(model_path)
    X, y = model.sample(300, given={"grade": "1", "flag": True}, random_state=1)
    assert (drawn["grade"].astype(str) == "1").all() and drawn["flag"].all()
    assert drawn["label"].tolist() == list(y)
    assert np.mean(y == "yes") > 0.95  # grade "1" was seen only with "yes" (smoothed)
    _one_line_error(
        invoke("sample", model_path, "-n", "2", "--given", "flag=maybe"), "true or false"
    )
