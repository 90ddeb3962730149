"""NUTS on each estimator's own story agrees with the exact conjugate posterior.

NUTS knows nothing of the conjugate algebra: it runs NumPyro's sampler on the story's
log density with the training rows observed. Agreement of the two (means within a few
Monte Carlo standard errors, standard deviations within 30%) checks the story, the
posterior updates and the samplers against each other. Slow by the standards of this
suite (seconds per model), and run in CI.
"""

import re

import jax
import numpy as np
import pandas as pd
import pytest

import bayesgen as bg
from bayesgen.inference.inference_data import arviz

az = arviz()
pytestmark = pytest.mark.nuts
RNG = np.random.default_rng(3)
N_ROWS = 30
LABELS = RNG.integers(0, 2, N_ROWS)
GAUSSIAN = RNG.normal(LABELS[:, None] * np.array([1.5, -1.0]), 1.0, (N_ROWS, 2))
BINARY = (RNG.random((N_ROWS, 3)) < np.where(LABELS[:, None] == 1, 0.7, 0.3)).astype(float)
COUNTS = RNG.poisson(1.0 + 2.0 * LABELS[:, None] * np.array([1, 0, 1]), (N_ROWS, 3)).astype(float)
CATEGORIES = np.array(["a", "b", "c"], dtype=object)[RNG.integers(0, 3, (N_ROWS, 2))]
MIXED = pd.DataFrame(
    {"size": GAUSSIAN[:, 0], "flag": BINARY[:, 0].astype(bool), "colour": CATEGORIES[:, 0]}
)

MODELS = {
    "QDA": (lambda: bg.QDA(), GAUSSIAN),
    "LDA": (lambda: bg.LDA(), GAUSSIAN),
    "GaussianNB": (lambda: bg.GaussianNB(), GAUSSIAN),
    "spherical": (lambda: bg.GaussianDA(covariance_type="spherical"), GAUSSIAN),
    "BernoulliNB": (lambda: bg.BernoulliNB(), BINARY),
    "MultinomialNB": (lambda: bg.MultinomialNB(), COUNTS),
    "PoissonNB": (lambda: bg.PoissonNB(), COUNTS),
    "CategoricalNB": (lambda: bg.CategoricalNB(), CATEGORIES),
    "MixedNB": (lambda: bg.MixedNB(), MIXED),
}


def _assert_agree(exact, nuts, names):
    """Means within 5 standard errors (NUTS's from its effective sample size), sd within 30%."""
    ess = az.ess(nuts)
    for name in names:
        a = exact.posterior[name].values
        b = nuts.posterior[name].values
        a = a.reshape(-1, *a.shape[2:])
        b = b.reshape(-1, *b.shape[2:])
        error = np.sqrt(a.var(axis=0) / a.shape[0] + b.var(axis=0) / ess[name].values)
        assert np.all(np.abs(a.mean(axis=0) - b.mean(axis=0)) <= 5 * error), name
        ratio = b.std(axis=0) / a.std(axis=0)
        assert np.all((ratio > 0.7) & (ratio < 1.3)), (name, ratio)


@pytest.mark.slow
@pytest.mark.parametrize("name", MODELS)
def test_nuts_on_the_story_agrees_with_the_exact_posterior(name):
    factory, X = MODELS[name]
    model = factory().fit(X, LABELS)
    exact = model.posterior(4000, random_state=0)
    nuts = model.posterior(
        500, method="nuts", num_chains=2, num_warmup=400, X=X, y=LABELS, random_state=1
    )
    assert set(nuts.posterior.data_vars) == set(exact.posterior.data_vars)
    assert int(nuts.sample_stats["diverging"].sum()) == 0
    _assert_agree(exact, nuts, exact.posterior.data_vars)
    # The pointwise log-likelihood is there for model comparison.
    assert nuts.log_likelihood["joint"].shape == (2, 500, N_ROWS)


@pytest.mark.slow
def test_nuts_integrates_missing_gaussian_features_out():
    """GaussianNB on rows with NaN has no closed-form posterior in this package, but its
    per-coordinate Normal–Inverse-Gamma posterior given only the observed entries is exact:
    NUTS on the story (which marginalises the missing entries) must match it. The reference
    for feature j is GaussianNB fitted on the rows where feature j is observed, with the
    same explicit prior."""
    X = GAUSSIAN.copy()
    X[RNG.random(X.shape) < 0.25] = np.nan
    prior = {
        "mean_prior": np.zeros(2),
        "covariance_prior": np.ones(2),
        "degrees_of_freedom_prior": 3.0,
        "mean_precision_prior": 0.5,
    }
    model = bg.GaussianNB(**prior).fit(X, LABELS)
    nuts = model.posterior(
        600, method="nuts", num_chains=2, num_warmup=400, X=X, y=LABELS, random_state=2
    )
    ess = az.ess(nuts)
    for j in range(2):
        seen = ~np.isnan(X[:, j])
        reference = bg.GaussianNB(
            mean_prior=prior["mean_prior"][[j]],
            covariance_prior=prior["covariance_prior"][[j]],
            degrees_of_freedom_prior=3.0,
            mean_precision_prior=0.5,
        ).fit(X[seen][:, [j]], LABELS[seen])
        exact = reference.posterior(4000, random_state=3)
        for name in ("means", "covariances"):
            a = exact.posterior[name].values[..., 0].reshape(-1, 2)
            b = nuts.posterior[name].values[..., j].reshape(-1, 2)
            error = np.sqrt(a.var(0) / a.shape[0] + b.var(0) / ess[name].values[:, j])
            assert np.all(np.abs(a.mean(0) - b.mean(0)) <= 5 * error), name
            ratio = b.std(0) / a.std(0)
            assert np.all((ratio > 0.7) & (ratio < 1.3)), (name, ratio)
    # The NUTS draws drive predict_proba_draws where the exact path has no closed form.
    draws = model.predict_proba_draws(X[:5], posterior=nuts)
    assert draws.shape == (1200, 5, 2)
    np.testing.assert_allclose(draws.sum(axis=2), 1.0, rtol=1e-12)


@pytest.mark.slow
def test_divergences_are_reported_and_warned_about():
    """An extremely heavy-tailed prior (inverse-gamma shape 0.025), six rows and one warm-up
    step: NUTS diverges, and says so."""
    rng = np.random.default_rng(0)
    y = np.repeat([0, 1], 3)
    X = rng.normal(y[:, None], 1.0, (6, 2))
    model = bg.GaussianNB(degrees_of_freedom_prior=0.05, mean_precision_prior=0.01).fit(X, y)
    with pytest.warns(UserWarning, match=r"NUTS had \d+ divergent transition") as record:
        idata = model.posterior(10, method="nuts", num_warmup=1, X=X, y=y, random_state=0)
    reported = int(re.search(r"NUTS had (\d+)", str(record[0].message)).group(1))
    assert reported == int(idata.sample_stats["diverging"].sum()) > 0
    assert set(idata.sample_stats.data_vars) >= {"diverging", "lp", "acceptance_rate"}


@pytest.mark.slow
def test_one_compiled_program_samples_as_numpyro_step_by_step(capsys, monkeypatch):
    """Without a progress bar NUTS runs as one jitted program; with it, NumPyro's loop of
    compiled steps (which draws the bar). Same key, same chains: the draws agree to
    rounding and every step count is equal."""
    # NumPyro hides its bar under CI and pytest-xdist (numpyro.infer.MCMC).
    monkeypatch.delenv("CI", raising=False)
    monkeypatch.delenv("PYTEST_XDIST_WORKER", raising=False)
    model = bg.PoissonNB().fit(COUNTS, LABELS)
    runs = {
        shown: model.posterior(
            30,
            method="nuts",
            num_chains=2,
            num_warmup=30,
            X=COUNTS,
            y=LABELS,
            random_state=0,
            progress=shown,
        )
        for shown in (False, True)
    }
    assert "sample: 100%" in capsys.readouterr().err
    np.testing.assert_array_equal(
        runs[True].sample_stats["n_steps"], runs[False].sample_stats["n_steps"]
    )
    for name in runs[False].posterior.data_vars:
        np.testing.assert_allclose(
            runs[True].posterior[name], runs[False].posterior[name], rtol=1e-10, atol=1e-12
        )


@pytest.mark.slow
def test_a_start_without_finite_density_is_an_error():
    """Inside one compiled program NumPyro cannot check its starting point; the finite log
    density of every kept draw is checked instead."""
    from bayesgen import stories
    from bayesgen.families import class_prior
    from bayesgen.inference import nuts

    model = bg.GaussianNB().fit(GAUSSIAN, LABELS)
    part = stories.part(model.family_.name)(
        model.family_, jax.tree.map(jax.numpy.asarray, model.prior_), 2
    )
    prior = {"class_prior": class_prior.Dirichlet(jax.numpy.ones(2)), "fixed_class_prior": None}
    start = {"means": np.full((2, 2), np.nan)}
    with pytest.raises(RuntimeError, match="valid starting point"):
        nuts.run(
            part,
            prior,
            GAUSSIAN,
            jax.numpy.asarray(LABELS),
            key=jax.random.key(0),
            num_samples=5,
            num_warmup=5,
            num_chains=2,
            progress=False,
            start=start,
        )
