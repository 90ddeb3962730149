"""Every subcommand's failure modes: one line on stderr naming the problem, exit status 2."""

import numpy as np
import pandas as pd
import pytest

import bayesgen


@pytest.fixture
def files(tmp_path, iris_csv, iris_frame):
    """Good and bad inputs, by name."""
    model = tmp_path / "model.bgm"
    bayesgen.QDA().fit(iris_frame.drop(columns="species"), iris_frame["species"]).save(model)
    garbage = tmp_path / "garbage.csv"
    garbage.write_bytes(bytes(range(256)) * 4)
    ragged = tmp_path / "ragged.csv"
    ragged.write_text("a,b\n1,2\n3,4,5,6\n")
    empty = tmp_path / "empty.csv"
    empty.write_text("")
    words = tmp_path / "words.csv"
    frame = iris_frame.copy()
    frame["sepal length (cm)"] = frame["sepal length (cm)"].astype(str) + " cm"
    frame.to_csv(words, index=False)
    not_a_model = tmp_path / "not-a-model.bgm"
    not_a_model.write_text("sepal,width\n1,2\n")
    truncated = tmp_path / "truncated.bgm"
    truncated.write_bytes(model.read_bytes()[:200])
    other = tmp_path / "other.csv"
    other.write_text("a,b\n1,2\n")
    one_class = tmp_path / "one-class.csv"
    iris_frame.assign(species="setosa").to_csv(one_class, index=False)
    blank = tmp_path / "blank-column.csv"
    iris_frame.assign(notes=np.nan).to_csv(blank, index=False)
    return {
        "blank-column": blank,
        "data": iris_csv,
        "model": model,
        "missing": tmp_path / "missing.csv",
        "garbage": garbage,
        "ragged": ragged,
        "empty": empty,
        "words": words,
        "not-a-model": not_a_model,
        "truncated": truncated,
        "one-class": one_class,
        "other": other,
        "odd-suffix": tmp_path / "table.xlsx",
        "out": tmp_path / "out.csv",
        "out-model": tmp_path / "out.bgm",
        "no-folder": tmp_path / "absent" / "out.csv",
    }


FIT = ["fit", "{data}", "--target", "species", "--out", "{out-model}"]

CASES = {
    # fit
    "fit: missing file": (
        ["fit", "{missing}", "--target", "species", "--out", "{out-model}"],
        "does not exist",
    ),
    "fit: unreadable CSV": (
        ["fit", "{garbage}", "--target", "species", "--out", "{out-model}"],
        "could not be read as CSV",
    ),
    "fit: ragged CSV": (
        ["fit", "{ragged}", "--target", "a", "--out", "{out-model}"],
        "could not be read as CSV",
    ),
    "fit: empty CSV": (
        ["fit", "{empty}", "--target", "a", "--out", "{out-model}"],
        "could not be read as CSV",
    ),
    "fit: unknown suffix": (
        ["fit", "{odd-suffix}", "--target", "a", "--out", "{out-model}"],
        "has suffix '.xlsx'",
    ),
    "fit: a misspelt feature column": (
        FIT + ["--features", "sepal lenght (cm)"],
        "the table has no such column (did you mean 'sepal length (cm)' for 'sepal lenght (cm)'?)",
    ),
    "fit: a column with no value (issue 33)": (
        ["fit", "{blank-column}", "--target", "species", "--model", "lda", "--out", "{out-model}"],
        "column(s) 'notes' have no value (every cell is blank)",
    ),
    "evaluate-synthetic: a column with no value (issue 33)": (
        ["evaluate-synthetic", "{blank-column}", "{blank-column}", "--target", "species"],
        "REAL column(s) 'notes' have no value (every cell is blank)",
    ),
    "predict: an uncertainty of nan (issue 33)": (
        ["predict", "{model}", "{data}", "--uncertainty", "nan"],
        "Invalid value for '--uncertainty': nan is not a number between 0 and 1",
    ),
    "fit: unknown target column": (
        ["fit", "{data}", "--target", "kind", "--out", "{out-model}"],
        "unknown column(s) 'kind' for --target",
    ),
    "fit: unknown feature column": (
        [*FIT, "--features", "petal length (cm),petal area"],
        "unknown column(s) 'petal area' for --features",
    ),
    "fit: text for a Gaussian model": (
        ["fit", "{words}", "--target", "species", "--model", "lda", "--out", "{out-model}"],
        "model 'lda' needs numeric features, but column(s) 'sepal length (cm)' are not",
    ),
    "fit: option that does not apply": (
        [*FIT, "--model", "lda", "--alpha", "2"],
        "--alpha does not apply to model 'lda'",
    ),
    "fit: unknown parameter": ([*FIT, "--param", "bandwidth=2"], "has no parameter(s) bandwidth"),
    "fit: malformed parameter": ([*FIT, "--param", "bandwidth"], "--param expects NAME=VALUE"),
    "fit: bad parameter value": (
        [*FIT, "--model", "gaussian-da", "--param", "covariance_type=banana"],
        "covariance_type",
    ),
    "fit: one class": (
        ["fit", "{one-class}", "--target", "species", "--out", "{out-model}"],
        "at least two classes",
    ),
    "fit: unknown model": ([*FIT, "--model", "svm"], "Invalid value for '--model'"),
    # Without --target the table is one class (tests/cli/test_no_target.py); QDA needs two.
    "fit: qda without --target": (
        ["fit", "{data}", "--model", "qda", "--out", "{out-model}"],
        "model 'qda' needs at least two classes, so it needs --target",
    ),
    "fit: --unlabeled-marker without --target": (
        [
            "fit",
            "{data}",
            "--model",
            "gaussian-nb",
            "--unlabeled-marker",
            "x",
            "--out",
            "{out-model}",
        ],
        "--unlabeled-marker needs --target",
    ),  # fmt: skip
    "fit: output folder missing": (
        ["fit", "{data}", "--target", "species", "--out", "{no-folder}"],
        "absent",
    ),
    # predict
    "predict: missing model": (["predict", "{missing}", "{data}"], "does not exist"),
    "predict: not a model file": (
        ["predict", "{not-a-model}", "{data}"],
        "is not a usable model file",
    ),
    "predict: truncated model file": (
        ["predict", "{truncated}", "{data}"],
        "is not a usable model file",
    ),
    "predict: missing data": (["predict", "{model}", "{missing}"], "does not exist"),
    "predict: unreadable data": (["predict", "{model}", "{garbage}"], "could not be read"),
    "predict: data without the model's columns": (
        ["predict", "{model}", "{other}"],
        "unknown column(s) 'sepal length (cm)'",
    ),
    "predict: text for a Gaussian model": (
        ["predict", "{model}", "{words}"],
        "model 'QDA' needs numeric features, but column(s) 'sepal length (cm)' are not",
    ),
    "predict: level outside (0, 1)": (
        ["predict", "{model}", "{data}", "--uncertainty", "1.5"],
        "Invalid value for '--uncertainty'",
    ),
    "predict: output suffix": (
        ["predict", "{model}", "{data}", "--out", "{odd-suffix}"],
        "has suffix '.xlsx'",
    ),
    # sample
    "sample: missing model": (["sample", "{missing}", "-n", "3"], "does not exist"),
    "sample: not a model file": (["sample", "{not-a-model}", "-n", "3"], "not a usable model"),
    "sample: unknown class": (
        ["sample", "{model}", "-n", "3", "--class", "daisy"],
        "--class 'daisy' is not a class of the model; its classes are setosa, versicolor",
    ),
    "sample: no rows": (["sample", "{model}", "-n", "0"], "Invalid value for '-n'"),
    # impute
    "impute: missing data": (["impute", "{model}", "{missing}"], "does not exist"),
    "impute: unknown columns": (["impute", "{model}", "{other}"], "unknown column(s)"),
    "impute: wrong model file": (["impute", "{not-a-model}", "{data}"], "not a usable model"),
    "impute: text for a Gaussian model": (
        ["impute", "{model}", "{words}"],
        "model 'QDA' needs numeric features, but column(s) 'sepal length (cm)' are not",
    ),
    # info
    "info: missing model": (["info", "{missing}"], "does not exist"),
    "info: wrong model file": (["info", "{not-a-model}"], "not a usable model"),
    "info: truncated model file": (["info", "{truncated}"], "not a usable model"),
    # the group
    "unknown command": (["demoo"], "No such command 'demoo'"),
}


@pytest.mark.parametrize("case", list(CASES))
def test_mistakes_are_one_line_and_exit_2(case, files, invoke):
    template, fragment = CASES[case]
    args = [part.format(**{k: str(v) for k, v in files.items()}) for part in template]
    result = invoke(*args)
    assert result.exit_code == 2, (result.stdout, result.stderr)
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("Error: ")
    assert fragment in lines[0]
    assert "Traceback" not in result.output


def test_integer_labels_with_blanks_are_unlabelled(files, invoke, tmp_path, iris_frame):
    frame = iris_frame.copy()
    frame["species"] = pd.Series(np.repeat([0.0, 1.0, 2.0], 50)).where(
        np.arange(150) % 4 != 0
    )  # a numeric column with blanks is read back as float
    data = tmp_path / "numbers.csv"
    frame.to_csv(data, index=False)
    result = invoke("fit", data, "--target", "species", "--out", files["out-model"])
    assert result.exit_code == 0, result.stderr
    assert "(38 unlabelled)" in result.stdout
    model = bayesgen.load(files["out-model"])
    np.testing.assert_array_equal(model.classes_, [0, 1, 2])
