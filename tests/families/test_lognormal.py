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


@pytest.mark.parametrize(("kind", "divisor"), [("map", 3.0), ("mean", -2.0)])
def test_map_and_mean_are_the_posterior_mode_and_mean(kind, divisor):
    X, y = _data(n=50, seed=3)
    family, stats_, prior, params = _fitted(X, y, kind)
    post = family.posterior(prior, stats_)
    np.testing.assert_allclose(params.log_means, post.mean)
    ridge = family.ridge(stats_)
    np.testing.assert_allclose(params.log_variances, post.scale / (post.dof + divisor) + ridge)
    if kind == "mean":  # the mean of the Inverse-Gamma, by SciPy
        expected = stats.invgamma.mean(post.dof / 2, scale=post.scale / 2) + ridge
        np.testing.assert_allclose(params.log_variances, expected, rtol=1e-12)


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
