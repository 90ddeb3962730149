"""``bayesgen sample --rounding training``: draws written with the training table's decimals."""

import numpy as np

import bayesgen
from tests.cli.conftest import FEATURES, read


def test_the_rounded_rows_are_the_library_s(invoke, tmp_path, iris_frame):
    table = tmp_path / "iris.csv"
    iris_frame.to_csv(table, index=False)
    model_path = tmp_path / "model.bgm"
    fitted = invoke("fit", table, "--target", "species", "--model", "qda", "--out", model_path)
    assert fitted.exit_code == 0, fitted.stderr
    out = tmp_path / "drawn.csv"
    result = invoke(
        "sample", model_path, "-n", "500", "--rounding", "training", "--seed", "4", "--out", out
    )
    assert result.exit_code == 0, result.stderr
    drawn = read(out)
    X, _ = bayesgen.load(model_path).sample(500, rounding="training", random_state=4)
    np.testing.assert_array_equal(drawn[FEATURES].to_numpy(), np.asarray(X, float))
    tenths = drawn[FEATURES].to_numpy() * 10  # iris is measured to the millimetre
    np.testing.assert_allclose(tenths, np.round(tenths), atol=1e-9)
    raw = invoke("sample", model_path, "-n", "50", "--seed", "4")
    assert raw.exit_code == 0 and any(len(cell) > 4 for cell in raw.stdout.split(","))
    refused = invoke("sample", model_path, "-n", "5", "--rounding", "decimals")
    assert refused.exit_code == 2 and "--rounding" in refused.stderr
