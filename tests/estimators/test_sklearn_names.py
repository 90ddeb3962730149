"""scikit-learn's attribute names, with scikit-learn's numbers, on its bundled data sets."""

import numpy as np
import pandas as pd
import pytest
from sklearn import discriminant_analysis, naive_bayes
from sklearn.covariance import OAS, EmpiricalCovariance, LedoitWolf
from sklearn.datasets import load_breast_cancer, load_digits, load_iris, load_wine

from bayesgen import LDA, QDA, RDACV, BernoulliNB, CategoricalNB, GaussianNB, MultinomialNB

DATA = {"iris": load_iris, "wine": load_wine}


@pytest.mark.parametrize("data", sorted(DATA))
def test_gaussian_nb_theta_and_var(data):
    X, y = DATA[data](return_X_y=True)
    ours = GaussianNB(reg_covar=0).fit(X, y)
    theirs = naive_bayes.GaussianNB(var_smoothing=0).fit(X, y)
    np.testing.assert_allclose(ours.theta_, theirs.theta_, rtol=1e-10)
    np.testing.assert_allclose(ours.var_, theirs.var_, rtol=1e-10)


@pytest.mark.parametrize("data", sorted(DATA))
def test_lda_covariance_priors_coef_intercept(data):
    X, y = DATA[data](return_X_y=True)
    ours = LDA(reg_covar=0).fit(X, y)
    theirs = discriminant_analysis.LinearDiscriminantAnalysis(solver="lsqr").fit(X, y)
    np.testing.assert_allclose(ours.covariance_, theirs.covariance_, rtol=1e-10, atol=1e-14)
    np.testing.assert_allclose(ours.priors_, theirs.priors_, rtol=1e-12)
    np.testing.assert_allclose(ours.coef_, theirs.coef_, rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(ours.intercept_, theirs.intercept_, rtol=1e-10)


def test_lda_two_classes_linear_decision_function():
    X, y = load_breast_cancer(return_X_y=True)
    X = X[:, :6]
    ours = LDA(reg_covar=0).fit(X, y)
    theirs = discriminant_analysis.LinearDiscriminantAnalysis(solver="lsqr").fit(X, y)
    assert ours.coef_.shape == (1, 6) and ours.intercept_.shape == (1,)
    np.testing.assert_allclose(ours.coef_, theirs.coef_, rtol=1e-10)
    np.testing.assert_allclose(ours.intercept_, theirs.intercept_, rtol=1e-10)
    linear = X @ ours.coef_.T[:, 0] + ours.intercept_[0]
    np.testing.assert_allclose(ours.decision_function(X), linear, rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(
        ours.decision_function(X), theirs.decision_function(X), rtol=1e-9, atol=1e-9
    )


@pytest.mark.parametrize("data", sorted(DATA))
def test_qda_covariance_and_priors(data):
    X, y = DATA[data](return_X_y=True)
    ours = QDA(reg_covar=0).fit(X, y)
    # The eigen solver's covariance_ is the empirical one, like estimate="mle".
    theirs = discriminant_analysis.QuadraticDiscriminantAnalysis(
        solver="eigen", store_covariance=True
    ).fit(X, y)
    np.testing.assert_allclose(ours.covariance_, np.asarray(theirs.covariance_), rtol=1e-10)
    np.testing.assert_allclose(ours.priors_, theirs.priors_, rtol=1e-12)
    np.testing.assert_allclose(ours.predict_proba(X), theirs.predict_proba(X), atol=1e-10)


def test_count_models_class_log_prior_feature_and_class_count():
    X, y = load_digits(return_X_y=True)
    for ours, theirs in (
        (MultinomialNB(), naive_bayes.MultinomialNB()),
        (BernoulliNB(binarize=0.0), naive_bayes.BernoulliNB(binarize=0.0)),
    ):
        ours.fit(X, y)
        theirs.fit(X, y)
        np.testing.assert_allclose(ours.class_log_prior_, theirs.class_log_prior_, rtol=1e-12)
        np.testing.assert_allclose(ours.feature_count_, theirs.feature_count_)
        np.testing.assert_allclose(ours.class_count_, theirs.class_count_)


def test_names_are_absent_before_fit():
    for name, model in (("theta_", GaussianNB()), ("coef_", LDA()), ("priors_", QDA())):
        assert not hasattr(model, name)


def _codes(seed=0):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 4, size=(200, 5))
    X[:, 2] = rng.integers(0, 2, 200)
    return X, rng.integers(0, 3, 200)


def test_categorical_nb_without_unseen_category_equals_scikit_learn():
    X, y = _codes()
    ours = CategoricalNB(unseen_category=False).fit(X, y)
    theirs = naive_bayes.CategoricalNB().fit(X, y)
    np.testing.assert_allclose(ours.predict_proba(X), theirs.predict_proba(X), atol=1e-12)
    np.testing.assert_array_equal(ours.n_categories_, theirs.n_categories_)
    for a, b in zip(ours.feature_log_prob_, theirs.feature_log_prob_, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-12)
    # partial_fit over two batches reaches the same model.
    chunked = CategoricalNB(unseen_category=False).partial_fit(X[:50], y[:50], classes=[0, 1, 2])
    chunked.partial_fit(X[50:], y[50:])
    np.testing.assert_allclose(chunked.predict_proba(X), theirs.predict_proba(X), atol=1e-12)


def test_categorical_nb_min_categories_equals_scikit_learn():
    X, y = _codes(1)
    minimum = [6, 4, 3, 4, 4]
    ours = CategoricalNB(unseen_category=False, min_categories=minimum).fit(X, y)
    theirs = naive_bayes.CategoricalNB(min_categories=minimum).fit(X, y)
    np.testing.assert_array_equal(ours.n_categories_, theirs.n_categories_)
    np.testing.assert_allclose(ours.predict_proba(X), theirs.predict_proba(X), atol=1e-12)
    np.testing.assert_allclose(ours.class_log_prior_, theirs.class_log_prior_, rtol=1e-12)
    for a, b in zip(ours.category_count_, theirs.category_count_, strict=True):
        np.testing.assert_array_equal(a, b)


def test_categorical_nb_default_keeps_the_unseen_category():
    X, y = _codes(2)
    model = CategoricalNB().fit(X, y)
    counts = model.category_count_[0]
    expected = (counts + 1.0) / (counts.sum(axis=1, keepdims=True) + 1.0 * (4 + 1))
    np.testing.assert_allclose(np.exp(model.feature_log_prob_[0][:, :-1]), expected)
    model.predict(X + 10)  # unseen values have a probability
    with pytest.raises(ValueError, match="training did not see"):
        CategoricalNB(unseen_category=False).fit(X, y).predict(X + 10)


@pytest.mark.parametrize("data", sorted(DATA))
@pytest.mark.parametrize("covariance", [LedoitWolf(), OAS(), EmpiricalCovariance()], ids=repr)
def test_lda_covariance_estimator_equals_scikit_learn(data, covariance):
    X, y = DATA[data](return_X_y=True)
    ours = LDA(reg_covar=0, covariance_estimator=covariance).fit(X, y)
    theirs = discriminant_analysis.LinearDiscriminantAnalysis(
        solver="lsqr", covariance_estimator=covariance
    ).fit(X, y)
    np.testing.assert_allclose(ours.covariance_, theirs.covariance_, rtol=1e-10, atol=1e-14)
    np.testing.assert_allclose(ours.coef_, theirs.coef_, rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(ours.predict_proba(X), theirs.predict_proba(X), atol=1e-10)


def test_lda_covariance_estimator_refuses_what_it_cannot_do():
    X, y = load_iris(return_X_y=True)
    with pytest.raises(ValueError, match="every row at once"):
        LDA(covariance_estimator=LedoitWolf()).partial_fit(X, y, classes=[0, 1, 2])
    with pytest.raises(ValueError, match="sample weights"):
        LDA(covariance_estimator=LedoitWolf()).fit(X, y, sample_weight=np.ones(len(y)))
    with pytest.raises(ValueError, match="posterior"):
        LDA(covariance_estimator=LedoitWolf()).fit(X, y).posterior()


class _BareLedoitWolf:
    """Only ``fit`` and ``covariance_``, no ``get_params``: scikit-learn accepts it."""

    def fit(self, X):
        self.covariance_ = LedoitWolf().fit(X).covariance_
        return self


class _NoCovariance:
    def fit(self, X):
        return self


def test_lda_covariance_estimator_takes_any_object_with_fit_and_leaves_it_unfitted():
    """Issue 33: an object without get_params crashed in clone."""
    X, y = load_iris(return_X_y=True)
    bare = _BareLedoitWolf()
    ours = LDA(reg_covar=0, covariance_estimator=bare).fit(X, y)
    theirs = LDA(reg_covar=0, covariance_estimator=LedoitWolf()).fit(X, y)
    np.testing.assert_allclose(ours.covariance_, theirs.covariance_, rtol=1e-13)
    assert not hasattr(bare, "covariance_")  # a copy was fitted, not the parameter


def test_lda_covariance_estimator_means_follow_estimate():
    """Issue 33: under "map" the class prior followed estimate but the means stayed raw."""
    X, y = load_iris(return_X_y=True)
    for estimate in ("mle", "map", "mean"):
        ours = LDA(estimate=estimate, covariance_estimator=LedoitWolf()).fit(X, y)
        plain = LDA(estimate=estimate).fit(X, y)
        np.testing.assert_allclose(ours.means_, plain.means_, rtol=1e-12)
        np.testing.assert_allclose(ours.class_prior_, plain.class_prior_, rtol=1e-12)
    raw = LDA(covariance_estimator=LedoitWolf()).fit(X, y).means_
    shrunk = LDA(estimate="map", covariance_estimator=LedoitWolf()).fit(X, y).means_
    assert not np.allclose(raw, shrunk, rtol=1e-6)


def test_lda_covariance_estimator_refuses_shrinkage_and_objects_without_a_covariance():
    X, y = load_iris(return_X_y=True)
    with pytest.raises(ValueError, match="covariance_estimator and shrinkage=0.2 are both set"):
        LDA(covariance_estimator=LedoitWolf(), shrinkage=0.2).fit(X, y)
    with pytest.raises(ValueError, match="_NoCovariance has no covariance_ attribute"):
        LDA(covariance_estimator=_NoCovariance()).fit(X, y)


@pytest.mark.parametrize("data", sorted(DATA))
def test_lda_multiclass_decision_function_is_scikit_learn_s(data):
    """Issue 33: it was log p(x, k), which differs from scikit-learn's by a per-row constant."""
    X, y = DATA[data](return_X_y=True)
    ours = LDA(reg_covar=0).fit(X, y)
    theirs = discriminant_analysis.LinearDiscriminantAnalysis(solver="lsqr").fit(X, y)
    decision = ours.decision_function(X)
    np.testing.assert_allclose(decision, X @ ours.coef_.T + ours.intercept_, rtol=1e-12)
    np.testing.assert_allclose(decision, theirs.decision_function(X), rtol=1e-9, atol=1e-9)
    shift = ours.predict_joint_log_proba(X) - decision  # one constant per row
    np.testing.assert_allclose(shift, shift[:, :1].repeat(shift.shape[1], axis=1), rtol=1e-9)
    gappy = X[:5].copy()
    gappy[0, 1] = np.nan  # no linear form: the joint with the entry integrated out
    scores = ours.decision_function(gappy)
    np.testing.assert_allclose(scores[0], ours.predict_joint_log_proba(gappy)[0], rtol=1e-12)
    np.testing.assert_allclose(scores[1:], decision[1:5], rtol=1e-12)


def test_qda_rotations_and_scalings_are_scikit_learn_s():
    """Issue 33: QDA had no rotations_/scalings_; they are the class covariances' eigen
    decomposition, scikit-learn's (whose covariances are the maximum-likelihood ones)."""
    X, y = load_iris(return_X_y=True)
    ours = QDA(reg_covar=0).fit(X, y)
    theirs = discriminant_analysis.QuadraticDiscriminantAnalysis(store_covariance=True).fit(X, y)
    for k in range(3):
        np.testing.assert_allclose(ours.scalings_[k], theirs.scalings_[k], rtol=1e-10)
        # Columns agree up to their sign.
        product = np.abs(np.sum(ours.rotations_[k] * theirs.rotations_[k], axis=0))
        np.testing.assert_allclose(product, 1.0, rtol=1e-8)
        rebuilt = ours.rotations_[k] * ours.scalings_[k] @ ours.rotations_[k].T
        np.testing.assert_allclose(rebuilt, ours.covariances_[k], rtol=1e-10, atol=1e-14)


def test_lda_coef_and_intercept_keep_a_float32_fit_s_precision():
    X, y = load_iris(return_X_y=True)
    ours = LDA().fit(X.astype(np.float32), y)
    theirs = discriminant_analysis.LinearDiscriminantAnalysis().fit(X.astype(np.float32), y)
    assert ours.coef_.dtype == theirs.coef_.dtype == np.float32
    assert ours.intercept_.dtype == np.float32
    assert LDA().fit(X, y).coef_.dtype == np.float64


def test_categorical_nb_min_categories_of_the_wrong_shape_is_refused():
    X, y = _codes(1)
    with pytest.raises(ValueError, match=r"min_categories .* shape \(5,\); got shape \(2,\)"):
        CategoricalNB(min_categories=[3, 4]).fit(X, y)
    with pytest.raises(ValueError, match=r"got shape \(1,\)"):
        CategoricalNB(min_categories=[3]).fit(X, y)
    assert CategoricalNB(min_categories=6).fit(X, y).n_categories_.tolist() == [6] * 5


def test_categorical_nb_keeps_a_pandas_categorical_s_declared_categories():
    """Issue 33: declared but unobserved levels were dropped (R keeps them)."""
    X = pd.DataFrame({"c": pd.Categorical(list("xxyy"), categories=list("xyz"))})
    y = np.array([0, 0, 1, 1])
    model = CategoricalNB(unseen_category=False).fit(X, y)
    assert model.n_categories_.tolist() == [3]
    assert model.categories_[0].tolist() == ["x", "y", "z"]
    # Additive smoothing over the three levels: (n + 1) / (N_k + 3), as e1071 with laplace=1.
    expected = np.array([[3, 1, 1], [1, 3, 1]]) / 5.0
    np.testing.assert_allclose(np.exp(model.feature_log_prob_[0]), expected, rtol=1e-12)
    unseen = pd.DataFrame({"c": pd.Categorical(["z"], categories=list("xyz"))})
    np.testing.assert_allclose(model.predict_proba(unseen), [[0.5, 0.5]], rtol=1e-12)
    # Declared order is kept, and an array of the same values learns only what it sees.
    ordered = pd.DataFrame({"c": pd.Categorical(list("xy"), categories=["z", "y", "x"])})
    assert CategoricalNB().fit(ordered, [0, 1]).categories_[0].tolist() == ["z", "y", "x"]
    assert CategoricalNB().fit(X.to_numpy(), y).n_categories_.tolist() == [2]


@pytest.mark.parametrize("data", sorted(DATA))
@pytest.mark.parametrize("covariance", [LedoitWolf(), OAS()], ids=repr)
def test_qda_covariance_estimator_equals_scikit_learn(data, covariance):
    """Issue 33: QDA had no covariance_estimator (scikit-learn's takes one with "eigen")."""
    X, y = DATA[data](return_X_y=True)
    ours = QDA(reg_covar=0, covariance_estimator=covariance).fit(X, y)
    theirs = discriminant_analysis.QuadraticDiscriminantAnalysis(
        solver="eigen", covariance_estimator=covariance, store_covariance=True
    ).fit(X, y)
    np.testing.assert_allclose(ours.covariances_, theirs.covariance_, rtol=1e-10, atol=1e-14)
    np.testing.assert_allclose(ours.predict_proba(X), theirs.predict_proba(X), atol=1e-8)
    with pytest.raises(ValueError, match="QDA with a covariance_estimator needs every row"):
        QDA(covariance_estimator=covariance).partial_fit(X, y, classes=np.unique(y))
    with pytest.raises(ValueError, match="posterior"):
        ours.posterior()


def test_covariance_estimator_refusals_come_before_any_fit():
    """The review of issue 33's change: unlabelled rows and NaN were refused only after the
    whole EM had run, and reg_alpha/reg_gamma were silently replaced."""
    X, y = load_iris(return_X_y=True)
    gappy = X.copy()
    gappy[0, 0] = np.nan
    for model, X_fit, y_fit, message in [
        (LDA(covariance_estimator=LedoitWolf()), gappy, y, "X contains NaN"),
        (QDA(covariance_estimator=LedoitWolf()), X, np.where(y == 0, -1, y), "unlabelled rows"),
        (QDA(covariance_estimator=LedoitWolf(), reg_gamma=0.5), X, y, "reg_gamma=0.5"),
    ]:
        with pytest.raises(ValueError, match=message):
            model.fit(X_fit, y_fit)
        assert not hasattr(model, "classes_")  # refused before fitting anything


def test_rdacv_refuses_a_base_with_a_covariance_estimator():
    X, y = load_iris(return_X_y=True)
    search = RDACV(estimator=QDA(covariance_estimator=LedoitWolf()), cv=2)
    with pytest.raises(ValueError, match="covariance_estimator, whose covariances replace"):
        search.fit(X, y)
