"""MixtureDA: a Gaussian mixture per class, fitted by EM on the responsibilities path."""

import functools
import warnings

import jax
import numpy as np
import pytest
from numpyro.infer.util import log_density
from scipy import stats
from scipy.special import logsumexp
from sklearn.base import clone
from sklearn.mixture import GaussianMixture
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.utils.estimator_checks import estimator_checks_generator

from bayesgen import QDA, GaussianDA
from bayesgen.estimators.mixture import MixtureDA
from bayesgen.stories import fitted
from bayesgen.stories.common import classifier_story

COVARIANCE_TYPES = ["full", "tied", "diag", "spherical"]

# Planted model: two classes, two components each, one shared component covariance.
CENTRES = np.array([[[-4.0, 0, 0], [4, 0, 1]], [[0, -4, 0], [0, 4, -1]]])
WEIGHTS = np.array([[0.3, 0.7], [0.6, 0.4]])
FACTOR = np.array([[1.0, 0, 0], [0.5, 0.8, 0], [0.2, -0.3, 0.6]])


def _planted(n=600, seed=0, spread=1.0):
    """Rows of the planted model; ``spread=0.5`` makes the components overlap, so that EM
    needs many iterations rather than settling at once from the k-means start."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    component = (rng.random(n) < WEIGHTS[y, 1]).astype(int)
    return spread * CENTRES[y, component] + rng.normal(size=(n, 3)) @ FACTOR.T, y


def _with_holes(X, rate=0.15, seed=1):
    holes = X.copy()
    holes[np.random.default_rng(seed).random(X.shape) < rate] = np.nan
    holes[np.isnan(holes).all(axis=1), 0] = 0.0
    return holes


def _interleaved(n, seed):
    """Two blobs per class, interleaved along x (class 0 at -7.5, 2.5; class 1 at -2.5,
    7.5): each class's mean and covariance are the same up to a shift, so QDA is linear."""
    rng = np.random.default_rng(seed)
    centres = np.array([[-7.5, 0], [2.5, 0], [-2.5, 0], [7.5, 0]])
    blob = rng.integers(0, 4, n)
    return centres[blob] + rng.normal(size=(n, 2)), blob // 2


@functools.cache
def _fitted(covariance_type):
    """The default fit on the planted data (shared by the tests that only read it)."""
    X, y = _planted()
    return MixtureDA(covariance_type=covariance_type, random_state=0).fit(X, y), X, y


def _non_decreasing(history):
    return np.all(np.diff(history) >= -1e-9 * np.abs(history[:-1]))


# ---------------------------------------------------------------- reference fits
@pytest.mark.parametrize(
    ("covariance_type", "estimate"),
    [("full", "mle"), ("tied", "mle"), ("diag", "mle"), ("spherical", "map")],
)
def test_one_component_is_gaussian_da(covariance_type, estimate):
    """n_components=1 gives GaussianDA's fit ("tied" within a class = GaussianDA "full")."""
    X, y = _planted()
    model = MixtureDA(n_components=1, covariance_type=covariance_type, estimate=estimate)
    model.fit(X, y)
    reference_type = "full" if covariance_type == "tied" else covariance_type
    reference = GaussianDA(covariance_type=reference_type, estimate=estimate).fit(X, y)
    np.testing.assert_allclose(model.weights_, 1.0)
    np.testing.assert_allclose(model.means_[:, 0], reference.means_, rtol=1e-9)
    covariances = model.covariances_ if covariance_type == "tied" else model.covariances_[:, 0]
    np.testing.assert_allclose(covariances, reference.covariances_, rtol=1e-9)
    np.testing.assert_allclose(model.predict_proba(X), reference.predict_proba(X), rtol=1e-9)


def test_one_component_with_missing_values_is_gaussian_da_em():
    """With NaN, the one-component EM is GaussianDA's EM over the missing entries."""
    X, y = _planted()
    holes = _with_holes(X)
    model = MixtureDA(n_components=1, tol=1e-12, max_iter=500).fit(holes, y)
    reference = GaussianDA(tol=1e-12, max_iter=500).fit(holes, y)
    np.testing.assert_allclose(model.means_[:, 0], reference.means_, rtol=1e-8)
    np.testing.assert_allclose(model.covariances_[:, 0], reference.covariances_, rtol=1e-8)
    np.testing.assert_allclose(
        model.log_likelihood_history_[-1], reference.log_likelihood_history_[-1], rtol=1e-10
    )


@pytest.mark.parametrize("covariance_type", COVARIANCE_TYPES)
def test_each_class_is_sklearn_gaussian_mixture(covariance_type):
    """Class 0's mixture equals GaussianMixture fitted on class 0's rows alone (no ridge on
    either side, each from its own k-means start, overlapping components so that both
    iterate): the same log-likelihood and parameters."""
    X, y = _planted(n=1000, spread=0.5)
    model = MixtureDA(covariance_type=covariance_type, reg_covar=0, tol=1e-14, max_iter=2000)
    model.fit(X, y)
    rows = X[y == 0]
    reference = GaussianMixture(
        2,
        covariance_type=covariance_type,
        reg_covar=0,
        tol=1e-12,
        max_iter=2000,
        random_state=0,
    ).fit(rows)
    assert model.n_iter_ > 5 and reference.n_iter_ > 5
    ours = model.predict_joint_log_proba(rows)[:, 0] - np.log(model.class_prior_[0])
    np.testing.assert_allclose(ours.sum(), reference.score(rows) * len(rows), rtol=1e-9)
    order = np.argsort(reference.means_[:, 0])
    mine = np.argsort(model.means_[0, :, 0])
    np.testing.assert_allclose(model.weights_[0, mine], reference.weights_[order], atol=1e-5)
    np.testing.assert_allclose(model.means_[0, mine], reference.means_[order], atol=1e-5)
    covariances = (
        model.covariances_[0] if covariance_type == "tied" else model.covariances_[0, mine]
    )
    expected = (
        reference.covariances_ if covariance_type == "tied" else reference.covariances_[order]
    )
    np.testing.assert_allclose(covariances, expected, atol=1e-5)


# ---------------------------------------------------------------- EM itself
@pytest.mark.parametrize("covariance_type", COVARIANCE_TYPES)
@pytest.mark.parametrize("data", ["complete", "missing", "unlabelled"])
def test_em_objective_never_decreases(covariance_type, data):
    """log_likelihood_history_ never decreases: the per-class EM, EM over components and
    missing entries, and the outer EM over unlabelled rows (warm-started inner EM)."""
    X, y = _planted(spread=0.5)
    y = y.copy()
    if data == "missing":
        X = _with_holes(X)
    if data == "unlabelled":
        y[np.random.default_rng(2).random(y.size) < 0.7] = -1
    model = MixtureDA(covariance_type=covariance_type, random_state=0).fit(X, y)
    history = model.log_likelihood_history_
    assert model.converged_ and model.n_iter_ == history.size >= 4
    assert _non_decreasing(history) and history[-1] > history[0]


@pytest.mark.parametrize("data", ["complete", "unlabelled"])
def test_map_objective_never_decreases_and_includes_the_prior(data):
    """For estimate="map" the history is the log posterior; its last value is the
    likelihood plus the log prior of the fitted parameters."""
    X, y = _planted()
    y = y.copy()
    if data == "unlabelled":
        y[np.random.default_rng(2).random(y.size) < 0.7] = -1
    model = MixtureDA(estimate="map", weight_concentration_prior=2.0, random_state=0).fit(X, y)
    assert _non_decreasing(model.log_likelihood_history_)
    if data == "complete":
        likelihood = np.sum(model.predict_joint_log_proba(X)[np.arange(y.size), y])
        likelihood -= np.sum(np.log(model.class_prior_[y]))
        expected = likelihood + _feature_log_prior(model)
        np.testing.assert_allclose(model.log_likelihood_history_[-1], expected, rtol=1e-12)


def test_planted_components_are_recovered():
    """Well-separated components: weights within 4 standard errors, means within 5."""
    X, y = _planted(n=4000, seed=3)
    model = MixtureDA(random_state=0).fit(X, y)
    for k in range(2):
        order = np.argsort(model.means_[k].sum(axis=1))
        truth = np.argsort(CENTRES[k].sum(axis=1))
        n_k = np.sum(y == k)
        weights = WEIGHTS[k, truth]
        error = np.abs(model.weights_[k, order] - weights)
        assert np.all(error < 4 * np.sqrt(weights * (1 - weights) / n_k))
        scale = np.sqrt(np.diag(FACTOR @ FACTOR.T))
        error = np.abs(model.means_[k, order] - CENTRES[k, truth])
        assert np.all(error < 5 * scale / np.sqrt(weights[:, None] * n_k))


def test_restarts_keep_each_class_best_start():
    """More random starts never end lower than the first start alone."""
    X, y = _planted()
    one = MixtureDA(init_params="random", random_state=4).fit(X, y)
    several = MixtureDA(init_params="random", n_init_components=4, random_state=4).fit(X, y)
    assert several.log_likelihood_history_[-1] >= one.log_likelihood_history_[-1] - 1e-9


def test_sample_weights_equal_repeated_rows():
    """Integer weights are repeated rows (k-means starts differ; EM reaches one optimum)."""
    X, y = _planted(n=300)
    counts = np.random.default_rng(5).integers(1, 4, y.size)
    weighted = MixtureDA(tol=1e-12, random_state=0).fit(X, y, sample_weight=counts)
    repeated = MixtureDA(tol=1e-12, random_state=0).fit(
        np.repeat(X, counts, 0), np.repeat(y, counts)
    )
    np.testing.assert_allclose(weighted.predict_proba(X), repeated.predict_proba(X), atol=1e-7)


def test_per_class_component_counts():
    """n_components may differ by class; the missing components have weight 0."""
    X, y = _planted()
    model = MixtureDA(n_components=[1, 2], random_state=0).fit(X, y)
    np.testing.assert_array_equal(model.n_components_, [1, 2])
    np.testing.assert_allclose(model.weights_[0], [1.0, 0.0])
    assert _non_decreasing(model.log_likelihood_history_)
    assert np.isfinite(model.score_samples(X)).all()


# ---------------------------------------------------------------- classification
def test_beats_qda_on_multimodal_classes():
    """Interleaved two-blob classes: MixtureDA near the Bayes rate, QDA near chance; the
    held-out log-likelihood is higher too."""
    X, y = _interleaved(1000, seed=0)
    X_test, y_test = _interleaved(4000, seed=1)
    mixture = MixtureDA(random_state=0).fit(X, y)
    qda = QDA().fit(X, y)
    assert mixture.score(X_test, y_test) >= 0.95
    assert qda.score(X_test, y_test) <= 0.7
    assert mixture.score_samples(X_test).mean() > qda.score_samples(X_test).mean() + 0.25


@pytest.mark.parametrize("covariance_type", COVARIANCE_TYPES)
def test_score_samples_is_the_mixture_over_classes_and_components(covariance_type):
    """score_samples = logsumexp_{k,m} [log pi_k + log w_km + log N(x; mu_km, Sigma_km)]
    by SciPy; a row with NaN gets the same over its observed block."""
    model, X, _ = _fitted(covariance_type)
    rows = _with_holes(X[:40], rate=0.3)
    covariances = {
        "full": lambda k, m: model.covariances_[k, m],
        "tied": lambda k, m: model.covariances_[k],
        "diag": lambda k, m: np.diag(model.covariances_[k, m]),
        "spherical": lambda k, m: model.covariances_[k, m] * np.eye(3),
    }[covariance_type]
    expected = []
    for row in rows:
        seen = ~np.isnan(row)
        terms = [
            np.log(model.class_prior_[k] * model.weights_[k, m])
            + stats.multivariate_normal.logpdf(
                row[seen], model.means_[k, m, seen], covariances(k, m)[np.ix_(seen, seen)]
            )
            for k in range(2)
            for m in range(2)
        ]
        expected.append(logsumexp(terms))
    np.testing.assert_allclose(model.score_samples(rows), expected, rtol=1e-10)


def test_impute_mixes_conditional_means_over_classes_and_components():
    """impute(method="mean") = sum_{k,m} p(k, m | x_o) E[x_m | x_o, k, m], by NumPy."""
    model, _, _ = _fitted("full")
    row = np.array([[np.nan, 0.5, np.nan]])
    seen, hidden = np.array([False, True, False]), np.array([True, False, True])
    weights, means = [], []
    for k in range(2):
        for m in range(2):
            mu, sigma = model.means_[k, m], model.covariances_[k, m]
            weights.append(
                model.class_prior_[k]
                * model.weights_[k, m]
                * stats.norm.pdf(0.5, mu[1], np.sqrt(sigma[1, 1]))
            )
            means.append(mu[hidden] + sigma[hidden, 1] / sigma[1, 1] * (0.5 - mu[1]))
    weights = np.array(weights) / np.sum(weights)
    filled = model.impute(row)
    np.testing.assert_allclose(filled[0, hidden], weights @ np.array(means), rtol=1e-10)
    assert filled[0, 1] == 0.5 and not np.isnan(model.impute(row, method="sample")).any()
    assert seen.sum() == 1


# ---------------------------------------------------------------- the story
@pytest.mark.parametrize("covariance_type", COVARIANCE_TYPES)
def test_sample_has_the_mixture_moments(covariance_type):
    """Drawn rows have the class frequencies of class_prior_, and within each class the
    mixture's mean and covariance (Monte Carlo tolerances); sample(y=k) draws class k."""
    model, _, _ = _fitted(covariance_type)
    full = model.covariances_
    if covariance_type == "tied":
        full = np.repeat(full[:, None], 2, axis=1)
    elif covariance_type == "diag":
        full = np.stack([[np.diag(v) for v in per_class] for per_class in full])
    elif covariance_type == "spherical":
        full = full[..., None, None] * np.eye(3)
    n = 40_000
    drawn, labels = model.sample(n, random_state=0)
    frequencies = np.bincount(labels, minlength=2) / n
    np.testing.assert_allclose(frequencies, model.class_prior_, atol=4 * np.sqrt(0.25 / n))
    for k in range(2):
        rows = drawn[labels == k]
        w, mu = model.weights_[k], model.means_[k]
        mean = w @ mu
        second = np.einsum("m,mij->ij", w, full[k] + np.einsum("mi,mj->mij", mu, mu))
        covariance = second - np.outer(mean, mean)
        sd = np.sqrt(np.diag(covariance)).max()
        tolerance = 5 * sd / np.sqrt(len(rows))
        np.testing.assert_allclose(rows.mean(axis=0), mean, atol=tolerance)
        np.testing.assert_allclose(np.cov(rows.T), covariance, atol=2 * sd * tolerance)
    given, labels = model.sample(5, y=1, random_state=0)
    assert given.shape == (5, 3) and np.all(labels == 1)


def _scipy_log_prior(model):
    """log p(pi) + sum_k log p(w_k) + log p(means, covariances), by SciPy."""
    m0, kappa0, nu0, psi0 = (np.asarray(field, dtype=np.float64) for field in model.prior_)
    kappa0, nu0 = float(kappa0), float(nu0)
    n_classes, n_components, _ = model.means_.shape
    alpha = np.full(n_classes, model.class_concentration_prior)
    total = stats.dirichlet.logpdf(model.class_prior_, alpha)
    beta = np.full(n_components, model.weight_concentration_prior)
    kind = model.covariance_type
    for k in range(n_classes):
        total += stats.dirichlet.logpdf(model.weights_[k], beta)
        if kind == "tied":
            total += stats.invwishart.logpdf(model.covariances_[k], nu0, psi0)
        for m in range(n_components):
            mean = model.means_[k, m]
            if kind == "full":
                covariance = model.covariances_[k, m]
                total += stats.invwishart.logpdf(covariance, nu0, psi0)
                total += stats.multivariate_normal.logpdf(mean, m0, covariance / kappa0)
            elif kind == "tied":
                covariance = model.covariances_[k]
                total += stats.multivariate_normal.logpdf(mean, m0, covariance / kappa0)
            else:
                variance = model.covariances_[k, m]
                total += np.sum(stats.invgamma.logpdf(variance, nu0 / 2, scale=psi0 / 2))
                total += stats.norm.logpdf(mean, m0, np.sqrt(variance / kappa0)).sum()
    return total


@pytest.mark.parametrize("covariance_type", COVARIANCE_TYPES)
def test_story_log_density_is_the_joint_log_likelihood(covariance_type):
    """log_density of the story (X observed, NaN included, some rows unlabelled) = the
    estimator's joint log-likelihood (labelled rows: log p(x, y); unlabelled: log p(x))
    plus the log prior of the fitted parameters by SciPy."""
    model, X, y = _fitted(covariance_type)
    X = _with_holes(X[:200])
    labels = y[:200].copy()
    labels[:20] = -1
    sites = {
        "class_prior": model.class_prior_,
        "weights": model.weights_,
        "means": model.means_,
        "covariances": model.covariances_,
    }

    rule = model._fit_settings().class_prior

    def story():
        class_prior = fitted.class_prior_arguments(rule, model.joint_)
        classifier_story(X, labels, **class_prior, part=model._story_part())

    with jax.enable_x64(True):
        density = jax.jit(lambda values: log_density(story, (), {}, values)[0])(sites)
    joint = model.predict_joint_log_proba(X)
    labelled = labels >= 0
    expected = joint[labelled, labels[labelled]].sum() + logsumexp(joint[~labelled], axis=1).sum()
    np.testing.assert_allclose(float(density), expected + _scipy_log_prior(model), rtol=1e-10)


def test_no_posterior_and_no_predictive():
    """No closed-form posterior, and NUTS is refused with the reason."""
    model, X, y = _fitted("full")
    with pytest.raises(ValueError, match="no closed-form posterior"):
        model.posterior()
    with pytest.raises(ValueError, match="method='nuts'.*not supported.*exchangeable"):
        model.posterior(method="nuts", X=X, y=y)
    with pytest.raises(ValueError, match="no closed-form posterior"):
        model.predict_proba(X, method="predictive")
    with pytest.raises(ValueError, match="no closed-form posterior"):
        model.predict_proba_draws(X)


# ---------------------------------------------------------------- scikit-learn
def test_clone_pipeline_and_grid_search():
    """clone/get_params round-trip, a Pipeline, and GridSearchCV choosing 2 components
    over 1 on two-blob classes."""
    X, y = _interleaved(400, seed=2)
    model = MixtureDA(n_components=3, covariance_type="diag", random_state=0)
    assert clone(model).get_params() == model.get_params()
    pipeline = make_pipeline(StandardScaler(), MixtureDA(random_state=0)).fit(X, y)
    assert pipeline.score(X, y) > 0.95
    search = GridSearchCV(MixtureDA(random_state=0), {"n_components": [1, 2]}, cv=2).fit(X, y)
    assert search.best_params_ == {"n_components": 2}


# The checks' own exclusions, as in tests/test_estimator_checks.py (Array API input; -1 as
# an ordinary label), plus:
# - check_fit_score_takes_y calls partial_fit after fit, which MixtureDA refuses by design
#   (a mixture's EM needs every row at once; test_bad_input below checks the error).
# - check_sample_weight_equivalence_on_dense_data fits 15 rows in 30 dimensions with three
#   classes: with two components a class can be left with one row of positive weight
#   (refused: a component needs a row), and k-means starts on repeated rows differ from
#   weighted ones. test_sample_weights_equal_repeated_rows checks it on adequate data.
# The default n_components=2 is what a user gets, so it is what the checks run.
EXCLUDED = {
    "check_array_api_input",
    "check_classifiers_classes",
    "check_fit_score_takes_y",
    "check_sample_weight_equivalence_on_dense_data",
}


CHECKS = [
    pytest.param(estimator, check, id=f"{estimator!r}-{getattr(check, 'func', check).__name__}")
    for estimator, check in estimator_checks_generator(MixtureDA(), legacy=True)
    if getattr(check, "func", check).__name__ not in EXCLUDED
]


@pytest.mark.parametrize(("estimator", "check"), CHECKS)
def test_sklearn_compatible(estimator, check):
    check(estimator)


# ---------------------------------------------------------------- bad input
def test_bad_input():
    """Every error names the argument, what was expected and what was found."""
    X, y = _planted(n=200)
    with pytest.raises(ValueError, match=r"n_components must be an integer >= 1.*got 0"):
        MixtureDA(n_components=0).fit(X, y)
    with pytest.raises(ValueError, match=r"n_components must have one entry per class.*got 3"):
        MixtureDA(n_components=[1, 2, 3]).fit(X, y)
    few = np.r_[np.zeros(150, int), np.ones(3, int)]
    with pytest.raises(
        ValueError, match=r"n_components=4 for class np.int64\(1\) needs at least 4.*found 3"
    ):
        MixtureDA(n_components=4).fit(X[:153], few)
    with pytest.raises(ValueError, match="estimate must be 'mle' or 'map'.*got 'mean'"):
        MixtureDA(estimate="mean").fit(X, y)
    with pytest.raises(ValueError, match="init_params must be one of"):
        MixtureDA(init_params="kmeans++").fit(X, y)
    with pytest.raises(ValueError, match="n_init_components must be an integer >= 1"):
        MixtureDA(n_init_components=0).fit(X, y)
    infinite = X.copy()
    infinite[3, 1] = np.inf
    with pytest.raises(ValueError, match="inf"):
        MixtureDA().fit(infinite, y)
    model = MixtureDA(random_state=0).partial_fit(X, y, classes=[0, 1])
    with pytest.raises(ValueError, match="cannot add rows with partial_fit.*every row at once"):
        model.partial_fit(X, y)


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@pytest.mark.parametrize(("covariance_type", "per_component"), [("full", True), ("tied", False)])
def test_few_complete_rows_warn_with_the_classes_and_counts(covariance_type, per_component):
    """Gappy small classes (issue 32's wine split): each class named with its complete and
    total rows, counted here; "map" (the remedy it names) does not warn."""
    from sklearn.datasets import load_wine
    from sklearn.model_selection import train_test_split

    from bayesgen.validation import FewRowsWarning

    X, y = load_wine(return_X_y=True)
    X_train, _, y_train, _ = train_test_split(X, y, test_size=0.3, stratify=y, random_state=0)
    X_train = X_train.copy()
    X_train[np.random.default_rng(77).random(X_train.shape) < 0.2] = np.nan
    complete = ~np.isnan(X_train).any(axis=1)
    model = MixtureDA(covariance_type=covariance_type, random_state=0)
    with pytest.warns(FewRowsWarning) as caught:
        model.fit(X_train, y_train)
    message = " ".join(str(w.message) for w in caught if w.category is FewRowsWarning)
    for k in range(3):
        rows = y_train == k
        assert f"'{k}' ({np.sum(complete & rows)} complete of {np.sum(rows)} rows)" in message
    assert ("for each of their components" in message) == per_component
    assert "estimate='map'" in message
    with warnings.catch_warnings():
        warnings.simplefilter("error", FewRowsWarning)
        MixtureDA(covariance_type=covariance_type, estimate="map", random_state=0).fit(
            X_train, y_train
        )


def _one_and_three_blobs(n=900, seed=0):
    """Class 0 one Gaussian; class 1 three well-separated ones."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    centres = np.array([[0.0, 8.0], [-6.0, -4.0], [0.0, -4.0], [6.0, -4.0]])
    blob = np.where(y == 0, 0, 1 + rng.integers(0, 3, n))
    return centres[blob] + rng.normal(size=(n, 2)), y


def test_auto_chooses_each_class_its_own_number_of_components():
    """n_components="auto": one component for the one-blob class, three for the other, by
    held-out log-likelihood; the fit is the one with those counts given."""
    X, y = _one_and_three_blobs()
    auto = MixtureDA(n_components="auto", random_state=0).fit(X, y)
    np.testing.assert_array_equal(auto.n_components_, [1, 3])
    choice = auto.component_choice_
    assert choice.scores.shape == (5, 3, 2)
    means = choice.scores.mean(axis=1)
    assert means[2, 1] > means[1, 1] + 0.1  # three blobs: 3 components beat 2 clearly
    np.testing.assert_array_equal(auto.weights_[0], [1.0, 0.0, 0.0])
    given = MixtureDA(n_components=[1, 3], random_state=0).fit(X, y)
    assert auto.score(X, y) == given.score(X, y)
    again = MixtureDA(n_components="auto", random_state=0).fit(X, y)
    np.testing.assert_array_equal(again.predict_proba(X), auto.predict_proba(X))
    with pytest.raises(ValueError, match="n_components must be an integer >= 1, a sequence"):
        MixtureDA(n_components="many").fit(X, y)


def test_the_fewest_components_within_one_standard_error():
    from bayesgen.inference.component_count import _fewest_within_one_error

    candidates = np.array([1, 2, 3])
    # Class 0: 2 is best, 1 far below; class 1: 3 is best by less than its spread over
    # the folds, so 2 is kept; class 2: only 1 was possible.
    scores = np.array(
        [
            [[-5.0, -3.0, -1.0], [-5.0, -3.0, -1.0]],
            [[-1.0, -2.0, -np.inf], [-1.2, -2.2, -np.inf]],
            [[-1.1, -1.6, -np.inf], [-1.1, -2.4, -np.inf]],
        ]
    )
    np.testing.assert_array_equal(_fewest_within_one_error(scores, candidates), [2, 2, 1])


def test_an_automatic_choice_is_saved_with_the_model(tmp_path):
    import bayesgen

    X, y = _one_and_three_blobs(n=300)
    model = MixtureDA(n_components="auto", random_state=0).fit(X, y)
    model.save(tmp_path / "auto.bgm")
    loaded = bayesgen.load(tmp_path / "auto.bgm")
    np.testing.assert_array_equal(loaded.component_choice_.scores, model.component_choice_.scores)
    np.testing.assert_array_equal(loaded.n_components_, model.n_components_)
    np.testing.assert_array_equal(loaded.predict_proba(X), model.predict_proba(X))


def test_the_counts_are_the_fits_and_auto_chooses_once_per_fit():
    """An array of counts is taken; set_params after the fit does not change what the
    fitted value means; float32 rows with unlabelled ones stay float32; "auto" with
    unlabelled rows and several EM starts keeps the choice made on the first start (the
    labelled rows), not a count each restart picks from random class weights."""
    X, y = _one_and_three_blobs(n=600)
    model = MixtureDA(n_components=np.array([1, 3]), random_state=0).fit(X, y)
    np.testing.assert_array_equal(model.n_components_, [1, 3])
    before = model.predict_proba(X)
    model.set_params(n_components=2)
    np.testing.assert_array_equal(model.n_components_, [1, 3])
    np.testing.assert_array_equal(model.predict_proba(X), before)
    semi = y.copy()
    semi[np.random.default_rng(4).random(y.size) < 0.7] = -1
    labelled = MixtureDA(n_components="auto", random_state=0).fit(X[semi >= 0], y[semi >= 0])
    auto = MixtureDA(n_components="auto", n_init=4, random_state=0).fit(X, semi)
    np.testing.assert_array_equal(auto.n_components_, labelled.n_components_)
    np.testing.assert_array_equal(auto.n_components_, [1, 3])
    narrow = MixtureDA(random_state=0, max_iter=20).fit(X.astype(np.float32), semi)
    assert narrow.means_.dtype == np.float32 and narrow.class_prior_.dtype == np.float32


def test_complete_rows_do_not_warn_about_missing_entries():
    """Few rows but no NaN: no FewRowsWarning about incomplete rows (GaussianDA warns only
    on its missing-entries path too); too few rows for the components is an error first."""
    from bayesgen.validation import FewRowsWarning

    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(50, 3)), np.r_[np.zeros(45, int), np.ones(5, int)]
    with warnings.catch_warnings():
        warnings.simplefilter("error", FewRowsWarning)
        MixtureDA(n_components=2, random_state=0).fit(X, y)
        gappy = X.copy()
        gappy[0, 0] = np.nan
        with pytest.raises(ValueError, match="n_components=6 for class np.int64\\(1\\)"):
            MixtureDA(n_components=6, random_state=0).fit(gappy, y)


def _feature_log_prior(model) -> float:
    """The family's log prior density of the fitted parameters (EM's objective's part)."""
    value = model.joint_
    return float(model.family_.log_prior(value.feature_prior, value.params, kind=model.estimate))
