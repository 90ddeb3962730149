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


def _count_rows(monkeypatch, owner, name: str, *, row_argument: int) -> list:
    """Replace ``owner.name`` by itself, recording the number of rows of its positional
    argument ``row_argument`` at each call; returns the record."""
    sizes = []
    original = getattr(owner, name)

    def spy(*args, **options):
        sizes.append(args[row_argument].shape[0])
        return original(*args, **options)

    monkeypatch.setattr(owner, name, spy)
    return sizes


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
    """GaussianDA's predict_log_proba calls its family's log-likelihood once whatever the
    chunk budget, and gives the log-probabilities of a generous budget (predict_proba
    scores through the family's blocks instead: test_probabilities_in_blocks.py)."""
    assert RegularisedGaussian("full").scores_in_blocks and not PoissonFamily.scores_in_blocks
    rng = np.random.default_rng(2)
    y = np.repeat(np.arange(12), 6)
    X = rng.normal(size=(y.shape[0], 4)) + y[:, None]
    model = bayesgen.QDA(reg_covar=1e-3).fit(X, y)
    expected = model.predict_log_proba(X)
    sizes = _count_rows(monkeypatch, RegularisedGaussian, "log_likelihood", row_argument=2)
    monkeypatch.setattr(fitting, "RESPONSIBILITY_ENTRIES", 12 * 4 * 5)  # 5 rows a chunk
    np.testing.assert_allclose(model.predict_log_proba(X), expected, rtol=1e-12, atol=1e-15)
    assert sizes == [X.shape[0]]


def test_families_that_copy_every_row_are_given_chunks():
    """e1071's floor and the copula's scores copy all the rows they are given, so they are
    not given every row at once."""
    from bayesgen.families.gaussian_copula import GaussianCopulaFamily

    assert not RegularisedGaussian("diag", variance_floor=(0.001, 0.0)).scores_in_blocks
    assert not GaussianCopulaFamily.scores_in_blocks


def test_gappy_rows_are_scored_a_chunk_at_a_time(monkeypatch):
    """Rows with missing entries given at once are whitened by their observed blocks a
    chunk of rows at a time (at most CHUNK_VALUES rows x classes x features), with the
    scores of one chunk."""
    from bayesgen.families.gaussian import missing

    rng = np.random.default_rng(3)
    y = np.repeat(np.arange(3), 40)
    X = rng.normal(size=(y.shape[0], 4)) + y[:, None]
    model = bayesgen.QDA().fit(X, y)
    gappy = X.copy()
    gappy[::2, 1] = np.nan
    expected = model.predict_joint_log_proba(gappy)
    columns = []
    original = missing.solve_triangular

    def spy(factor, rhs, **options):
        columns.append(rhs.shape[1])
        return original(factor, rhs, **options)

    monkeypatch.setattr(missing, "solve_triangular", spy)
    monkeypatch.setattr(missing, "CHUNK_VALUES", 3 * 4 * 10)  # 10 rows a chunk
    np.testing.assert_allclose(model.predict_joint_log_proba(gappy), expected, rtol=1e-12)
    assert columns == [10] * 18  # 60 gappy rows, 6 chunks, 3 classes
