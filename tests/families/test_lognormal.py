"""LogNormalFamily: a column-only family (no estimator), checked against SciPy's closed forms."""

import jax
import numpy as np
import pandas as pd
import pytest
from numpyro.infer.util import log_density
from scipy import stats

import bayesgen
from bayesgen import FamilyClassifier, MixedNB
from bayesgen.families import column_evidence
from bayesgen.families.column_choice import summarise
from bayesgen.families.lognormal import LogNormalFamily


def _data(n=300, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    X = np.column_stack([rng.lognormal(1.0 + 0.8 * y, 0.5), rng.lognormal(-1.0, 0.3 + 0.4 * y)])
    return X, y


def _fitted(X, y, kind="mean", family=None):
    family = LogNormalFamily() if family is None else family
    stats_ = family.suff_stats(X, np.eye(2)[y], np.float64)
    prior = family.prior(stats_)
    return family, stats_, prior, family.point_estimate(prior, stats_, kind)


def test_the_mle_is_the_mean_and_variance_of_log_x_per_class_with_the_ridge():
    X, y = _data()
    X[::5, 0] = np.nan
    family, stats_, _, params = _fitted(X, y, "mle")
    logs = np.log(X)
    ridge = 1e-6 * np.nanvar(logs, axis=0)
    for k in range(2):
        np.testing.assert_allclose(params.log_means[k], np.nanmean(logs[y == k], axis=0))
        np.testing.assert_allclose(
            params.log_variances[k], np.nanvar(logs[y == k], axis=0) + ridge, rtol=1e-12
        )


def test_the_posterior_is_bayes_theorem():
    """log prior + log likelihood - log posterior is the same constant at any (mu, s2)."""
    X, y = _data(n=40, seed=1)
    family, stats_, prior, _ = _fitted(X, y)
    post = family.posterior(prior, stats_)
    k, j = 1, 0
    x = np.log(X[y == k, j])
    rng = np.random.default_rng(2)
    gaps = []
    for _ in range(5):
        mu, s2 = rng.normal(1.5, 0.5), rng.uniform(0.1, 1.0)
        log_prior = stats.invgamma.logpdf(
            s2, prior.dof / 2, scale=prior.scale[j] / 2
        ) + stats.norm.logpdf(mu, prior.mean[j], np.sqrt(s2 / prior.mean_precision))
        log_likelihood = stats.norm.logpdf(x, mu, np.sqrt(s2)).sum()
        log_posterior = stats.invgamma.logpdf(
            s2, post.dof[k, j] / 2, scale=post.scale[k, j] / 2
        ) + stats.norm.logpdf(mu, post.mean[k, j], np.sqrt(s2 / post.mean_precision[k, j]))
        gaps.append(log_prior + log_likelihood - log_posterior)
    np.testing.assert_allclose(gaps, gaps[0], rtol=1e-10)


def test_the_mean_estimate_is_scipy_s_posterior_mean():
    X, y = _data(n=50, seed=3)
    family, stats_, prior, params = _fitted(X, y, "mean")
    post = family.posterior(prior, stats_)
    np.testing.assert_allclose(params.log_means, post.mean)
    expected = stats.invgamma.mean(post.dof / 2, scale=post.scale / 2) + family.ridge(stats_)
    np.testing.assert_allclose(params.log_variances, expected, rtol=1e-12)


@pytest.mark.parametrize("kind", ["map", "mean"])
def test_the_estimate_maximises_the_weighted_likelihood_plus_the_log_prior(kind):
    """The EM objective's M-step: a numerical optimum of sum_i R_ik log p(x_i | k) plus
    log_prior (no ridge) is point_estimate, with fractional weights."""
    from scipy.optimize import minimize

    X, y = _data(n=40, seed=14)
    rng = np.random.default_rng(15)
    R = np.eye(2)[y] * rng.uniform(0.2, 1.0, (40, 1))
    family = LogNormalFamily(reg_covar=0)
    stats_ = family.suff_stats(X, R, np.float64)
    prior = family.prior(stats_)
    params = family.point_estimate(prior, stats_, kind)

    def objective(theta):
        mu, variance = theta[:4].reshape(2, 2), np.exp(theta[4:]).reshape(2, 2)
        fitted = (mu, variance)
        total = np.sum(R * family.log_likelihood(fitted, X))
        return -(total + family.log_prior(prior, fitted, kind))

    start = np.r_[np.zeros(4), np.zeros(4)]
    found = minimize(objective, start, method="BFGS", options={"gtol": 1e-10}).x
    np.testing.assert_allclose(found[:4].reshape(2, 2), params.log_means, atol=1e-5)
    np.testing.assert_allclose(np.exp(found[4:]).reshape(2, 2), params.log_variances, rtol=1e-5)


def test_batches_merge_and_weights_are_repeated_rows():
    X, y = _data(n=90, seed=16)
    X[::7, 1] = np.nan
    family = LogNormalFamily()
    whole = family.suff_stats(X, np.eye(2)[y], np.float64)
    merged = family.merge(
        family.suff_stats(X[:30], np.eye(2)[y[:30]], np.float64),
        family.suff_stats(X[30:], np.eye(2)[y[30:]], np.float64),
    )
    for got, expected in zip(merged, whole, strict=True):
        np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12)
    weights = np.random.default_rng(17).integers(0, 3, 90)
    weighted = family.suff_stats(X, np.eye(2)[y] * weights[:, None], np.float64)
    repeated = family.suff_stats(np.repeat(X, weights, 0), np.eye(2)[np.repeat(y, weights)], None)
    for got, expected in zip(weighted, repeated, strict=True):
        np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12)


def test_float32_keeps_its_digits_and_its_dtype():
    """Centred statistics: incomes with log-mean 11 and sd 0.05 in float32 (raw sums of
    squares lose 18 % of the variance there)."""
    rng = np.random.default_rng(18)
    y = rng.integers(0, 2, 50_000)
    X = rng.lognormal(11.0, 0.05, (50_000, 1))
    single = FamilyClassifier(family=LogNormalFamily(), estimate="mle").fit(X.astype(np.float32), y)
    double = FamilyClassifier(family=LogNormalFamily(), estimate="mle").fit(X, y)
    np.testing.assert_allclose(
        single.joint_.params.log_variances, double.joint_.params.log_variances, rtol=1e-4
    )
    gappy = X[:10].astype(np.float32)
    gappy[::2, 0] = np.nan
    for method in ("mean", "sample"):
        filled = single.impute(gappy, method=method, random_state=0)
        assert filled.dtype == np.float32 and np.all(filled > 0)
    assert single.sample(5, random_state=0)[0].dtype == np.float32
    frame = pd.DataFrame(
        {"income": gappy[:, 0], "h": np.float32(170.0) + np.arange(10, dtype=np.float32)}
    )
    mixed = MixedNB(features={"income": "lognormal"}).fit(frame, y[:10])
    assert (mixed.impute(frame)["income"] > 0).all()


def test_log_likelihood_and_predictive_are_scipy_with_missing_entries_dropped():
    X, y = _data(n=80, seed=4)
    family, stats_, prior, params = _fitted(X, y)
    gappy = X.copy()
    gappy[::3, 1] = np.nan
    got = family.log_likelihood(params, gappy)
    post = family.posterior(prior, stats_)
    predictive = family.predictive_log_likelihood(post, gappy)
    present = ~np.isnan(gappy)
    for k in range(2):
        scale = np.sqrt(params.log_variances[k])
        terms = stats.lognorm.logpdf(gappy, s=scale, scale=np.exp(params.log_means[k]))
        np.testing.assert_allclose(got[:, k], np.where(present, terms, 0).sum(1), rtol=1e-12)
        t_scale = np.sqrt(
            post.scale[k] * (post.mean_precision[k] + 1) / (post.mean_precision[k] * post.dof[k])
        )
        student = stats.t.logpdf(np.log(gappy), post.dof[k], post.mean[k], t_scale)
        expected = np.where(present, student - np.log(gappy), 0).sum(1)
        np.testing.assert_allclose(predictive[:, k], expected, rtol=1e-12)
    without = family.log_likelihood(params, gappy, row_terms=False)
    np.testing.assert_allclose(without - got, np.nansum(np.log(gappy), axis=1)[:, None] + 0 * got)


def test_the_evidence_is_the_prequential_chain_of_student_t_predictives():
    """The closed form equals column_evidence's chain of predictives of log x, minus sum log x."""
    X, y = _data(n=120, seed=5)
    column = pd.Series(X[:, 0])
    column[::9] = np.nan
    summary = summarise(column)
    got = LogNormalFamily().column_log_evidence(summary, y, 2)
    chain = column_evidence.gaussian(np.log(column.to_numpy()), y, 2, discrete=False)
    np.testing.assert_allclose(got, chain - np.nansum(np.log(column)), rtol=1e-10)


def test_posterior_draws_have_the_posterior_moments():
    X, y = _data(n=30, seed=6)
    family, stats_, prior, _ = _fitted(X, y)
    post = family.posterior(prior, stats_)
    expected_variance = stats.invgamma.mean(post.dof / 2, scale=post.scale / 2)
    spread = stats.invgamma.std(post.dof / 2, scale=post.scale / 2)
    for key in (np.random.default_rng(7), jax.random.PRNGKey(7)):
        with jax.enable_x64(True):
            draws = family.sample_params(key, post, 20000)
        means, variances = (np.asarray(d) for d in draws)
        assert means.shape == variances.shape == (20000, 2, 2)
        se = spread / np.sqrt(20000)
        assert np.all(np.abs(variances.mean(0) - expected_variance) < 5 * se)
        mean_se = np.sqrt(expected_variance / post.mean_precision / 20000)
        assert np.all(np.abs(means.mean(0) - post.mean) < 5 * mean_se)


def test_the_story_log_density_is_the_closed_form_joint_plus_the_log_prior():
    X, y = _data(n=60, seed=8)
    X[::4, 1] = np.nan
    model = FamilyClassifier(family=LogNormalFamily(), estimate="mean").fit(X, y)
    means, variances = model.joint_.params
    params = {"class_prior": model.class_prior_, "log_means": means, "log_variances": variances}
    with jax.enable_x64(True):
        density, _ = log_density(model.story, (X, y), {}, params)
    joint = model.predict_joint_log_proba(X)[np.arange(len(y)), y].sum()
    prior = model.joint_.feature_prior
    log_prior = stats.dirichlet.logpdf(model.class_prior_, np.ones(2))
    log_prior += stats.invgamma.logpdf(variances, prior.dof / 2, scale=prior.scale / 2).sum()
    log_prior += stats.norm.logpdf(
        means, prior.mean, np.sqrt(variances / prior.mean_precision)
    ).sum()
    np.testing.assert_allclose(float(density), log_prior + joint, rtol=1e-10)


def test_mixed_nb_chooses_it_by_evidence_and_uses_it_with_no_edit(tmp_path):
    """A log-normal column is chosen over the normal and the exponential; the model is the
    sum of its groups, samples and imputes inside the support, and is saved and loaded."""
    X, y = _data(n=400, seed=9)
    rng = np.random.default_rng(10)
    frame = pd.DataFrame({"income": X[:, 0], "wait": rng.exponential(1.0 + y)})
    frame.loc[::6, "income"] = np.nan
    model = MixedNB().fit(frame, y)
    assert model.feature_families_ == {"income": "lognormal", "wait": "exponential"}
    evidence = model.family_log_evidence_["income"]
    assert set(evidence) == {"gaussian", "exponential", "lognormal"}
    assert evidence["lognormal"] == max(evidence.values())
    alone = FamilyClassifier(family=LogNormalFamily(), estimate="mean").fit(frame[["income"]], y)
    share = model.estimators_["lognormal"]
    assert isinstance(share, FamilyClassifier)
    np.testing.assert_allclose(
        share.predict_joint_log_proba(frame[["income"]]),
        alone.predict_joint_log_proba(frame[["income"]]),
        rtol=1e-12,
    )
    total = np.log(model.class_prior_)
    for estimator, columns in ((share, ["income"]), (model.estimators_["exponential"], ["wait"])):
        total = total + estimator.predict_joint_log_proba(frame[columns])
        total = total - np.log(estimator.class_prior_)
    np.testing.assert_allclose(model.predict_joint_log_proba(frame), total, rtol=1e-10)
    synthetic, _ = model.sample(2000, random_state=0)
    assert (synthetic["income"] > 0).all()
    imputed = model.impute(frame)
    assert (imputed["income"] > 0).all() and not imputed["income"].isna().any()
    draws = model.posterior(num_samples=4, random_state=0)
    assert "lognormal/log_means" in draws.posterior
    model.save(tmp_path / "mixed.bgm")
    np.testing.assert_array_equal(
        bayesgen.load(tmp_path / "mixed.bgm").predict_proba(frame), model.predict_proba(frame)
    )


def test_its_settings_come_from_family_params():
    X, y = _data(n=100, seed=11)
    frame = pd.DataFrame({"income": X[:, 0]})
    model = MixedNB(
        features={"income": "lognormal"},
        family_params={"lognormal": {"degrees_of_freedom_prior": 7.0, "estimate": "map"}},
    ).fit(frame, y)
    alone = FamilyClassifier(
        family=LogNormalFamily(degrees_of_freedom_prior=7.0), estimate="map"
    ).fit(frame, y)
    np.testing.assert_allclose(model.predict_proba(frame), alone.predict_proba(frame), rtol=1e-12)
    with pytest.raises(ValueError, match="which the lognormal family does not take"):
        MixedNB(family_params={"lognormal": {"alpha": 2.0}}).fit(frame, y)
    # The evidence that chooses a column's family is taken under these settings too.
    chosen = MixedNB(family_params={"lognormal": {"degrees_of_freedom_prior": 7.0}}).fit(frame, y)
    own = LogNormalFamily(degrees_of_freedom_prior=7.0).column_log_evidence(
        summarise(frame["income"]), y, 2
    )
    assert chosen.family_log_evidence_["income"]["lognormal"] == pytest.approx(own, rel=1e-12)
    per_feature = {"lognormal": {"mean_prior": [1.0, 2.0]}}
    with pytest.raises(ValueError, match="name the lognormal columns in features="):
        MixedNB(family_params=per_feature).fit(frame, y)


def test_bad_values_and_settings_are_refused_by_name():
    X, y = _data(n=40, seed=12)
    frame = pd.DataFrame({"income": X[:, 0]})
    frame.loc[3, "income"] = 0.0
    refused = r"row 3, column 'income'; MixedNB's lognormal family models values > 0"
    with pytest.raises(ValueError, match=refused):
        MixedNB(features={"income": "lognormal"}).fit(frame, y)
    assert MixedNB().fit(frame, y).feature_families_["income"] != "lognormal"  # 0: not admitted
    with pytest.raises(ValueError, match="degrees_of_freedom_prior must be > 0"):
        FamilyClassifier(family=LogNormalFamily(degrees_of_freedom_prior=-1.0)).fit(X, y)
    with pytest.raises(ValueError, match="reg_covar=0 adds no ridge"):
        FamilyClassifier(family=LogNormalFamily(reg_covar=0), estimate="mle").fit(
            np.ones((6, 1)), [0, 0, 0, 1, 1, 1]
        )


@pytest.mark.nuts
def test_nuts_on_the_story_agrees_with_the_exact_posterior():
    X, y = _data(n=30, seed=13)
    model = FamilyClassifier(family=LogNormalFamily(), estimate="mean").fit(X, y)
    exact = model.posterior(4000, random_state=0).posterior
    nuts = model.posterior(
        400, method="nuts", num_chains=1, num_warmup=300, X=X, y=y, random_state=1
    ).posterior
    for site in ("log_means", "log_variances"):
        drawn, reference = nuts[site].values[0], exact[site].values[0]
        sd = reference.std(axis=0)
        assert np.all(np.abs(drawn.mean(axis=0) - reference.mean(axis=0)) < 0.25 * sd), site
