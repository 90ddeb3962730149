"""The posterior after a fit on rows with missing values: exact (independent features) or by
data augmentation (full, tied, spherical), checked against closed forms, NUTS and coverage."""

import io

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

import bayesgen as bg
from bayesgen import joint
from bayesgen.cli import main
from bayesgen.inference.inference_data import arviz

az = arviz()


def _gappy(seed, n_per_class=30, n_features=2, fraction=0.3):
    """Two Gaussian classes with correlated features; ``fraction`` of the entries missing."""
    rng = np.random.default_rng(seed)
    truth = np.array([[0.0, 0.0], [2.0, 1.0]])[:, :n_features]
    covariance = np.array([[1.0, 0.6], [0.6, 1.0]])[:n_features, :n_features]
    y = np.repeat([0, 1], n_per_class)
    X = truth[y] + rng.multivariate_normal(np.zeros(n_features), covariance, y.size)
    holes = rng.random(X.shape) < fraction
    holes[np.arange(0, y.size, 5)] = False  # some complete rows in each class
    return np.where(holes, np.nan, X), y, truth


def test_diag_posterior_is_the_conjugate_update_of_the_observed_entries():
    """GaussianNB: per (class, feature), the Normal–Inverse-Gamma update by the observed
    entries alone, computed here directly; the draws' moments and the Student-t predictive
    match it."""
    X, y, _ = _gappy(0, n_features=2)
    model = bg.GaussianNB().fit(X, y)
    m0, kappa0, nu0, psi0 = (np.asarray(field) for field in model.prior_)
    draws = model.posterior(4000, random_state=0).posterior
    for k in range(2):
        for j in range(2):
            seen = X[y == k, j][~np.isnan(X[y == k, j])]
            n, mean = seen.size, seen.mean()
            kappa, nu = kappa0 + n, nu0 + n
            m = (kappa0 * m0[j] + n * mean) / kappa
            psi = psi0[j] + np.sum((seen - mean) ** 2) + kappa0 * n / kappa * (mean - m0[j]) ** 2
            variance = psi / (nu - 2)  # E[sigma^2] of InvGamma(nu/2, psi/2)
            mu = draws["means"].values[..., k, j].ravel()
            sigma2 = draws["covariances"].values[..., k, j].ravel()
            sd_mu = np.sqrt(variance / kappa)
            assert abs(mu.mean() - m) < 4 * sd_mu / np.sqrt(mu.size)
            assert abs(sigma2.mean() / variance - 1) < 0.05
            assert abs(mu.std() / sd_mu - 1) < 0.05
    # The predictive of a row with one observed entry: a univariate Student-t.
    row = np.array([[0.5, np.nan]])
    proba = model.predict_proba(row, method="predictive")
    np.testing.assert_allclose(proba.sum(), 1.0)
    assert model.posterior(5).posterior.attrs.get("sampler") is None  # exact, no chains


def test_bernoulli_nb_skips_missing_entries_exactly():
    rng = np.random.default_rng(1)
    y = np.repeat([0, 1], 40)
    X = (rng.random((80, 3)) < np.where(y[:, None] == 1, 0.7, 0.3)).astype(float)
    X[rng.random(X.shape) < 0.3] = np.nan
    model = bg.BernoulliNB(alpha=1.0).fit(X, y)
    draws = model.posterior(4000, random_state=0).posterior["feature_probs"].values
    draws = draws.reshape(-1, 2, 3)
    for k in range(2):
        ones = np.nansum(X[y == k], axis=0)
        seen = np.sum(~np.isnan(X[y == k]), axis=0)
        expected = (1.0 + ones) / (2.0 + seen)  # Beta(1 + ones, 1 + zeros)
        np.testing.assert_allclose(draws[:, k].mean(0), expected, atol=0.01)


@pytest.mark.parametrize("model", [bg.QDA, bg.LDA], ids=["full", "tied"])
def test_augmentation_works_without_extra_arguments_and_reports_its_chains(model):
    X, y, _ = _gappy(2)
    fitted = model().fit(X, y)
    idata = fitted.posterior(150, random_state=0)
    attrs = idata.posterior.attrs
    assert attrs["sampler"] == "data augmentation"
    assert attrs["chains"] == 4 and attrs["warmup_sweeps"] == 50
    assert idata.posterior.sizes["chain"] == 4
    assert float(az.rhat(idata)["means"].max()) < 1.05
    draws = fitted.predict_proba_draws(X[:4], 40, random_state=0)
    assert draws.shape == (40, 4, 2)
    np.testing.assert_allclose(draws.sum(axis=2), 1.0)
    predictive = fitted.predict_proba(X[:4], method="predictive")
    np.testing.assert_allclose(predictive.sum(axis=1), 1.0)
    np.testing.assert_array_equal(predictive, fitted.predict_proba(X[:4], method="predictive"))
    # The same seed, the same draws.
    again = fitted.posterior(150, random_state=0)
    np.testing.assert_array_equal(again.posterior["means"], idata.posterior["means"])


def test_a_model_without_its_training_rows_still_refuses():
    """A model file from before the rows were kept: the old error, pointing to NUTS."""
    X, y, _ = _gappy(3)
    model = bg.QDA().fit(X, y)
    model.joint_ = model.joint_._replace(rows=None)
    with pytest.raises(ValueError, match="posterior has no closed form.*method='nuts'"):
        model.posterior(10)


def test_partial_fit_adds_its_rows_to_the_kept_ones():
    X, y, _ = _gappy(7)
    model = bg.LDA().fit(X[:40], y[:40])
    model.partial_fit(np.nan_to_num(X[40:]), y[40:])
    assert model.fitted_with_missing_
    assert model.joint_.rows.X.shape == X.shape
    np.testing.assert_array_equal(model.joint_.rows.weights.sum(axis=0), np.bincount(y))


def test_a_fit_on_complete_rows_forgets_the_rows():
    X, y, _ = _gappy(4)
    model = bg.LDA().fit(X, y)
    assert model.joint_.rows.X.shape == X.shape
    model.fit(np.nan_to_num(X), y)
    assert model.joint_.rows is None


@pytest.mark.slow
@pytest.mark.nuts
def test_augmentation_agrees_with_nuts_on_the_story():
    """Means within 0.2 posterior sd, sds within 30 %, on QDA with d = 2."""
    X, y, _ = _gappy(5, n_per_class=25)
    model = bg.QDA().fit(X, y)
    augmented = model.posterior(500, random_state=0)
    nuts = model.posterior(400, method="nuts", num_warmup=400, X=X, y=y, random_state=1)
    for name in ("means", "covariances"):
        a = augmented.posterior[name].values
        b = nuts.posterior[name].values
        a, b = a.reshape(-1, *a.shape[2:]), b.reshape(-1, *b.shape[2:])
        sd = b.std(axis=0)
        assert np.all(np.abs(a.mean(axis=0) - b.mean(axis=0)) < 0.2 * sd), name
        ratio = a.std(axis=0) / sd
        assert np.all((ratio > 0.7) & (ratio < 1.3)), (name, ratio)
    assert float(az.rhat(augmented).to_array().max()) < 1.05


@pytest.mark.slow
def test_credible_intervals_of_the_class_means_cover_the_truth():
    """Over 100 data sets with 30 % missing, 90 % intervals of the 4 class-mean coordinates
    cover the truth 84–96 % of the time."""
    covered = []
    for seed in range(100):
        X, y, truth = _gappy(100 + seed, n_per_class=40)
        model = bg.LDA().fit(X, y)
        means = model.posterior(100, num_chains=2, num_warmup=50, random_state=seed)
        means = means.posterior["means"].values.reshape(-1, 2, 2)
        lower, upper = np.quantile(means, [0.05, 0.95], axis=0)
        covered.append((lower <= truth) & (truth <= upper))
    rate = np.mean(covered)
    assert 0.84 <= rate <= 0.96, rate


def test_cli_uncertainty_after_a_fit_on_blank_cells(tmp_path):
    X, y, _ = _gappy(6)
    frame = pd.DataFrame(X, columns=["a", "b"]).assign(label=np.where(y == 1, "yes", "no"))
    data, model_path = tmp_path / "gappy.csv", tmp_path / "lda.bgm"
    frame.to_csv(data, index=False)
    runner = CliRunner()
    fitted = runner.invoke(
        main, ["fit", str(data), "--target", "label", "--model", "lda", "--out", str(model_path)]
    )
    assert fitted.exit_code == 0, fitted.output
    result = runner.invoke(
        main,
        ["predict", str(model_path), str(data), "--uncertainty", "0.9", "--draws", "40"],
    )
    assert result.exit_code == 0, result.output
    table = pd.read_csv(io.StringIO(result.stdout))
    for name in ("no", "yes"):
        lower, upper = table[f"p({name}) lower"], table[f"p({name}) upper"]
        mean = table[f"p({name}) mean"]
        assert np.all((lower <= mean) & (mean <= upper)) and np.all(upper - lower > 0)


def test_rows_in_a_value_not_fitted_by_em_are_not_its_posterior():
    """Only a fit by EM over missing entries (its ``frozen``) draws from kept rows; rows
    put into a complete fit's value leave its conjugate posterior as it is."""
    X, y, _ = _gappy(5)
    complete = np.nan_to_num(X)
    model = bg.QDA().fit(complete, y)
    expected = model.posterior(20, random_state=0).posterior
    model.joint_ = model.joint_._replace(
        rows=joint.KeptRows(complete[:5], np.eye(len(model.classes_))[y[:5]])
    )
    found = model.posterior(20, random_state=0).posterior
    for name in ("means", "covariances"):
        np.testing.assert_array_equal(found[name], expected[name])
