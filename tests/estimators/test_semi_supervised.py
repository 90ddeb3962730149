"""Semi-supervised fitting: rows labelled -1 (or None/NaN) enter by their mixture likelihood."""

import warnings

import jax
import jax.numpy as jnp
import numpy as np
import pandas as pd
import pytest
from numpyro.infer.util import log_density
from scipy import stats
from scipy.special import logsumexp
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics import adjusted_rand_score

import bayesgen as bg
from bayesgen import stories
from bayesgen.stories import fitted

N_CLASSES = 3


def _gaussian_problem(seed=0, n=3000, d=10):
    """Data from a Gaussian story: class means N(0, 1.2^2), unit covariance."""
    rng = np.random.default_rng(seed)
    means = rng.normal(0.0, 1.2, (N_CLASSES, d))
    y = rng.integers(0, N_CLASSES, n + 5000)
    X = means[y] + rng.normal(size=(n + 5000, d))
    return X[:n], y[:n], X[n:], y[n:]


def _few_labels(y, per_class=4):
    labelled = np.zeros(y.size, dtype=bool)
    for k in range(N_CLASSES):
        labelled[np.flatnonzero(y == k)[:per_class]] = True
    return labelled


def _discrete_problem(kind, seed=0, n=3000, d=20):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, N_CLASSES, n + 5000)
    theta = rng.uniform(0.1, 0.9, (N_CLASSES, d))
    if kind == "bernoulli":
        X = (rng.random((y.size, d)) < theta[y]).astype(float)
    elif kind == "counts":
        X = rng.poisson(3.0 * theta[y]).astype(float)
    else:  # categories
        X = np.where(rng.random((y.size, d)) < theta[y], "on", "off").astype(object)
    return X[:n], y[:n], X[n:], y[n:]


CASES = {
    "GaussianNB": (bg.GaussianNB, _gaussian_problem),
    "LDA": (bg.LDA, _gaussian_problem),
    "QDA": (bg.QDA, _gaussian_problem),
    "spherical": (lambda: bg.GaussianDA(covariance_type="spherical"), _gaussian_problem),
    "BernoulliNB": (bg.BernoulliNB, lambda: _discrete_problem("bernoulli")),
    "MultinomialNB": (bg.MultinomialNB, lambda: _discrete_problem("counts")),
    "PoissonNB": (bg.PoissonNB, lambda: _discrete_problem("counts")),
    "CategoricalNB": (bg.CategoricalNB, lambda: _discrete_problem("categories")),
}


@pytest.mark.parametrize("name", CASES)
def test_a_dozen_labels_and_thousands_of_unlabelled_rows(name):
    """EM approaches the all-labelled accuracy and clearly beats the labelled rows alone."""
    factory, problem = CASES[name]
    X, y, X_test, y_test = problem()
    labelled = _few_labels(y)
    all_labelled = factory().fit(X, y).score(X_test, y_test)
    labelled_only = factory().fit(X[labelled], y[labelled]).score(X_test, y_test)
    model = factory().fit(X, np.where(labelled, y, -1))
    semi = model.score(X_test, y_test)
    assert semi >= all_labelled - 0.02
    # Clearly better than the labelled rows alone: at least 5 points, or half the gap
    # where the labelled rows alone already come within 10 points of all labels.
    assert semi - labelled_only >= min(0.05, 0.5 * (all_labelled - labelled_only))
    assert model.converged_ and model.n_iter_ == model.log_likelihood_history_.size
    np.testing.assert_array_equal(model.classes_, [0, 1, 2])


# The Gaussian "mean" is a fixed-point iteration (not the mode of any prior used here), so
# only "mle" and "map" are EM for the Gaussians.
MONOTONE = [
    (name, estimate)
    for name in ("GaussianNB", "LDA", "BernoulliNB", "PoissonNB", "CategoricalNB")
    for estimate in ("mle", "map", "mean")
    if not (estimate == "mean" and name in ("GaussianNB", "LDA"))
]


@pytest.mark.parametrize(("name", "estimate"), MONOTONE)
def test_em_objective_never_decreases(name, estimate):
    """For "mle" and "map" the objective is the log-likelihood (+ log prior); for the
    Dirichlet, Beta and Gamma families "mean" is the mode under one more pseudo-count,
    so it is EM too."""
    factory, problem = CASES[name]
    X, y, _, _ = problem()
    model = factory().set_params(estimate=estimate, tol=0.0, max_iter=15)
    with warnings.catch_warnings():  # tol=0: run to max_iter unless EM reaches a fixed point
        warnings.simplefilter("ignore", ConvergenceWarning)
        model.fit(X[:600], np.where(_few_labels(y[:600], 2), y[:600], -1))
    history = model.log_likelihood_history_
    assert history.size >= 3
    assert np.all(np.diff(history) >= -1e-9 * np.abs(history[1:]))


@pytest.mark.parametrize("name", CASES)
def test_without_unlabelled_rows_the_fit_is_the_closed_form(name):
    factory, problem = CASES[name]
    X, y, X_test, _ = problem()
    model = factory().fit(X[:300], y[:300])
    assert model.n_iter_ == 1 and model.converged_
    reference = factory().fit(X[:300], y[:300])
    np.testing.assert_array_equal(
        model.predict_proba(X_test[:50]), reference.predict_proba(X_test[:50])
    )


def test_unlabelled_weight_interpolates_between_labelled_only_and_full_em():
    """lambda -> 0 gives the labelled-only model; lambda = 1 the full EM."""
    X, y, X_test, _ = _gaussian_problem()
    labelled = _few_labels(y)
    semi_y = np.where(labelled, y, -1)
    labelled_only = bg.GaussianNB().fit(X[labelled], y[labelled])
    faint = bg.GaussianNB(unlabeled_weight=1e-9).fit(X, semi_y)
    np.testing.assert_allclose(faint.means_, labelled_only.means_, atol=1e-6)
    full = bg.GaussianNB().fit(X, semi_y)
    assert not np.allclose(full.means_, labelled_only.means_, atol=1e-2)


def test_restarts_keep_the_best_objective():
    X, y, _, _ = _gaussian_problem(seed=3, n=600)
    semi_y = np.where(_few_labels(y, 1), y, -1)
    one = bg.QDA().fit(X, semi_y)
    several = bg.QDA(n_init=4, random_state=0).fit(X, semi_y)
    assert several.log_likelihood_history_[-1] >= one.log_likelihood_history_[-1] - 1e-9


def test_no_labels_is_clustering_with_a_warning():
    X, y, _, _ = _gaussian_problem(seed=1, n=1500)
    with pytest.warns(UserWarning, match="no labelled rows: fitting is clustering"):
        model = bg.GaussianNB(n_classes=3, n_init=3, random_state=0).fit(X, np.full(y.size, -1))
    np.testing.assert_array_equal(model.classes_, [0, 1, 2])
    # As good a partition (up to relabelling) as the classifier fitted with every label.
    supervised = bg.GaussianNB().fit(X, y).predict(X)
    assert adjusted_rand_score(y, model.predict(X)) >= adjusted_rand_score(y, supervised) - 0.02


def test_labels_of_any_type_with_none_unlabelled():
    """String labels with None (or NaN) for unlabelled rows; classes_ from labelled rows."""
    X, y, X_test, y_test = _gaussian_problem(n=1200)
    names = np.array(["alpha", "beta", "gamma"], dtype=object)
    labelled = _few_labels(y)
    semi_y = np.where(labelled, names[y], None)
    semi_y[np.flatnonzero(~labelled)[::2]] = np.nan
    model = bg.LDA().fit(X, semi_y)
    np.testing.assert_array_equal(model.classes_, names)
    assert np.mean(model.predict(X_test) == names[y_test]) > 0.9
    frame_y = pd.Series(semi_y)
    np.testing.assert_array_equal(bg.LDA().fit(X, frame_y).predict(X_test), model.predict(X_test))


def test_mixed_columns_semi_supervised():
    rng = np.random.default_rng(2)
    y = rng.integers(0, 2, 1500)
    frame = pd.DataFrame(
        {
            "size": rng.normal(2.0 * y, 1.0),
            "count": rng.poisson(1 + 3 * y),
            "colour": np.where(rng.random(1500) < 0.2 + 0.6 * y, "red", "blue"),
        }
    )
    labelled = np.zeros(1500, dtype=bool)
    labelled[np.flatnonzero(y == 0)[:3]] = labelled[np.flatnonzero(y == 1)[:3]] = True
    model = bg.MixedNB().fit(frame, np.where(labelled, y, -1))
    reference = bg.MixedNB().fit(frame, y)
    assert model.score(frame, y) >= reference.score(frame, y) - 0.02


# ---------------------------------------------------------------------------- bad input
def test_only_unlabelled_rows_need_n_classes():
    X, y, _, _ = _gaussian_problem(n=50)
    with pytest.raises(ValueError, match="no labelled rows: pass n_classes"):
        bg.GaussianNB().fit(X, np.full(50, -1))


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"n_classes": 2}, r"n_classes=2, but the labelled rows have 3 classes"),
        ({"n_classes": 1}, "n_classes must be an integer >= 2"),
        ({"max_iter": 0}, "max_iter must be an integer >= 1"),
        ({"n_init": 0}, "n_init must be an integer >= 1"),
        ({"unlabeled_weight": 0.0}, "unlabeled_weight must be > 0"),
        ({"unlabeled_weight": 1.5}, r"unlabeled_weight must be in \(0, 1\]"),
        ({"tol": -1.0}, "tol must be >= 0"),
    ],
)
def test_bad_em_parameters(params, message):
    X, y, _, _ = _gaussian_problem(n=60)
    with pytest.raises(ValueError, match=message):
        bg.BernoulliNB(binarize=0.0, **params).fit(X, np.where(_few_labels(y), y, -1))


def test_one_labelled_class_is_an_error():
    X, y, _, _ = _gaussian_problem(n=60)
    semi_y = np.full(60, -1)
    semi_y[:3] = 1
    with pytest.raises(ValueError, match=r"labelled rows have 1 class \(\[1\]\)"):
        bg.LDA().fit(X, semi_y)


def test_partial_fit_takes_labelled_rows_only():
    X, y, _, _ = _gaussian_problem(n=60)
    with pytest.raises(ValueError, match=r"labels \[-1\]"):
        bg.LDA().partial_fit(X, np.where(_few_labels(y), y, -1), classes=[0, 1, 2])


@pytest.mark.parametrize(
    "model",
    [
        bg.GaussianNB(n_init=5, random_state=0),
        bg.LDA(n_init=5, random_state=0),
        bg.QDA(estimate="map", n_init=5, random_state=0),
    ],
)
def test_missing_values_and_unlabelled_rows_at_once(model):
    """One EM over the labels and the missing entries: the observed-data objective never
    decreases and the accuracy matches the fit with every label (and the same NaN).
    Restarts matter here: from four labelled rows per class with 20% of the entries
    missing, the labelled-only start of GaussianNB reaches a poorer local optimum
    (accuracy 0.66, objective -15907 against -15427)."""
    X, y, X_test, y_test = _gaussian_problem(seed=4, n=2000, d=6)
    X = X.copy()
    X[np.random.default_rng(0).random(X.shape) < 0.2] = np.nan
    model.fit(X, np.where(_few_labels(y), y, -1))
    history = model.log_likelihood_history_
    assert model.converged_ and np.all(np.diff(history) >= -1e-9 * np.abs(history[1:]))
    reference = type(model)(**model.get_params()).fit(X, y)
    assert model.score(X_test, y_test) >= reference.score(X_test, y_test) - 0.02


# ---------------------------------------------------------------------------- the story
def _story_log_likelihood(model, X, labels):
    """The story's log density at the fitted parameters, less its log prior."""
    sites = {**model.family_.sampling_sites(model.joint_.params), "class_prior": model.class_prior_}
    features = fitted.observed_features(model.family_, model._check_X(X, reset=False))
    rule = model._fit_settings().class_prior

    def story():
        class_prior = fitted.class_prior_arguments(rule, model.joint_)
        stories.classifier_story(
            features, jnp.asarray(labels), **class_prior, part=model._story_part()
        )

    with jax.enable_x64(True):
        total, trace = log_density(story, (), {}, sites)
        log_prior = sum(
            float(np.sum(site["fn"].log_prob(site["value"])))
            for site in trace.values()
            if site["type"] == "sample" and not site["is_observed"]
        )
    return float(total) - log_prior


@pytest.mark.parametrize("name", ["QDA", "BernoulliNB", "MixedNB"])
def test_story_sums_the_label_of_unlabelled_rows_out(name):
    """log density = sum_labelled log p(x, y) + sum_unlabelled log sum_k pi_k p(x | k)."""
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 60)
    X = rng.normal(2.0 * y[:, None], 1.0, (60, 2))
    data = {
        "QDA": X,
        "BernoulliNB": (X > 1).astype(float),
        "MixedNB": pd.DataFrame({"a": X[:, 0], "b": X[:, 1] > 1}),
    }[name]
    semi_y = np.where(np.arange(60) < 12, y, -1)
    model = getattr(bg, name)().fit(data, semi_y)
    joint = model.predict_joint_log_proba(data)
    labelled = semi_y >= 0
    expected = joint[labelled, semi_y[labelled]].sum() + logsumexp(joint[~labelled], axis=1).sum()
    np.testing.assert_allclose(_story_log_likelihood(model, data, semi_y), expected, rtol=1e-9)


@pytest.mark.slow
@pytest.mark.nuts
def test_nuts_learns_from_unlabelled_rows():
    """After an EM fit the exact path refuses; NUTS on the story (label summed out) gives a
    posterior near the EM estimate and much narrower than from the labelled rows alone."""
    rng = np.random.default_rng(1)
    y = rng.integers(0, 2, 300)
    X = rng.normal(3.0 * y[:, None], 1.0, (300, 2))
    semi_y = np.where(np.arange(300) < 10, y, -1)
    model = bg.GaussianNB(estimate="map").fit(X, semi_y)
    with pytest.raises(ValueError, match="fitted with unlabelled rows"):
        model.posterior(10)
    nuts = model.posterior(
        500, method="nuts", num_chains=2, num_warmup=400, X=X, y=semi_y, random_state=0
    )
    assert int(nuts.sample_stats["diverging"].sum()) == 0
    means = nuts.posterior["means"].values.reshape(-1, 2, 2)
    spread = means.std(axis=0)
    assert np.all(np.abs(means.mean(axis=0) - model.means_) < 3 * spread)
    labelled_only = bg.GaussianNB().fit(X[:10], y[:10]).posterior(4000, random_state=0)
    narrow = labelled_only.posterior["means"].values.reshape(-1, 2, 2).std(axis=0)
    assert np.all(spread < 0.5 * narrow)
    # Unlabelled rows' pointwise log-likelihood is their mixture density.
    assert nuts.log_likelihood["joint"].shape == (2, 500, 300)


def test_pointwise_log_likelihood_of_unlabelled_rows_is_the_mixture_density():
    X, y, _, _ = _gaussian_problem(n=200)
    model = bg.LDA().fit(X, y)
    semi_y = np.where(_few_labels(y), y, -1)
    idata = model.posterior(3, X=X, y=semi_y, random_state=0)
    pi = idata.posterior["class_prior"].values[0]
    means = idata.posterior["means"].values[0]
    covariance = idata.posterior["covariances"].values[0]
    for s in range(3):
        joint = np.stack(
            [
                np.log(pi[s, k]) + stats.multivariate_normal.logpdf(X, means[s, k], covariance[s])
                for k in range(3)
            ],
            axis=1,
        )
        expected = np.where(
            semi_y >= 0, joint[np.arange(200), np.maximum(semi_y, 0)], logsumexp(joint, axis=1)
        )
        np.testing.assert_allclose(idata.log_likelihood["joint"].values[0, s], expected, rtol=1e-9)


@pytest.mark.parametrize("covariance_type", ["full", "tied", "diag", "spherical"])
def test_jitted_gaussian_em_equals_the_generic_loop(covariance_type, monkeypatch):
    """GaussianDA runs EM as its own loop (NumPy here; jitted for a jax.Array, which
    tests/inference/test_gaussian_semi_supervised_loops.py holds equal); with the prior out
    of the objective
    ("mle") it reaches the same fixed point as the generic per-iteration loop. (Their first
    M-steps differ slightly: the generic loop's ridge comes from the labelled rows alone.)"""
    from bayesgen.families.gaussian.regularised import RegularisedGaussian

    X, y, _, _ = _gaussian_problem(seed=2, n=1500, d=4)
    semi_y = np.where(_few_labels(y), y, -1)
    settings = {"covariance_type": covariance_type, "tol": 1e-13, "max_iter": 2000}
    jitted = bg.GaussianDA(**settings).fit(X, semi_y)
    monkeypatch.setattr(RegularisedGaussian, "unlabelled_loop", "em")
    generic = bg.GaussianDA(**settings).fit(X, semi_y)
    assert jitted.converged_ and generic.converged_
    np.testing.assert_allclose(jitted.means_, generic.means_, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(jitted.covariances_, generic.covariances_, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(
        jitted.log_likelihood_history_[-1], generic.log_likelihood_history_[-1], rtol=1e-10
    )
    history = jitted.log_likelihood_history_
    assert np.all(np.diff(history) >= -1e-9 * np.abs(history[1:]))
