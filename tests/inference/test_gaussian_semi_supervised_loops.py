"""The Gaussian's EM over unlabelled rows in NumPy equals the jitted loop.

Reference: `gaussian_semi_supervised.semi_supervised_em`, the jitted ``lax.while_loop`` (XLA's
kernels), on the same inputs: the same iterations, convergence, objectives and last
responsibilities, for every covariance type and estimate, fixed class probabilities, and
unlabelled weights other than 1.
"""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import bayesgen
from bayesgen.families import gaussian
from bayesgen.inference import gaussian_semi_supervised, unlabelled_em


def _problem(seed=0, n=400, d=3, K=3):
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, K, n)
    X = rng.normal(scale=0.8, size=(K, d))[labels] + rng.standard_normal((n, d))
    unlabelled = rng.random(n) < 0.8
    weights = np.where(unlabelled, rng.uniform(0.5, 1.5, n), 0.0)
    fixed = np.where(unlabelled[:, None], 0.0, np.eye(K)[labels])
    initial = fixed + weights[:, None] * rng.dirichlet(np.ones(K), size=n)
    return X, fixed, weights, initial


@pytest.mark.parametrize("covariance_type", ["full", "tied", "diag", "spherical"])
@pytest.mark.parametrize("kind", ["mle", "map", "mean"])
@pytest.mark.parametrize("fixed_class_probabilities", [False, True])
def test_the_numpy_loop_is_the_jitted_loop(covariance_type, kind, fixed_class_probabilities):
    X, fixed, weights, initial = _problem()
    with jax.enable_x64(True):
        stats = gaussian.suff_stats(X, fixed + weights[:, None] / 3, covariance_type)
        ridge = np.full(X.shape[1], 1e-3) if covariance_type != "spherical" else 1e-3
        prior = gaussian.resolve_prior(stats, ridge, covariance_type)
        prior = type(prior)(*(np.asarray(field) for field in prior))
        pi = np.array([0.2, 0.3, 0.5]) if fixed_class_probabilities else None
        arguments = (fixed, weights, initial, prior, np.asarray(ridge), np.full(3, 2.0), 1e-9)
        settings = {"covariance_type": covariance_type, "kind": kind, "max_iter": 40}
        ours = gaussian_semi_supervised.semi_supervised_em_numpy(
            X, *arguments, class_probabilities_fixed=pi, **settings
        )
        jitted = gaussian_semi_supervised.semi_supervised_em(
            jnp.asarray(X),
            *(jax.tree.map(jnp.asarray, argument) for argument in arguments[:-1]),
            arguments[-1],
            class_probabilities_fixed=None if pi is None else jnp.asarray(pi),
            **settings,
        )
    n_iter = int(jitted.n_iter)
    assert int(ours.n_iter) == n_iter > 2 and bool(ours.converged) == bool(jitted.converged)
    np.testing.assert_allclose(ours.history, np.asarray(jitted.history)[:n_iter], rtol=1e-13)
    np.testing.assert_allclose(
        ours.responsibilities, np.asarray(jitted.responsibilities), rtol=1e-10, atol=1e-12
    )


def test_numpy_rows_take_the_numpy_loop_and_device_rows_the_jitted_one(monkeypatch):
    rng = np.random.default_rng(1)
    X = rng.normal(size=(60, 2)) + np.repeat([[0.0, 0.0], [3.0, 3.0]], 30, axis=0)
    y = np.repeat([0, 1], 30)
    y[rng.random(60) < 0.5] = -1
    taken = []
    for name in ("semi_supervised_em", "semi_supervised_em_numpy"):
        real = getattr(gaussian_semi_supervised, name)

        def spy(*args, _real=real, _name=name, **kwargs):
            taken.append(_name)
            return _real(*args, **kwargs)

        monkeypatch.setattr(gaussian_semi_supervised, name, spy)
    on_numpy = bayesgen.GaussianDA().fit(X, y)
    assert taken == ["semi_supervised_em_numpy"]
    with jax.enable_x64(True):  # float64 on the device too
        on_device = bayesgen.GaussianDA().fit(jnp.asarray(X), y)
    assert taken == ["semi_supervised_em_numpy", "semi_supervised_em"]
    assert unlabelled_em.loop_for(on_numpy._base_family(), on_numpy._fit_settings(), X) == (
        "gaussian"
    )
    np.testing.assert_allclose(on_device.means_, on_numpy.means_, rtol=1e-10)
    assert on_device.n_iter_ == on_numpy.n_iter_


def test_a_singular_covariance_in_the_numpy_loop_is_the_familys_error():
    """With no ridge, a class whose covariance turns singular during EM stops it with the
    family's message (the jitted loop carried NaN to the final fit, which raised it)."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 6))
    X[:20] += 3.0
    y = np.repeat([0, 1], 20)
    y[rng.random(40) < 0.8] = -1
    y[[0, 20]] = [0, 1]
    with pytest.raises(ValueError, match="A fitted covariance is singular .* reg_covar=0.0"):
        bayesgen.GaussianDA(reg_covar=0.0).fit(X, y)
