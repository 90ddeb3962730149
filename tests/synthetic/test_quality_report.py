"""The report on tables whose quality is known: shuffled columns, a fitted QDA's draws."""

import json
import math

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import log_loss

from bayesgen import QDA
from bayesgen.synthetic import QualityReport, quality_report
from tests.synthetic.conftest import shuffled_columns


@pytest.fixture(scope="module")
def shuffled_report(wine_split):
    train, holdout = wine_split
    return quality_report(
        train, shuffled_columns(train), target="cultivar", holdout=holdout, random_state=0
    )


@pytest.fixture(scope="module")
def qda_report(wine_split):
    train, holdout = wine_split
    features = train.drop(columns="cultivar")
    model = QDA().fit(features.to_numpy(), train["cultivar"].to_numpy())
    X, y = model.sample(len(train), random_state=0)
    synthetic = pd.DataFrame(X, columns=features.columns).assign(cultivar=y)
    return quality_report(train, synthetic, target="cultivar", holdout=holdout, random_state=0)


def test_shuffled_columns_keep_margins_but_lose_dependence(shuffled_report):
    assert (shuffled_report.marginals["distance"] == 0).all()
    assert shuffled_report.mean_dependence_difference > 0.2
    assert shuffled_report.detector_auc > 0.8
    # Without the dependence on the features, the cultivar cannot be learnt.
    assert shuffled_report.utility.synthetic_accuracy < 0.6
    assert shuffled_report.utility.real_accuracy > 0.9


def test_qda_draws_are_harder_to_detect_than_shuffled_columns(qda_report, shuffled_report):
    assert qda_report.detector_auc < shuffled_report.detector_auc - 0.2
    assert qda_report.mean_dependence_difference < shuffled_report.mean_dependence_difference
    assert qda_report.utility.synthetic_accuracy > 0.8
    # A generator does not copy its rows: synthetic rows sit about as far as new real ones.
    assert 0.7 < qda_report.privacy.ratio < 1.5
    assert qda_report.privacy.share_closer < 0.2


def test_without_a_holdout_thirty_percent_of_real_is_held_out(mixed_table):
    report = quality_report(
        mixed_table, mixed_table.sample(frac=1, random_state=1), target="species", random_state=0
    )
    assert report.holdout == "split"
    assert (report.n_real, report.n_holdout) == (60, 18)
    assert report.utility.n_test == 18


def test_a_class_the_synthetic_table_lacks_costs_the_clipped_log_loss(wine_split):
    train, holdout = wine_split
    synthetic = train[train["cultivar"] != "class_2"]
    report = quality_report(train, synthetic, target="cultivar", holdout=holdout, random_state=0)
    missing = (holdout["cultivar"] == "class_2").to_numpy()
    assert report.utility.synthetic_accuracy <= 1 - missing.mean() + 1e-12
    eps = np.finfo(float).eps
    # Each class_2 row pays at least -log(eps): the classes are given their probability 0.
    assert report.utility.synthetic_log_loss >= missing.mean() * -np.log(eps) - 1e-9
    assert math.isfinite(report.utility.synthetic_log_loss)
    assert log_loss([0, 1], [[1.0, 0.0], [1.0, 0.0]], labels=[0, 1]) == pytest.approx(
        -np.log(eps) / 2
    )


def test_the_report_reads_as_text_a_long_table_and_json(qda_report):
    text = str(qda_report)
    for heading in ("Marginal distance", "Dependence", "Utility", "Detector ROC AUC", "DCR"):
        assert heading in text
    frame = qda_report.to_frame()
    assert list(frame.columns) == ["section", "item", "measure", "value"]
    assert set(frame["section"]) == {"marginal", "dependence", "utility", "detection", "privacy"}
    n_columns = len(qda_report.marginals)
    assert (frame["section"] == "dependence").sum() == n_columns * (n_columns - 1) // 2 + 1
    auc = frame.query("item == 'detector' and measure == 'ROC AUC'")["value"].item()
    assert auc == qda_report.detector_auc
    mark = frame.query("item == 'real against real' and measure == 'ROC AUC'")["value"].item()
    assert mark == qda_report.real_detector_auc
    figures = json.loads(json.dumps(qda_report.to_dict()))
    assert figures["detector_auc"] == qda_report.detector_auc
    assert figures["real_detector_auc"] == qda_report.real_detector_auc
    assert figures["utility"]["synthetic_accuracy"] == qda_report.utility.synthetic_accuracy
    assert isinstance(qda_report, QualityReport)


def test_real_against_real_is_the_detector_on_the_two_real_tables(qda_report, wine_split):
    """The mark the detector's AUC is read against: the same detector, same folds, on the
    generator's real rows against the holdout (which it never saw)."""
    from bayesgen.synthetic.detection import detector_auc
    from bayesgen.synthetic.tables import check_tables

    train, holdout = wine_split
    (real, held, _), columns = check_tables(train, holdout, target="cultivar")
    assert (qda_report.real_detector_auc, qda_report.real_detector_auc_std) == detector_auc(
        real, held, columns, 0
    )
    assert 0.3 < qda_report.real_detector_auc < 0.7  # real rows: near 0.5
    assert "real holdout against real rows" in str(qda_report)


def test_real_against_real_needs_two_rows_on_each_side(mixed_table):
    real = mixed_table.iloc[:3]
    report = quality_report(real, real.iloc[[2, 1, 0, 0, 1]], random_state=0)
    assert report.n_holdout == 1 and math.isnan(report.real_detector_auc)
    assert report.to_dict()["real_detector_auc"] is None
    assert math.isfinite(report.detector_auc)


def test_no_target_no_utility(mixed_table):
    report = quality_report(mixed_table, mixed_table.iloc[::-1], random_state=0)
    assert report.utility is None
    assert "Utility" not in str(report)
    assert report.to_dict()["utility"] is None


def test_mixed_nb_draws_of_a_mixed_table_pass_the_checks_and_look_real():
    """MixedNB's DataFrame of draws keeps each column's type: integers, text, booleans."""
    from bayesgen import MixedNB

    rng = np.random.default_rng(1)
    n = 300
    species = rng.choice(["Adelie", "Gentoo", "Chinstrap"], n)
    real = pd.DataFrame(
        {
            "bill": rng.normal(40, 5, n) + (species == "Gentoo") * 8,
            "year": rng.integers(2007, 2010, n),
            "island": rng.choice(["Biscoe", "Dream", "Torgersen"], n),
            "male": rng.random(n) < 0.5,
            "species": species,
        }
    )
    model = MixedNB().fit(real.drop(columns="species"), real["species"])
    X, y = model.sample(n, random_state=0)
    report = quality_report(real, X.assign(species=y), target="species", random_state=0)
    # Two samples of one distribution: KS and TV stay below ~1.36 sqrt(2 / 300) = 0.11.
    assert report.marginals["distance"].max() < 0.15
    assert report.detector_auc < 0.7
