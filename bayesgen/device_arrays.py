"""Input already on an accelerator: a JAX array is validated where it lives and kept there.

NumPy input is read in place by NumPy (``families/gaussian/blocked_stats.py``,
``scores.py``). A float ``jax.Array`` (e.g. on a GPU) would be copied to the host by that
path, so the Gaussian models send it through the JAX functions instead (``gaussian.suff_stats``,
``gaussian.log_likelihood``), on the array's own device; only the ``(K, d, d)`` statistics
and the ``(n, K)`` scores come back.
"""

from __future__ import annotations

import sys

import numpy as np

from bayesgen._lazy import lazy_module
from bayesgen._precision import precision

jax = lazy_module("jax")
jnp = lazy_module("jax.numpy")


def is_device_array(X) -> bool:
    """Whether ``X`` is a floating-point ``jax.Array`` (kept on its device)."""
    # Until JAX is imported no jax.Array exists: NumPy input never imports it.
    return (
        "jax" in sys.modules and isinstance(X, jax.Array) and jnp.issubdtype(X.dtype, jnp.floating)
    )


def check_device_features(estimator, X, *, reset: bool, allow_nan: bool, check_finite):
    """Validate a floating ``jax.Array`` as ``check_features`` validates NumPy input.

    Shape and feature count are checked from the metadata; finiteness by one sum on the
    device (the host sees the rows only to name the first bad entry in an error).
    ``check_finite`` is the NumPy check that writes that error.

    Returns
    -------
    jax.Array
        ``X`` itself.
    """
    if X.ndim != 2:
        raise ValueError(
            f"X must be 2-D, of shape (n_samples, n_features); got a {X.ndim}-D jax array of "
            f"shape {X.shape}."
        )
    if X.shape[0] == 0:
        raise ValueError(f"X has 0 samples (shape {X.shape}); at least one is required.")
    if reset:
        estimator.n_features_in_ = X.shape[1]
        if hasattr(estimator, "feature_names_in_"):
            del estimator.feature_names_in_
    elif X.shape[1] != estimator.n_features_in_:
        raise ValueError(
            f"X has {X.shape[1]} features, but {type(estimator).__name__} is expecting "
            f"{estimator.n_features_in_} features as input."
        )
    with precision(X.dtype):  # a float64 array computes in float64 even outside x64 mode
        if not bool(jnp.isfinite(jnp.sum(X))):
            suspect = jnp.isinf(X) if allow_nan else ~jnp.isfinite(X)
            if bool(jnp.any(suspect)):
                check_finite(np.asarray(X), estimator, allow_nan=allow_nan)  # names the entry
    return X
