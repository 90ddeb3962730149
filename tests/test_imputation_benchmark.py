"""The masks of the imputation benchmark (benchmarks/imputation.py) are what its page says."""

import numpy as np

from benchmarks.imputation import SHARE, hide


def test_mcar_hides_a_fifth_of_the_cells_at_random():
    X = np.random.default_rng(0).normal(size=(20000, 6))
    hidden = hide(X, "MCAR", np.random.default_rng(1))
    assert abs(hidden.mean() - SHARE) < 0.005
    assert not hidden.all(axis=1).any()


def test_mar_depends_on_the_always_observed_first_feature():
    X = np.random.default_rng(0).normal(size=(20000, 6))
    hidden = hide(X, "MAR", np.random.default_rng(1))
    assert not hidden[:, 0].any()
    high = X[:, 0] > np.median(X[:, 0])
    assert abs(hidden[high, 1:].mean() - 1.5 * SHARE) < 0.01
    assert abs(hidden[~high, 1:].mean() - 0.5 * SHARE) < 0.01
