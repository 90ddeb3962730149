r"""Fitting an estimator by EM over unlabelled rows, restarts included.

The pieces are `bayesgen.inference.semi_supervised`'s (responsibilities, E-step and
objective) and the loop is `bayesgen.inference.em.run`; this module drives them with the
estimator's M-step (its ordinary fit from responsibilities, or ``_em_m_step`` where the
M-step inside EM differs) and its log-likelihood. A family with a loop of its own
(``_jitted_em``: a Gaussian without missing values, the kernel density's self-training)
runs it instead.

Each start runs on the estimator itself; the fitted value of the best start (highest final
objective, ``_fitted_state``: ``joint_`` and what the fit sets beside it) is kept and put
back once all have run.
"""

from __future__ import annotations

import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_random_state

from bayesgen import progress
from bayesgen._precision import compute_dtype, precision
from bayesgen.inference import em, semi_supervised
from bayesgen.validation import check_labels

_EM_DESCRIPTION = "EM over unlabelled rows"


def em_settings(estimator) -> semi_supervised.SemiSupervisedSettings:
    """The estimator's EM keywords, checked."""
    return semi_supervised.check_em_settings(
        estimator.max_iter,
        estimator.tol,
        estimator.n_init,
        estimator.unlabeled_weight,
        estimator.n_classes,
        getattr(estimator, "unlabeled_marker", -1),
    )


def fit(estimator, X, y, unlabeled: np.ndarray, weights: np.ndarray):
    """Fit ``estimator`` by EM on labelled and unlabelled rows (module docstring)."""
    settings = em_settings(estimator)
    labeled = ~unlabeled
    labels = np.asarray(y, dtype=object)[labeled]
    classes = semi_supervised.em_classes(labels, settings.n_classes, settings.marker, stacklevel=4)
    class_index = (
        np.searchsorted(classes, check_labels(labels.tolist()))
        if labels.size
        else np.empty(0, dtype=int)
    )
    estimator.classes_ = classes
    fixed = semi_supervised.fixed_responsibilities(labeled, class_index, weights, len(classes))
    unlabeled_weights = settings.unlabeled_weight * weights[unlabeled]
    rng = check_random_state(estimator.random_state)
    best = None
    for start in range(settings.n_init):
        random = not (start == 0 and labeled.any())
        initial = semi_supervised.starting_responsibilities(
            fixed, unlabeled, unlabeled_weights, rng, random=random
        )
        history, converged = _run(estimator, X, fixed, unlabeled, unlabeled_weights, initial)
        if best is None or history[-1] > best[0]:
            best = (history[-1], estimator._fitted_state(), history, converged)
    return keep_best_run(estimator, best)


def keep_best_run(estimator, best):
    """Restore the best EM run's fitted value and record its history; warn if it did not
    converge.

    ``best`` is ``(final objective, the estimator's _fitted_state, history, converged)``.
    """
    _, state, history, converged = best
    estimator._restore_fitted_state(state)
    if not converged:
        warnings.warn(
            f"EM over the unlabelled rows did not converge in max_iter={estimator.max_iter} "
            f"iterations (tol={estimator.tol}); raise max_iter or tol.",
            ConvergenceWarning,
            stacklevel=4,
        )
    estimator.fitted_with_unlabeled_ = True
    estimator.n_iter_ = len(history)
    estimator.converged_ = converged
    estimator.log_likelihood_history_ = np.asarray(history)
    return estimator


def _run(estimator, X, fixed, unlabeled, unlabeled_weights, initial):
    """One EM run from the responsibilities ``initial``: (objective history, converged).

    A family may run the whole loop itself (``_jitted_em``, Gaussian models without missing
    values); otherwise each iteration is a vectorised pass driven from here, whose M-step is
    the estimator's ``_em_m_step(X, R)`` where it has one (it may use the current
    parameters), else the plain fit ``_add_rows(X, R, reset=True)``.
    """
    jitted = getattr(estimator, "_jitted_em", None)
    if jitted is not None and not np.isnan(np.asarray(X, dtype=float)).any():
        with progress.progress_bar(estimator.max_iter, _EM_DESCRIPTION):
            result = jitted(X, fixed, unlabeled, unlabeled_weights, initial)
        if result is not None:  # None: the family's loop does not apply to this model
            return result
    with warnings.catch_warnings():
        # Only a start: with missing values this runs EM over them on the labelled rows,
        # and whether that converges is beside the point once the outer EM takes over.
        warnings.simplefilter("ignore", ConvergenceWarning)
        estimator._add_rows(X, initial, reset=True)
    # One pass per iteration: the E-step's log posteriors also give the objective of the
    # parameters they were computed under.
    log_posterior, _ = _e_step(estimator, X, fixed, unlabeled, unlabeled_weights)
    m_step = getattr(estimator, "_em_m_step", None)

    def step(log_posterior):
        R = semi_supervised.responsibilities(fixed, unlabeled, unlabeled_weights, log_posterior)
        if m_step is None:
            estimator._add_rows(X, R, reset=True)
        else:  # a model whose M-step inside EM differs from a plain fit (a warm start)
            m_step(X, R)
        return _e_step(estimator, X, fixed, unlabeled, unlabeled_weights)

    with progress.progress_bar(estimator.max_iter, _EM_DESCRIPTION):
        state = em.run(
            log_posterior, step, tol=estimator.tol, max_iter=estimator.max_iter, progress_ticks=True
        )
    return state.history, state.converged


def _e_step(estimator, X, fixed, unlabeled, unlabeled_weights):
    """``log p(k | x)`` of every row under the current parameters, and the EM objective."""
    dtype = compute_dtype(X.dtype)
    with precision(dtype):
        log_likelihood = np.asarray(estimator._log_likelihood(X, dtype, row_terms=True))
        log_prior_of_parameters = estimator._em_log_prior()  # in X's precision, like the rest
    with np.errstate(divide="ignore"):
        log_class_prior = np.log(estimator.class_prior_).astype(log_likelihood.dtype)
    return semi_supervised.e_step(
        log_likelihood + log_class_prior,
        log_class_prior,
        fixed,
        unlabeled,
        unlabeled_weights,
        log_prior_of_parameters,
    )
