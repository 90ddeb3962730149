"""NaN means missing: naive-Bayes factors of missing features are integrated out exactly."""

import warnings

import jax
import numpy as np
import pytest
import scipy.sparse as sp
from numpyro.infer.util import log_density
from scipy import stats
from sklearn.base import clone
from sklearn.datasets import load_digits

from bayesgen import BernoulliNB, CategoricalNB, MultinomialNB, PoissonNB

X_DIGITS, Y_DIGITS = load_digits(return_X_y=True)
X_TRAIN, Y_TRAIN, X_TEST = X_DIGITS[:1200], Y_DIGITS[:1200], X_DIGITS[1200:1300]
MISSING = [5, 20, 21, 40, 63]
KEPT = [j for j in range(64) if j not in MISSING]

MODELS = [
    BernoulliNB(binarize=5),
    BernoulliNB(binarize=5, estimate="mle"),
    PoissonNB(),
    PoissonNB(estimate="mle"),
    MultinomialNB(),
    MultinomialNB(estimate="mle"),
    CategoricalNB(),
    CategoricalNB(estimate="mle"),
]


def _with_missing(X, columns):
    X = X.astype(float).copy()
    X[:, columns] = np.nan
    return X


@pytest.mark.parametrize("model", MODELS)
def test_missing_features_equal_a_model_fitted_without_them(model):
    """p(y | x) with columns NaN == the model fitted on the other columns alone (to 1e-6)."""
    full = clone(model).fit(X_TRAIN, Y_TRAIN)
    reduced = clone(model).fit(X_TRAIN[:, KEPT], Y_TRAIN)
    with warnings.catch_warnings():  # MLE: rows impossible under every class warn in both
        warnings.simplefilter("ignore", UserWarning)
        marginal = full.predict_log_proba(_with_missing(X_TEST, MISSING))
        expected = reduced.predict_log_proba(X_TEST[:, KEPT])
    finite = np.isfinite(expected)
    np.testing.assert_array_equal(np.isfinite(marginal), finite)
    np.testing.assert_allclose(marginal[finite], expected[finite], atol=1e-6)


@pytest.mark.parametrize("model", [BernoulliNB(binarize=5), PoissonNB(), CategoricalNB()])
def test_fitting_skips_missing_entries_exactly(model):
    """With NaN in training, each feature's parameters come from its observed entries only:
    the fitted model equals, feature by feature, a one-column model fitted on those rows."""
    rng = np.random.default_rng(0)
    X = X_TRAIN.astype(float).copy()
    X[rng.random(X.shape) < 0.2] = np.nan
    fitted = clone(model).fit(X, Y_TRAIN)
    query = X_TEST[:, [10]].astype(float)
    column_model = clone(model).fit(X[~np.isnan(X[:, 10])][:, [10]], Y_TRAIN[~np.isnan(X[:, 10])])
    only_10 = np.full((len(query), 64), np.nan)
    only_10[:, 10] = query[:, 0]
    # Same class prior in both comparisons: look at the likelihood part only.
    ours = fitted.predict_joint_log_proba(only_10) - np.log(fitted.class_prior_)
    reference = column_model.predict_joint_log_proba(query) - np.log(column_model.class_prior_)
    np.testing.assert_allclose(ours, reference, rtol=1e-10)


@pytest.mark.parametrize("model", MODELS[::2])
def test_a_row_with_everything_missing_gets_the_class_prior(model):
    """No observed feature: p(y | x) = pi and log p(x) = 0."""
    fitted = clone(model).fit(X_TRAIN, Y_TRAIN)
    empty = np.full((2, 64), np.nan)
    np.testing.assert_allclose(fitted.predict_proba(empty), [fitted.class_prior_] * 2)
    np.testing.assert_allclose(fitted.score_samples(empty), 0.0, atol=1e-12)


@pytest.mark.parametrize("model", [BernoulliNB(binarize=5), PoissonNB(), MultinomialNB()])
def test_sparse_input_with_nan_equals_dense(model):
    """Stored NaN in a CSR matrix is missing too, with the dense answer."""
    fitted = clone(model).fit(X_TRAIN, Y_TRAIN)
    query = _with_missing(X_TEST, MISSING)
    np.testing.assert_allclose(
        fitted.predict_log_proba(sp.csr_matrix(query)), fitted.predict_log_proba(query), atol=1e-10
    )


def test_multinomial_refuses_to_fit_with_missing_counts():
    """Fitting the multinomial with NaN has no closed form: a clear error, not a guess."""
    with pytest.raises(ValueError, match="MultinomialNB cannot be fitted with missing counts"):
        MultinomialNB().fit(_with_missing(X_TRAIN, [3]), Y_TRAIN)


def test_story_masks_missing_entries():
    """The Poisson story's density with NaN entries drops exactly their factors."""
    model = PoissonNB().fit(X_TRAIN, Y_TRAIN)
    rows, labels = X_TEST[:20].astype(float), Y_DIGITS[1200:1220]
    params = {"class_prior": model.class_prior_, "rates": model.rates_}
    with jax.enable_x64(True):
        with_nan, _ = log_density(model.story, (_with_missing(rows, MISSING), labels), {}, params)
        reduced = PoissonNB().fit(X_TRAIN[:, KEPT], Y_TRAIN)
        expected, _ = log_density(
            reduced.story,
            (rows[:, KEPT], labels),
            {},
            {"class_prior": model.class_prior_, "rates": model.rates_[:, KEPT]},
        )
    # The reduced story has the same prior on the kept rates; the dropped rates' prior remains.
    dropped_prior = stats.gamma.logpdf(model.rates_[:, MISSING], 1.0, scale=1.0).sum()
    np.testing.assert_allclose(float(with_nan), float(expected) + dropped_prior, rtol=1e-10)
