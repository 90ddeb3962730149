"""Examples and the benchmark entry point run, with small arguments."""

import importlib.util
import re
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


RATIO = re.compile(r"[0-9.]+x")


def test_benchmark_smoke_run(tmp_path):
    """`python -m benchmarks --quick` times every workload and writes its report."""
    from benchmarks.__main__ import main

    report_path = tmp_path / "benchmarks.md"
    report = main(["--quick", "--write", str(report_path)])
    assert report_path.read_text(encoding="utf-8") == report
    rows = [line for line in report.splitlines() if line.startswith("| ") and "x |" in line]
    # 6 dense, 4 sparse, 2 many-class, 1 EM, 6 first-call, 6 missing-feature and 4
    # gappy-uncertainty rows, each with a positive ratio.
    assert len(rows) == 29
    ratios = [[c.strip() for c in line.split("|") if RATIO.fullmatch(c.strip())] for line in rows]
    assert all(len(cells) == 1 and float(cells[0].rstrip("x")) > 0 for cells in ratios)
    assert report.count("| LDA | ") >= 3 and "Peak memory" in report
    assert report.count("| QDA | one EM iteration |") == 1
    # Each dense and sparse row beside its floor: LDA's and QDA's fits and QDA's scores
    # the Gram matrix.
    assert report.count("| X.T @ X |") == 3 and report.count("| read X |") == 3
    assert report.count("| read data |") == 4
    # Draws kept with the model: a repeated call with the same random_state repeats them.
    uncertainty = [row for row in rows if "predict_proba_draws" in row or "n_imputations" in row]
    assert len(uncertainty) == 4 and all(line.endswith("| yes |") for line in uncertainty)


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


def test_semi_supervised_example():
    """Unlabelled rows lift a handful of labels to almost the all-labelled accuracy."""
    result = _load(ROOT / "examples" / "semi_supervised.py").main()
    # Measured for seeds 0..19: gains of at least 0.484 (documents) and 0.066 (Gaussians);
    # semi-supervised at most 0.005 (documents) and 0.003 (Gaussians) below all labelled;
    # lambda = 0.1 with alpha = 0.1 at most 0.011 below lambda = 1.
    assert result["text_semi"] > result["text_labelled_only"] + 0.45
    assert result["text_semi"] > result["text_all_labelled"] - 0.01
    assert result["text_semi_lambda_0.1_alpha_0.1"] > result["text_semi"] - 0.02
    assert result["gaussian_semi"] > result["gaussian_labelled_only"] + 0.05
    assert result["gaussian_semi"] > result["gaussian_all_labelled"] - 0.01


def test_label_shift_example():
    """EM recovers the target proportions; adapting and weighing costs both pay off."""
    result = _load(ROOT / "examples" / "label_shift.py").main()
    # Measured for seeds 0..19: the estimated proportions are within 0.045 of the true ones;
    # adapting cuts the log loss by at least 0.106, to at most 0.019 above the oracle's, and
    # raises the accuracy by at least 0.061; the cost-sensitive decision costs at most 0.567
    # times as much as the most probable class.
    gap = [abs(a - b) for a, b in zip(result["adapted_prior"], result["true_prior"], strict=True)]
    assert max(gap) < 0.05
    assert result["log_loss_adapted"] < result["log_loss_unadapted"] - 0.1
    assert result["log_loss_adapted"] < result["log_loss_oracle"] + 0.02
    assert result["accuracy_adapted"] > result["accuracy_unadapted"] + 0.05
    assert result["cost_sensitive"] < 0.6 * result["cost_argmax"]


def test_discriminant_family_example(tmp_path):
    """On classes with two modes the mixture beats one Gaussian per class; LDA's line fails."""
    result = _load(ROOT / "examples" / "discriminant_family.py").main(out=tmp_path / "regions.png")
    assert (tmp_path / "regions.png").stat().st_size > 0
    mixture, qda = "MixtureDA (2 per class)", "QDA"
    assert result[f"{mixture} log loss"] < 0.8 * result[f"{qda} log loss"]
    assert result[mixture] >= result[qda]
    assert result["LDA"] < min(
        result[name] for name in result if "log loss" not in name and name != "LDA"
    )
