"""``predict_proba`` scored and normalised a block of rows at a time
(`class_posterior.probabilities_in_blocks`, `FeatureFamily.score_blocks`): the same
probabilities, to the bit, as scoring every row first and normalising after."""

import warnings

import numpy as np
import pytest

import bayesgen
from bayesgen import _parallel
from bayesgen.families.bernoulli import BernoulliFamily
from bayesgen.families.gaussian.family import GaussianFamily
from bayesgen.families.gaussian.regularised import RegularisedGaussian
from bayesgen.families.gaussian_copula import GaussianCopulaFamily
from bayesgen.families.score_blocks import ScoreBlocks
from bayesgen.inference import class_posterior


def _whole(joint, params, log_prior, family, X):
    """`from_joint` over every row's scores at once: the path the blocks replace (under
    the estimator's errstate)."""
    with np.errstate(over="ignore", invalid="ignore"):
        scores = class_posterior.overflowed_as_zero(joint.copy(), params)
        full = class_posterior.with_log_prior(scores, log_prior)
    return class_posterior.from_joint(family, params, X, full, log_prior, log=False)


def _blocks_of(joint: np.ndarray, block_rows: int, in_threads: bool) -> ScoreBlocks:
    n_rows, n_classes = joint.shape
    return ScoreBlocks(
        lambda rows: joint[rows].T.copy(), block_rows, in_threads, n_rows, n_classes, joint.dtype
    )


@pytest.mark.parametrize("in_threads", [False, True])
def test_blocks_leave_every_unusual_row_to_the_whole_path(monkeypatch, in_threads):
    """Rows with NaN, +inf or every class -inf go to ``rescored`` (and only they), and
    the result equals `from_joint` over all the rows, impossible rows counted."""
    monkeypatch.setattr(_parallel, "thread_count", lambda: 3)
    rng = np.random.default_rng(0)
    joint = rng.normal(scale=300.0, size=(50, 3))
    joint[3] = -np.inf  # impossible
    joint[8, 1] = np.nan  # an overflow (inf - inf)
    joint[13, 2] = np.inf
    joint[21, 0] = -np.inf  # one class impossible: an ordinary row
    joint[34] = [np.nan, -np.inf, -np.inf]
    log_prior = np.array([np.log(0.5), np.log(0.5), -np.inf])  # a class of probability 0
    family, params, X = BernoulliFamily(), np.zeros((3, 1)), np.zeros((50, 1))
    handed = []

    def rescored(rows):
        handed.append(rows)
        return _whole(joint[rows], params, log_prior, family, X[rows])

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        posterior, n_impossible = class_posterior.probabilities_in_blocks(
            _blocks_of(joint, 7, in_threads), log_prior, rescored
        )
    expected, expected_impossible = _whole(joint, params, log_prior, family, X)
    np.testing.assert_array_equal(posterior, expected)
    assert n_impossible == expected_impossible == 2  # rows 3 and 34
    assert len(handed) == 1
    np.testing.assert_array_equal(handed[0], [3, 8, 13, 34])
    assert posterior.T.flags.c_contiguous


def test_no_unusual_row_means_no_rescoring():
    joint = np.random.default_rng(1).normal(size=(20, 2))

    def rescored(rows):
        raise AssertionError(f"rows {rows} rescored")

    posterior, n_impossible = class_posterior.probabilities_in_blocks(
        _blocks_of(joint, 6, False), np.log([0.3, 0.7]), rescored
    )
    shifted = joint + np.log([0.3, 0.7])
    expected = np.exp(shifted - shifted.max(axis=1, keepdims=True))
    np.testing.assert_allclose(posterior, expected / expected.sum(axis=1, keepdims=True))
    assert n_impossible == 0


def _gappy_far_rows(X, dtype):
    rng = np.random.default_rng(2)
    rows = X.astype(dtype)
    rows[rng.random(rows.shape[0]) < 0.1, 2] = np.nan
    far = 1e200 if dtype == np.float64 else 1e25  # a quadratic form that overflows
    rows[5] = far
    rows[7, 0] = -far
    rows[9, :3] = np.nan
    return rows


@pytest.mark.parametrize("covariance_type", ["full", "tied", "diag", "spherical"])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_gaussian_probabilities_equal_the_whole_path(monkeypatch, covariance_type, dtype):
    """GaussianDA's predict_proba in blocks (in threads, blocks of 64 rows) equals the
    probabilities of every row scored first, with gappy rows, rows whose quadratic form
    overflows and a class of prior 0; only the gappy and far rows are rescored."""
    monkeypatch.setattr(_parallel, "thread_count", lambda: 3)
    rng = np.random.default_rng(3)
    y = np.repeat(np.arange(3), 400)
    X = rng.normal(size=(y.shape[0], 6)) + y[:, None]
    model = bayesgen.GaussianDA(covariance_type=covariance_type, priors=[0.5, 0.5, 0.0])
    model.fit(X.astype(dtype), y)
    rows = _gappy_far_rows(X, dtype)
    calls = []
    original = GaussianFamily.score_blocks

    def small_blocks(self, params, X, *, row_terms=True):
        blocks = original(self, params, X, row_terms=row_terms)
        calls.append(blocks)
        return blocks._replace(block_rows=64, in_threads=True)

    monkeypatch.setattr(GaussianFamily, "score_blocks", small_blocks)
    rescored = []
    from_joint = class_posterior.from_joint

    def spy(family, params, X, *args, **options):
        rescored.append(X.shape[0])
        return from_joint(family, params, X, *args, **options)

    monkeypatch.setattr(class_posterior, "from_joint", spy)
    in_blocks = model.predict_proba(rows)
    monkeypatch.setattr(GaussianFamily, "score_blocks", lambda self, *a, **k: None)
    whole = model.predict_proba(rows)
    assert len(calls) == 1 and calls[0].n_rows == rows.shape[0]
    gappy = np.isnan(rows).any(axis=1).sum()
    assert len(rescored) == 2 and gappy <= rescored[0] <= gappy + 2  # and the far rows
    assert rescored[1] == rows.shape[0]
    assert in_blocks.dtype == whole.dtype == dtype
    np.testing.assert_array_equal(in_blocks, whole)
    assert np.all(in_blocks[:, 2] == 0.0)


def test_another_value_is_scored_in_blocks_too(monkeypatch):
    """Under another fitted value (as a posterior draw is scored, `_plugin_posterior` with
    a value) the blocks give that value's probabilities, as the whole path does."""
    rng = np.random.default_rng(4)
    y = np.repeat(np.arange(2), 60)
    X = rng.normal(size=(y.shape[0], 3)) + y[:, None]
    model = bayesgen.LDA().fit(X, y)
    other = bayesgen.LDA(priors=[0.2, 0.8]).fit(X[::-1] * 1.5, y)
    gappy = X.copy()
    gappy[::3, 1] = np.nan
    calls = []
    original = GaussianFamily.score_blocks

    def counted(self, *args, **options):
        calls.append(1)
        return original(self, *args, **options)

    monkeypatch.setattr(GaussianFamily, "score_blocks", counted)
    under = model._plugin_posterior(gappy, log=False, value=other.joint_)
    assert len(calls) == 1
    np.testing.assert_allclose(under, other.predict_proba(gappy), rtol=1e-13)
    monkeypatch.setattr(GaussianFamily, "score_blocks", lambda self, *a, **k: None)
    np.testing.assert_array_equal(
        model._plugin_posterior(gappy, log=False, value=other.joint_), under
    )


def test_families_whose_scores_need_every_row_do_not_score_in_blocks():
    """e1071's floor makes its densities over all the rows given and the copula's encoding
    copies every row it is given (they are scored a chunk at a time instead); count
    families have no blocks."""
    rng = np.random.default_rng(5)
    X = rng.normal(size=(30, 2))
    params = (np.zeros((2, 2)), np.ones((2, 2)))
    floored = RegularisedGaussian("diag", variance_floor=(0.001, 0.0))
    assert floored.score_blocks(params, X, row_terms=False) is None
    blocks = RegularisedGaussian("diag").score_blocks(params, X, row_terms=False)
    gaussian = GaussianFamily("diag").log_likelihood(params, X, row_terms=False)
    np.testing.assert_array_equal(blocks.score(slice(0, 30)).T, gaussian)
    copula = GaussianCopulaFamily(covariance_type="diag")
    assert copula.score_blocks(params, X, row_terms=False) is None
    assert BernoulliFamily().score_blocks(np.zeros((2, 2)), X) is None


def test_the_copula_is_still_given_its_rows_in_chunks(monkeypatch):
    """A class-stratified copula's predict_proba reaches its family's log-likelihood a chunk
    of rows at a time (at most RESPONSIBILITY_ENTRIES rows x classes x features)."""
    from bayesgen.joint import fitting

    rng = np.random.default_rng(6)
    y = np.repeat(np.arange(2), 100)
    X = rng.gamma(2.0, size=(200, 3)) * (1 + y[:, None])
    model = bayesgen.FamilyClassifier(
        family=GaussianCopulaFamily(covariance_type="full"), estimate="mean"
    ).fit(X, y)
    expected = model.predict_proba(X)
    sizes = []
    original = GaussianCopulaFamily.log_likelihood

    def spy(self, params, rows, **options):
        sizes.append(rows.shape[0])
        return original(self, params, rows, **options)

    monkeypatch.setattr(GaussianCopulaFamily, "log_likelihood", spy)
    monkeypatch.setattr(fitting, "RESPONSIBILITY_ENTRIES", 2 * 3 * 50)  # 50 rows a chunk
    np.testing.assert_allclose(model.predict_proba(X), expected, rtol=1e-12, atol=1e-15)
    assert sizes == [50] * 4
