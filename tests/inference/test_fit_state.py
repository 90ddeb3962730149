"""Fits carry their state in explicit arguments and documented fitted attributes only."""

import jax
import numpy as np
import pytest
from sklearn.datasets import load_iris

from bayesgen import LDA, QDA, GaussianDA, KernelDensityDA, MixtureDA
from bayesgen.model_files import earlier_layouts

# _fresh_fit is left out: MixedNB (and CategoricalNB) still keep it for themselves.
OLD_FLAGS = (
    "_semi_supervised",
    "_frozen_prior",
    "_moments",
    "_new_moments",
    "_fitted_with_missing",
    "_frozen_kernel",
)


def _iris(holes=False, unlabelled=False):
    X, y = load_iris(return_X_y=True)
    X, y = X.copy(), y.copy()
    if holes:
        X[::7, 1] = np.nan
        X[3::11, 2] = np.nan
    if unlabelled:
        y[1::3] = -1
    return X, y


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@pytest.mark.parametrize(
    ("model", "holes", "unlabelled"),
    [
        (QDA(), True, False),
        (QDA(), False, True),
        (LDA(shrinkage=0.2), True, True),
        (QDA(shrinkage="ledoit-wolf"), False, False),
        (MixtureDA(random_state=0, max_iter=20), False, True),
        (KernelDensityDA(max_iter=5), False, True),
    ],
)
def test_no_hidden_flags_after_a_fit(model, holes, unlabelled):
    X, y = _iris(holes, unlabelled)
    fitted = model.fit(X, y)
    assert not set(OLD_FLAGS) & set(vars(fitted))


def test_fitted_with_missing_follows_the_last_fit():
    X, y = _iris(holes=True)
    model = GaussianDA().fit(X, y)
    assert model.fitted_with_missing_
    kept = model.joint_
    model.joint_ = kept._replace(rows=None)  # issue 16: kept now; without them (older files)
    with pytest.raises(ValueError, match="missing values"):
        model.posterior(10)
    model.joint_ = kept
    complete = ~np.isnan(X).any(axis=1)
    model.fit(X[complete], y[complete])
    assert not model.fitted_with_missing_
    assert model.posterior(10) is not None


def test_ledoit_wolf_fourth_moments_are_a_fitted_attribute_that_partial_fit_merges():
    X, y = _iris()
    whole = QDA(shrinkage="ledoit-wolf").fit(X, y)
    chunked = QDA(shrinkage="ledoit-wolf")
    for rows in np.array_split(np.random.default_rng(0).permutation(len(y)), 3):
        chunked.partial_fit(X[rows], y[rows], classes=[0, 1, 2])
    for a, b in zip(
        jax.tree.leaves(whole.fourth_moments_),
        jax.tree.leaves(chunked.fourth_moments_),
        strict=True,
    ):
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(whole.shrinkage_, chunked.shrinkage_, rtol=1e-9)
    assert QDA().fit(X, y).fourth_moments_ is None


def test_upgrade_translates_the_old_flags():
    """The old private flags become fitted attributes; a fit with missing entries becomes
    the value's ``frozen`` (the ridge and prior its EM held), which ``fitted_with_missing_``
    and ``ridge_`` are read off."""
    X, y = _iris(holes=True)
    fitted = GaussianDA().fit(X, y)
    value, ridge = fitted.joint_, fitted.ridge_
    state = {
        "_fresh_fit": True,
        "_frozen_prior": None,
        "_new_moments": None,
        "_moments": None,
        "_fitted_with_missing": True,
        "ridge_": ridge,
        "classes_": fitted.classes_,
        "n_features_in_": 4,
        "joint_": value._replace(frozen=None),
    }
    upgraded = earlier_layouts.upgraded(GaussianDA(), state)
    assert set(upgraded) == {"fourth_moments_", "ridge_", "joint_", "classes_", "n_features_in_"}
    assert upgraded["fourth_moments_"] is None
    held_ridge, held_prior = upgraded["joint_"].frozen
    np.testing.assert_array_equal(held_ridge, ridge)
    assert held_prior is value.feature_prior
    model = GaussianDA()
    model.__dict__.update(upgraded)
    assert model.fitted_with_missing_
    np.testing.assert_array_equal(model.ridge_, ridge)
