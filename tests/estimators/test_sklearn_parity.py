"""Maximum-likelihood fits agree with scikit-learn on its bundled datasets and with the seeds."""

import numpy as np
import pytest
from sklearn import discriminant_analysis, naive_bayes
from sklearn.datasets import load_breast_cancer, load_iris, load_wine
from sklearn.model_selection import train_test_split

from bayesgen import LDA, QDA, GaussianNB

DATASETS = {"iris": load_iris, "wine": load_wine, "breast_cancer": load_breast_cancer}


def _data(name):
    return DATASETS[name](return_X_y=True)


@pytest.mark.parametrize("name", DATASETS)
def test_gaussian_nb_probabilities_equal_scikit_learn(name):
    """GaussianNB(reg_covar=0) == sklearn GaussianNB(var_smoothing=0): same probabilities."""
    X, y = _data(name)
    ours = GaussianNB(reg_covar=0).fit(X, y)
    reference = naive_bayes.GaussianNB(var_smoothing=0).fit(X, y)
    np.testing.assert_allclose(ours.predict_proba(X), reference.predict_proba(X), atol=1e-10)
    np.testing.assert_allclose(ours.means_, reference.theta_, rtol=1e-12)
    np.testing.assert_allclose(ours.covariances_, reference.var_, rtol=1e-10)
    np.testing.assert_array_equal(ours.predict(X), reference.predict(X))


@pytest.mark.parametrize("name", DATASETS)
def test_lda_agrees_with_scikit_learn(name):
    """LDA predictions equal sklearn's (svd and lsqr); probabilities equal the lsqr solver's."""
    X, y = _data(name)
    ours = LDA().fit(X, y)
    for solver in ("svd", "lsqr"):
        reference = discriminant_analysis.LinearDiscriminantAnalysis(solver=solver).fit(X, y)
        np.testing.assert_array_equal(ours.predict(X), reference.predict(X))
    exact = LDA(reg_covar=0).fit(X, y)
    lsqr = discriminant_analysis.LinearDiscriminantAnalysis(solver="lsqr").fit(X, y)
    np.testing.assert_allclose(exact.predict_proba(X), lsqr.predict_proba(X), atol=1e-8)
    np.testing.assert_allclose(exact.covariances_, lsqr.covariance_, rtol=1e-10)


@pytest.mark.parametrize("name", DATASETS)
def test_qda_agrees_with_scikit_learn(name):
    """QDA predictions and probabilities equal sklearn's QuadraticDiscriminantAnalysis.

    scikit-learn refuses breast cancer at its default rank tolerance 1e-4 ("not full rank");
    its covariances are merely ill-conditioned (condition number ~2e12), so the reference is
    run with tol=1e-8, and our Cholesky-based fit needs no such setting.
    """
    X, y = _data(name)
    ours = QDA(reg_covar=0).fit(X, y)
    reference = discriminant_analysis.QuadraticDiscriminantAnalysis(tol=1e-8).fit(X, y)
    np.testing.assert_allclose(ours.predict_proba(X), reference.predict_proba(X), atol=1e-9)
    np.testing.assert_array_equal(QDA().fit(X, y).predict(X), reference.predict(X))


def test_wine_table_of_the_textbook_is_reproduced():
    """004_dce6e695048eec0f.txt: GaussianNB 0.963, LDA 1.000, QDA 0.981 on its wine split."""
    X, y = load_wine(return_X_y=True)
    X_train, X_test, y_train, y_test = train_test_split(
        X, y, test_size=0.3, stratify=y, random_state=0
    )
    printed = {GaussianNB: 0.963, LDA: 1.000, QDA: 0.981}
    for model, accuracy in printed.items():
        score = model().fit(X_train, y_train).score(X_test, y_test)
        assert round(score, 3) == accuracy, model.__name__


def test_lda_from_scratch_of_the_textbook():
    """The seed's whitened LDA with the unbiased (n - K) pooled covariance gives our predictions.

    004_dce6e695048eec0f.txt: the n/(n - K) factor rescales every discriminant term but log pi_k,
    so it moves no boundary here; our MLE LDA must agree with the seed's from-scratch code.
    """
    X, y = load_wine(return_X_y=True)
    X_train, X_test, y_train, _ = train_test_split(X, y, test_size=0.3, stratify=y, random_state=0)
    K = 3
    priors = np.bincount(y_train) / len(y_train)
    means = np.array([X_train[y_train == k].mean(axis=0) for k in range(K)])
    centred = X_train - means[y_train]
    lower = np.linalg.cholesky(centred.T @ centred / (len(y_train) - K))
    Z = np.linalg.solve(lower, X_test.T).T
    M = np.linalg.solve(lower, means.T).T
    scores = np.log(priors) - 0.5 * ((Z[:, None, :] - M[None, :, :]) ** 2).sum(axis=2)
    np.testing.assert_array_equal(LDA().fit(X_train, y_train).predict(X_test), scores.argmax(1))


def test_binary_lda_is_the_logistic_posterior_of_the_seeds():
    """000/002 seeds: with a shared covariance, log-odds = w.x + b, w = Sigma^-1 (mu1 - mu0)."""
    X, y = load_breast_cancer(return_X_y=True)
    model = LDA(reg_covar=0).fit(X, y)
    mu0, mu1 = model.means_
    w = np.linalg.solve(model.covariances_, mu1 - mu0)
    b = -0.5 * (
        mu1 @ np.linalg.solve(model.covariances_, mu1)
        - mu0 @ np.linalg.solve(model.covariances_, mu0)
    ) + np.log(model.class_prior_[1] / model.class_prior_[0])
    np.testing.assert_allclose(model.decision_function(X), X @ w + b, rtol=1e-7, atol=1e-6)
    np.testing.assert_allclose(model.class_prior_[1], np.mean(y == 1), rtol=1e-14)
