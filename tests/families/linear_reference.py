"""An independent NumPy evaluation of a LinearLogLikelihood, shared by the family tests."""

import numpy as np


def evaluate(form, X, row_term=None):
    """x.W_k + b_k (+ a per-row term), and -inf where x.Z_k + z_k > 0."""
    W, b, Zw, z = (np.asarray(a) for a in form[:4])
    finite = X @ W.T + b
    if row_term is not None:
        finite = finite + row_term[:, None]
    return np.where(X @ Zw.T + z > 0, -np.inf, finite)


def assert_matches_with_impossible_classes(form, got, expected):
    """-inf exactly where the reference has it, equal elsewhere, never NaN; and the case
    really holds both kinds of entries."""
    assert not np.any(np.isnan(np.asarray(form.weights)))
    assert not np.any(np.isnan(got))
    np.testing.assert_array_equal(np.isneginf(got), np.isneginf(expected))
    assert np.any(np.isfinite(expected)) and np.any(np.isneginf(expected))
    finite = np.isfinite(expected)
    np.testing.assert_allclose(got[finite], expected[finite], rtol=1e-12, atol=1e-13)
