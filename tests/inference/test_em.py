"""The EM driver: one convergence rule, a Python loop and a jitted loop that agree."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from scipy import optimize, stats

from bayesgen._precision import precision
from bayesgen.inference import em


def _weight_problem():
    """Rows from 0.3 N(-1, 1) + 0.7 N(2, 1): EM on the mixing weight alone."""
    rng = np.random.default_rng(0)
    n = 400
    component = rng.random(n) < 0.3
    x = np.where(component, rng.normal(-1, 1, n), rng.normal(2, 1, n))
    return stats.norm.pdf(x, -1, 1), stats.norm.pdf(x, 2, 1)


def _weight_step(first, second, xp):
    def step(weight):
        share = weight * first / (weight * first + (1 - weight) * second)
        updated = xp.mean(share)
        objective = xp.sum(xp.log(updated * first + (1 - updated) * second))
        return updated, objective

    return step


def test_has_converged_is_the_relative_change_on_floats_and_traced_values():
    """Two objectives (or a rate outside [0, 1)): the relative change."""
    assert em.has_converged([100.0, 100.0 + 1e-5], 1e-6)
    assert not em.has_converged([100.0, 100.0 + 1e-3], 1e-6)
    assert em.has_converged([-5.0, -5.0], 0.0)
    assert not em.has_converged([100.0], 1.0)
    assert em.has_converged([100.0 + 1e-5, 100.0, 100.0 + 1e-5], 1e-6)  # the rate is -1
    traced = jax.jit(em.has_converged)
    assert bool(traced([jnp.asarray(100.0), jnp.asarray(100.0 + 1e-5)], 1e-6))
    assert not bool(traced([jnp.asarray(100.0), jnp.asarray(100.0 + 1e-3)], 1e-6))
    # A NaN stands for an objective not yet computed (the jitted loop's first iterations).
    assert bool(traced([jnp.nan, jnp.asarray(100.0), jnp.asarray(100.0 + 1e-5)], 1e-6))


@pytest.mark.parametrize("rate", [0.5, 0.9, 0.99])
def test_has_converged_asks_for_the_remaining_gain_aitken_predicts(rate):
    """Gains shrinking by ``rate``: the last gain passes the relative change, but the gain
    still to come is ``gain * rate / (1 - rate)``; the rule passes only when the distance from
    the objective before it to the predicted limit, ``gain / (1 - rate)``, is within tol."""
    tol, gain = 1e-6, 0.9e-4  # |objective| ~ 100: the relative change passes
    history = [100.0, 100.0 + gain / rate, 100.0 + gain / rate + gain]
    assert em.has_converged(history, tol) == (gain / (1 - rate) <= tol * history[-1])
    traced = jax.jit(em.has_converged)
    assert bool(traced([jnp.asarray(v) for v in history], tol)) == em.has_converged(history, tol)


def test_gains_that_do_not_shrink_never_pass():
    assert not em.has_converged([100.0, 100.0 + 1e-7, 100.0 + 2e-7], 1e-6)
    assert not em.has_converged([100.0, 100.0 + 1e-7, 100.0 + 2.1e-7], 1e-6)
    assert em.has_converged([100.0, 100.0, 100.0], 0.0)


def test_a_creeping_em_stops_near_its_limit():
    """EM on a weight between overlapping components creeps (rate ~0.7): the run over
    missing entries' loop stops with the objective within tol of its limit, which the
    relative change alone (the plain loop's) does not."""
    rng = np.random.default_rng(0)
    x = np.where(rng.random(400) < 0.3, rng.normal(-0.5, 1, 400), rng.normal(0.5, 1, 400))
    step = _weight_step(stats.norm.pdf(x, -0.5, 1), stats.norm.pdf(x, 0.5, 1), np)
    tol = 1e-7

    def no_extrapolation(*thetas):
        return None

    state = em.run_extrapolated(
        0.5, step, tol=tol, max_iter=10_000, extrapolate=no_extrapolation
    ).state
    limit = em.run(0.5, step, tol=1e-15, max_iter=10_000).history[-1]
    assert state.converged and limit - state.history[-1] <= tol * abs(limit)
    # The relative change of the plain loop stops short of it.
    short = em.run(0.5, step, tol=tol, max_iter=10_000)
    assert short.converged and limit - short.history[-1] > tol * abs(limit)


def test_python_loop_reaches_the_maximum_likelihood_weight():
    first, second = _weight_problem()
    state = em.run(0.5, _weight_step(first, second, np), tol=1e-12, max_iter=1000)
    assert state.converged and state.iteration == len(state.history) < 1000
    assert np.all(np.diff(state.history) >= -1e-9)  # EM never decreases the objective

    def negative(weight):
        return -np.sum(np.log(weight * first + (1 - weight) * second))

    best = optimize.minimize_scalar(negative, bounds=(1e-6, 1 - 1e-6), method="bounded")
    np.testing.assert_allclose(state.payload, best.x, atol=1e-5)


def test_jitted_loop_runs_the_same_iterations():
    first, second = _weight_problem()
    python = em.run(0.5, _weight_step(first, second, np), tol=1e-8, max_iter=50)

    @jax.jit
    def jitted(first, second):
        step = _weight_step(first, second, jnp)
        return em.run_jitted(jnp.asarray(0.5), step, tol=1e-8, max_iter=50, dtype=first.dtype)

    with precision(np.float64):
        state = jitted(jnp.asarray(first), jnp.asarray(second))
        n_iter = int(state.iteration)
        assert n_iter == python.iteration and bool(state.converged) == python.converged
        np.testing.assert_allclose(np.asarray(state.history)[:n_iter], python.history, rtol=1e-12)
        assert np.isnan(np.asarray(state.history)[n_iter:]).all()
        np.testing.assert_allclose(float(state.payload), python.payload, rtol=1e-12)


@pytest.mark.parametrize("max_iter", [1, 3])
def test_max_iter_stops_without_convergence(max_iter):
    first, second = _weight_problem()
    state = em.run(0.5, _weight_step(first, second, np), tol=0.0, max_iter=max_iter)
    assert state.iteration == max_iter and not state.converged


def test_array_objectives_converge_on_their_sum_and_a_payload_rule_may_replace_it():
    def step(value):
        return value / 2, np.array([1.0, -1.0]) * value  # the sum is always 0

    state = em.run(1.0, step, tol=0.0, max_iter=10)
    assert state.iteration == 2 and state.converged
    state = em.run(1.0, step, tol=0.0, max_iter=10, converged=lambda old, new: old - new < 0.1)
    assert state.iteration == 4 and state.payload == 1 / 16


def _scalar_squarem(theta0, theta1, theta2):
    """SQUAREM's proposal on a scalar payload, kept inside (0, 1)."""
    r, v = theta1 - theta0, theta2 - 2 * theta1 + theta0
    if v == 0:
        return None
    length = max(1.0, abs(r / v))
    return float(np.clip(theta0 + 2 * length * r + length**2 * v, 1e-9, 1 - 1e-9))


def test_extrapolated_loop_reaches_the_same_weight_in_fewer_steps():
    """SQUAREM: the maximum-likelihood weight (as the plain loop), in under a quarter of its steps,
    the recorded objective never falling. Overlapping components make EM slow."""
    rng = np.random.default_rng(0)
    x = np.where(rng.random(400) < 0.3, rng.normal(-0.5, 1, 400), rng.normal(0.5, 1, 400))
    first, second = stats.norm.pdf(x, -0.5, 1), stats.norm.pdf(x, 0.5, 1)
    step = _weight_step(first, second, np)
    plain = em.run(0.5, step, tol=1e-12, max_iter=1000)
    fast = em.run_extrapolated(0.5, step, tol=1e-12, max_iter=1000, extrapolate=_scalar_squarem)
    state = fast.state
    assert state.converged and state.iteration == len(state.history) < plain.iteration / 4
    assert np.all(np.diff(state.history) >= -1e-9)

    def negative(weight):
        return -np.sum(np.log(weight * first + (1 - weight) * second))

    best = optimize.minimize_scalar(
        negative, bounds=(1e-6, 1 - 1e-6), method="bounded", options={"xatol": 1e-12}
    ).x
    # Plain EM stops 3e-6 short of the maximum; the extrapolated run closer still.
    np.testing.assert_allclose(plain.payload, best, atol=1e-5)
    assert abs(state.payload - best) <= abs(plain.payload - best)
    assert step(fast.source)[0] == state.payload  # the source is the last step's input


def test_rejected_extrapolations_leave_the_plain_loop():
    """Proposals whose objective falls are dropped: the run is the plain loop's, step for
    step, its stopping rule included."""
    first, second = _weight_problem()
    step = _weight_step(first, second, np)
    plain = em.run(0.5, step, tol=1e-10, max_iter=1000)
    fast = em.run_extrapolated(
        0.5, step, tol=1e-10, max_iter=1000, extrapolate=lambda *thetas: 1e-6
    )
    assert fast.state.iteration == plain.iteration and fast.state.converged
    np.testing.assert_array_equal(fast.state.history, plain.history)
    assert fast.state.payload == plain.payload


@pytest.mark.parametrize("max_iter", [1, 2, 3, 5])
def test_extrapolated_loop_counts_kept_steps_against_max_iter(max_iter):
    first, second = _weight_problem()
    fast = em.run_extrapolated(
        0.5,
        _weight_step(first, second, np),
        tol=0.0,
        max_iter=max_iter,
        extrapolate=_scalar_squarem,
    )
    assert fast.state.iteration == len(fast.state.history) == max_iter
    assert not fast.state.converged


def test_creep_at_the_rounding_of_the_objective_is_no_drift():
    """Gains of one sign that do not shrink never pass, unless they are rounding: an
    objective moving by an ulp or two has converged. NumPy scalars and 0-d arrays give a
    bool (not a JAX array)."""
    a = 1234.5
    ulp = np.spacing(a)
    assert em.has_converged([a, a + ulp, a + 2 * ulp], 1e-6)
    assert em.has_converged([a, a - ulp, a - 3 * ulp], 1e-6)
    assert not em.has_converged([a, a + 1e-9, a + 2e-9], 1e-6)  # a drift, however small
    found = em.has_converged([np.float64(a), np.asarray(a + 1e-9), np.asarray(a + 1.5e-9)], 1e-6)
    assert type(found) is bool and found


def test_an_em_inside_another_keeps_the_relative_change():
    """``stop="relative"`` (EM over missing entries inside another EM's M-step) stops where
    the plain loop does, short of where Aitken's rule stops."""
    rng = np.random.default_rng(0)
    x = np.where(rng.random(400) < 0.3, rng.normal(-0.5, 1, 400), rng.normal(0.5, 1, 400))
    step = _weight_step(stats.norm.pdf(x, -0.5, 1), stats.norm.pdf(x, 0.5, 1), np)

    def no_extrapolation(*thetas):
        return None

    runs = {
        stop: em.run_extrapolated(
            0.5, step, tol=1e-7, max_iter=10_000, extrapolate=no_extrapolation, stop=stop
        ).state
        for stop in ("aitken", "relative")
    }
    plain = em.run(0.5, step, tol=1e-7, max_iter=10_000)
    assert runs["relative"].history == plain.history
    assert len(runs["aitken"].history) > len(plain.history)
