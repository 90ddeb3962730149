"""``bayesgen predict --novelty``: log p(x) and the tail probability, as the library gives them."""

import numpy as np

import bayesgen
from tests.cli.conftest import read

FEATURES = ["sepal length (cm)", "sepal width (cm)", "petal length (cm)", "petal width (cm)"]


def test_novelty_columns_are_score_samples_and_tail_probability(invoke, tmp_path, iris_csv):
    model_path = tmp_path / "qda.bgm"
    fitted = invoke("fit", iris_csv, "--target", "species", "--model", "qda", "--out", model_path)
    assert fitted.exit_code == 0, fitted.stderr
    model = bayesgen.load(model_path)
    rows = read(iris_csv)
    rows.iloc[::3, 0] = np.nan
    rows.iloc[1::4, 2:] = np.nan
    rows.iloc[5, :4] = np.nan  # every feature blank
    data, out = tmp_path / "gappy.csv", tmp_path / "novelty.csv"
    rows.to_csv(data, index=False)
    arguments = ("predict", model_path, data, "--proba", "--seed", "4", "--batch-size", "40")
    result = invoke(*arguments, "--novelty", "--out", out)
    assert result.exit_code == 0, result.stderr
    table = read(out)
    names = ["predicted", *(f"p({c})" for c in model.classes_), "log p(x)", "tail probability"]
    assert list(table.columns) == names
    X = rows[FEATURES]
    np.testing.assert_array_equal(table["predicted"], model.predict(X))
    np.testing.assert_allclose(table["log p(x)"], model.score_samples(X), rtol=1e-12)
    tail = model.tail_probability(X, random_state=4)
    np.testing.assert_allclose(table["tail probability"], tail, rtol=1e-12)
    assert table["tail probability"][5] == 1.0
    without = tmp_path / "plain.csv"
    assert invoke(*arguments, "--out", without).exit_code == 0
    assert list(read(without).columns) == names[:-2]
