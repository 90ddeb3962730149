"""Columns whose values are numbers held as objects, or dates, reach the model right (issue 33)."""

import decimal

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import bayesgen
from tests.cli.test_hardening import _one_line_error


def test_an_integer_beyond_64_bits_is_a_number(invoke, tmp_path):
    """Was an IndexError from cli/fit.py: pandas holds such a column as Python objects."""
    data = tmp_path / "t.csv"
    data.write_text("a,b,y\n99999999999999999999999,1,u\n1,2,v\n3,1,u\n2,2,v\n1,1,u\n2,3,v\n")
    model_path = tmp_path / "m.bgm"
    for model in ("gaussian-nb", "mixed-nb"):
        result = invoke("fit", data, "--target", "y", "--model", model, "--out", model_path)
        assert result.exit_code == 0, result.stderr
        saved = bayesgen.load(model_path)
        frame = pd.DataFrame({"a": [1e23, 1, 3, 2, 1, 2], "b": [1, 2, 1, 2, 1, 3]})
        direct = type(saved)(**saved.get_params()).fit(frame, list("uvuvuv"))
        np.testing.assert_array_equal(saved.predict_proba(frame), direct.predict_proba(frame))
        predicted = invoke("predict", model_path, data)
        assert predicted.exit_code == 0, predicted.stderr
    assert saved.feature_families_["a"] in ("poisson", "gaussian", "categorical")  # by evidence


def test_parquet_decimals_are_numbers_and_timestamps_are_refused_by_name(invoke, tmp_path):
    values = [decimal.Decimal(v) for v in ("1.5", "2.25", "3.0", "0.5", "1.75", "2.5")]
    stamps = pd.to_datetime([f"2020-0{m}-01" for m in range(1, 7)]).tz_localize("UTC")
    table = pa.table(
        {
            "d": pa.array(values, pa.decimal128(5, 2)),
            "ts": pa.array(stamps),
            "x": [1.0, 2.0, 3.0, 4.0, 5.0, 6.0],
            "y": list("ababab"),
        }
    )
    data, model_path = tmp_path / "t.parquet", tmp_path / "m.bgm"
    pq.write_table(table, data)
    result = invoke("fit", data, "--target", "y", "--features", "d,x", "--out", model_path)
    assert result.exit_code == 0, result.stderr
    decimals = pd.DataFrame({"d": np.float64(values), "x": table["x"]})
    expected = bayesgen.QDA().fit(decimals, list("ababab"))
    np.testing.assert_allclose(bayesgen.load(model_path).means_, expected.means_, rtol=1e-12)
    for model in ("qda", "mixed-nb"):
        refused = invoke("fit", data, "--target", "y", "--model", model, "--out", model_path)
        _one_line_error(refused, "column 'ts' holds dates or times", "--features")


@pytest.mark.parametrize("model", ["lda", "mixed-nb"])
def test_text_among_numbers_is_still_named(invoke, tmp_path, model):
    """The conversion above takes columns of numbers only: one stray word is still refused."""
    data = tmp_path / "t.csv"
    rows = "".join(f"{i},{i % 3},{'uv'[i % 2]}\n" for i in range(40))
    data.write_text("a,b,y\n" + rows + "oops,1,u\n")
    result = invoke("fit", data, "--target", "y", "--model", model, "--out", tmp_path / "m.bgm")
    _one_line_error(result, "column 'a' holds numbers but also the text 'oops'")


def test_impute_copies_the_other_columns_as_written(invoke, tmp_path):
    """Issue 33: class NA became blank, id 007 became 7, text n/a became blank."""
    data, model_path = tmp_path / "t.csv", tmp_path / "g.bgm"
    data.write_text(
        "a,b,y,id,note\n,1,NA,007,n/a\n1.5,2,NA,008,ok\n1,1.2,NA,009,\n"
        "3,1,b,010,null\n2,2.5,b,011,x\n3.3,2,b,012,None\n"
    )
    fitted = invoke(
        "fit",
        data,
        "--target",
        "y",
        "--features",
        "a,b",
        "--model",
        "gaussian-nb",
        "--out",
        model_path,
    )
    assert fitted.exit_code == 0, fitted.stderr
    result = invoke("impute", model_path, data)
    assert result.exit_code == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == "a,b,y,id,note"
    written = [line.split(",")[2:] for line in data.read_text().splitlines()[1:]]
    assert [line.split(",")[2:] for line in lines[1:]] == written
    filled = float(lines[1].split(",")[0])
    model = bayesgen.load(model_path)
    frame = pd.DataFrame({"a": [np.nan], "b": [1.0]})
    assert filled == pytest.approx(float(np.asarray(model.impute(frame))[0, 0]), rel=1e-12)
