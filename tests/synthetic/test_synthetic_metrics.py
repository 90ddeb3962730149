"""Each figure of the report against a direct computation with SciPy or scikit-learn."""

import numpy as np
import pandas as pd
import pytest
from scipy.stats import f_oneway, ks_2samp
from scipy.stats.contingency import association, crosstab

from bayesgen.synthetic import quality_report
from bayesgen.synthetic.dependence import (
    association_matrix,
    correlation_ratio,
    cramers_v,
    mean_over_pairs,
)
from bayesgen.synthetic.marginals import marginal_distances
from bayesgen.synthetic.privacy import closest_distances
from bayesgen.synthetic.tables import check_tables


def _checked(real, synthetic, target=None):
    (real, synthetic, _), columns = check_tables(real, synthetic, target=target)
    return real, synthetic, columns


def test_ks_is_scipys_two_sample_statistic_over_observed_values():
    rng = np.random.default_rng(0)
    a, b = rng.normal(size=40), rng.normal(0.5, 1.0, 55)
    real, synthetic = pd.DataFrame({"x": a}), pd.DataFrame({"x": b})
    real.loc[[2, 7], "x"] = np.nan
    marginals = marginal_distances(*_checked(real, synthetic))
    expected = ks_2samp(np.delete(a, [2, 7]), b).statistic
    assert marginals.loc["x", "measure"] == "KS"
    assert marginals.loc["x", "distance"] == pytest.approx(expected, abs=1e-15)
    assert marginals.loc["x", "missing_real"] == pytest.approx(2 / 40)


def test_total_variation_by_hand_on_counts():
    real = pd.DataFrame({"c": ["a", "a", "b", "c"]})
    synthetic = pd.DataFrame({"c": ["a", "b", "b", "b", None]})
    marginals = marginal_distances(*_checked(real, synthetic))
    # p = (2, 1, 1) / 4 and q = (1, 3, 0) / 4 over (a, b, c): ½ (1 + 2 + 1) / 4.
    assert marginals.loc["c", "measure"] == "TV"
    assert marginals.loc["c", "distance"] == pytest.approx(0.5)
    assert marginals.loc["c", "missing_synthetic"] == pytest.approx(0.2)


def test_cramers_v_is_scipys_association():
    rng = np.random.default_rng(2)
    a = rng.choice(list("xyz"), 300)
    b = np.where(rng.random(300) < 0.6, a, rng.choice(list("xyzw"), 300))
    table = crosstab(a, b).count
    assert cramers_v(pd.Series(a), pd.Series(b)) == pytest.approx(
        association(table, method="cramer"), rel=1e-12
    )


def test_correlation_ratio_is_the_one_way_anova_share_of_variance():
    rng = np.random.default_rng(3)
    groups = rng.choice(["p", "q", "r"], 200)
    values = rng.normal(size=200) + (groups == "q") * 1.5
    samples = [values[groups == g] for g in "pqr"]
    f = f_oneway(*samples).statistic
    k, n = 3, values.size
    eta_squared = f * (k - 1) / (f * (k - 1) + n - k)
    eta = correlation_ratio(pd.Series(values), pd.Series(groups))
    assert eta == pytest.approx(np.sqrt(eta_squared), rel=1e-12)


def test_association_matrix_uses_the_measure_of_each_pair(mixed_table):
    real, _, columns = _checked(mixed_table, mixed_table, target="species")
    matrix = association_matrix(real, columns)
    assert np.allclose(matrix, matrix.T) and np.all(np.diag(matrix) == 1)
    both = real["bill"].notna() & real["island"].notna()
    assert matrix.loc["bill", "year"] == pytest.approx(
        np.corrcoef(real.loc[real["bill"].notna(), ["bill", "year"]].T)[0, 1]
    )
    assert matrix.loc["island", "species"] == pytest.approx(
        association(
            crosstab(
                real["island"][real["island"].notna()].to_numpy(),
                real["species"][real["island"].notna()].to_numpy(),
            ).count
        )
    )
    assert matrix.loc["bill", "island"] == pytest.approx(
        correlation_ratio(real["bill"][both], real["island"][both])
    )


def test_mean_over_pairs_reads_the_upper_triangle():
    difference = pd.DataFrame([[0.0, 0.2, 0.4], [0.2, 0.0, 0.6], [0.4, 0.6, 0.0]])
    assert mean_over_pairs(difference) == pytest.approx(0.4)


def test_closest_distances_are_brute_force_on_standardised_and_one_hot_columns():
    rng = np.random.default_rng(4)
    train = pd.DataFrame({"x": rng.normal(3, 2, 30), "c": rng.choice(["u", "v"], 30)})
    rows = pd.DataFrame({"x": rng.normal(3, 2, 8), "c": rng.choice(["u", "v"], 8)})
    (train_f, rows_f, _), columns = check_tables(train, rows)
    found = closest_distances(train_f, rows_f, columns)
    z = (train["x"].to_numpy() - train["x"].mean()) / train["x"].std(ddof=0)
    z_rows = (rows["x"].to_numpy() - train["x"].mean()) / train["x"].std(ddof=0)
    categories = (rows["c"].to_numpy()[:, None] != train["c"].to_numpy()[None, :]) * 2.0
    brute = np.sqrt((z_rows[:, None] - z[None, :]) ** 2 + categories).min(axis=1)
    np.testing.assert_allclose(found, brute, rtol=1e-12)


def test_a_copy_is_perfect_in_fidelity_and_a_copy_in_privacy(wine_split):
    train, holdout = wine_split
    report = quality_report(train, train.copy(), target="cultivar", holdout=holdout, random_state=0)
    assert (report.marginals["distance"] == 0).all()
    assert report.mean_dependence_difference == 0
    assert (report.dependence_difference.to_numpy() == 0).all()
    assert report.privacy.synthetic_median == 0 and report.privacy.ratio == 0
    assert report.privacy.share_closer == 1
    # Same classifier, same rows, same seed: train-on-synthetic is train-on-real.
    u = report.utility
    assert (u.synthetic_accuracy, u.synthetic_log_loss) == (u.real_accuracy, u.real_log_loss)


def test_a_class_column_of_whole_numbers_matches_across_int_and_float_tables():
    real = pd.DataFrame({"x": [0.1, 0.5, 0.9, 0.3], "y": [0, 1, 1, 2]})
    synthetic = pd.DataFrame({"x": [0.2, 0.4, 0.8, 0.6, 0.7], "y": [0.0, 1.0, 2.0, 1.0, np.nan]})
    marginals = marginal_distances(*_checked(real, synthetic, target="y"))
    # p = (1, 2, 1) / 4 and q = (1, 2, 1) / 4 over the observed classes 0, 1, 2.
    assert marginals.loc["y", "distance"] == pytest.approx(0.0)
