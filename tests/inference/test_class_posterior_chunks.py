"""Rows scored in chunks (`class_posterior.chunked`), and families that score in blocks of
their own (`FeatureFamily.scores_in_blocks`) given every row at once."""

import numpy as np

import bayesgen
from bayesgen.families.gaussian.regularised import RegularisedGaussian
from bayesgen.families.poisson import PoissonFamily
from bayesgen.inference import class_posterior
from bayesgen.joint import fitting


def _scorer(calls):
    weights = np.array([[1.0, -2.0], [0.5, 3.0], [-1.0, 0.25]])

    def score(rows):
        calls.append(rows.shape[0])
        return rows @ weights.T  # row-major (rows, classes)

    return score, weights


def test_chunks_fill_one_class_by_class_array(monkeypatch):
    X = np.random.default_rng(0).normal(size=(101, 2))
    calls = []
    score, weights = _scorer(calls)
    monkeypatch.setattr(fitting, "RESPONSIBILITY_ENTRIES", 3 * 2 * 10)  # 10 rows a chunk
    result = class_posterior.chunked(score, X, 3)
    assert calls == [10] * 10 + [1]
    by_chunk = [X[start : start + 10] @ weights.T for start in range(0, 101, 10)]
    np.testing.assert_array_equal(result, np.concatenate(by_chunk))
    assert result.T.flags.c_contiguous  # each class's scores contiguous


def test_a_family_scoring_in_blocks_is_given_every_row_at_once(monkeypatch):
    calls = []
    score, weights = _scorer(calls)
    X = np.random.default_rng(1).normal(size=(101, 2))
    monkeypatch.setattr(fitting, "RESPONSIBILITY_ENTRIES", 3 * 2 * 10)
    np.testing.assert_array_equal(class_posterior.chunked(score, X, 3, whole=True), X @ weights.T)
    assert calls == [101]


def test_the_gaussian_scores_in_blocks_and_poisson_in_chunks(monkeypatch):
    """GaussianDA's predict_proba calls its family's log-likelihood once whatever the
    chunk budget, and gives the probabilities of a generous budget."""
    assert RegularisedGaussian.scores_in_blocks and not PoissonFamily.scores_in_blocks
    rng = np.random.default_rng(2)
    y = np.repeat(np.arange(12), 6)
    X = rng.normal(size=(y.shape[0], 4)) + y[:, None]
    model = bayesgen.QDA(reg_covar=1e-3).fit(X, y)
    expected = model.predict_proba(X)
    sizes = []
    original = RegularisedGaussian.log_likelihood

    def spy(self, params, rows, **options):
        sizes.append(rows.shape[0])
        return original(self, params, rows, **options)

    monkeypatch.setattr(RegularisedGaussian, "log_likelihood", spy)
    monkeypatch.setattr(fitting, "RESPONSIBILITY_ENTRIES", 12 * 4 * 5)  # 5 rows a chunk
    np.testing.assert_allclose(model.predict_proba(X), expected, rtol=1e-12, atol=1e-15)
    assert sizes == [X.shape[0]]
