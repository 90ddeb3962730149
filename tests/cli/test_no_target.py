"""Issue 32: a table with no class column had no entry point for imputation. ``bayesgen fit``
without --target fits the whole table as one class (gaussian-da by default), and
``bayesgen impute`` fills it with that model's conditional means."""

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner
from sklearn.datasets import load_wine

from bayesgen import GaussianDA, load
from bayesgen.cli import main

FEATURES = ["alcohol", "malic_acid", "ash", "flavanoids", "proline"]


@pytest.fixture
def gappy_table(tmp_path):
    table = load_wine(as_frame=True).data
    table = table.mask(np.random.default_rng(0).random(table.shape) < 0.2)
    table.insert(0, "id", [f"w{i:03d}" for i in range(len(table))])
    path = tmp_path / "wine.csv"
    table.to_csv(path, index=False)
    return path, table


def test_fit_without_target_then_impute(gappy_table, tmp_path):
    path, table = gappy_table
    model_path = tmp_path / "table.bgm"
    runner = CliRunner()
    fitted = runner.invoke(
        main, ["fit", str(path), "--features", ",".join(FEATURES), "--out", str(model_path)]
    )
    assert fitted.exit_code == 0, fitted.output
    assert "as one class (no --target)" in fitted.output
    model = load(model_path)
    assert type(model) is GaussianDA and model.classes_.tolist() == ["table"]
    filled_path = tmp_path / "filled.csv"
    imputed = runner.invoke(main, ["impute", str(model_path), str(path), "--out", str(filled_path)])
    assert imputed.exit_code == 0, imputed.output
    filled = pd.read_csv(filled_path)
    # The features are the one-class model's conditional means; the rest is copied.
    expected = (
        GaussianDA().fit(table[FEATURES], np.full(len(table), "table")).impute(table[FEATURES])
    )
    np.testing.assert_allclose(filled[FEATURES].to_numpy(), expected.to_numpy(), rtol=1e-12)
    assert filled["id"].tolist() == table["id"].tolist()
    others = [c for c in table.columns if c not in FEATURES]
    pd.testing.assert_frame_equal(filled[others], table[others], check_dtype=False)
    info = runner.invoke(main, ["info", str(model_path)])
    assert "no target column (the table is one class)" in info.output
    drawn = runner.invoke(main, ["sample", str(model_path), "-n", "3"])
    assert drawn.output.splitlines()[0] == ",".join(FEATURES)  # no class column
