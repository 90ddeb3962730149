"""Issue 33: a fit on a single class, as scikit-learn's naive Bayes accepts one.

The model is then the density of that class: every row is predicted to be it with
probability 1, and ``score_samples`` is that class's own log density (checked against
SciPy's), which is what a one-class generative model is for (novelty, synthetic rows).
LDA and QDA refuse a single class, as scikit-learn's do; GaussianDA takes one.
"""

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from sklearn import naive_bayes
from sklearn.datasets import load_iris

import bayesgen

X, Y = load_iris(return_X_y=True)
ONE = X[Y == 1]  # versicolor only
LABELS = np.full(ONE.shape[0], "versicolor")

CASES = {
    "GaussianNB": (bayesgen.GaussianNB(reg_covar=0), naive_bayes.GaussianNB(var_smoothing=0), ONE),
    "MultinomialNB": (bayesgen.MultinomialNB(), naive_bayes.MultinomialNB(), np.rint(ONE)),
    "BernoulliNB": (
        bayesgen.BernoulliNB(),
        naive_bayes.BernoulliNB(),
        (ONE > ONE.mean(axis=0)).astype(float),
    ),
    "CategoricalNB": (
        bayesgen.CategoricalNB(unseen_category=False),
        naive_bayes.CategoricalNB(),
        np.rint(ONE).astype(int),
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_one_class_predicts_as_scikit_learn_does(name):
    ours, theirs, data = CASES[name]
    ours.fit(data, LABELS)
    theirs.fit(data, LABELS)
    np.testing.assert_array_equal(ours.classes_, ["versicolor"])
    np.testing.assert_array_equal(ours.predict(data), theirs.predict(data))
    np.testing.assert_allclose(ours.predict_proba(data), theirs.predict_proba(data))
    np.testing.assert_allclose(ours.class_prior_, [1.0])
    rows, labels = ours.sample(5, random_state=0)
    assert rows.shape == (5, data.shape[1]) and (labels == "versicolor").all()


def test_one_gaussian_class_density_is_the_product_of_its_normals():
    model = bayesgen.GaussianNB(reg_covar=0).fit(ONE, LABELS)
    expected = stats.norm.logpdf(ONE, ONE.mean(axis=0), ONE.std(axis=0)).sum(axis=1)
    np.testing.assert_allclose(model.score_samples(ONE), expected, rtol=1e-12)
    # A setosa is far less probable under the versicolor density than a versicolor is.
    assert model.score_samples(X[Y == 0]).max() < model.score_samples(ONE).min()


def test_partial_fit_takes_one_class_too():
    chunks = np.array_split(np.arange(ONE.shape[0]), 3)
    model = bayesgen.MultinomialNB()
    for rows in chunks:
        model.partial_fit(np.rint(ONE[rows]), LABELS[rows], classes=["versicolor"])
    whole = bayesgen.MultinomialNB().fit(np.rint(ONE), LABELS)
    np.testing.assert_allclose(model.feature_log_prob_, whole.feature_log_prob_, rtol=1e-12)


def test_gaussian_da_takes_one_class_as_the_table_s_density():
    """GaussianDA (no scikit-learn counterpart) fits one class, the density of a table
    without labels (bayesgen.Imputer, ``bayesgen fit`` without --target): its
    score_samples is SciPy's normal density of the fitted mean and covariance."""
    model = bayesgen.GaussianDA(reg_covar=0).fit(ONE, LABELS)
    np.testing.assert_allclose(model.means_[0], ONE.mean(axis=0), rtol=1e-12)
    np.testing.assert_allclose(model.covariances_[0], np.cov(ONE.T, bias=True), rtol=1e-10)
    expected = stats.multivariate_normal(ONE.mean(axis=0), np.cov(ONE.T, bias=True)).logpdf(X)
    np.testing.assert_allclose(model.score_samples(X), expected, rtol=1e-10)
    assert set(model.predict(X)) == {"versicolor"}


@pytest.mark.parametrize("model", [bayesgen.LDA(), bayesgen.QDA()])
def test_discriminant_analysis_refuses_one_class_as_scikit_learn_does(model):
    with pytest.raises(ValueError, match="a classifier needs at least two classes"):
        model.fit(ONE, LABELS)
    with pytest.raises(ValueError, match="a classifier needs at least two"):
        model.partial_fit(ONE, LABELS, classes=["versicolor"])


def test_mixed_nb_with_one_class_is_that_class_of_a_two_class_fit():
    rng = np.random.default_rng(3)
    n = 400
    y = rng.integers(0, 2, n)
    frame = pd.DataFrame({"visits": rng.poisson(1 + 3 * y), "kind": rng.choice(["a", "b", "c"], n)})
    features = {"visits": "poisson", "kind": "categorical"}
    both = bayesgen.MixedNB(features=features).fit(frame, y)
    alone = bayesgen.MixedNB(features=features).fit(frame[y == 0], np.zeros((y == 0).sum()))
    assert alone.classes_.tolist() == [0] and (alone.predict(frame) == 0).all()
    within = both.predict_joint_log_proba(frame)[:, 0] - np.log(both.class_prior_[0])
    np.testing.assert_allclose(alone.score_samples(frame), within, rtol=1e-12)
