"""Fisher's discriminant coordinates and reduced-rank LDA (004 seed, "Several classes")."""

import numpy as np
import pytest
from sklearn.datasets import load_iris, load_wine
from sklearn.decomposition import PCA
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
from sklearn.neighbors import KNeighborsClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from bayesgen import LDA, QDA, GaussianDA


def _nearest_mean_errors(Z, y):
    means = np.array([Z[y == k].mean(axis=0) for k in np.unique(y)])
    distances = ((Z[:, None, :] - means[None]) ** 2).sum(axis=2)
    return int(np.sum(np.argmin(distances, axis=1) != y))


@pytest.mark.parametrize("loader", [load_iris, load_wine])
def test_transform_agrees_with_scikit_learn_eigen_solver(loader):
    X, y = loader(return_X_y=True)
    ours = LDA(reg_covar=0).fit(X, y)
    theirs = LinearDiscriminantAnalysis(solver="eigen").fit(X, y)
    Z, Z_sklearn = ours.transform(X), theirs.transform(X)
    assert Z.shape == Z_sklearn.shape == (X.shape[0], 2)
    for j in range(2):
        # Same coordinate up to sign and shift (scikit-learn's eigen solver does not centre);
        # both have unit within-class variance, so the scale is the same too.
        sign = np.sign(Z[:, j] @ (Z_sklearn[:, j] - Z_sklearn[:, j].mean()))
        centred = Z_sklearn[:, j] - Z_sklearn[:, j].mean()
        np.testing.assert_allclose(sign * (Z[:, j] - Z[:, j].mean()), centred, atol=1e-8)
    np.testing.assert_allclose(
        ours.explained_variance_ratio_, theirs.explained_variance_ratio_, rtol=1e-10
    )


def test_directions_have_unit_within_class_variance():
    X, y = load_wine(return_X_y=True)
    model = LDA().fit(X, y)
    W = model.scalings_
    np.testing.assert_allclose(W.T @ model.covariances_ @ W, np.eye(2), atol=1e-10)
    Z = model.transform(X)
    np.testing.assert_allclose(Z.mean(axis=0), 0, atol=1e-10)  # centred at the weighted mean
    residuals = Z - np.array([Z[y == k].mean(axis=0) for k in range(3)])[y]
    np.testing.assert_allclose(residuals.T @ residuals / len(y), np.eye(2), atol=1e-5)


def test_seed_wine_discriminant_coordinates_separate_every_wine():
    """004 seed: nearest cultivar mean misclassifies 5 wines in two principal components of
    the standardised features and none in the two discriminant coordinates."""
    X, y = load_wine(return_X_y=True)
    standardised = StandardScaler().fit_transform(X)
    assert _nearest_mean_errors(PCA(2).fit_transform(standardised), y) == 5
    assert _nearest_mean_errors(LDA().fit(X, y).transform(X), y) == 0


def test_full_rank_predictions_equal_lda_and_reduced_rank_is_nearest_mean():
    X, y = load_iris(return_X_y=True)
    full = LDA().fit(X, y)
    at_full_rank = LDA(n_components=2).fit(X, y)
    np.testing.assert_array_equal(at_full_rank.predict_proba(X), full.predict_proba(X))
    reduced = LDA(n_components=1).fit(X, y)
    z = full.transform(X)[:, :1]
    centres = full.transform(full.means_)[:, :1]
    joint = np.log(full.class_prior_) - 0.5 * (z - centres.T) ** 2
    expected = np.exp(joint - np.logaddexp.reduce(joint, axis=1, keepdims=True))
    np.testing.assert_allclose(reduced.predict_proba(X), expected, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(reduced.transform(X), z, rtol=1e-12)
    ratios = full.explained_variance_ratio_
    np.testing.assert_allclose(reduced.explained_variance_ratio_, ratios[:1])
    # The reduced model is a generative model too: its constrained means generate its rows.
    rows, labels = reduced.sample(30000, random_state=0)
    for k in range(3):
        np.testing.assert_allclose(rows[labels == k].mean(axis=0), reduced.means_[k], atol=0.03)


def test_scikit_learn_n_components_one_agrees_on_wine():
    X, y = load_wine(return_X_y=True)
    Z = LDA(n_components=1, reg_covar=0).fit(X, y).transform(X)[:, 0]
    Z_sklearn = LinearDiscriminantAnalysis(solver="eigen", n_components=1).fit(X, y).transform(X)
    assert abs(np.corrcoef(Z, Z_sklearn[:, 0])[0, 1]) == pytest.approx(1, abs=1e-12)


def test_transform_in_a_pipeline_and_feature_names():
    X, y = load_wine(return_X_y=True)
    pipeline = make_pipeline(LDA(n_components=2), KNeighborsClassifier(5)).fit(X, y)
    assert pipeline.score(X, y) > 0.95
    np.testing.assert_array_equal(pipeline[0].get_feature_names_out(), ["lda0", "lda1"])
    assert not hasattr(QDA(), "transform")
    assert not hasattr(GaussianDA(covariance_type="diag"), "transform")
    assert hasattr(GaussianDA(covariance_type="tied"), "transform")


def test_transform_fills_missing_entries_with_their_conditional_mean():
    X, y = load_wine(return_X_y=True)
    model = LDA().fit(X, y)
    holes = X[:10].copy()
    holes[:, 2] = np.nan
    np.testing.assert_allclose(model.transform(holes), model.transform(model.impute(holes)))


@pytest.mark.parametrize("n_components", [None, 1])
def test_coordinates_follow_the_last_em_step_with_unlabelled_and_missing(n_components):
    """After EM over unlabelled rows with missing entries (each M-step completes them from
    the current parameters), the discriminant coordinates are those of the final fit: the
    generalised eigenvectors of its between-class scatter, W^T Sigma W = I."""
    X, y = load_wine(return_X_y=True)
    X, y = X.copy(), y.copy()
    rng = np.random.default_rng(3)
    X[rng.random(X.shape) < 0.1] = np.nan
    y[1::3] = -1
    model = LDA(n_components=n_components).fit(X, y)
    assert model.n_iter_ > 1 and model.fitted_with_missing_
    family = model.family_
    if n_components is None:
        params = model.joint_.params
    else:  # the coordinates come from the full-rank estimate of the same statistics
        value = model.joint_
        _, _, params = family.estimate_full_rank(value.feature_stats, "mle", value.frozen)
    expected = family.discriminant_coordinates(params, model.joint_.feature_stats.counts)
    np.testing.assert_allclose(model.xbar_, expected.center, rtol=1e-12)
    np.testing.assert_allclose(np.abs(model.scalings_), np.abs(expected.scalings), rtol=1e-10)
    W = model.scalings_
    np.testing.assert_allclose(W.T @ model.covariances_ @ W, np.eye(W.shape[1]), atol=1e-10)


def test_a_refit_without_a_shared_covariance_drops_the_coordinates():
    """Refitted as QDA, a model keeps no discriminant coordinates of its LDA fit."""
    X, y = load_iris(return_X_y=True)
    model = GaussianDA(covariance_type="tied").fit(X, y)
    assert model.scalings_.shape == (4, 2)
    model.set_params(covariance_type="full").fit(X, y)
    for name in ("scalings_", "xbar_", "explained_variance_ratio_"):
        assert not hasattr(model, name)
