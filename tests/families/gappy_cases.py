"""Random Gaussian classes and rows with missing entries, shared by the missing-block tests."""

import numpy as np


def covariances(rng, K, d):
    """``K`` random symmetric positive definite ``d x d`` matrices."""
    A = rng.normal(size=(K, d, d))
    return A @ np.swapaxes(A, 1, 2) + 0.5 * np.eye(d)


def gappy(rng, n, d, fraction=0.3, offset=0.0):
    """``n`` rows with about ``fraction`` of entries NaN; row 0 all missing, row 1 complete."""
    X = offset + rng.normal(size=(n, d)) * 2.0
    X[rng.uniform(size=(n, d)) < fraction] = np.nan
    X[0] = np.nan  # nothing observed
    X[1] = offset  # everything observed
    return X


def stored(full, covariance_type):
    """The covariances a ``GaussianFamily(covariance_type)`` stores, from ``K`` full ones
    (tied: the first; diagonal: their diagonals; spherical: their mean variances)."""
    d = full.shape[-1]
    return {
        "full": full,
        "tied": full[0],
        "diag": np.stack([np.diag(c) for c in full]),
        "spherical": np.array([np.trace(c) / d for c in full]),
    }[covariance_type]
