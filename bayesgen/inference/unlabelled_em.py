r"""EM over unlabelled rows, as a function of values.

A run starts from a fitted value (the model's ordinary fit of the start's responsibilities,
`start_responsibilities`) and returns the value it ends at, with the responsibilities of
its last M-step and its objective's history (`EMRun`): the family, the value and the
model's `bayesgen.inference.fit_rows.FitOptions` go in, never an estimator. The family
says how its unlabelled rows are fitted (``unlabelled_loop``, `loop_for`):

- ``"em"``: each iteration one E-step (``log p(k | x)`` of every row under the value and the
  objective of the value, `e_step`) and one M-step (`bayesgen.inference.fit_rows.m_step`),
  driven by `bayesgen.inference.em.run`;
- ``"gaussian"``: the Gaussian's own loop (`gaussian_semi_supervised`: NumPy passes for
  NumPy rows, one jitted ``lax.while_loop`` for a ``jax.Array``), under the
  prior and ridge resolved once from responsibilities with EM's row totals, then the value
  fitted from its last responsibilities;
- ``"self-training"``: the kernel density's fixed-point iteration of the labels under kernels
  fixed first (`_self_training`).
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from bayesgen import joint, progress
from bayesgen._lazy import lazy_module
from bayesgen._precision import compute_dtype, precision
from bayesgen.families import kernel_density as kde
from bayesgen.families.namespace import as_jax, as_numpy
from bayesgen.inference import em, gaussian_semi_supervised, row_buckets, semi_supervised
from bayesgen.inference.fit_rows import FitOptions, fit_rows, m_step, objective_log_prior
from bayesgen.missing import has_missing

jax = lazy_module("jax")
jnp = lazy_module("jax.numpy")

DESCRIPTION = "EM over unlabelled rows"


class UnlabelledRows(NamedTuple):
    """The rows' part in EM over unlabelled rows.

    Attributes
    ----------
    fixed : ndarray of shape (n_samples, n_classes)
        One-hot times the weight for a labelled row, 0 for an unlabelled one.
    unlabeled : ndarray of bool, shape (n_samples,)
    weights : ndarray of shape (n_unlabelled,)
        Each unlabelled row's $\\lambda w_i$.
    """

    fixed: np.ndarray
    unlabeled: np.ndarray
    weights: np.ndarray


class EMRun(NamedTuple):
    """The end of one run: the value, the responsibilities of its last M-step (what the
    value was fitted from), the objective after each iteration and whether it converged."""

    value: Any
    responsibilities: np.ndarray
    history: list
    converged: bool


def loop_for(family, settings: joint.FitSettings, X) -> str:
    """The loop that fits ``family``'s unlabelled rows (module docstring): its
    ``unlabelled_loop``, except the generic EM for rows with missing entries and for the
    Gaussian's ``"unbiased"`` estimate (no maximisation, which the Gaussian's loop assumes)."""
    loop = getattr(family, "unlabelled_loop", "em")
    if loop == "em" or has_missing(X):
        return "em"
    if loop == "gaussian" and settings.estimate == "unbiased":
        return "em"
    return loop


def start_responsibilities(loop: str, rows: UnlabelledRows, initial: np.ndarray) -> np.ndarray:
    """The responsibilities the start value is fitted from: the run's own start for EM;
    for the Gaussian and kernel loops the labelled rows and each unlabelled one as
    $\\lambda w_i / K$ of a row in every class (EM's row totals, from which the prior, the
    ridge or the kernels are resolved once)."""
    return initial if loop == "em" else row_totals(rows)


def row_totals(rows: UnlabelledRows) -> np.ndarray:
    r"""Responsibilities with EM's row totals: the labelled rows, and each unlabelled one as
    $\lambda w_i / K$ of a row in every class. Every M-step's responsibilities have these
    totals, so what depends on them alone (an empirical-Bayes prior, a ridge, kernels) is
    resolved once from them."""
    spread = np.zeros(rows.fixed.shape[0])
    spread[rows.unlabeled] = rows.weights
    return rows.fixed + spread[:, None] / rows.fixed.shape[1]


def run(loop: str, family, options: FitOptions, value, X, rows: UnlabelledRows, initial):
    """One run from the start ``value`` (fitted from `start_responsibilities`) and the
    responsibilities ``initial``: an `EMRun`."""
    with progress.progress_bar(options.max_iter, DESCRIPTION):
        if loop == "gaussian":
            return _gaussian(family, options, value, X, rows, initial)
        if loop == "self-training":
            return _self_training(family, options, value, X, rows, initial)
        return _em(family, options, value, X, rows, initial)


def e_step(family, value, X, options: FitOptions, rows: UnlabelledRows):
    """``(log p(k | x), objective)``: every row's class posterior under ``value`` and EM's
    objective of the value (`semi_supervised.e_step`, plus `objective_log_prior`)."""
    dtype = compute_dtype(X.dtype)
    learned = joint.family_of(family, value)
    with precision(dtype):
        log_likelihood = np.asarray(
            joint.log_likelihood(learned, value.params, X, dtype, row_terms=True)
        )
        log_prior = objective_log_prior(learned, value, options.settings)
    return _posterior_and_objective(log_likelihood, value, log_prior, rows)


def _posterior_and_objective(log_likelihood, value, log_prior: float, rows: UnlabelledRows):
    """`semi_supervised.e_step` of the rows' ``log p(x | k)`` under ``value``'s class
    probabilities, with the parameters' ``log_prior``."""
    with np.errstate(divide="ignore"):
        log_class_prior = np.log(value.class_probabilities).astype(log_likelihood.dtype)
    return semi_supervised.e_step(
        log_likelihood + log_class_prior,
        log_class_prior,
        rows.fixed,
        rows.unlabeled,
        rows.weights,
        log_prior,
    )


def _em(family, options, value, X, rows, initial) -> EMRun:
    # One pass per iteration: the E-step's log posteriors also give the objective of the
    # value they were computed under.
    dtype = compute_dtype(X.dtype)
    log_posterior, _ = e_step(family, value, X, options, rows)
    last = [value, initial]

    def step(log_posterior):
        R = semi_supervised.responsibilities(
            rows.fixed, rows.unlabeled, rows.weights, log_posterior
        )
        R = R.astype(dtype, copy=False)
        last[:] = [m_step(family, last[0], X, R, options), R]
        return e_step(family, last[0], X, options, rows)

    state = em.run(
        log_posterior, step, tol=options.tol, max_iter=options.max_iter, progress_ticks=True
    )
    return EMRun(last[0], last[1], state.history, state.converged)


def numpy_rows(X) -> bool:
    """Whether the Gaussian's loop runs in NumPy for ``X`` (a NumPy array), not jitted."""
    return isinstance(X, np.ndarray)


def _gaussian(family, options, value, X, rows, initial) -> EMRun:
    settings = options.settings
    dtype = compute_dtype(X.dtype)
    ridge = joint.family_of(family, value).ridge(value.feature_stats)
    fixed_pi = value.class_probabilities if settings.class_prior.fixed is not None else None
    n_classes = len(options.classes)
    weights = np.zeros(X.shape[0])
    weights[rows.unlabeled] = rows.weights
    loop_settings = {
        "covariance_type": family.covariance_type,
        "kind": settings.estimate,
        "max_iter": int(options.max_iter),
    }
    with precision(dtype):
        if numpy_rows(X):  # the same loop in NumPy: BLAS-bound on a CPU
            result = gaussian_semi_supervised.semi_supervised_em_numpy(
                X,
                rows.fixed.astype(dtype),
                weights.astype(dtype),
                np.asarray(initial, dtype),
                as_numpy(value.feature_prior, dtype),
                np.asarray(ridge, dtype),
                np.full(n_classes, settings.class_prior.concentration, dtype),
                float(options.tol),
                class_probabilities_fixed=None if fixed_pi is None else np.asarray(fixed_pi, dtype),
                check_params=joint.family_of(family, value).check_positive_definite,
                **loop_settings,
            )
        else:
            result = _gaussian_jitted(
                X, rows, weights, initial, value, ridge, options, fixed_pi, loop_settings
            )
    R = np.asarray(result.responsibilities, dtype=np.float64)[: X.shape[0]].astype(dtype)
    n_iter = int(result.n_iter)
    history = np.asarray(result.history)[:n_iter].tolist()
    return EMRun(fit_rows(family, X, R, options), R, history, bool(result.converged))


def _gaussian_jitted(X, rows, weights, initial, value, ridge, options, fixed_pi, loop_settings):
    """The Gaussian's loop jitted, for rows that are not a NumPy array (a ``jax.Array``)."""
    settings = options.settings
    dtype = compute_dtype(X.dtype)
    n_classes = len(options.classes)
    # Rows padded to a bucket (weightless copies of the first row): the loop compiles once
    # per bucket, not once per row count.
    n_rows = row_buckets.bucket(X.shape[0])
    result = gaussian_semi_supervised.semi_supervised_em(
        jnp.asarray(row_buckets.pad_rows(X, n_rows, X[0]), dtype),
        jnp.asarray(row_buckets.pad_rows(rows.fixed, n_rows), dtype),
        jnp.asarray(row_buckets.pad_rows(weights, n_rows), dtype),
        jnp.asarray(row_buckets.pad_rows(initial, n_rows), dtype),
        as_jax(value.feature_prior, dtype),
        jnp.asarray(ridge, dtype),
        jnp.full(n_classes, settings.class_prior.concentration, dtype),
        float(options.tol),
        class_probabilities_fixed=None if fixed_pi is None else jnp.asarray(fixed_pi, dtype),
        report=progress.reporting(),
        **loop_settings,
    )
    if progress.reporting():
        jax.effects_barrier()  # the last iterations' ticks reach the bar
    return result


def _self_training(family, options, value, X, rows, initial) -> EMRun:
    """EM-style self-training of a kernel density (``unlabelled_loop="self-training"``).

    A kernel density has no parameters for EM to maximise: with one kernel for all classes
    and the class prior estimated, $p(x) = \\sum_k \\pi_k p(x \\mid k)$ is the density of
    all rows whatever their labels. So the loop is a fixed-point iteration of the labels
    (M-step: the ordinary fit from the responsibilities; E-step: $p(k \\mid x_i)$), with two
    changes:

    - every training row is scored by the *other* rows' kernels (leave-one-out): with its
      own kernel an unlabelled row votes for the class that already holds it, and the
      iteration only hardens its starting guess;
    - the kernels are those of the start ``value`` (fitted from the labelled rows and each
      unlabelled one counted as $\\lambda w_i / K$ of a row in every class), and kept: with
      per-class kernels refitted each step, a class whose covariance grows takes over every
      row.

    The objective is the leave-one-out one, $\\sum_{\\text{labelled}} w_i \\log \\pi_{y_i}
    p_{-i}(x_i \\mid y_i) + \\lambda \\sum_{\\text{unlabelled}} w_i \\log \\sum_k \\pi_k
    p_{-i}(x_i \\mid k)$; the iteration does not ascend it (it usually falls a little as the
    labels harden), and stops when it changes by at most ``tol`` times its size.
    """
    dtype = compute_dtype(X.dtype)
    choice = value.feature_prior

    def refit(responsibilities):  # the ordinary fit, under the fixed kernels
        R = np.asarray(responsibilities).astype(dtype, copy=False)
        class_stats, stats = joint.batch_stats(family, X, R)
        fitted = joint.from_stats(
            family, options.classes, class_stats, stats, options.settings, frozen=choice
        )
        return fitted, R

    def scores(fitted):
        with precision(dtype):
            log_likelihood = kde.leave_one_out_log_likelihood(fitted.params, X, dtype)
            log_prior = objective_log_prior(family, fitted, options.settings)
        return _posterior_and_objective(log_likelihood, fitted, log_prior, rows)

    last = list(refit(initial))
    log_posterior, _ = scores(last[0])

    def step(log_posterior):
        last[:] = refit(
            semi_supervised.responsibilities(
                rows.fixed, rows.unlabeled, rows.weights, log_posterior
            )
        )
        return scores(last[0])

    state = em.run(
        log_posterior, step, tol=options.tol, max_iter=options.max_iter, progress_ticks=True
    )
    return EMRun(last[0], last[1], state.history, state.converged)
