"""End to end through the command line: what it writes equals what the library computes."""

import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import bayesgen
from tests.cli.conftest import read

FEATURES = ["sepal length (cm)", "sepal width (cm)", "petal length (cm)", "petal width (cm)"]


def labels(frame):
    return frame["species"].astype(object).where(frame["species"].notna(), None).to_numpy()


def test_fit_saves_the_model_the_library_fits(invoke, tmp_path, iris_csv, iris_frame):
    model_path = tmp_path / "lda.bgm"
    result = invoke("fit", iris_csv, "--target", "species", "--model", "lda", "--out", model_path)
    assert result.exit_code == 0, result.stderr
    assert "150 rows (0 unlabelled), 4 features" in result.stdout
    saved = bayesgen.load(model_path)
    direct = bayesgen.LDA().fit(iris_frame[FEATURES], labels(iris_frame))
    assert isinstance(saved, bayesgen.LDA)
    np.testing.assert_array_equal(saved.classes_, ["setosa", "versicolor", "virginica"])
    X = iris_frame[FEATURES]
    np.testing.assert_array_equal(saved.predict_proba(X), direct.predict_proba(X))


def test_blank_labels_and_cells_are_fitted_by_em(invoke, tmp_path, gappy_iris):
    data, model_path = tmp_path / "gappy.csv", tmp_path / "qda.bgm"
    gappy_iris.to_csv(data, index=False)
    result = invoke("fit", data, "--target", "species", "--model", "qda", "--out", model_path)
    assert result.exit_code == 0, result.stderr
    assert "(30 unlabelled)" in result.stdout
    saved = bayesgen.load(model_path)
    direct = bayesgen.QDA().fit(gappy_iris[FEATURES], labels(gappy_iris))
    assert saved.n_iter_ == direct.n_iter_ > 1
    np.testing.assert_array_equal(saved.covariances_, direct.covariances_)


@pytest.fixture
def fitted(invoke, tmp_path, iris_csv):
    """A MAP QDA fitted through the command line, and its model file."""
    model_path = tmp_path / "qda.bgm"
    result = invoke(
        "fit", iris_csv, "--target", "species", "--model", "qda", "--estimate", "map",
        "--out", model_path,
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    return model_path, bayesgen.load(model_path)


def test_predict_writes_classes_and_probabilities(invoke, tmp_path, fitted, iris_csv, iris_frame):
    model_path, model = fitted
    out = tmp_path / "predictions.parquet"
    result = invoke("predict", model_path, iris_csv, "--proba", "--out", out)
    assert result.exit_code == 0, result.stderr
    table = read(out)
    X = iris_frame[FEATURES]
    np.testing.assert_array_equal(table["predicted"], model.predict(X))
    probabilities = table[[f"p({name})" for name in model.classes_]].to_numpy()
    np.testing.assert_array_equal(probabilities, model.predict_proba(X))


def test_predict_to_stdout_is_csv(invoke, fitted, iris_csv, iris_frame):
    model_path, model = fitted
    result = invoke("predict", model_path, iris_csv)
    assert result.exit_code == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == "predicted"
    assert lines[1:] == list(model.predict(iris_frame[FEATURES]))


def test_credible_intervals_are_quantiles_of_the_posterior_draws(
    invoke, tmp_path, fitted, iris_csv, iris_frame
):
    model_path, model = fitted
    out, batched = tmp_path / "bands.parquet", tmp_path / "batched.parquet"
    arguments = ["--uncertainty", "0.8", "--draws", "300", "--seed", "3"]
    assert invoke("predict", model_path, iris_csv, *arguments, "--out", out).exit_code == 0
    table = read(out)
    draws = model.predict_proba_draws(iris_frame[FEATURES], 300, random_state=3)
    lower, upper = np.quantile(draws, [0.1, 0.9], axis=0)
    plug_in = model.predict_proba(iris_frame[FEATURES])
    for k, name in enumerate(model.classes_):
        # p(c) is the plug-in probability; p(c) mean is the mean of the same draws.
        np.testing.assert_allclose(table[f"p({name})"], plug_in[:, k], rtol=1e-12)
        np.testing.assert_allclose(table[f"p({name}) mean"], draws[..., k].mean(0), rtol=1e-12)
        np.testing.assert_allclose(table[f"p({name}) lower"], lower[:, k], rtol=1e-12)
        np.testing.assert_allclose(table[f"p({name}) upper"], upper[:, k], rtol=1e-12)
    # Batches share one set of parameter draws: the table does not depend on the batch size.
    result = invoke(
        "predict", model_path, iris_csv, *arguments, "--batch-size", "7", "--out", batched
    )
    assert result.exit_code == 0, result.stderr
    pd.testing.assert_frame_equal(read(batched), table)


def test_sample_draws_from_the_story(invoke, tmp_path, fitted):
    model_path, model = fitted
    out = tmp_path / "synthetic.csv"
    result = invoke(
        "sample", model_path, "-n", "40", "--class", "versicolor", "--seed", "4", "--out", out
    )
    assert result.exit_code == 0, result.stderr
    table = read(out)
    assert list(table.columns) == [*FEATURES, "species"]
    assert set(table["species"]) == {"versicolor"}
    X, _ = model.sample(40, y="versicolor", random_state=4)
    np.testing.assert_allclose(table[FEATURES].to_numpy(), np.asarray(X), rtol=1e-15)
    everyone = invoke("sample", model_path, "-n", "300", "--seed", "1")
    classes = pd.read_csv(__import__("io").StringIO(everyone.stdout))["species"]
    assert set(classes) == set(model.classes_)


def test_impute_fills_only_blank_cells(invoke, tmp_path, fitted, gappy_iris):
    model_path, model = fitted
    data, out = tmp_path / "gappy.csv", tmp_path / "filled.parquet"
    gappy_iris.to_csv(data, index=False)
    result = invoke("impute", model_path, data, "--out", out)
    assert result.exit_code == 0, result.stderr
    table = read(out)
    expected = model.impute(gappy_iris[FEATURES])
    np.testing.assert_allclose(table[FEATURES].to_numpy(), expected, rtol=1e-15)
    blank = gappy_iris[FEATURES].isna().to_numpy()
    assert blank.sum() == 22 and not table[FEATURES].isna().any().any()
    observed = gappy_iris[FEATURES].to_numpy()[~blank]
    np.testing.assert_array_equal(table[FEATURES].to_numpy()[~blank], observed)
    pd.testing.assert_series_equal(table["species"], gappy_iris["species"])


def test_info_describes_classes_families_and_training(invoke, fitted):
    model_path, model = fitted
    result = invoke("info", model_path)
    assert result.exit_code == 0, result.stderr
    text = result.stdout
    assert "model: QDA ('qda')" in text
    assert "trained on: iris.csv, 150 rows (0 unlabelled), target column 'species'" in text
    for label, count, prior in zip(
        model.classes_, model.class_count_, model.class_prior_, strict=True
    ):
        assert f"  {label}: {count:g}, {prior:.4f}" in text
    assert f"  {FEATURES[2]}: gaussian, full covariance per class" in text
    assert "parameters: estimate='map'" in text


def test_mixed_columns_and_parquet(invoke, tmp_path):
    rng = np.random.default_rng(0)
    n = 200
    y = rng.integers(0, 2, n)
    frame = pd.DataFrame(
        {
            "height": rng.normal(170 + 10 * y, 5),
            "colour": np.where(rng.random(n) < 0.3 + 0.4 * y, "red", "blue"),
            "visits": rng.poisson(1 + 3 * y),
            "label": np.where(y == 1, "yes", "no"),
        }
    )
    data, model_path = tmp_path / "mixed.parquet", tmp_path / "mixed.bgm"
    frame.to_parquet(data)
    result = invoke("fit", data, "--target", "label", "--model", "mixed-nb", "--out", model_path)
    assert result.exit_code == 0, result.stderr
    direct = bayesgen.MixedNB().fit(frame[["height", "colour", "visits"]], frame["label"])
    saved = bayesgen.load(model_path)
    X = frame[["height", "colour", "visits"]]
    np.testing.assert_array_equal(saved.predict_proba(X), direct.predict_proba(X))
    text = invoke("info", model_path).stdout
    # Heights of 170 +- 5 are as normal as log-normal: the evidence decides which.
    assert direct.feature_families_["height"] in ("gaussian", "lognormal")
    for column, family in direct.feature_families_.items():
        assert f"  {column}: {family}" in text
    for line in ("  colour: categorical", "  visits: poisson"):
        assert line in text


def test_options_reach_the_model(invoke, tmp_path):
    rng = np.random.default_rng(1)
    counts = rng.poisson(2.0, size=(60, 5))
    frame = pd.DataFrame(counts, columns=[f"w{j}" for j in range(5)])
    frame["topic"] = np.repeat([0, 1, 2], 20)
    data = tmp_path / "counts.csv"
    frame.to_csv(data, index=False)
    out = tmp_path / "mnb.bgm"
    arguments = ["--target", "topic", "--model", "multinomial-nb", "--alpha", "0.5"]
    assert invoke("fit", data, *arguments, "--out", out).exit_code == 0
    direct = bayesgen.MultinomialNB(alpha=0.5).fit(frame.drop(columns="topic"), frame["topic"])
    np.testing.assert_array_equal(bayesgen.load(out).feature_log_prob_, direct.feature_log_prob_)
    out = tmp_path / "diag.bgm"
    arguments = ["--target", "topic", "--model", "gaussian-da", "--param", "covariance_type=diag"]
    assert invoke("fit", data, *arguments, "--features", "w0,w3", "--out", out).exit_code == 0
    model = bayesgen.load(out)
    assert model.covariance_type == "diag"
    np.testing.assert_array_equal(model.feature_names_in_, ["w0", "w3"])


def test_the_installed_command_reports_a_mistake_in_one_line(tmp_path):
    command = Path(sys.executable).with_name("bayesgen")
    missing = tmp_path / "missing.csv"
    result = subprocess.run(
        [str(command), "fit", str(missing), "--target", "y", "--out", str(tmp_path / "m.bgm")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 2
    assert result.stderr.splitlines() == [
        f"Error: DATA '{missing}' does not exist or is not a file."
    ]
    assert result.stdout == ""
