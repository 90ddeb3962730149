"""The NumPy and JAX kernels behind ``gaussian.suff_stats`` and ``gaussian.log_likelihood``.

Each quantity has one owner function that picks its kernel from its input (NumPy blocks
for a NumPy array, the jitted JAX kernel for a ``jax.Array`` or traced values); the two
kernels must agree.
"""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from bayesgen._precision import precision
from bayesgen.families import gaussian

COVARIANCE_TYPES = ("full", "tied", "diag", "spherical")


def _responsibilities(rng, n, K, kind):
    if kind == "soft":
        return rng.dirichlet(np.ones(K), size=n) * rng.uniform(0.5, 2.0, size=(n, 1))
    labels = rng.integers(0, K, size=n)
    weights = rng.uniform(0.5, 2.0, size=n) if kind == "weighted" else np.ones(n)
    return np.eye(K)[labels] * weights[:, None]


def _tolerance(dtype):
    return (1e-12, 1e-12) if dtype == np.float64 else (2e-4, 2e-4)


@pytest.mark.parametrize("covariance_type", COVARIANCE_TYPES)
@pytest.mark.parametrize("kind", ["onehot", "weighted", "soft"])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("offset", [0.0, 1e3])
def test_suff_stats_kernels_agree(covariance_type, kind, dtype, offset):
    """NumPy input (NumPy blocks) and jax.Array input (JAX kernel) give the same statistics."""
    rng = np.random.default_rng(0)
    n, d, K = 300, 4, 3
    X = (rng.normal(size=(n, d)) @ rng.normal(size=(d, d)) + offset).astype(dtype)
    R = _responsibilities(rng, n, K, kind).astype(dtype)
    with precision(dtype):
        numpy_stats = gaussian.suff_stats(X, R, covariance_type)
        jax_stats = gaussian.suff_stats(jnp.asarray(X), jnp.asarray(R), covariance_type)
        traced = jax.jit(lambda X, R: gaussian.suff_stats(X, R, covariance_type))(X, R)
    assert all(isinstance(leaf, np.ndarray) for leaf in numpy_stats)
    assert all(isinstance(leaf, jax.Array) for leaf in jax_stats)
    for ours, theirs, other in zip(numpy_stats, jax_stats, traced, strict=True):
        assert ours.dtype == dtype and theirs.dtype == dtype
        scale = max(1.0, float(np.max(np.abs(ours))))
        tolerance = _tolerance(dtype)
        np.testing.assert_allclose(
            ours, theirs, rtol=tolerance["rtol"], atol=tolerance["atol"] * scale
        )
        np.testing.assert_array_equal(np.asarray(theirs), np.asarray(other))


def _params(rng, covariance_type, K, d, offset):
    means = offset + rng.normal(size=(K, d)) * 3.0
    if covariance_type == "full":
        A = rng.normal(size=(K, d, d))
        covariances = A @ np.swapaxes(A, 1, 2) + d * np.eye(d)
    elif covariance_type == "tied":
        A = rng.normal(size=(d, d))
        covariances = A @ A.T + d * np.eye(d)
    elif covariance_type == "diag":
        covariances = rng.uniform(0.5, 3.0, size=(K, d))
    else:
        covariances = rng.uniform(0.5, 3.0, size=K)
    return gaussian.GaussianParams(means, covariances)


@pytest.mark.parametrize("covariance_type", COVARIANCE_TYPES)
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("offset", [0.0, 1e3])
def test_log_likelihood_kernels_agree(covariance_type, dtype, offset):
    """NumPy blocks and the JAX kernel give the same log-densities; without the row terms the
    NumPy kernel differs by a per-row constant only (the same p(y | x))."""
    rng = np.random.default_rng(1)
    n, d, K = 200, 4, 3
    params = _params(rng, covariance_type, K, d, offset)
    X = offset + rng.normal(size=(n, d)) * 3.0
    params = gaussian.GaussianParams(*(np.asarray(a, dtype) for a in params))
    X = X.astype(dtype)
    with precision(dtype):
        ours = gaussian.log_likelihood(params, X, covariance_type)
        lean = gaussian.log_likelihood(params, X, covariance_type, row_terms=False)
        theirs = gaussian.log_likelihood(params, jnp.asarray(X), covariance_type)
        traced = jax.jit(lambda p, X: gaussian.log_likelihood(p, X, covariance_type))(params, X)
    assert isinstance(ours, np.ndarray) and isinstance(theirs, jax.Array)
    assert ours.dtype == dtype and theirs.dtype == dtype
    atol = 1e-9 if dtype == np.float64 else 2e-3
    scale = max(1.0, float(np.max(np.abs(ours))))
    np.testing.assert_allclose(ours, np.asarray(theirs), rtol=0, atol=atol * scale)
    np.testing.assert_array_equal(np.asarray(theirs), np.asarray(traced))
    shift = ours - lean
    np.testing.assert_allclose(shift, shift[:, :1] * np.ones(K), rtol=0, atol=atol * scale)
