"""ComplementNB against scikit-learn's, and its refusals (it has no generative story)."""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn import naive_bayes
from sklearn.datasets import load_digits

from bayesgen import ComplementNB, registry
from bayesgen.estimators.complement_nb import NoGenerativeStory


@pytest.mark.parametrize("norm", [False, True])
@pytest.mark.parametrize("alpha", [1.0, 0.3])
def test_equals_scikit_learn_on_digits(norm, alpha):
    X, y = load_digits(return_X_y=True)
    ours = ComplementNB(alpha=alpha, norm=norm).fit(X, y)
    theirs = naive_bayes.ComplementNB(alpha=alpha, norm=norm).fit(X, y)
    np.testing.assert_allclose(ours.feature_log_prob_, theirs.feature_log_prob_, rtol=1e-12)
    np.testing.assert_allclose(ours.feature_count_, theirs.feature_count_)
    np.testing.assert_allclose(ours.feature_all_, theirs.feature_all_)
    np.testing.assert_allclose(ours.class_count_, theirs.class_count_)
    np.testing.assert_allclose(ours.class_log_prior_, theirs.class_log_prior_, rtol=1e-12)
    np.testing.assert_allclose(
        ours.predict_joint_log_proba(X), theirs.predict_joint_log_proba(X), rtol=1e-12
    )
    np.testing.assert_allclose(ours.predict_proba(X), theirs.predict_proba(X), atol=1e-10)
    np.testing.assert_array_equal(ours.predict(X), theirs.predict(X))


def test_sparse_weights_and_partial_fit():
    X, y = load_digits(return_X_y=True)
    weights = np.random.default_rng(0).integers(0, 3, size=len(y)).astype(float)
    theirs = naive_bayes.ComplementNB().fit(X, y, sample_weight=weights)
    ours = ComplementNB().fit(sp.csr_matrix(X), y, sample_weight=weights)
    np.testing.assert_allclose(ours.predict_proba(X), theirs.predict_proba(X), atol=1e-10)
    chunked = ComplementNB().partial_fit(X[:700], y[:700], classes=np.arange(10))
    chunked.partial_fit(X[700:], y[700:])
    np.testing.assert_allclose(
        chunked.feature_log_prob_, ComplementNB().fit(X, y).feature_log_prob_, rtol=1e-12
    )


def test_no_generative_story():
    X, y = load_digits(return_X_y=True)
    model = ComplementNB().fit(X, y)
    assert not hasattr(model, "score_samples")  # no density
    rounded = lambda: model.sample(3, rounding="training")  # noqa: E731 - sample's keywords
    for use in (model.sample, rounded, model.story, model.posterior, lambda: model.impute(X)):
        with pytest.raises(NoGenerativeStory, match="heuristic"):
            use()
    with pytest.raises(ValueError, match="unlabelled"):
        ComplementNB().fit(X, np.where(y == 0, -1, y))


def test_registered_by_its_model_name():
    assert registry.model_names()["complement-nb"] is ComplementNB


def test_two_classes_at_least_and_no_posterior_from_another_model():
    """Its weights compare each class with the others: one class is refused (as before the
    naive-Bayes base took one class); draws of a multinomial's posterior, whose sites have
    the same names and shapes, are refused, not scored by the complement weights."""
    from bayesgen import MultinomialNB

    X, y = load_digits(return_X_y=True)
    with pytest.raises(ValueError, match="needs at least two classes"):
        ComplementNB().fit(X[:20], np.zeros(20))
    with pytest.raises(ValueError, match="needs at least two"):
        ComplementNB().partial_fit(X[:20], np.zeros(20), classes=[0])
    model = ComplementNB().fit(X, y)
    draws = MultinomialNB().fit(X, y).posterior(3, random_state=0)
    with pytest.raises(ValueError, match="complement weights are no density"):
        model.predict_proba_draws(X[:2], posterior=draws)
