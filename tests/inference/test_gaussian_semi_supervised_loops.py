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


def _whole_e_step(scores, log_class_probabilities, fixed, weights):
    """The NumPy E-step over all the rows at once, as it was written before blocks:
    responsibilities, the labelled part of the objective, the objective."""
    from bayesgen.inference import log_space

    joint = scores + log_class_probabilities
    evidence = log_space.log_evidence(joint)
    labelled = np.sum(np.where(fixed > 0, fixed * joint, 0.0))
    posterior = np.exp(joint - evidence)
    following = fixed + weights[:, None] * posterior
    return following, labelled, labelled + np.sum(weights * evidence[:, 0])


def _e_step_inputs(dtype, scores_layout, fixed_layout, n=5000, K=3):
    _, fixed, weights, _ = _problem(seed=3, n=n, K=K)
    rng = np.random.default_rng(5)
    scores = (rng.normal(size=(K, n)) * 40 - 200).astype(dtype)
    scores = scores.T if scores_layout == "F" else np.ascontiguousarray(scores.T)
    fixed = np.asarray(fixed, dtype=dtype, order=fixed_layout)
    log_pi = np.log(np.linspace(1.0, 2.0, K) / np.linspace(1.0, 2.0, K).sum()).astype(dtype)
    return scores, log_pi, fixed, weights.astype(dtype)


@pytest.mark.parametrize("layouts", [("C", "C"), ("F", "C"), ("F", "F")])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("threads", [1, 2])
def test_the_e_step_in_blocks_is_the_whole_e_step_bit_for_bit(monkeypatch, layouts, dtype, threads):
    """Blocks of rows (whole multiples of OpenBLAS's 2,048-row chunks, as the default's),
    in threads or one after another, give every responsibility and the objective's
    labelled part the bits of all the rows at once, and the objective too (EM with tol=0
    stops on its last bit); the scores laid out class by class, as the family makes them,
    or by rows, and fixed weights of either layout."""
    from bayesgen import _parallel

    monkeypatch.setattr(gaussian_semi_supervised, "E_STEP_BLOCK_ROWS", 2048)
    monkeypatch.setattr(_parallel, "thread_count", lambda: threads)
    pieces = []
    real = gaussian_semi_supervised.run_pieces

    def spied(function, starts, in_threads=True):
        pieces.append((list(starts), in_threads))
        return real(function, starts, in_threads=in_threads)

    monkeypatch.setattr(gaussian_semi_supervised, "run_pieces", spied)
    scores, log_pi, fixed, weights = _e_step_inputs(dtype, *layouts)
    following, labelled, evidence = gaussian_semi_supervised._numpy_e_step(
        scores, log_pi, fixed, weights
    )
    expected, expected_labelled, expected_objective = _whole_e_step(scores, log_pi, fixed, weights)
    assert pieces == [([0, 2048, 4096], True)]
    np.testing.assert_array_equal(following, expected)
    assert following.dtype == expected.dtype == dtype
    assert labelled == expected_labelled and np.isfinite(labelled)
    assert labelled + np.sum(weights * evidence[:, 0]) == expected_objective


def test_a_row_no_class_explains_is_nan_as_before(monkeypatch):
    """A row of -inf scores has -inf evidence and NaN responsibilities, in blocks as
    over all rows; the objective is then not finite either way."""
    monkeypatch.setattr(gaussian_semi_supervised, "E_STEP_BLOCK_ROWS", 2048)
    scores, log_pi, fixed, weights = _e_step_inputs(np.float64, "F", "C")
    scores[4100] = -np.inf
    with np.errstate(divide="ignore", invalid="ignore"):
        following, labelled, evidence = gaussian_semi_supervised._numpy_e_step(
            scores, log_pi, fixed, weights
        )
        expected, expected_labelled, _ = _whole_e_step(scores, log_pi, fixed, weights)
    np.testing.assert_array_equal(following, expected)  # NaN where NaN
    assert np.isnan(following[4100]).all() and evidence[4100, 0] == -np.inf
    assert labelled == expected_labelled or np.isneginf(labelled) and np.isneginf(expected_labelled)
