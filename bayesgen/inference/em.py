r"""One EM driver: an explicit state, one convergence rule, a Python loop and a jitted loop.

Every EM in the package (over unlabelled rows, over missing entries, over mixture
components, on Dask workers, the label-shift EM) is a ``step`` from one payload to the next
that also returns the objective of the parameters it computed. The driver owns the rest:
counting iterations, keeping the objective history, deciding convergence with
`has_converged`, and advancing the progress bar.

The rule (`has_converged`) reads the last objectives. Given two, it is their relative
change,

$$
|\ell_t - \ell_{t-1}| \le \mathrm{tol}\, |\ell_t|.
$$

Given three, it is Aitken's (Böhning et al. 1994; Lindsay 1995; McNicholas et al. 2010).
EM converges linearly: near its fixed point each gain is about $r$ times the one before,
so a run that stops when its last gain is small stops short by about
$\delta_t\, r/(1-r)$, which for $r$ near 1 is many times $\delta_t$. From the three the
rate $r_t = (\ell_t - \ell_{t-1}) / (\ell_{t-1} - \ell_{t-2})$ and the objective EM is
heading for, $\ell_\infty = \ell_{t-1} + (\ell_t - \ell_{t-1})/(1-r_t)$, are estimated,
and the run stops when

$$
|\ell_\infty - \ell_{t-1}| = \frac{|\ell_t - \ell_{t-1}|}{1 - r_t} \le \mathrm{tol}\, |\ell_t|,
$$

which asks at least as much as the relative change. A rate outside $[0, 1)$ (the gains
growing, or changing sign) allows no extrapolation, and the relative change decides,
except that gains of one sign that do not shrink ($r_t \ge 1$) never pass: EM drifting at
a constant pace has not converged however small each gain. An objective may be an array
(one value per class); the rule then looks at its sum.

EM over missing entries (`run_extrapolated`, which the Gaussian families' fits with gaps
use) stops by Aitken's rule, so that a fit reporting ``converged_`` is within ``tol`` of
where EM is going; the EM over missing entries inside each M-step of another EM (a
latent-class mixture's Gaussian columns) keeps the relative change, the outer EM's rule
deciding what is reported. The plain loops (`run`, `run_jitted`: mixture components, unlabelled
rows, label shift, the Dask fit) stop by the relative change: by Aitken's rule an
over-specified mixture creeps for hundreds of iterations (MixtureDA on scikit-learn's
check data: 342 instead of 93), past the default ``max_iter`` of every estimator using
them.

`run_extrapolated` is the same loop with SQUAREM steps (Varadhan and Roland 2008) between
plain ones, for an EM whose iterations are slow to converge; the rule is then tested only
across plain steps.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np

from bayesgen import progress
from bayesgen._lazy import lazy_module

jax = lazy_module("jax")
jnp = lazy_module("jax.numpy")


class EMState(NamedTuple):
    """Where an EM run stands.

    Attributes
    ----------
    iteration : int or Array
        Iterations run so far.
    history : list or Array
        The objective after each iteration: a list in `run`; in `run_jitted`
        an array of shape ``(max_iter, *objective_shape)``, NaN past ``iteration``.
    converged : bool or Array
        Whether `has_converged` held after the last iteration.
    payload : Any
        What the steps carry from one iteration to the next (responsibilities,
        statistics, ...); a pytree in `run_jitted`.
    """

    iteration: Any
    history: Any
    converged: Any
    payload: Any


#: Changes of the objective within this many times its size are rounding, not a drift.
ROUNDING = 64 * float(np.finfo(np.float64).eps)


def has_converged(history, tol):
    r"""Whether EM has converged, from its last objectives ``history`` (oldest first; only
    the last three count): the remaining gain Aitken's extrapolation predicts,
    $|\ell_t - \ell_{t-1}|/(1 - r_t)$, is at most ``tol * |current|``; the relative
    change $|\ell_t - \ell_{t-1}| \le \mathrm{tol}\,|\ell_t|$ when there are only two
    objectives or the rate $r_t$ is negative or undefined. Never with fewer than two, nor
    with $r_t \ge 1$ and a nonzero gain (gains that do not shrink).

    Works on Python and NumPy floats (returns a bool) and on traced JAX scalars (returns a
    traced bool), so the Python and the jitted loop share it; there a NaN stands for an
    objective not yet computed.
    """
    if len(history) < 2:
        return False
    current, previous = history[-1], history[-2]
    before = history[-3] if len(history) > 2 else float("nan")
    host = (float, int, np.floating, np.integer, np.ndarray)
    traced = not all(isinstance(v, host) for v in (current, previous, before))
    xp = jnp if traced else np
    with np.errstate(divide="ignore", invalid="ignore"):
        current, previous, before = (xp.asarray(v) for v in (current, previous, before))
        change = abs(current - previous)
        bound = tol * abs(current)
        rate = (current - previous) / (previous - before)  # NaN or inf where undefined
        extrapolating = (rate >= 0) & (rate < 1)
        remaining = change / xp.where(extrapolating, 1 - rate, 1.0)
        # Gains of one sign that do not shrink: no sign of a limit, however small they are.
        # Changes at the rounding of the objective are no drift.
        stalled = (rate >= 1) & (change > ROUNDING * abs(current))
    done = (remaining <= bound) & ~stalled
    return done if traced else bool(done)


def _total(objective) -> float:
    return float(np.sum(objective))


def run(
    initial,
    step: Callable,
    *,
    tol: float,
    max_iter: int,
    progress_ticks: bool = False,
    converged: Callable | None = None,
) -> EMState:
    """Iterate ``step`` in a Python loop until `has_converged` or ``max_iter``.

    Parameters
    ----------
    initial : Any
        The payload the first step starts from.
    step : callable
        ``step(payload) -> (payload, objective)``: one iteration, and the objective of the
        parameters it computed (a float, or an array whose sum is the objective).
    tol : float
    max_iter : int
    progress_ticks : bool, default=False
        Advance the innermost progress bar (``bayesgen.progress``) once per iteration.
    converged : callable, optional
        ``converged(previous_payload, payload) -> bool`` for a loop whose stopping test
        is on the payload, not the objective (the label-shift EM, which stops when no
        class probability moves by more than ``tol``). By default `has_converged`
        on the objective.

    Returns
    -------
    EMState
        ``history`` a list of the objectives.
    """
    state = EMState(0, [], False, initial)
    while state.iteration < max_iter and not state.converged:
        payload, objective = step(state.payload)
        history = [*state.history, objective]
        if converged is not None:
            done = bool(converged(state.payload, payload))
        else:
            done = has_converged([_total(value) for value in history[-2:]], tol)
        if progress_ticks:
            progress.tick(state.iteration, _total(objective))
        state = EMState(state.iteration + 1, history, done, payload)
    return state


class Extrapolated(NamedTuple):
    """Where `run_extrapolated` stopped.

    Attributes
    ----------
    state : EMState
        ``payload`` the output of the last accepted step; ``history`` a list with the
        objective of every accepted step.
    source : Any
        That step's input: the payload whose parameters have the last objective.
    """

    state: EMState
    source: Any


def run_extrapolated(
    initial,
    step: Callable,
    *,
    tol: float,
    max_iter: int,
    extrapolate: Callable,
    trial_step: Callable | None = None,
    stop: str = "aitken",
) -> Extrapolated:
    r"""`run` with SQUAREM extrapolation: the same fixed point in fewer iterations.

    A cycle from $\theta_0$ takes two plain steps, $\theta_1 = F(\theta_0)$ and
    $\theta_2 = F(\theta_1)$, then one step from the point ``extrapolate``
    proposes along their differences (or from $\theta_2$ when it proposes none). That
    step is kept only when its objective is finite and at least that of $\theta_1$'s
    parameters; otherwise it is dropped (neither counted nor recorded) and the next cycle
    starts from $\theta_2$. So the recorded objective rises as much as EM's own steps
    make it. The stopping rule is Aitken's (`has_converged` on three objectives; module
    docstring), tested after each plain step on the objectives since the last kept
    extrapolation's (the step from an extrapolated
    point and the plain ones after it are consecutive EM iterates, and after an
    extrapolation the rule waits for three of them), never across an extrapolation, and
    with one more condition: the last extrapolation kept, if the
    last cycle kept one, moved the objective by at most ``tol`` of its size too. Where EM
    creeps (its steps small against the distance still to climb), an extrapolation lands
    where a plain step is small again; without that condition the run would stop there,
    short of where plain EM stops.

    Parameters
    ----------
    initial : Any
        The payload the first step starts from.
    step : callable
        ``step(payload) -> (payload, objective)``, as in `run` (an array objective is
        compared by its sum).
    tol : float
    max_iter : int
        Most accepted steps (what ``history`` holds).
    extrapolate : callable
        ``extrapolate(theta0, theta1, theta2) -> payload or None``: the SQUAREM point
        (chosen step length, kept feasible), or None for none.
    trial_step : callable, optional
        The step from an extrapolated payload, which may return ``(None, -inf)`` where it
        cannot work from it; ``step`` by default.
    stop : {"aitken", "relative"}, default="aitken"
        The rule on the plain steps: Aitken's on three objectives, or the relative change
        of two (an EM inside another EM's M-step, whose own rule reports convergence).

    Returns
    -------
    Extrapolated
    """
    history: list = []
    source, payload = None, initial
    converged = False
    jumped = False  # whether the last extrapolation kept moved the objective beyond tol
    plain_from = 0  # where in history the last run of plain steps starts

    def accept(start, result, objective, *, plain: bool) -> bool:
        nonlocal source, payload, converged, jumped, plain_from
        history.append(objective)
        source, payload = start, result
        if plain:
            # The objectives since (and including) the last kept extrapolation's are
            # consecutive plain EM iterates: the window the rule may extrapolate. After an
            # extrapolation it waits for three, so that the rate is always estimated (one
            # small plain step after a jump says nothing about how fast EM creeps).
            size = 3 if stop == "aitken" else 2
            window = [_total(value) for value in history[max(plain_from, len(history) - size) :]]
            converged = len(window) == size and has_converged(window, tol) and not jumped
        else:
            jumped = len(history) > 1 and not has_converged(
                [_total(history[-2]), _total(objective)], tol
            )
            plain_from = len(history) - 1
        return converged or len(history) >= max_iter

    while True:
        theta0 = payload
        theta1, objective = step(theta0)
        if accept(theta0, theta1, objective, plain=True):
            break
        theta2, objective = step(theta1)
        if accept(theta1, theta2, objective, plain=True):
            break
        proposed = extrapolate(theta0, theta1, theta2)
        if proposed is not None:
            result, objective = (trial_step or step)(proposed)
            total = _total(objective)
            if np.isfinite(total) and total >= _total(history[-1]):
                if accept(proposed, result, objective, plain=False):
                    break
                continue
        jumped = False  # no extrapolation gets further: the plain steps' rule decides
    return Extrapolated(EMState(len(history), history, converged, payload), source)


def run_jitted(
    initial,
    step: Callable,
    *,
    tol,
    max_iter: int,
    objective_shape: tuple = (),
    dtype=None,
    report: bool = False,
) -> EMState:
    """Iterate ``step`` in one ``jax.lax.while_loop``; call it inside ``jax.jit``.

    Parameters
    ----------
    initial : pytree
        The payload the first step starts from.
    step : callable
        ``step(payload) -> (payload, objective)``, traceable; ``objective`` has shape
        ``objective_shape`` and its sum is the objective.
    tol : float or Array
    max_iter : int
        Static: it sizes the history.
    objective_shape : tuple, default=()
    dtype : dtype, optional
        Of the history; the default float type if not given.
    report : bool, default=False
        Compile the variant that advances the progress bar each iteration
        (``jax.debug.callback``; see `bayesgen.progress.reporting`).

    Returns
    -------
    EMState
        ``history`` an array of shape ``(max_iter, *objective_shape)``, NaN past
        ``iteration``.
    """

    def condition(state):
        return (state.iteration < max_iter) & ~state.converged

    def body(state):
        payload, objective = step(state.payload)
        current = jnp.sum(objective)

        previous = jnp.where(
            state.iteration > 0, jnp.sum(state.history[state.iteration - 1]), jnp.nan
        )
        done = (state.iteration > 0) & has_converged([previous, current], tol)
        if report:
            jax.debug.callback(progress.tick, state.iteration, current)
        history = state.history.at[state.iteration].set(objective)
        return EMState(state.iteration + 1, history, done, payload)

    history = jnp.full((max_iter, *objective_shape), jnp.nan, dtype=dtype)
    start = EMState(jnp.asarray(0), history, jnp.asarray(False), initial)
    return jax.lax.while_loop(condition, body, start)
