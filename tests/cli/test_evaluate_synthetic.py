"""``bayesgen evaluate-synthetic``: the report printed, written as a table or JSON, bad input."""

import json

import numpy as np
import pandas as pd
import pytest
from threadpoolctl import threadpool_limits

from bayesgen.synthetic import quality_report
from tests.cli.conftest import read


@pytest.fixture(autouse=True, scope="module")
def _one_openmp_thread():
    # The gradient-boosted classifiers' OpenMP threads spin on two shared cores.
    with threadpool_limits(1, user_api="openmp"):
        yield


@pytest.fixture
def tables(tmp_path, iris_frame):
    """Iris split into real and holdout, and a synthetic table: real with noise."""
    rng = np.random.default_rng(0)
    real = iris_frame.iloc[::2].reset_index(drop=True)
    holdout = iris_frame.iloc[1::2].reset_index(drop=True)
    synthetic = real.copy()
    numeric = synthetic.columns[:4]
    synthetic[numeric] = synthetic[numeric] + rng.normal(0, 0.2, (len(real), 4))
    paths = {}
    for name, table in {"real": real, "holdout": holdout, "synthetic": synthetic}.items():
        paths[name] = tmp_path / f"{name}.csv"
        table.to_csv(paths[name], index=False)
    return paths


def test_prints_the_report_and_writes_the_figures(invoke, tables, tmp_path):
    out = tmp_path / "report.csv"
    args = [tables["real"], tables["synthetic"], "--target", "species"]
    result = invoke("evaluate-synthetic", *args, "--holdout", tables["holdout"], "--out", out)
    assert result.exit_code == 0, result.stderr
    expected = quality_report(
        pd.read_csv(tables["real"]),
        pd.read_csv(tables["synthetic"]),
        target="species",
        holdout=pd.read_csv(tables["holdout"]),
        random_state=0,
    )
    assert result.stdout.strip() == str(expected)
    written = read(out)
    pd.testing.assert_frame_equal(written, expected.to_frame())


def test_writes_json(invoke, tables, tmp_path):
    out = tmp_path / "report.json"
    result = invoke("evaluate-synthetic", tables["real"], tables["synthetic"], "--out", out)
    assert result.exit_code == 0, result.stderr
    figures = json.loads(out.read_text())
    assert figures["holdout"] == "split" and figures["utility"] is None
    assert set(figures["marginals"]) == {*pd.read_csv(tables["real"]).columns}


def test_a_category_outside_the_support_is_one_line_naming_the_column(invoke, tables, tmp_path):
    synthetic = pd.read_csv(tables["synthetic"])
    synthetic.loc[0, "species"] = "unicorn"
    path = tmp_path / "bad.csv"
    synthetic.to_csv(path, index=False)
    result = invoke("evaluate-synthetic", tables["real"], path, "--target", "species")
    assert result.exit_code == 2
    assert "column 'species'" in result.stderr and "'unicorn'" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_a_missing_target_and_a_bad_output_suffix(invoke, tables, tmp_path):
    result = invoke("evaluate-synthetic", tables["real"], tables["synthetic"], "--target", "y")
    assert result.exit_code == 2 and "target column 'y' is not in the real table" in result.stderr
    out = tmp_path / "report.txt"
    result = invoke("evaluate-synthetic", tables["real"], tables["synthetic"], "--out", out)
    assert result.exit_code == 2 and "suffix '.txt'" in result.stderr
    assert not out.exists()
