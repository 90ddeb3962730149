"""Tables on disk for the command-line tests, and a runner that keeps stderr apart."""

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner
from sklearn.datasets import load_iris

from bayesgen.cli import main

SPECIES = {0: "setosa", 1: "versicolor", 2: "virginica"}
FEATURES = ["sepal length (cm)", "sepal width (cm)", "petal length (cm)", "petal width (cm)"]


@pytest.fixture
def invoke():
    """Run ``bayesgen ARGS`` in process; returns click's Result (stdout, stderr, exit_code)."""
    runner = CliRunner()

    def run(*args):
        return runner.invoke(main, [str(arg) for arg in args])

    return run


@pytest.fixture
def iris_frame():
    """Iris with named species; every fifth label blank, some measurements blank."""
    frame = load_iris(as_frame=True).frame
    frame["species"] = frame.pop("target").map(SPECIES)
    return frame


@pytest.fixture
def iris_csv(tmp_path, iris_frame):
    path = tmp_path / "iris.csv"
    iris_frame.to_csv(path, index=False)
    return path


@pytest.fixture
def fitted_qda(invoke, tmp_path, iris_csv):
    """A QDA fitted to ``iris_csv`` by ``bayesgen fit``: the model file's path."""
    model_path = tmp_path / "qda.bgm"
    result = invoke("fit", iris_csv, "--target", "species", "--out", model_path)
    assert result.exit_code == 0, result.stderr
    return model_path


@pytest.fixture
def gappy_iris(iris_frame):
    """Iris with every fifth label and every seventh sepal length blank."""
    frame = iris_frame.copy()
    frame.loc[::5, "species"] = None
    frame.iloc[1::7, 0] = np.nan
    return frame


def read(path) -> pd.DataFrame:
    """A table the command wrote, read back as pandas reads the user's tables."""
    path = str(path)
    return pd.read_parquet(path) if path.endswith(".parquet") else pd.read_csv(path)
