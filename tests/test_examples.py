"""Examples and the benchmark entry point run, with small arguments."""

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _load(path: Path):
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_gaussian_discriminants_example():
    """The example reproduces the wine table and a model refitted on its synthetic rows works."""
    scores = _load(ROOT / "examples" / "gaussian_discriminants.py").main(synthetic_rows=600)
    assert round(scores["GaussianNB/mle"], 3) == 0.963
    assert round(scores["LDA/mle"], 3) == 1.000
    assert round(scores["QDA/mle"], 3) == 0.981
    # Synthetic wines from the fitted story carry the class structure of the real ones.
    assert scores["QDA refitted on synthetic"] >= 0.9


def test_benchmark_smoke_run():
    """`python -m benchmarks` at tiny sizes yields a row per model and operation."""
    from benchmarks.__main__ import main

    table = main(["--n-samples", "300", "--n-features", "3", "--n-classes", "2", "--repeats", "1"])
    rows = [line for line in table.splitlines() if line.startswith("| ") and "x |" in line]
    assert len(rows) == 6
    assert all(float(line.split("|")[-2].strip().rstrip("x")) > 0 for line in rows)


def test_synthetic_data_example():
    """Synthetic wines match the real moments and train a model as good as real ones."""
    result = _load(ROOT / "examples" / "synthetic_data.py").main(rows=3000)
    assert result["mean_gap_sd"] < 0.1
    assert 0.9 < result["spread_ratio_min"] and result["spread_ratio_max"] < 1.1
    assert result["accuracy_synthetic"] >= result["accuracy_real"] - 0.05


def test_missing_features_example():
    """EM + marginalisation keep the accuracy; imputation beats column means."""
    result = _load(ROOT / "examples" / "missing_features.py").main(hidden=0.3)
    assert result["accuracy_missing"] >= result["accuracy_complete"] - 0.05
    assert result["rmse_model"] < 0.9 * result["rmse_mean"]


def test_novelty_example():
    """log p(x) flags most wines of an unseen cultivar and few of the known ones."""
    result = _load(ROOT / "examples" / "novelty.py").main()
    assert result["detection"] > 0.8 and result["false_alarms"] < 0.15 and result["auc"] > 0.95


def test_uncertainty_example(tmp_path):
    """On six rows per class the predictive beats the plug-in; the band narrows with data."""
    result = _load(ROOT / "examples" / "uncertainty.py").main(out=tmp_path / "band.png")
    assert (tmp_path / "band.png").stat().st_size > 0
    assert result["log_loss_predictive"] < result["log_loss_plugin"]
    # Measured for seeds 0..49: the large/small ratio of band widths is at most 0.31.
    assert result["band_width_large"] < 0.5 * result["band_width_small"]
    assert result["max_plugin_confidence_far"] > result["max_predictive_confidence_far"]
