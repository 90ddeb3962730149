"""``bayesgen predict --keep COLUMN``: columns of DATA copied into the output as written
(issue 33: the predictions kept no identifier)."""

import numpy as np
import pandas as pd
import pytest

import bayesgen
from tests.cli.conftest import FEATURES, read


@pytest.fixture
def fitted(fitted_qda):
    return fitted_qda


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_kept_columns_come_first_as_written(invoke, tmp_path, fitted, iris_frame, suffix):
    data = tmp_path / "new.csv"
    # Identifiers that pandas alone would misread: leading zeros and the text "NA".
    ids = [f"{i:04d}" for i in range(len(iris_frame))]
    ids[3] = "NA"
    iris_frame.assign(id=ids).to_csv(data, index=False)
    out = tmp_path / f"p{suffix}"
    result = invoke(
        "predict", fitted, data, "--keep", "id", "--keep", "species", "--proba", "--out", out
    )
    assert result.exit_code == 0, result.stderr
    if suffix == ".csv":  # read back as text: the file holds the identifiers as written
        table = pd.read_csv(out, dtype={"id": str}, keep_default_na=False)
    else:
        table = read(out)
    assert list(table.columns[:3]) == ["id", "species", "predicted"]
    assert table["id"].tolist() == ids
    model = bayesgen.load(fitted)
    np.testing.assert_array_equal(table["predicted"], model.predict(iris_frame[FEATURES]))
    assert (table["species"] == iris_frame["species"]).all()


def test_a_feature_column_may_be_kept_too(invoke, fitted, iris_csv):
    result = invoke("predict", fitted, iris_csv, "--keep", FEATURES[0])
    assert result.exit_code == 0, result.stderr
    assert result.stdout.splitlines()[0] == f"{FEATURES[0]},predicted"


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["--keep", "idd"], "unknown column(s) 'idd' for --keep"),
        (["--keep", "species", "--keep", "species"], "names column(s) 'species' twice"),
        (["--keep", "predicted"], "--keep 'predicted': the output has a column of that name"),
    ],
)
def test_bad_kept_columns_are_refused_before_any_work(
    invoke, tmp_path, fitted, iris_frame, arguments, message
):
    data = tmp_path / "new.csv"
    iris_frame.assign(predicted=1).to_csv(data, index=False)
    result = invoke("predict", fitted, data, *arguments)
    assert result.exit_code != 0
    assert message in result.stderr
