"""Gaussian models integrate missing features out: the marginal of the observed block."""

import warnings

import numpy as np
import pytest
from scipy import stats
from sklearn.datasets import load_wine

from bayesgen import GaussianDA

X, Y = load_wine(return_X_y=True)
MISSING = [0, 3, 9]
KEPT = [j for j in range(X.shape[1]) if j not in MISSING]


@pytest.mark.parametrize("covariance_type", ["full", "tied", "diag"])
def test_missing_features_equal_a_model_fitted_without_them(covariance_type):
    """MLE: p(y | x) with columns NaN == the MLE model fitted on the other columns (1e-6).

    (Not for "spherical": its one variance pools every feature, so dropping columns from
    the fit changes it; the marginal is still exact, see the SciPy test below.)
    """
    full = GaussianDA(covariance_type=covariance_type, reg_covar=0).fit(X, Y)
    reduced = GaussianDA(covariance_type=covariance_type, reg_covar=0).fit(X[:, KEPT], Y)
    rows = X[:40].copy()
    rows[:, MISSING] = np.nan
    np.testing.assert_allclose(
        full.predict_log_proba(rows), reduced.predict_log_proba(X[:40, KEPT]), atol=1e-6
    )
    np.testing.assert_allclose(
        full.score_samples(rows), reduced.score_samples(X[:40, KEPT]), rtol=1e-9
    )


@pytest.mark.parametrize("covariance_type", ["full", "tied", "diag", "spherical"])
@pytest.mark.parametrize("step", [9, 1])
def test_rows_with_different_patterns_match_scipy_marginals(covariance_type, step):
    """Each row: log pi_k + multivariate_normal.logpdf of its observed block (SciPy).

    Every 9th wine gives few missing patterns (one Cholesky factor per pattern); all 178
    give more than MANY_PATTERNS (every row masked in a batch)."""
    model = GaussianDA(covariance_type=covariance_type, estimate="map").fit(X, Y)
    rng = np.random.default_rng(0)
    rows = X[::step].copy()
    rows[rng.random(rows.shape) < 0.3] = np.nan
    rows[0] = np.nan  # everything missing
    K, d = model.means_.shape
    if covariance_type == "full":
        covariances = model.covariances_
    elif covariance_type == "tied":
        covariances = np.broadcast_to(model.covariances_, (K, d, d))
    elif covariance_type == "diag":
        covariances = np.array([np.diag(v) for v in model.covariances_])
    else:
        covariances = np.array([v * np.eye(d) for v in model.covariances_])
    expected = np.zeros((len(rows), K))
    for i, row in enumerate(rows):
        seen = ~np.isnan(row)
        for k in range(K):
            expected[i, k] = np.log(model.class_prior_[k])
            if seen.any():
                block = covariances[k][np.ix_(seen, seen)]
                expected[i, k] += stats.multivariate_normal.logpdf(
                    row[seen], model.means_[k, seen], block
                )
    np.testing.assert_allclose(model.predict_joint_log_proba(rows), expected, rtol=1e-9)
    np.testing.assert_allclose(model.predict_proba(rows[:1]), [model.class_prior_])


def test_infinite_values_are_still_errors_when_predicting():
    """NaN is missing, ±inf is an error."""
    model = GaussianDA().fit(X, Y)
    bad = X[:3].copy()
    bad[1, 1] = np.inf
    with pytest.raises(ValueError, match="X must be finite"):
        model.predict(bad)


@pytest.mark.parametrize("covariance_type", ["full", "tied", "diag", "spherical"])
def test_map_fit_of_gappy_columns_on_very_different_scales(covariance_type):
    """Issue 32's breast-cancer repro (a fifth of the training cells hidden): the MAP fit
    by EM over the missing entries ran into SciPy's refusal of a positive-definite but
    badly scaled covariance in its log prior. It fits now, its objective (log-likelihood
    plus log prior) never falls, and every prediction is finite."""
    from sklearn.datasets import load_breast_cancer
    from sklearn.model_selection import train_test_split

    X, y = load_breast_cancer(return_X_y=True)
    X_train, X_test, y_train, _ = train_test_split(X, y, test_size=0.3, stratify=y, random_state=0)
    gappy = X_train.copy()
    gappy[np.random.default_rng(77).random(gappy.shape) < 0.2] = np.nan
    model = GaussianDA(covariance_type=covariance_type, estimate="map").fit(gappy, y_train)
    history = model.log_likelihood_history_
    assert history.size > 1 and np.all(np.isfinite(history))
    assert np.all(np.diff(history) >= -1e-9 * np.abs(history[:-1]))
    assert np.all(np.isfinite(model.predict_joint_log_proba(X_test)))


def _gappy_wine_split():
    """Issue 32's repro: a 70/30 stratified split (seed 0), each training cell hidden with
    probability 0.2 (numpy.random.default_rng(77))."""
    from sklearn.model_selection import train_test_split

    X, y = load_wine(return_X_y=True)
    X_train, X_test, y_train, y_test = train_test_split(
        X, y, test_size=0.3, stratify=y, random_state=0
    )
    X_train = X_train.copy()
    X_train[np.random.default_rng(77).random(X_train.shape) < 0.2] = np.nan
    return X_train, X_test, y_train, y_test


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")  # it drifts on
def test_a_class_with_fewer_complete_rows_than_features_warns_and_names_the_remedy():
    """Issue 32: QDA on gappy wine (about 40 rows a class, 13 features, 1 to 5 complete rows)
    collapsed to test log loss 14.7 silently. It now warns, naming each class with its
    complete and total rows (counted here), and the remedy it names holds up."""
    from sklearn.metrics import log_loss

    from bayesgen import LDA, QDA
    from bayesgen.validation import FewRowsWarning

    X_train, X_test, y_train, y_test = _gappy_wine_split()
    complete = ~np.isnan(X_train).any(axis=1)
    with pytest.warns(FewRowsWarning) as caught:
        collapsed = QDA().fit(X_train, y_train)
    message = " ".join(str(w.message) for w in caught if w.category is FewRowsWarning)
    for k in range(3):
        rows = y_train == k
        assert f"'{k}' ({np.sum(complete & rows)} complete of {np.sum(rows)} rows)" in message
    assert "reg_alpha" in message and "LDA" in message
    assert log_loss(y_test, collapsed.predict_proba(X_test)) > 5  # what the warning is about
    with warnings.catch_warnings():
        warnings.simplefilter("error", FewRowsWarning)
        for remedy in (QDA(reg_alpha=0.5), LDA()):
            remedy.fit(X_train, y_train)
            assert log_loss(y_test, remedy.predict_proba(X_test)) <= 0.3


def test_enough_complete_rows_or_a_prior_do_not_warn():
    from sklearn.datasets import load_iris

    from bayesgen import QDA
    from bayesgen.validation import FewRowsWarning

    X, y = load_iris(return_X_y=True)
    X = X.copy()
    X[np.random.default_rng(77).random(X.shape) < 0.2] = np.nan
    complete = ~np.isnan(X).any(axis=1)
    assert min(np.sum(complete & (y == k)) for k in range(3)) >= X.shape[1]
    wine_train, _, wine_labels, _ = _gappy_wine_split()
    with warnings.catch_warnings():
        warnings.simplefilter("error", FewRowsWarning)
        QDA().fit(X, y)
        QDA(estimate="map").fit(wine_train, wine_labels)  # the prior keeps it proper
