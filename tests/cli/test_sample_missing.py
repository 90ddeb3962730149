"""``bayesgen sample --missing training``: synthetic rows with the training table's gaps."""

import numpy as np

import bayesgen
from tests.cli.conftest import FEATURES, read


def test_the_gaps_are_the_library_s_and_blank_in_the_table(invoke, tmp_path, iris_frame):
    frame = iris_frame.copy()
    frame.iloc[::3, 0] = np.nan  # a third of the sepal lengths blank
    table = tmp_path / "gappy.csv"
    frame.to_csv(table, index=False)
    model_path = tmp_path / "model.bgm"
    fitted = invoke(
        "fit", table, "--target", "species", "--model", "gaussian-nb", "--out", model_path
    )
    assert fitted.exit_code == 0, fitted.stderr
    out = tmp_path / "drawn.csv"
    result = invoke(
        "sample", model_path, "-n", "3000", "--missing", "training", "--seed", "4", "--out", out
    )
    assert result.exit_code == 0, result.stderr
    drawn = read(out)
    X, y = bayesgen.load(model_path).sample(3000, missing="training", random_state=4)
    np.testing.assert_array_equal(drawn[FEATURES].isna().to_numpy(), np.isnan(np.asarray(X, float)))
    np.testing.assert_allclose(drawn[FEATURES].to_numpy(), np.asarray(X, float))
    assert abs(drawn[FEATURES[0]].isna().mean() - 1 / 3) < 0.03
    assert not drawn[FEATURES[1:]].isna().any().any()
    complete = invoke("sample", model_path, "-n", "50", "--seed", "4")
    assert complete.exit_code == 0 and "nan" not in complete.stdout.lower()
    refused = invoke("sample", model_path, "-n", "5", "--missing", "some")
    assert refused.exit_code == 2 and "--missing" in refused.stderr
