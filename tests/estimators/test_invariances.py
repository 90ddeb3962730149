"""Invariances every fit must have: weights, chunks, row and class order, affine maps."""

import numpy as np
import pytest
from sklearn.datasets import load_iris, load_wine

from bayesgen import LDA, QDA, GaussianDA

COVARIANCE_TYPES = ["full", "tied", "diag", "spherical"]
ESTIMATES = ["mle", "map", "mean"]


def _fitted_arrays(model):
    return [model.class_prior_, model.means_, model.covariances_]


def _assert_same_model(a, b, rtol=1e-10):
    for left, right in zip(_fitted_arrays(a), _fitted_arrays(b), strict=True):
        np.testing.assert_allclose(left, right, rtol=rtol, atol=1e-12)


@pytest.mark.parametrize("covariance_type", COVARIANCE_TYPES)
@pytest.mark.parametrize("estimate", ESTIMATES)
def test_integer_weights_equal_duplicated_rows(covariance_type, estimate):
    """sample_weight = w gives the model fitted on the rows repeated w times."""
    X, y = load_iris(return_X_y=True)
    weights = np.random.default_rng(0).integers(0, 4, size=len(y))
    weighted = GaussianDA(covariance_type=covariance_type, estimate=estimate)
    weighted.fit(X, y, sample_weight=weights)
    repeated = GaussianDA(covariance_type=covariance_type, estimate=estimate)
    repeated.fit(np.repeat(X, weights, axis=0), np.repeat(y, weights))
    _assert_same_model(weighted, repeated)
    np.testing.assert_allclose(weighted.predict_proba(X), repeated.predict_proba(X), atol=1e-10)


@pytest.mark.parametrize("covariance_type", COVARIANCE_TYPES)
@pytest.mark.parametrize("estimate", ESTIMATES)
def test_fit_equals_partial_fit_over_chunks(covariance_type, estimate):
    """Statistics merge exactly: partial_fit over uneven chunks (one lacking a class) == fit."""
    X, y = load_wine(return_X_y=True)
    order = np.argsort(y, kind="stable")  # the first chunk holds class 0 only
    X, y = X[order], y[order]
    full = GaussianDA(covariance_type=covariance_type, estimate=estimate).fit(X, y)
    chunked = GaussianDA(covariance_type=covariance_type, estimate=estimate)
    for rows in np.array_split(np.arange(len(y)), [30, 31, 100]):
        chunked.partial_fit(X[rows], y[rows], classes=[0, 1, 2])
    _assert_same_model(full, chunked, rtol=1e-9)
    np.testing.assert_allclose(chunked.predict_log_proba(X), full.predict_log_proba(X), atol=1e-7)


@pytest.mark.parametrize("covariance_type", COVARIANCE_TYPES)
def test_row_order_and_label_names_change_nothing(covariance_type):
    """Permuting rows, or renaming classes to strings in another order, gives the same model."""
    X, y = load_iris(return_X_y=True)
    base = GaussianDA(covariance_type=covariance_type, estimate="map").fit(X, y)
    permutation = np.random.default_rng(1).permutation(len(y))
    shuffled = GaussianDA(covariance_type=covariance_type, estimate="map")
    shuffled.fit(X[permutation], y[permutation])
    _assert_same_model(base, shuffled)
    names = np.array(["zeta", "alpha", "mu"])  # sorted order: alpha, mu, zeta = 1, 2, 0
    renamed = GaussianDA(covariance_type=covariance_type, estimate="map").fit(X, names[y])
    np.testing.assert_array_equal(renamed.classes_, ["alpha", "mu", "zeta"])
    np.testing.assert_array_equal(renamed.predict(X), names[base.predict(X)])
    np.testing.assert_allclose(renamed.predict_proba(X), base.predict_proba(X)[:, [1, 2, 0]])


@pytest.mark.parametrize("model", [LDA(reg_covar=0), QDA(reg_covar=0)])
def test_predictions_are_invariant_under_an_invertible_affine_map(model):
    """004 seed, Appendix A: LDA and QDA predictions do not change under x -> A x + b."""
    X, y = load_wine(return_X_y=True)
    rng = np.random.default_rng(2)
    A = rng.normal(size=(X.shape[1], X.shape[1])) + 3 * np.eye(X.shape[1])
    b = rng.normal(size=X.shape[1]) * 100
    mapped = X @ A.T + b
    original = model.fit(X, y).predict_proba(X)
    transformed = model.fit(mapped, y).predict_proba(mapped)
    np.testing.assert_allclose(transformed, original, atol=1e-6)
