"""The count naive-Bayes estimators against scikit-learn, the seeds and closed forms."""

import numpy as np
import pytest
import scipy.sparse as sp
from scipy import stats
from scipy.special import logsumexp
from sklearn import naive_bayes
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split

from bayesgen import BernoulliNB, CategoricalNB, MultinomialNB, PoissonNB


def _digits_split():
    X, y = load_digits(return_X_y=True)
    return train_test_split(X, y, test_size=0.3, stratify=y, random_state=0)


@pytest.mark.parametrize("alpha", [1.0, 0.3, 2.5])
def test_multinomial_log_proba_equals_scikit_learn_on_digits(alpha):
    """MultinomialNB(alpha) == sklearn MultinomialNB(alpha): predict_log_proba to 1e-6."""
    X_train, X_test, y_train, _ = _digits_split()
    ours = MultinomialNB(alpha=alpha).fit(X_train, y_train)
    reference = naive_bayes.MultinomialNB(alpha=alpha).fit(X_train, y_train)
    np.testing.assert_allclose(
        ours.predict_log_proba(X_test), reference.predict_log_proba(X_test), atol=1e-6
    )
    np.testing.assert_allclose(ours.feature_log_prob_, reference.feature_log_prob_, rtol=1e-12)
    np.testing.assert_allclose(np.log(ours.class_prior_), reference.class_log_prior_, rtol=1e-12)


@pytest.mark.parametrize("alpha", [1.0, 0.5])
def test_bernoulli_log_proba_equals_scikit_learn_on_binary_digits(alpha):
    """BernoulliNB(alpha) on 0/1 pixels == sklearn BernoulliNB(alpha) to 1e-6."""
    X_train, X_test, y_train, _ = _digits_split()
    binary_train, binary_test = (X_train > 7).astype(float), (X_test > 7).astype(float)
    ours = BernoulliNB(alpha=alpha).fit(binary_train, y_train)
    reference = naive_bayes.BernoulliNB(alpha=alpha).fit(binary_train, y_train)
    np.testing.assert_allclose(
        ours.predict_log_proba(binary_test), reference.predict_log_proba(binary_test), atol=1e-6
    )
    # binarize=7 on the raw pixels is the same model as fitting on the 0/1 pixels.
    thresholded = BernoulliNB(alpha=alpha, binarize=7).fit(X_train, y_train)
    np.testing.assert_allclose(
        thresholded.predict_log_proba(X_test), ours.predict_log_proba(binary_test), atol=1e-12
    )


def test_digits_example_of_the_textbook():
    """004 seed: accuracy 0.896, p > 0.999 on 94% of test images, 0.919 accurate on those."""
    X_train, X_test, y_train, y_test = _digits_split()
    model = MultinomialNB(alpha=1.0).fit(X_train, y_train)
    assert round(model.score(X_test, y_test), 3) == 0.896
    confident = model.predict_proba(X_test).max(axis=1) > 0.999
    assert round(confident.mean(), 2) == 0.94
    accuracy = np.mean(model.predict(X_test)[confident] == y_test[confident])
    assert round(accuracy, 3) == 0.919


def test_multinomial_joint_and_density_include_the_multinomial_coefficient():
    """score_samples = log sum_k pi_k Multinomial(x | L, theta_k), from scipy."""
    X_train, X_test, y_train, _ = _digits_split()
    model = MultinomialNB().fit(X_train, y_train)
    theta = np.exp(model.feature_log_prob_)
    rows = X_test[:20]
    expected = np.column_stack(
        [
            np.log(p) + stats.multinomial.logpmf(rows, rows.sum(axis=1), t)
            for p, t in zip(model.class_prior_, theta, strict=True)
        ]
    )
    np.testing.assert_allclose(model.predict_joint_log_proba(rows), expected, rtol=1e-10)
    np.testing.assert_allclose(model.score_samples(rows), logsumexp(expected, axis=1), rtol=1e-10)


def test_poisson_joint_is_the_poisson_density_with_its_length_correction():
    """PoissonNB's joint = log pi + sum_j poisson.logpmf; mean rate = (S + alpha)/(N + beta)."""
    X_train, X_test, y_train, _ = _digits_split()
    model = PoissonNB(alpha=0.5, beta=2.0).fit(X_train, y_train)
    sums = np.array([X_train[y_train == k].sum(axis=0) for k in range(10)])
    counts = np.bincount(y_train)
    np.testing.assert_allclose(model.rates_, (sums + 0.5) / (counts[:, None] + 2.0), rtol=1e-12)
    expected = np.column_stack(
        [
            np.log(p) + stats.poisson.logpmf(X_test, rates).sum(axis=1)
            for p, rates in zip(model.class_prior_, model.rates_, strict=True)
        ]
    )
    np.testing.assert_allclose(model.predict_joint_log_proba(X_test), expected, rtol=1e-10)


def test_poisson_length_correction_lets_document_length_decide():
    """Same word proportions, different lengths: the Poisson model follows the length, the
    multinomial model (which conditions on it) cannot tell the documents apart."""
    rng = np.random.default_rng(0)
    words = np.array([0.5, 0.3, 0.2])
    short = rng.multinomial(20, words, size=200)
    long = rng.multinomial(200, words, size=200)
    X, y = np.vstack([short, long]), np.repeat([0, 1], 200)
    queries = np.array([[10, 6, 4], [100, 60, 40]])
    assert list(PoissonNB().fit(X, y).predict(queries)) == [0, 1]
    multinomial = MultinomialNB().fit(X, y).predict_proba(queries)
    np.testing.assert_allclose(multinomial.max(axis=1), 0.5, atol=0.1)


@pytest.mark.parametrize("model", [MultinomialNB(), PoissonNB(), BernoulliNB(binarize=4)])
def test_sparse_input_equals_dense_input(model):
    """CSR and CSC input give the fitted parameters and probabilities of dense input."""
    X_train, X_test, y_train, _ = _digits_split()
    dense = model.fit(X_train, y_train).predict_log_proba(X_test)
    for layout in (sp.csr_matrix, sp.csc_matrix):
        fitted = type(model)(**model.get_params()).fit(layout(X_train), y_train)
        np.testing.assert_allclose(fitted.predict_log_proba(layout(X_test)), dense, atol=1e-10)
        np.testing.assert_allclose(
            fitted.score_samples(layout(X_test)), model.score_samples(X_test), rtol=1e-10
        )


@pytest.mark.parametrize(
    "model", [MultinomialNB(), PoissonNB(), BernoulliNB(binarize=4), CategoricalNB()]
)
@pytest.mark.parametrize("estimate", ["mle", "map", "mean"])
def test_weights_duplicates_and_chunks_give_the_same_model(model, estimate):
    """sample_weight == repeated rows, and partial_fit over chunks == fit."""
    X_train, X_test, y_train, _ = _digits_split()
    X_train, y_train = X_train[:300], y_train[:300]
    model = type(model)(**{**model.get_params(), "estimate": estimate})
    weights = np.random.default_rng(1).integers(0, 3, size=len(y_train))
    weighted = type(model)(**model.get_params()).fit(X_train, y_train, sample_weight=weights)
    repeated = type(model)(**model.get_params()).fit(
        np.repeat(X_train, weights, axis=0), np.repeat(y_train, weights)
    )
    chunked = type(model)(**model.get_params())
    for rows in np.array_split(np.arange(len(y_train)), 4):
        chunked.partial_fit(X_train[rows], y_train[rows], classes=np.arange(10))
    whole = type(model)(**model.get_params()).fit(X_train, y_train)
    with np.errstate(invalid="ignore"):
        for other, reference in ((weighted, repeated), (chunked, whole)):
            np.testing.assert_allclose(
                np.nan_to_num(other.predict_joint_log_proba(X_test), neginf=-1e300),
                np.nan_to_num(reference.predict_joint_log_proba(X_test), neginf=-1e300),
                rtol=1e-10,
            )


def test_mle_zero_probabilities_give_minus_infinity_never_nan():
    """estimate='mle' with unseen words: impossible classes get -inf; a row impossible under
    every class falls back to the class prior with a warning, never NaN."""
    X = np.array([[2, 0, 1], [3, 0, 0], [0, 4, 1], [0, 2, 2]])
    y = np.array([0, 0, 1, 1])
    model = MultinomialNB(estimate="mle").fit(X, y)
    joint = model.predict_joint_log_proba(np.array([[1, 0, 0], [1, 1, 0]]))
    assert np.isfinite(joint[0, 0]) and joint[0, 1] == -np.inf
    assert np.all(joint[1] == -np.inf)
    with pytest.warns(UserWarning, match="probability zero under every class"):
        probabilities = model.predict_proba(np.array([[1, 1, 0]]))
    np.testing.assert_allclose(probabilities, [model.class_prior_])
    with pytest.warns(UserWarning, match="probability zero under every class"):
        predicted = model.predict(np.array([[1, 1, 0]]))
    assert predicted[0] == model.classes_[np.argmax(model.class_prior_)]
    bernoulli = BernoulliNB(estimate="mle").fit((X > 0).astype(float), y)
    assert not np.any(np.isnan(bernoulli.predict_joint_log_proba((X > 0).astype(float))))


def test_count_models_decision_function_is_the_posterior_log_odds():
    """decision_function = log p(1 | x) - log p(0 | x), so it ranks rows as predict_proba
    does (the consistency check we skip on the shared checks' negative blobs)."""
    X_train, X_test, y_train, _ = _digits_split()
    binary = np.isin(y_train, [3, 8])
    for model in (MultinomialNB(), PoissonNB()):
        model.fit(X_train[binary], y_train[binary])
        log_proba = model.predict_log_proba(X_test)
        np.testing.assert_allclose(
            model.decision_function(X_test), log_proba[:, 1] - log_proba[:, 0], rtol=1e-9
        )


def test_categorical_handles_strings_and_unseen_categories():
    """String categories; an unseen value gets alpha / (N_k + alpha (C_j + 1)) per class."""
    X = np.array([["red", "s"], ["red", "m"], ["blue", "m"], ["green", "l"], ["blue", "l"]])
    y = np.array(["a", "a", "b", "b", "b"])
    model = CategoricalNB(alpha=1.0).fit(X, y)
    assert [list(c) for c in model.categories_] == [["blue", "green", "red"], ["l", "m", "s"]]
    query = np.array([["purple", "m"]])
    counts = np.array([2, 3])
    unseen = 1.0 / (counts + 1.0 * 4)
    size_m = (np.array([1, 1]) + 1.0) / (counts + 4)
    expected = np.log(counts / 5) + np.log(unseen) + np.log(size_m)
    np.testing.assert_allclose(model.predict_joint_log_proba(query)[0], expected, rtol=1e-12)
