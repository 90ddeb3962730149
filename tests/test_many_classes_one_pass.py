"""The count families sum sparse class weights: labelled rows over any number of classes
are fitted in one pass, linear in the number of classes (issue 34, item 4).

Before, the rows went in chunks of a dense rows x classes array, each merged and estimated
again: a fit quadratic in the number of classes (MultinomialNB, 5,000 classes: 18.8 s).
"""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp

import bayesgen
from bayesgen.estimators.base import GenerativeClassifier
from bayesgen.families.bernoulli import BernoulliFamily
from bayesgen.families.categorical import CategoricalFamily
from bayesgen.families.multinomial import MultinomialFamily
from bayesgen.families.poisson import PoissonFamily
from bayesgen.joint import fitting

N_CLASSES = 30


def _counts(rng, n):
    X = sp.random(n, 12, density=0.3, format="csr", random_state=0, data_rvs=rng.random)
    X.data = np.ceil(X.data * 4)
    return X


CASES = {
    "MultinomialNB": (bayesgen.MultinomialNB, MultinomialFamily, _counts),
    "PoissonNB": (bayesgen.PoissonNB, PoissonFamily, lambda rng, n: _counts(rng, n).toarray()),
    "BernoulliNB": (
        lambda: bayesgen.BernoulliNB(binarize=1.5),
        BernoulliFamily,
        _counts,
    ),
    "CategoricalNB": (
        bayesgen.CategoricalNB,
        CategoricalFamily,
        lambda rng, n: rng.integers(0, 4, size=(n, 3)),
    ),
}


def test_sparse_class_weights_are_the_weighted_one_hot_rows():
    class_index = np.array([2, 0, 2, 1, 3])
    weights = np.array([1.0, 0.0, 2.5, 1.0, 0.5])
    sparse = fitting.sparse_responsibilities(class_index, weights, 4)
    assert sp.issparse(sparse) and sparse.shape == (5, 4)
    np.testing.assert_array_equal(
        sparse.toarray(), fitting.responsibilities(class_index, weights, 4)
    )


@pytest.mark.parametrize("case", list(CASES))
def test_one_sparse_pass_equals_dense_chunks(monkeypatch, case):
    """The same statistics and probabilities as the dense rows x classes weights added in
    chunks, with sample weights, and through partial_fit in two batches."""
    make, family, data = CASES[case]
    rng = np.random.default_rng(5)
    y = np.repeat(np.arange(N_CLASSES), 8)
    X = data(rng, y.shape[0])
    weights = rng.uniform(0.0, 2.0, size=y.shape[0])
    calls = []
    original = GenerativeClassifier._add_rows

    def spy(self, rows, responsibilities, *, reset):
        calls.append(sp.issparse(responsibilities))
        return original(self, rows, responsibilities, reset=reset)

    monkeypatch.setattr(GenerativeClassifier, "_add_rows", spy)
    monkeypatch.setattr(fitting, "RESPONSIBILITY_ENTRIES", 7 * N_CLASSES)  # dense: 7 rows
    one_pass = make().fit(X, y, sample_weight=weights)
    assert calls == [True]
    batches = make()
    batches.partial_fit(X[:120], y[:120], classes=np.arange(N_CLASSES), sample_weight=weights[:120])
    batches.partial_fit(X[120:], y[120:], sample_weight=weights[120:])
    monkeypatch.setattr(family, "sparse_class_weights", False)
    calls.clear()
    chunked = make().fit(X, y, sample_weight=weights)
    assert len(calls) > 1 and not any(calls)
    for model in (chunked, batches):
        np.testing.assert_allclose(model.class_count_, one_pass.class_count_, rtol=1e-12)
        np.testing.assert_allclose(
            model.predict_joint_log_proba(X), one_pass.predict_joint_log_proba(X), rtol=1e-12
        )


def test_fifty_thousand_classes_in_one_pass(monkeypatch):
    """50,000 classes of two rows each are added in one pass (dense chunks would take 149),
    the class counts and word counts are the rows' own (summed here by np.add.at), and the
    probabilities are a distribution over every class."""
    n_classes = 50_000
    rng = np.random.default_rng(6)
    y = np.repeat(np.arange(n_classes), 2)
    X = sp.random(y.shape[0], 20, density=0.2, format="csr", random_state=6, data_rvs=rng.random)
    X.data = np.ceil(X.data * 3)
    calls = []
    original = GenerativeClassifier._add_rows

    def spy(self, rows, responsibilities, *, reset):
        calls.append(rows.shape[0])
        return original(self, rows, responsibilities, reset=reset)

    monkeypatch.setattr(GenerativeClassifier, "_add_rows", spy)
    model = bayesgen.MultinomialNB().fit(X, y)
    assert calls == [y.shape[0]]
    expected = np.zeros((n_classes, 20))
    np.add.at(expected, y, X.toarray())
    np.testing.assert_array_equal(model.class_count_, np.full(n_classes, 2.0))
    np.testing.assert_array_equal(model.feature_count_, expected)
    probabilities = model.predict_proba(X[:3])
    assert probabilities.shape == (3, n_classes)
    np.testing.assert_allclose(probabilities.sum(axis=1), 1.0, rtol=1e-12)


def test_partial_fit_takes_a_list_of_many_classes_without_a_warning():
    """``classes`` lists each class once: scikit-learn's warning that most labels are
    distinct (raised on such a list of more than 20 classes) does not apply to it."""
    rng = np.random.default_rng(7)
    y = np.repeat(np.arange(N_CLASSES), 4)
    X = rng.poisson(2.0, size=(y.shape[0], 3))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model = bayesgen.MultinomialNB().partial_fit(X, y, classes=np.arange(N_CLASSES))
    np.testing.assert_array_equal(model.classes_, np.arange(N_CLASSES))


def test_a_subclass_with_statistics_of_its_own_gets_dense_weights():
    """A subclass that writes its own suff_stats may not read sparse weights: it gets the
    dense path unless it declares the capability (the histogram family does)."""
    from bayesgen.families.histogram import HistogramFamily

    class Counted(MultinomialFamily):
        def suff_stats(self, X, responsibilities, dtype):
            return super().suff_stats(X, np.asarray(responsibilities), dtype)

    assert not Counted.sparse_class_weights
    assert HistogramFamily.sparse_class_weights and MultinomialFamily.sparse_class_weights
