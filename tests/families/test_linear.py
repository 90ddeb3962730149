"""finite_log against NumPy's log and closed-form derivatives."""

import jax
import jax.numpy as jnp
import numpy as np

from bayesgen.families.linear import finite_log


def test_finite_log_is_log_with_zeros_set_apart():
    """finite_log gives NumPy's log where p > 0, 0 where p == 0, and the zero indicator."""
    p = np.array([[0.0, 1e-300, 0.25, 1.0], [0.5, 0.0, 0.0, 3.0]])
    with jax.enable_x64(True):
        values, is_zero = finite_log(jnp.asarray(p))
        values, is_zero = np.asarray(values), np.asarray(is_zero)
    expected_zero = p == 0
    with np.errstate(divide="ignore"):
        expected = np.where(expected_zero, 0.0, np.log(p))
    assert values.shape == p.shape and is_zero.shape == p.shape
    assert is_zero.dtype == np.bool_
    np.testing.assert_array_equal(is_zero, expected_zero)
    np.testing.assert_allclose(values, expected, rtol=1e-15)
    assert np.all(np.isfinite(values))


def test_finite_log_gradient_is_finite():
    """The gradient is 1/p where p > 0 and 0 at the zeros (no NaN from the masked log)."""
    p = np.array([0.0, 0.2, 0.0, 4.0])
    with jax.enable_x64(True):
        grad = np.asarray(jax.grad(lambda q: jnp.sum(finite_log(q)[0]))(jnp.asarray(p)))
    np.testing.assert_allclose(grad, [0.0, 5.0, 0.0, 0.25], rtol=1e-15)
