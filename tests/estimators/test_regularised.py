"""Regularised discriminant analysis, shrinkage and RDACV (004 seed, "Regularized DA")."""

import numpy as np
import pytest
from sklearn.covariance import ledoit_wolf
from sklearn.datasets import load_iris, load_wine
from sklearn.model_selection import GridSearchCV, StratifiedKFold
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from bayesgen import LDA, QDA, RDACV, GaussianDA


@pytest.fixture(scope="module")
def wine():
    X, y = load_wine(return_X_y=True)
    return StandardScaler().fit_transform(X), y


def _class_covariances(X, y):
    return np.array([np.cov(X[y == k].T, bias=True) for k in np.unique(y)])


@pytest.mark.parametrize("estimate", ["mle", "map"])
def test_rda_endpoints_are_qda_and_lda_exactly(wine, estimate):
    X, y = wine
    qda = QDA(estimate=estimate).fit(X, y)
    lda = LDA(estimate=estimate).fit(X, y)
    at_one = GaussianDA(reg_alpha=1.0, reg_gamma=1.0, estimate=estimate).fit(X, y)
    at_zero = GaussianDA(reg_alpha=0.0, reg_gamma=1.0, estimate=estimate).fit(X, y)
    np.testing.assert_array_equal(at_one.covariances_, qda.covariances_)
    np.testing.assert_array_equal(at_one.predict_proba(X), qda.predict_proba(X))
    np.testing.assert_array_equal(
        at_zero.covariances_, np.broadcast_to(lda.covariances_, at_zero.covariances_.shape)
    )
    np.testing.assert_array_equal(at_zero.means_, lda.means_)
    np.testing.assert_array_equal(at_zero.predict(X), lda.predict(X))
    # Same matrices; a per-class Cholesky against a shared one differs only in rounding.
    np.testing.assert_allclose(at_zero.predict_proba(X), lda.predict_proba(X), rtol=0, atol=1e-12)


def test_rda_gamma_at_alpha_zero_is_lda_shrinkage(wine):
    X, y = wine
    rda = GaussianDA(reg_alpha=0.0, reg_gamma=0.3).fit(X, y)
    shrunk = LDA(shrinkage=0.7).fit(X, y)
    np.testing.assert_array_equal(rda.covariances_[1], shrunk.covariances_)


def test_rda_covariances_follow_friedman_formula(wine):
    X, y = wine
    alpha, gamma = 0.3, 0.6
    model = GaussianDA(reg_alpha=alpha, reg_gamma=gamma, reg_covar=0).fit(X, y)
    classes = _class_covariances(X, y)
    counts = np.bincount(y)
    pooled = np.einsum("k,kij->ij", counts, classes) / counts.sum()
    sigma2 = np.trace(pooled) / X.shape[1]
    pooled_gamma = gamma * pooled + (1 - gamma) * sigma2 * np.eye(X.shape[1])
    expected = alpha * classes + (1 - alpha) * pooled_gamma
    np.testing.assert_allclose(model.covariances_, expected, rtol=1e-10)
    # Every eigenvalue of the shrunk pooled covariance moves a fraction 1 - gamma to sigma^2.
    moved = gamma * np.linalg.eigvalsh(pooled) + (1 - gamma) * sigma2
    np.testing.assert_allclose(np.linalg.eigvalsh(pooled_gamma), moved, rtol=1e-10)


def test_rda_alpha_keeps_affine_invariance_and_gamma_breaks_it(wine):
    """004 seed: LDA and QDA (so their blends) are affine invariant; the sigma^2 I target is not."""
    X, y = load_wine(return_X_y=True)
    rng = np.random.default_rng(4)
    A = rng.normal(size=(X.shape[1], X.shape[1])) + 3 * np.eye(X.shape[1])
    mapped = X @ A.T + rng.normal(size=X.shape[1])
    alpha_only = GaussianDA(reg_alpha=0.5, reg_covar=0)
    original = alpha_only.fit(X, y).predict_proba(X)
    np.testing.assert_allclose(alpha_only.fit(mapped, y).predict_proba(mapped), original, atol=1e-6)
    with_gamma = GaussianDA(reg_alpha=0.5, reg_gamma=0.5, reg_covar=0)
    original = with_gamma.fit(X, y).predict_proba(X)
    assert np.max(np.abs(with_gamma.fit(mapped, y).predict_proba(mapped) - original)) > 0.01


@pytest.mark.parametrize("n_rows", [40, 15])
def test_ledoit_wolf_intensity_matches_scikit_learn_per_class_and_pooled(n_rows):
    """Also with fewer rows per class than features (15 x 20), where the MLE is singular."""
    rng = np.random.default_rng(0)
    eigenvalues = np.geomspace(3, 1 / 3, 20)
    X = rng.normal(size=(2 * n_rows, 20)) * np.sqrt(eigenvalues)
    y = np.repeat([0, 1], n_rows)
    X[y == 1] += 0.5
    qda = QDA(shrinkage="ledoit-wolf", reg_covar=0).fit(X, y)
    expected = [ledoit_wolf(X[y == k])[1] for k in (0, 1)]
    np.testing.assert_allclose(qda.shrinkage_, expected, rtol=1e-10)
    for k in (0, 1):
        shrunk, _ = ledoit_wolf(X[y == k])
        np.testing.assert_allclose(qda.covariances_[k], shrunk, rtol=1e-10, atol=1e-14)
    lda = LDA(shrinkage="ledoit-wolf", reg_covar=0).fit(X, y)
    residuals = X - lda.means_[y]
    shrunk, intensity = ledoit_wolf(residuals, assume_centered=True)
    assert lda.shrinkage_ == pytest.approx(intensity, rel=1e-10)
    np.testing.assert_allclose(lda.covariances_, shrunk, rtol=1e-10, atol=1e-14)
    if n_rows < 20:
        with pytest.raises(ValueError, match="singular"):
            QDA(reg_covar=0).fit(X, y)


def test_ledoit_wolf_statistics_are_exact_sums():
    """Fourth moments merge exactly: partial_fit over chunks and integer weights agree."""
    X, y = load_iris(return_X_y=True)
    full = QDA(shrinkage="ledoit-wolf").fit(X, y)
    chunked = QDA(shrinkage="ledoit-wolf")
    for rows in np.array_split(np.random.default_rng(1).permutation(len(y)), 4):
        chunked.partial_fit(X[rows], y[rows], classes=[0, 1, 2])
    np.testing.assert_allclose(chunked.shrinkage_, full.shrinkage_, rtol=1e-10)
    np.testing.assert_allclose(chunked.covariances_, full.covariances_, rtol=1e-10)
    weights = np.random.default_rng(2).integers(1, 4, size=len(y))
    weighted = LDA(shrinkage="ledoit-wolf").fit(X, y, sample_weight=weights)
    repeated = LDA(shrinkage="ledoit-wolf").fit(np.repeat(X, weights, 0), np.repeat(y, weights))
    assert weighted.shrinkage_ == pytest.approx(repeated.shrinkage_, rel=1e-10)


def test_seed_eigenvalue_example():
    """004 seed: 40 rows of 20 features, true eigenvalues 3 -> 1/3: the smallest sample
    eigenvalue averages 0.075; Ledoit-Wolf pulls every eigenvalue toward their mean."""
    rng = np.random.default_rng(0)
    eigenvalues = np.geomspace(3, 1 / 3, 20)
    smallest_mle, smallest_shrunk, spread_shrunk = [], [], []
    for _ in range(200):
        X = rng.normal(size=(80, 20)) * np.sqrt(eigenvalues)
        y = np.repeat([0, 1], 40)
        mle = QDA(reg_covar=0).fit(X, y).covariances_[0]
        shrunk = QDA(reg_covar=0, shrinkage="ledoit-wolf").fit(X, y).covariances_[0]
        smallest_mle.append(np.linalg.eigvalsh(mle)[0])
        values = np.linalg.eigvalsh(shrunk)
        smallest_shrunk.append(values[0])
        spread_shrunk.append(values[-1] / values[0])
    standard_error = np.std(smallest_mle) / np.sqrt(200)
    assert abs(np.mean(smallest_mle) - 0.075) < 3 * standard_error
    assert np.mean(smallest_shrunk) > 3 * np.mean(smallest_mle)
    assert np.mean(spread_shrunk) < 3 / (1 / 3)  # flatter than the true spread of 9


def test_float_shrinkage_closed_form(wine):
    X, y = wine
    model = QDA(shrinkage=0.25, reg_covar=0).fit(X, y)
    classes = _class_covariances(X, y)
    targets = np.trace(classes, axis1=1, axis2=2)[:, None, None] / X.shape[1] * np.eye(X.shape[1])
    np.testing.assert_allclose(model.covariances_, 0.75 * classes + 0.25 * targets, rtol=1e-10)
    np.testing.assert_array_equal(model.shrinkage_, [0.25, 0.25, 0.25])


def test_regularised_models_keep_the_uses_of_the_density(wine):
    X, y = wine
    model = GaussianDA(reg_alpha=0.5, reg_gamma=0.8, estimate="map").fit(X, y)
    holes = X[:20].copy()
    holes[::2, 3] = np.nan
    assert np.all(np.isfinite(model.score_samples(holes)))
    assert not np.isnan(model.impute(holes)).any()
    synthetic, labels = model.sample(50, random_state=0)
    assert synthetic.shape == (50, X.shape[1]) and set(labels) <= set(model.classes_)
    # EM over unlabelled rows runs the generic loop with the regularised M-step.
    partly = y.copy()
    partly[::3] = -1
    semi = GaussianDA(reg_alpha=0.5, reg_gamma=0.8).fit(X, partly)
    assert semi.n_iter_ > 1
    assert semi.score(X, y) > 0.9
    # EM over missing entries with a float shrinkage.
    missing = X.copy()
    missing[np.random.default_rng(3).random(X.shape) < 0.1] = np.nan
    assert LDA(shrinkage=0.2).fit(missing, y).score(X, y) > 0.9


def test_posterior_refuses_a_regularised_fit(wine):
    X, y = wine
    model = GaussianDA(reg_alpha=0.5).fit(X, y)
    with pytest.raises(ValueError, match="regularised point estimate"):
        model.posterior(10)
    with pytest.raises(ValueError, match="regularised point estimate"):
        model.predict_proba(X, method="predictive")


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"reg_alpha": 1.5}, r"reg_alpha must be a real number in \[0, 1\]; got 1.5"),
        ({"reg_gamma": -0.1}, r"reg_gamma must be a real number in \[0, 1\]"),
        ({"reg_alpha": 0.5, "covariance_type": "tied"}, "applies to covariance_type='full'"),
        ({"shrinkage": "auto"}, "shrinkage must be None, 'ledoit-wolf' or a float"),
        ({"shrinkage": 2.0}, r"shrinkage must be a real number in \[0, 1\]"),
        ({"shrinkage": 0.5, "covariance_type": "diag"}, "shrinkage applies to"),
    ],
)
def test_bad_regularisation_is_refused(wine, params, message):
    X, y = wine
    with pytest.raises(ValueError, match=message):
        GaussianDA(**params).fit(X, y)


@pytest.mark.parametrize(
    ("n_components", "message"),
    [(0, "n_components must be None or an integer >= 1; got 0"), (3, r"must be <= .* = 2; got 3")],
)
def test_bad_n_components_is_refused(wine, n_components, message):
    X, y = wine
    with pytest.raises(ValueError, match=message):
        LDA(n_components=n_components).fit(X, y)


def test_ledoit_wolf_refuses_missing_values(wine):
    X, y = wine
    X = X.copy()
    X[0, 0] = np.nan
    with pytest.raises(ValueError, match="impute them first"):
        LDA(shrinkage="ledoit-wolf").fit(X, y)


def test_rdacv_scores_equal_grid_search(wine):
    X, y = wine
    folds = StratifiedKFold(4, shuffle=True, random_state=0)
    alphas, gammas = [0.0, 0.5, 1.0], [0.25, 1.0]
    fast = RDACV(reg_alphas=alphas, reg_gammas=gammas, cv=folds).fit(X, y)
    grid = GridSearchCV(
        GaussianDA(), {"reg_alpha": alphas, "reg_gamma": gammas}, cv=folds, scoring="neg_log_loss"
    ).fit(X, y)
    np.testing.assert_allclose(
        fast.cv_results_["mean_test_score"], grid.cv_results_["mean_test_score"], rtol=1e-12
    )
    np.testing.assert_array_equal(
        fast.cv_results_["rank_test_score"], grid.cv_results_["rank_test_score"]
    )
    assert fast.best_params_ == grid.best_params_
    refit = GaussianDA(**grid.best_params_).fit(X, y)
    np.testing.assert_array_equal(fast.predict_proba(X), refit.predict_proba(X))
    assert fast.score(X, y) == refit.score(X, y)


def test_rdacv_in_a_pipeline_with_accuracy_scoring():
    X, y = load_wine(return_X_y=True)
    model = make_pipeline(StandardScaler(), RDACV(scoring="accuracy")).fit(X, y)
    assert model.score(X, y) > 0.97
    assert set(model[-1].best_params_) == {"reg_alpha", "reg_gamma"}
    assert model[-1].cv_results_["mean_test_score"].shape == (25,)


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"estimator": LDA()}, "estimator must be a GaussianDA with covariance_type='full'"),
        ({"reg_alphas": [0.5, 2.0]}, r"reg_alphas must be a non-empty list of numbers in \[0, 1\]"),
        ({"reg_gammas": []}, "reg_gammas must be a non-empty list"),
    ],
)
def test_rdacv_bad_input(wine, params, message):
    X, y = wine
    with pytest.raises(ValueError, match=message):
        RDACV(**params).fit(X, y)


def test_rdacv_refuses_unlabelled_rows(wine):
    X, y = wine
    y = y.copy()
    y[0] = -1
    with pytest.raises(ValueError, match="unlabelled rows"):
        RDACV().fit(X, y)
