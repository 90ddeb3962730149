"""ExponentialNB: closed forms, missing values, weights, chunks, draws, story and posterior."""

import jax
import numpy as np
import pytest
import scipy.sparse as sp
from numpyro import handlers
from numpyro.infer.util import log_density
from scipy import stats

import bayesgen
from bayesgen.estimators.exponential_nb import ExponentialNB

RNG = np.random.default_rng(7)
TRUE_RATES = np.array([[0.5, 2.0, 1.0], [3.0, 0.7, 0.25]])
Y = np.arange(120) % 2
X = RNG.exponential(1.0 / TRUE_RATES[Y])


def test_the_three_estimates_are_the_closed_forms():
    X_hand = np.array([[1.0, 0.5], [3.0, 1.5], [0.2, 4.0], [0.6, 2.0], [0.4, 6.0]])
    y_hand = np.array([0, 0, 1, 1, 1])
    N = np.array([[2.0, 2.0], [3.0, 3.0]])
    S = np.array([[4.0, 2.0], [1.2, 12.0]])
    alpha, beta = 1.5, 0.5
    expected = {
        "mle": N / S,
        "map": (alpha + N - 1) / (beta + S),
        "mean": (alpha + N) / (beta + S),
    }
    for kind, rates in expected.items():
        model = ExponentialNB(alpha=alpha, beta=beta, estimate=kind).fit(X_hand, y_hand)
        np.testing.assert_allclose(model.rates_, rates, rtol=1e-12)
        np.testing.assert_allclose(model.feature_count_, S)
        np.testing.assert_allclose(model.observed_count_, N)
    joint = (
        ExponentialNB(alpha=alpha, beta=beta).fit(X_hand, y_hand).predict_joint_log_proba(X_hand)
    )
    rates = expected["mean"]
    reference = np.log([0.4, 0.6]) + np.stack(
        [stats.expon.logpdf(X_hand, scale=1 / rates[k]).sum(axis=1) for k in range(2)], axis=1
    )
    np.testing.assert_allclose(joint, reference, rtol=1e-12)


def test_missing_entries_are_marginalised_as_if_the_column_were_absent():
    X_missing = X.copy()
    X_missing[::3, 2] = np.nan
    full = ExponentialNB().fit(X_missing, Y)
    rows = np.isnan(X_missing[:, 2])
    observed = ExponentialNB().fit(X_missing[~rows], Y[~rows])
    dropped = ExponentialNB().fit(X_missing[:, :2], Y)
    np.testing.assert_allclose(full.rates_[:, :2], dropped.rates_, rtol=1e-12)
    np.testing.assert_allclose(full.rates_[:, 2], observed.rates_[:, 2], rtol=1e-12)
    np.testing.assert_allclose(
        full.predict_joint_log_proba(X_missing[rows]),
        dropped.predict_joint_log_proba(X_missing[rows, :2]),
        rtol=1e-12,
    )


def test_sample_weights_equal_duplicated_rows():
    weights = RNG.integers(0, 4, X.shape[0])
    weighted = ExponentialNB().fit(X, Y, sample_weight=weights)
    repeated = ExponentialNB().fit(np.repeat(X, weights, axis=0), np.repeat(Y, weights))
    np.testing.assert_allclose(weighted.rates_, repeated.rates_, rtol=1e-12)
    np.testing.assert_allclose(weighted.class_prior_, repeated.class_prior_, rtol=1e-12)


def test_fit_equals_partial_fit_over_chunks():
    whole = ExponentialNB(estimate="map").fit(X, Y)
    chunked = ExponentialNB(estimate="map")
    for chunk in np.array_split(np.arange(X.shape[0]), 4):
        chunked.partial_fit(X[chunk], Y[chunk], classes=[0, 1])
    np.testing.assert_allclose(chunked.rates_, whole.rates_, rtol=1e-12)
    np.testing.assert_allclose(chunked.predict_proba(X), whole.predict_proba(X), rtol=1e-10)


def test_synthetic_rows_follow_the_fitted_rates():
    model = ExponentialNB().fit(X, Y)
    drawn, labels = model.sample(6000, random_state=0)
    assert drawn.dtype == np.float64 and np.all(drawn >= 0)
    for k in range(2):
        rows = drawn[labels == k]
        np.testing.assert_allclose(rows.mean(axis=0), 1 / model.rates_[k], rtol=0.08)
        for j in range(3):
            reference = stats.expon(scale=1 / model.rates_[k, j]).cdf
            assert stats.kstest(rows[:, j], reference).pvalue > 1e-3


def test_predictive_probabilities_use_the_lomax_density():
    model = ExponentialNB(alpha=2.0, beta=3.0).fit(X[:20], Y[:20])
    shape = 2.0 + model.observed_count_
    rate = 3.0 + model.feature_count_
    log_predictive = np.stack(
        [stats.lomax.logpdf(X[20:30], shape[k], scale=rate[k]).sum(axis=1) for k in range(2)],
        axis=1,
    )
    class_mean = (1.0 + model.class_count_) / (2.0 + model.class_count_.sum())
    joint = log_predictive + np.log(class_mean)
    expected = np.exp(joint - np.logaddexp.reduce(joint, axis=1, keepdims=True))
    found = model.predict_proba(X[20:30], method="predictive")
    np.testing.assert_allclose(found, expected, rtol=1e-9)


def test_story_log_density_is_the_closed_form_joint():
    model = ExponentialNB(alpha=2.0, beta=0.5).fit(X, Y)
    params = {"class_prior": model.class_prior_, "rates": model.rates_}
    with jax.enable_x64(True):
        substituted = handlers.substitute(model.story, data=params)
        density, _ = log_density(substituted, (X, Y), {}, {})
    expected = stats.dirichlet.logpdf(model.class_prior_, np.ones(2))
    expected += stats.gamma.logpdf(model.rates_, 2.0, scale=1 / 0.5).sum()
    expected += np.log(model.class_prior_[Y]).sum()
    expected += stats.expon.logpdf(X, scale=1 / model.rates_[Y]).sum()
    np.testing.assert_allclose(float(density), expected, rtol=1e-10)


def test_exact_posterior_is_inference_data_with_the_rates_site():
    model = ExponentialNB(alpha=2.0, beta=1.0).fit(X, Y)
    idata = model.posterior(2000, random_state=0)
    rates = idata.posterior["rates"]
    assert rates.dims == ("chain", "draw", "class", "feature")
    assert rates.shape == (1, 2000, 2, 3)
    shape = 2.0 + model.observed_count_
    rate = 1.0 + model.feature_count_
    draws = rates.values[0]
    np.testing.assert_allclose(draws.mean(axis=0), shape / rate, rtol=0.03)
    np.testing.assert_allclose(draws.std(axis=0), np.sqrt(shape) / rate, rtol=0.1)


@pytest.mark.slow
@pytest.mark.nuts
def test_nuts_on_the_story_agrees_with_the_exact_posterior():
    X_small, y_small = X[:30], Y[:30]
    model = ExponentialNB().fit(X_small, y_small)
    exact = model.posterior(4000, random_state=0).posterior["rates"].values[0]
    nuts = model.posterior(
        400, method="nuts", num_chains=1, num_warmup=300, X=X_small, y=y_small, random_state=1
    )
    drawn = nuts.posterior["rates"].values[0]
    sd = exact.std(axis=0)
    assert np.all(np.abs(drawn.mean(axis=0) - exact.mean(axis=0)) < 0.2 * sd)


def test_semi_supervised_fit_runs_with_unlabelled_rows():
    y_partial = Y.copy()
    y_partial[40:] = -1
    model = ExponentialNB().fit(X, y_partial)
    assert model.n_iter_ >= 1 and np.all(np.isfinite(model.rates_))
    np.testing.assert_array_equal(model.classes_, [0, 1])
    assert model.score(X, Y) > 0.7


def test_impute_fills_only_missing_entries():
    model = ExponentialNB().fit(X, Y)
    X_missing = X[:5].copy()
    X_missing[0, 1] = np.nan
    filled = model.impute(X_missing, y=np.zeros(5, dtype=int))
    assert filled[0, 1] == pytest.approx(1 / model.rates_[0, 1])
    np.testing.assert_array_equal(np.delete(filled.ravel(), 1), np.delete(X_missing.ravel(), 1))


@pytest.mark.parametrize(
    "bad, error",
    [
        (np.array([[1.0, -0.5, 2.0]]), ValueError),
        (np.array([[1.0, np.inf, 2.0]]), ValueError),
        (np.array([[1.0, 2.0]]), ValueError),
        (sp.csr_matrix(np.ones((1, 3))), TypeError),
    ],
)
def test_bad_input_is_refused(bad, error):
    model = ExponentialNB().fit(X, Y)
    with pytest.raises(error, match="X"):
        model.predict(bad)


def test_bad_hyperparameters_are_refused_naming_them():
    with pytest.raises(ValueError, match="beta"):
        ExponentialNB(beta=-1.0).fit(X, Y)
    with pytest.raises(ValueError, match="alpha"):
        ExponentialNB(alpha=[1.0, 2.0]).fit(X, Y)


def test_save_and_load_round_trip_bit_for_bit(tmp_path):
    model = ExponentialNB(alpha=2.0).fit(X, Y)
    path = tmp_path / "exponential.bgm"
    model.save(path)
    loaded = bayesgen.load(path)
    np.testing.assert_array_equal(
        loaded.predict_joint_log_proba(X), model.predict_joint_log_proba(X)
    )
    np.testing.assert_array_equal(loaded.rates_, model.rates_)
