"""A jax.Array stays on its device: validated there, fitted and scored by the JAX functions.

No GPU here, so the device is the CPU; what is checked is that the JAX path is the one taken
(the NumPy paths are made to fail), that the array reaching it is the caller's jax.Array,
and that the results equal those of NumPy input.
"""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from sklearn.datasets import load_wine

import bayesgen
from bayesgen._precision import precision
from bayesgen.families import gaussian as gaussian_family
from bayesgen.families.gaussian import family as family_module

COVARIANCE_TYPES = ["full", "tied", "diag", "spherical"]


@pytest.fixture(scope="module")
def wine():
    X, y = load_wine(return_X_y=True)
    return X, y


def on_device(X):
    """``X`` as a jax.Array of its own dtype (float64 needs x64 while it is made)."""
    with precision(X.dtype):
        return jnp.asarray(X)


@pytest.fixture
def numpy_paths_fail(monkeypatch):
    """Make the NumPy statistics and scores fail, and record what the JAX functions get."""

    def fail(*args, **kwargs):
        raise AssertionError("a NumPy path ran on device input")

    monkeypatch.setattr(gaussian_family.blocked_stats, "suff_stats", fail)
    monkeypatch.setattr(gaussian_family.scores, "log_likelihood", fail)
    seen = []
    for name in ("suff_stats", "log_likelihood"):
        original = getattr(family_module, name)

        def spy(params_or_X, X_or_R, *args, _original=original, _name=name, **kwargs):
            seen.append((_name, X_or_R if _name == "log_likelihood" else params_or_X))
            return _original(params_or_X, X_or_R, *args, **kwargs)

        monkeypatch.setattr(family_module, name, spy)
    return seen


@pytest.mark.parametrize("covariance_type", COVARIANCE_TYPES)
def test_device_input_is_fitted_and_scored_on_the_device(wine, covariance_type, numpy_paths_fail):
    X, y = wine
    X_device = on_device(X)
    model = bayesgen.GaussianDA(covariance_type=covariance_type).fit(X_device, y)
    probabilities = model.predict_proba(X_device)
    assert [name for name, _ in numpy_paths_fail] == ["suff_stats", "log_likelihood"]
    for _, argument in numpy_paths_fail:
        assert isinstance(argument, jax.Array)
        assert argument.devices() == X_device.devices()
    with pytest.raises(AssertionError, match="a NumPy path ran"):
        bayesgen.GaussianDA(covariance_type=covariance_type).fit(X, y)  # the patch bites
    assert isinstance(probabilities, np.ndarray)


@pytest.mark.parametrize("covariance_type", COVARIANCE_TYPES)
def test_device_input_gives_the_numpy_results(wine, covariance_type):
    X, y = wine
    X_device = on_device(X)
    reference = bayesgen.GaussianDA(covariance_type=covariance_type).fit(X, y)
    model = bayesgen.GaussianDA(covariance_type=covariance_type).fit(X_device, y)
    np.testing.assert_allclose(model.means_, reference.means_, rtol=1e-12)
    np.testing.assert_allclose(model.covariances_, reference.covariances_, rtol=1e-10)
    np.testing.assert_allclose(
        model.predict_proba(X_device), reference.predict_proba(X), rtol=1e-9, atol=1e-12
    )
    np.testing.assert_allclose(
        model.score_samples(X_device), reference.score_samples(X), rtol=1e-12
    )
    np.testing.assert_array_equal(model.predict(X_device), reference.predict(X))
    # Missing entries in device input are integrated out as for NumPy input.
    gappy = X.copy()
    gappy[::3, 2] = np.nan
    gappy[1::5, [0, 7]] = np.nan
    np.testing.assert_allclose(
        model.predict_proba(on_device(gappy)), reference.predict_proba(gappy), rtol=1e-9, atol=1e-12
    )


def test_float32_device_input_stays_float32(wine):
    X, y = wine
    X32 = X.astype(np.float32)
    model = bayesgen.QDA().fit(jnp.asarray(X32), y)
    reference = bayesgen.QDA().fit(X32, y)
    assert model.covariances_.dtype == np.float32
    np.testing.assert_allclose(model.covariances_, reference.covariances_, rtol=2e-4, atol=1e-4)
    np.testing.assert_allclose(
        model.predict_proba(jnp.asarray(X32)), reference.predict_proba(X32), atol=1e-4
    )


def test_partial_fit_of_device_chunks_equals_fit(wine):
    X, y = wine
    whole = bayesgen.QDA().fit(X, y)
    chunked = bayesgen.QDA()
    for rows in np.array_split(np.arange(X.shape[0]), 3):
        chunked.partial_fit(on_device(X[rows]), y[rows], classes=np.unique(y))
    np.testing.assert_allclose(chunked.covariances_, whole.covariances_, rtol=1e-10)


def test_missing_entries_at_fit_take_the_em_path(wine):
    X, y = wine
    gappy = X.copy()
    gappy[::4, 1] = np.nan
    reference = bayesgen.LDA().fit(gappy, y)
    model = bayesgen.LDA().fit(on_device(gappy), y)
    np.testing.assert_allclose(model.covariances_, reference.covariances_, rtol=1e-9)
    model.joint_ = model.joint_._replace(rows=None)  # issue 16: kept since
    with pytest.raises(ValueError, match="missing values"):
        model.posterior(num_samples=5)  # EM over NaN: no closed form without the rows
    # Refitted on complete device rows, the exact posterior is available again.
    model.fit(on_device(X), y)
    draws = model.posterior(num_samples=5, random_state=0)
    assert draws.posterior["means"].shape[-2:] == (3, 13)


def test_bad_device_input_is_refused_like_numpy_input(wine):
    X, y = wine
    model = bayesgen.QDA().fit(X, y)
    bad = X.copy()
    bad[5, 3] = np.inf
    with pytest.raises(ValueError, match=r"X contains inf \(first at row 5, column 3\)"):
        model.predict(on_device(bad))
    with pytest.raises(ValueError, match="X has 12 features, but QDA is expecting 13"):
        model.predict(on_device(X[:, :12]))
    with pytest.raises(ValueError, match="X must be 2-D"):
        model.predict(on_device(X[0]))
    # Integer device arrays are converted on the host, like any other integer input.
    counts = np.rint(X).astype(np.int32)
    np.testing.assert_allclose(
        model.predict_proba(jnp.asarray(counts)), model.predict_proba(counts), rtol=1e-12
    )


def test_fisher_coordinates_of_device_input_stay_on_the_device(wine):
    X, y = wine
    X_device = on_device(X)
    model = bayesgen.LDA().fit(X_device, y)
    coordinates = model.transform(X_device)
    assert isinstance(coordinates, jax.Array)
    assert coordinates.devices() == X_device.devices()
    np.testing.assert_allclose(
        np.asarray(coordinates), bayesgen.LDA().fit(X, y).transform(X), rtol=1e-8, atol=1e-10
    )
