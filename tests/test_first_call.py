"""The plain path compiles nothing, and what stays jitted compiles once per row bucket (issue 17).

XLA compilations are counted with JAX's monitoring listener. Times and memory are measured
by ``python -m benchmarks`` (the "first answer" section), never asserted here.
"""

import warnings

import jax.monitoring
import numpy as np
import pytest
from sklearn.datasets import load_wine

import bayesgen
from bayesgen.families.gaussian.regularised import RegularisedGaussian
from bayesgen.inference import row_buckets, unlabelled_em

_COMPILE_EVENT = "/jax/core/compile/backend_compile_duration"
_compilations = [0]


def _count(event, seconds, **kwargs):
    if event == _COMPILE_EVENT:
        _compilations[0] += 1


jax.monitoring.register_event_duration_secs_listener(_count)


class _Compilations:
    """Counts the XLA compilations inside a ``with`` block."""

    def __enter__(self):
        self._start = _compilations[0]
        return self

    def __exit__(self, *exc):
        self.count = _compilations[0] - self._start


def _data(name, X):
    """``X`` in the form the estimator reads: 0/1, counts or category codes."""
    if name == "BernoulliNB":
        return (X > np.median(X, axis=0)).astype(float)
    if name in ("MultinomialNB", "PoissonNB"):
        return np.floor(X)
    if name == "CategoricalNB":
        return np.floor(X / X.max(axis=0) * 4)
    return X


PLAIN = {
    "LDA": {},
    "QDA": {},
    "GaussianNB": {},
    "GaussianDA-full": {"covariance_type": "full"},
    "GaussianDA-tied": {"covariance_type": "tied"},
    "GaussianDA-diag": {"covariance_type": "diag"},
    "GaussianDA-spherical": {"covariance_type": "spherical"},
    "GaussianDA-map": {"estimate": "map"},
    "BernoulliNB": {},
    "MultinomialNB": {},
    "PoissonNB": {},
    "CategoricalNB": {},
    "ExponentialNB": {},
    "MixedNB": {},
}


@pytest.mark.parametrize("case", PLAIN)
def test_plain_path_compiles_nothing(case):
    """Fit, partial_fit and every prediction on wine run without one XLA compilation."""
    name = case.split("-")[0]
    estimator = getattr(bayesgen, name)
    X, y = load_wine(return_X_y=True)
    X = _data(name, X)
    # A warm-up on other shapes (rows, features, classes): imports, nothing reusable.
    rng = np.random.default_rng(0)
    warm_X = _data(name, np.abs(rng.normal(size=(40, 4))) * 10)
    warm_y = np.repeat([0, 1], 20)
    estimator(**PLAIN[case]).fit(warm_X, warm_y).predict_proba(warm_X)
    with _Compilations() as compiled:
        model = estimator(**PLAIN[case]).fit(X, y)
        model.predict(X)
        model.predict_proba(X)
        model.predict_log_proba(X)
        model.score_samples(X)
        chunked = estimator(**PLAIN[case])
        shuffled = np.random.default_rng(0).permutation(len(y))  # every class in every chunk
        for rows in np.array_split(shuffled, 2):
            chunked.partial_fit(X[rows], y[rows], classes=np.unique(y))
        chunked.predict_proba(X[:17])
    assert compiled.count == 0


def test_missing_values_em_compiles_nothing():
    """EM over missing entries (a Gaussian fit on rows with NaN) runs in NumPy too."""
    X, y = load_wine(return_X_y=True)
    X = X.copy()
    X[np.random.default_rng(0).random(X.shape) < 0.05] = np.nan
    bayesgen.QDA().fit(X[::3, :6], y[::3])  # warm-up, other shapes
    with _Compilations() as compiled, warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a capped EM may not converge
        bayesgen.QDA(max_iter=5).fit(X, y).predict_proba(X)
    assert compiled.count == 0


def test_200_row_counts_compile_nothing():
    """fit + predict_proba of QDA on 2000…2199 rows: no compilation at all (the bound is 0)."""
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(2199, 4)), rng.integers(0, 3, 2199)
    X[y == 1] += 1.0
    with _Compilations() as compiled:
        for n in range(2000, 2200):
            bayesgen.QDA().fit(X[:n], y[:n]).predict_proba(X[:n])
    assert compiled.count == 0


def test_numpy_em_compiles_nothing():
    """The Gaussian's EM over unlabelled NumPy rows runs in NumPy: no compilation."""
    rng = np.random.default_rng(1)
    X, y = rng.normal(size=(300, 3)), rng.integers(0, 2, 300)
    X[y == 1] += 2.0
    partly = np.where(rng.random(300) < 0.5, -1, y)
    bayesgen.GaussianDA().fit(X[:100, :2], partly[:100])  # warm-up, other shapes
    with _Compilations() as compiled:
        model = bayesgen.GaussianDA(tol=1e-8).fit(X, partly)
    assert model.n_iter_ > 1 and compiled.count == 0


def test_jitted_em_compiles_once_per_row_bucket(monkeypatch):
    """The jitted semi-supervised EM (a ``jax.Array``'s; here NumPy rows sent through it)
    pads rows to a bucket: new row counts in a bucket already seen compile nothing."""
    monkeypatch.setattr(unlabelled_em, "numpy_rows", lambda X: False)
    rng = np.random.default_rng(1)
    X, y = rng.normal(size=(360, 3)), rng.integers(0, 2, 360)
    X[y == 1] += 2.0
    partly = np.where(rng.random(360) < 0.5, -1, y)
    sizes = range(290, 360, 7)
    buckets = {row_buckets.bucket(n) for n in sizes}
    assert len(buckets) < len(sizes)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # EM capped at 3 iterations does not converge
        bayesgen.GaussianDA(max_iter=3).fit(X[:100], partly[:100])  # warm-up, another bucket
    with _Compilations() as compiled, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for n in sizes:
            bayesgen.GaussianDA(max_iter=3).fit(X[:n], partly[:n])
    assert 1 <= compiled.count <= len(buckets)


def test_padded_em_equals_the_generic_loop(monkeypatch):
    """Padding rows that weigh nothing changes nothing: the jitted EM (padded) and the
    generic EM loop reach the same fit."""
    rng = np.random.default_rng(2)
    X, y = rng.normal(size=(150, 3)), rng.integers(0, 2, 150)
    X[y == 1] += 2.0
    partly = np.where(rng.random(150) < 0.5, -1, y)
    assert row_buckets.bucket(150) > 150
    with monkeypatch.context() as jitted_loop:
        jitted_loop.setattr(unlabelled_em, "numpy_rows", lambda X: False)
        jitted = bayesgen.GaussianDA(tol=1e-10).fit(X, partly)
    # The family declares the generic loop: generic EM.
    monkeypatch.setattr(RegularisedGaussian, "unlabelled_loop", "em")
    generic = bayesgen.GaussianDA(tol=1e-10).fit(X, partly)
    np.testing.assert_allclose(jitted.means_, generic.means_, rtol=1e-6)
    np.testing.assert_allclose(jitted.covariances_, generic.covariances_, rtol=1e-6)
    np.testing.assert_allclose(jitted.predict_proba(X), generic.predict_proba(X), atol=1e-8)


@pytest.mark.parametrize("n_rows", [1, 63, 64, 65, 100, 1000, 2000, 2049, 2199, 10**6 + 3])
def test_buckets_hold_the_rows_with_little_padding(n_rows):
    size = row_buckets.bucket(n_rows)
    assert n_rows <= size <= max(row_buckets.MIN_ROWS, n_rows * 1.125)
    padded = row_buckets.pad_rows(np.ones((n_rows, 2)), size, fill=np.array([3.0, 4.0]))
    assert padded.shape == (size, 2)
    np.testing.assert_array_equal(padded[n_rows:], np.broadcast_to([3.0, 4.0], (size - n_rows, 2)))


def test_buckets_per_doubling():
    """Row counts from m to 2m share at most BUCKETS_PER_DOUBLING + 1 buckets."""
    for m in (100, 1000, 2000, 5000):
        assert len({row_buckets.bucket(n) for n in range(m, 2 * m + 1)}) <= 9
    assert len({row_buckets.bucket(n) for n in range(2000, 2200)}) == 2
