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
