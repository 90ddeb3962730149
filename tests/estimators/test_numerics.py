"""Precision, singular covariances and the density outputs, checked against closed forms."""

import jax
import numpy as np
import pytest
from scipy import stats
from scipy.special import logsumexp
from sklearn.datasets import load_iris, load_wine

from bayesgen import QDA, GaussianDA, GaussianNB

COVARIANCE_TYPES = ["full", "tied", "diag", "spherical"]


def _full_covariances(model):
    K, d = model.means_.shape
    c = model.covariances_
    if model.covariance_type == "full":
        return c
    if model.covariance_type == "tied":
        return np.broadcast_to(c, (K, d, d))
    if model.covariance_type == "diag":
        return np.array([np.diag(v) for v in c])
    return np.array([v * np.eye(d) for v in c])


@pytest.mark.parametrize("covariance_type", COVARIANCE_TYPES)
def test_joint_log_proba_and_score_samples_equal_scipy(covariance_type):
    """log p(x, k) = log pi_k + log N(x | mu_k, Sigma_k) and log p(x) = logsumexp, via SciPy."""
    X, y = load_iris(return_X_y=True)
    model = GaussianDA(covariance_type=covariance_type, estimate="mean").fit(X, y)
    expected = np.column_stack(
        [
            np.log(p) + stats.multivariate_normal.logpdf(X, m, c)
            for p, m, c in zip(
                model.class_prior_, model.means_, _full_covariances(model), strict=True
            )
        ]
    )
    np.testing.assert_allclose(model.predict_joint_log_proba(X), expected, rtol=1e-10)
    np.testing.assert_allclose(model.score_samples(X), logsumexp(expected, axis=1), rtol=1e-10)
    posterior = np.exp(expected - logsumexp(expected, axis=1, keepdims=True))
    np.testing.assert_allclose(model.predict_proba(X), posterior, atol=1e-12)
    decision = model.decision_function(X)
    np.testing.assert_allclose(decision, expected, rtol=1e-10)


def test_float64_input_computes_in_float64_without_touching_global_config():
    """float64 in -> float64 out with jax_enable_x64 still off; float32 in -> float32."""
    X, y = load_wine(return_X_y=True)
    assert not jax.config.jax_enable_x64
    model = QDA().fit(X, y)
    assert model.means_.dtype == np.float64
    assert model.predict_proba(X).dtype == np.float64
    assert not jax.config.jax_enable_x64
    single = QDA().fit(X.astype(np.float32), y)
    assert single.means_.dtype == np.float32
    assert single.predict_proba(X.astype(np.float32)).dtype == np.float32
    np.testing.assert_allclose(single.means_, model.means_, rtol=1e-5)
    agreement = np.mean(single.predict(X.astype(np.float32)) == model.predict(X))
    assert agreement == 1.0


@pytest.mark.parametrize("covariance_type", COVARIANCE_TYPES)
def test_float32_on_offset_data_keeps_its_accuracy(covariance_type):
    """Data offset by 1e4 in float32: the centred statistics keep the float64 answer."""
    rng = np.random.default_rng(3)
    X = np.concatenate([rng.normal(0, 1, (300, 3)), rng.normal(1.5, 1, (300, 3))]) + 1e4
    y = np.repeat([0, 1], 300)
    single_X = X.astype(np.float32)
    # The reference sees the same rounded inputs, so only the arithmetic differs.
    exact = GaussianDA(covariance_type=covariance_type).fit(single_X.astype(np.float64), y)
    single = GaussianDA(covariance_type=covariance_type).fit(single_X, y)
    np.testing.assert_allclose(single.covariances_, exact.covariances_, rtol=1e-3, atol=1e-3)
    np.testing.assert_allclose(
        single.predict_proba(single_X), exact.predict_proba(single_X.astype(np.float64)), atol=1e-3
    )


@pytest.mark.parametrize("covariance_type", COVARIANCE_TYPES)
def test_singular_covariances_get_the_ridge_not_nan(covariance_type):
    """A constant feature and fewer rows than features: finite, normalised probabilities."""
    rng = np.random.default_rng(4)
    X = rng.normal(size=(12, 8))
    X[:, 3] = 5.0
    y = np.repeat([0, 1, 2], 4)
    model = GaussianDA(covariance_type=covariance_type).fit(X, y)
    probabilities = model.predict_proba(X)
    assert np.all(np.isfinite(probabilities))
    np.testing.assert_allclose(probabilities.sum(axis=1), 1.0)
    assert np.all(np.isfinite(model.score_samples(X)))
    if covariance_type == "full":
        # Each class's rows span its own flat subspace, which only its density covers.
        np.testing.assert_array_equal(model.predict(X), y)


def test_ridge_is_relative_to_each_feature_variance():
    """The added diagonal is reg_covar times each feature's variance over all rows."""
    X, y = load_wine(return_X_y=True)
    plain = GaussianNB(reg_covar=0).fit(X, y)
    ridged = GaussianNB(reg_covar=1e-3).fit(X, y)
    np.testing.assert_allclose(ridged.ridge_, 1e-3 * X.var(axis=0), rtol=1e-10)
    np.testing.assert_allclose(
        ridged.covariances_ - plain.covariances_,
        np.broadcast_to(1e-3 * X.var(axis=0), plain.covariances_.shape),
        rtol=1e-8,
    )
