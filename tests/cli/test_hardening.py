"""The command line never loses a file and ends every mistake in one line (issue 19)."""

import os
import signal
import subprocess
import sys
import time

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import load_iris

import bayesgen
from bayesgen.inference import sampling
from tests.cli.conftest import read


def _one_line_error(result, *fragments):
    assert result.exit_code == 2, (result.stdout, result.stderr)
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("Error: ")
    for fragment in fragments:
        assert fragment in lines[0], lines[0]
    assert "Traceback" not in result.output


@pytest.fixture
def model_path(invoke, iris_csv, tmp_path):
    path = tmp_path / "model.bgm"
    assert invoke("fit", iris_csv, "--target", "species", "--out", path).exit_code == 0
    return path


# ------------------------------------------------------------------ outputs over inputs


def test_fit_refuses_to_write_over_its_table(invoke, iris_csv):
    before = iris_csv.read_bytes()
    result = invoke("fit", iris_csv, "--target", "species", "--out", iris_csv)
    _one_line_error(result, f"--out '{iris_csv}' is the input DATA '{iris_csv}'")
    assert iris_csv.read_bytes() == before


@pytest.mark.parametrize("link", ["same", "symbolic", "hard"])
@pytest.mark.parametrize("command", ["predict", "impute"])
def test_predict_and_impute_refuse_links_to_their_inputs(
    invoke, iris_csv, model_path, tmp_path, link, command
):
    out = iris_csv
    if link == "symbolic":
        out = tmp_path / "link.csv"
        out.symlink_to(iris_csv)
    elif link == "hard":
        out = tmp_path / "hard.csv"
        os.link(iris_csv, out)
    before = iris_csv.read_bytes()
    result = invoke(command, model_path, iris_csv, "--out", out)
    _one_line_error(result, f"--out '{out}' is the input DATA '{iris_csv}'")
    assert iris_csv.read_bytes() == before


def test_sample_refuses_to_write_over_its_model(invoke, model_path):
    result = invoke("sample", model_path, "-n", "3", "--out", model_path.with_suffix(".csv"))
    assert result.exit_code == 0
    link = model_path.parent / "model-link.csv"
    link.symlink_to(model_path)
    _one_line_error(invoke("sample", model_path, "-n", "3", "--out", link), "input MODEL")


def test_a_missing_output_folder_is_refused_before_any_work(
    invoke, model_path, tmp_path, monkeypatch
):
    drawn = []
    monkeypatch.setattr(sampling, "numpy_draws", lambda *args, **kwargs: drawn.append(args))
    out = tmp_path / "missing_dir" / "x.csv"
    result = invoke("sample", model_path, "-n", "100000000", "--out", out)
    _one_line_error(result, "folder", "missing_dir", "does not exist")
    assert drawn == []  # refused before a single row was drawn


def test_outputs_replace_old_files_and_leave_no_temporary_file(invoke, model_path, iris_csv):
    out = iris_csv.parent / "predictions.csv"
    out.write_text("old\n")
    assert invoke("predict", model_path, iris_csv, "--out", out).exit_code == 0
    assert read(out).shape[0] == 150
    assert [p.name for p in out.parent.iterdir() if p.name.endswith(".tmp")] == []


def test_a_replaced_output_keeps_its_permissions(invoke, model_path, iris_csv):
    """Issue 33: a 0600 output became 0644 when a command replaced it."""
    out = iris_csv.parent / "private.csv"
    out.write_text("old\n")
    out.chmod(0o600)
    assert invoke("predict", model_path, iris_csv, "--out", out).exit_code == 0
    assert read(out).shape[0] == 150 and (out.stat().st_mode & 0o777) == 0o600
    fresh = iris_csv.parent / "fresh.csv"
    assert invoke("predict", model_path, iris_csv, "--out", fresh).exit_code == 0
    assert (fresh.stat().st_mode & 0o777) == 0o666 & ~_umask()


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


# ------------------------------------------------------------------ an interrupted write


def _wait_for_temporary(folder, process, timeout=240):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and process.poll() is None:
        if any(p.name.endswith(".tmp") for p in folder.iterdir()):
            return True
        time.sleep(0.002)
    return False


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_an_interrupted_write_leaves_the_old_file_intact(model_path, tmp_path, signum):
    out = tmp_path / "old.csv"
    out.write_text("precious,contents\n1,2\n")
    environment = {**os.environ, "PYTHONPATH": os.getcwd()}
    # A test run started in the background (`pytest &`) ignores SIGINT, and a child inherits
    # that; the command is started with Python's own SIGINT handler, as at a terminal.
    start = (
        "import signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler); "
        "from bayesgen.cli import main; main(sys.argv[1:], prog_name='bayesgen')"
    )
    command = [sys.executable, "-c", start, "sample", str(model_path), "-n", "1000000"]
    with subprocess.Popen(
        [*command, "--out", str(out)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=environment,
    ) as process:
        try:
            assert _wait_for_temporary(tmp_path, process), process.stderr.read().decode()
            process.send_signal(signum)
            process.wait(timeout=120)
        finally:
            process.kill()
    assert process.returncode != 0
    assert out.read_text() == "precious,contents\n1,2\n"
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []


# ------------------------------------------------------------------ tables


def test_duplicate_column_names_are_refused(invoke, tmp_path, model_path):
    data = tmp_path / "dup.csv"
    data.write_text("sl,sl,pw,pl,species\n1,2,3,4,a\n2,3,4,5,b\n")
    _one_line_error(
        invoke("fit", data, "--target", "species", "--out", tmp_path / "m.bgm"),
        "names column(s) 'sl' more than once",
    )
    _one_line_error(invoke("predict", model_path, data), "'sl' more than once")


def test_text_in_a_numeric_column_names_column_and_row(invoke, iris_frame, tmp_path):
    frame = iris_frame.astype({"petal width (cm)": object})
    frame.loc[17, "petal width (cm)"] = "oops"
    data = tmp_path / "stray.csv"
    frame.to_csv(data, index=False)
    out = tmp_path / "m.bgm"
    for model in ("qda", "mixed-nb"):
        result = invoke("fit", data, "--target", "species", "--model", model, "--out", out)
        _one_line_error(result, "column 'petal width (cm)'", "'oops'", "data row 17")
    result = invoke("fit", data, "--target", "species", "--na-values", "oops", "--out", out)
    assert result.exit_code == 0, result.stderr
    assert np.isnan(bayesgen.load(out).means_).sum() == 0


def test_nested_parquet_columns_are_refused(invoke, tmp_path):
    frame = pd.DataFrame({"a": [[1, 2], [3]], "b": [{"x": 1}, {"x": 2}], "y": ["p", "q"]})
    data = tmp_path / "nested.parquet"
    frame.to_parquet(data)
    for model in ("categorical-nb", "mixed-nb"):
        result = invoke("fit", data, "--target", "y", "--model", model, "--out", tmp_path / "m")
        _one_line_error(result, "column 'a' holds list<")


# ------------------------------------------------------------------ one line, exit 2


def test_a_parameter_of_the_wrong_json_type_is_one_line(invoke, iris_csv, tmp_path):
    result = invoke(
        "fit", iris_csv, "--target", "species", "--param", 'mean_prior={"a": 1}',
        "--out", tmp_path / "m.bgm",
    )  # fmt: skip
    _one_line_error(result, "--param")


def test_a_sample_larger_than_memory_is_one_line(invoke, model_path):
    _one_line_error(
        invoke("sample", model_path, "-n", "1000000000000"), "would need about", "memory"
    )


def test_values_that_overflow_the_statistics_are_named(invoke, iris_frame, tmp_path):
    frame = iris_frame.copy()
    frame["sepal width (cm)"] *= 1e306
    data = tmp_path / "huge.csv"
    frame.to_csv(data, index=False)
    result = invoke("fit", data, "--target", "species", "--out", tmp_path / "m.bgm")
    _one_line_error(result, "'sepal width (cm)'", "overflow")


def test_a_model_fitted_on_arrays_predicts_without_warnings(invoke, iris_csv, tmp_path):
    X, y = load_iris(return_X_y=True)
    path = tmp_path / "arrays.bgm"
    bayesgen.GaussianNB().fit(X, y).save(path)
    table = pd.read_csv(iris_csv).drop(columns="species")
    data = tmp_path / "features.csv"
    table.to_csv(data, index=False)
    result = invoke("predict", path, data, "--proba")
    assert result.exit_code == 0
    assert result.stderr == ""
    assert len(result.stdout.splitlines()) == 151
