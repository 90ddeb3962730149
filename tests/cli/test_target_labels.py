"""``bayesgen fit`` reads --target as written, and --unlabeled-marker says which value
marks an unlabelled row."""

import numpy as np
import pandas as pd
import pytest

import bayesgen
from bayesgen.inference.semi_supervised import UnlabeledMarkerWarning

FEATURES = ["sepal length (cm)", "sepal width (cm)", "petal length (cm)", "petal width (cm)"]


def _write(frame, path):
    frame.to_csv(path, index=False)
    return path


def test_class_names_that_pandas_reads_as_missing_stay_names(invoke, tmp_path, iris_frame):
    frame = iris_frame.copy()
    frame["species"] = frame["species"].map(
        {"setosa": "NA", "versicolor": "None", "virginica": "null"}
    )
    frame.loc[::10, "species"] = ""  # blank: unlabelled
    frame.iloc[3, 0] = np.nan  # a blank feature stays missing
    data = _write(frame, tmp_path / "names.csv")
    out = tmp_path / "model.bgm"
    result = invoke("fit", data, "--target", "species", "--model", "lda", "--out", out)
    assert result.exit_code == 0, result.stderr
    assert "(15 unlabelled)" in result.stdout
    model = bayesgen.load(out)
    np.testing.assert_array_equal(model.classes_, ["NA", "None", "null"])
    y = frame["species"].where(frame["species"] != "", None).to_numpy(dtype=object)
    direct = bayesgen.LDA().fit(frame[FEATURES], y)
    np.testing.assert_array_equal(
        model.predict_proba(frame[FEATURES]), direct.predict_proba(frame[FEATURES])
    )


def test_na_values_still_apply_to_the_target(invoke, tmp_path, iris_frame):
    frame = iris_frame.copy()
    frame.loc[::5, "species"] = "?"
    data = _write(frame, tmp_path / "marked.csv")
    out = tmp_path / "model.bgm"
    result = invoke("fit", data, "--target", "species", "--na-values", "?", "--out", out)
    assert result.exit_code == 0, result.stderr
    assert "(30 unlabelled)" in result.stdout
    np.testing.assert_array_equal(
        bayesgen.load(out).classes_, ["setosa", "versicolor", "virginica"]
    )


def test_unlabeled_marker_flag_names_the_marker(invoke, tmp_path, iris_frame):
    frame = iris_frame.copy()
    frame.loc[::5, "species"] = "unknown"
    data = _write(frame, tmp_path / "marked.csv")
    out = tmp_path / "model.bgm"
    result = invoke(
        "fit", data, "--target", "species", "--unlabeled-marker", "unknown", "--out", out
    )
    assert result.exit_code == 0, result.stderr
    assert "(30 unlabelled)" in result.stdout
    model = bayesgen.load(out)
    assert model.unlabeled_marker == "unknown"
    np.testing.assert_array_equal(model.classes_, ["setosa", "versicolor", "virginica"])


def test_minus_one_is_unlabelled_by_default_and_a_class_with_an_empty_marker(
    invoke, tmp_path, iris_frame
):
    frame = iris_frame.copy()
    frame["species"] = np.repeat([-1, 0, 1], 50)
    data = _write(frame, tmp_path / "numbers.csv")
    out = tmp_path / "model.bgm"
    with pytest.warns(UnlabeledMarkerWarning, match="y marks 50 rows -1"):
        result = invoke("fit", data, "--target", "species", "--out", out)
    assert result.exit_code == 0, result.stderr
    assert "(50 unlabelled)" in result.stdout
    np.testing.assert_array_equal(bayesgen.load(out).classes_, [0, 1])
    result = invoke("fit", data, "--target", "species", "--unlabeled-marker", "", "--out", out)
    assert result.exit_code == 0, result.stderr
    assert "(0 unlabelled)" in result.stdout
    model = bayesgen.load(out)
    assert model.unlabeled_marker is None
    np.testing.assert_array_equal(model.classes_, [-1, 0, 1])


def test_a_numeric_marker_matches_numeric_labels(invoke, tmp_path, iris_frame):
    frame = iris_frame.copy()
    frame["species"] = pd.Series(np.repeat([1, 2, 3], 50))
    frame.loc[::5, "species"] = 0
    data = _write(frame, tmp_path / "numbers.csv")
    out = tmp_path / "model.bgm"
    result = invoke("fit", data, "--target", "species", "--unlabeled-marker", "0", "--out", out)
    assert result.exit_code == 0, result.stderr
    assert "(30 unlabelled)" in result.stdout
    model = bayesgen.load(out)
    assert model.unlabeled_marker == 0 and isinstance(model.unlabeled_marker, int)
    np.testing.assert_array_equal(model.classes_, [1, 2, 3])
