r"""Fitting an estimator by EM over unlabelled rows, restarts included.

Each start is the estimator's ordinary fit of its responsibilities; from there the run is
`bayesgen.inference.unlabelled_em.run`, over the family, the fitted value and the model's
`bayesgen.inference.fit_rows.FitOptions`, and returns a value. Of all starts the run with
the highest final objective is kept: its value goes back into the estimator
(``_keep_value``, with what a fit sets beside it from the rows).
"""

from __future__ import annotations

import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_random_state

from bayesgen._precision import compute_dtype
from bayesgen.inference import semi_supervised, unlabelled_em
from bayesgen.validation import caller_stacklevel, check_labels


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
    classes = semi_supervised.em_classes(labels, settings.n_classes, settings.marker)
    class_index = (
        np.searchsorted(classes, check_labels(labels.tolist()))
        if labels.size
        else np.empty(0, dtype=int)
    )
    estimator.classes_ = classes
    fixed = semi_supervised.fixed_responsibilities(labeled, class_index, weights, len(classes))
    rows = unlabelled_em.UnlabelledRows(
        fixed, unlabeled, settings.unlabeled_weight * weights[unlabeled]
    )
    rng = check_random_state(estimator.random_state)
    best = None
    for start in range(settings.n_init):
        random = not (start == 0 and labeled.any())
        initial = semi_supervised.starting_responsibilities(
            fixed, unlabeled, rows.weights, rng, random=random
        )
        run = _run(estimator, X, rows, initial)
        if best is None or run.history[-1] > best.history[-1]:
            best = run
    estimator._keep_value(best.value, X, best.responsibilities)
    return record_run(estimator, best.history, best.converged)


def record_run(estimator, history, converged: bool):
    """Record the kept EM run's history on ``estimator``; warn if it did not converge."""
    if not converged:
        warnings.warn(
            f"EM over the unlabelled rows did not converge in max_iter={estimator.max_iter} "
            f"iterations (tol={estimator.tol}); raise max_iter or tol.",
            ConvergenceWarning,
            stacklevel=caller_stacklevel(),
        )
    estimator.fitted_with_unlabeled_ = True
    estimator.n_iter_ = len(history)
    estimator.converged_ = converged
    estimator.log_likelihood_history_ = np.asarray(history)
    return estimator


def _run(estimator, X, rows, initial) -> unlabelled_em.EMRun:
    """One EM run from the responsibilities ``initial``: the start value is the model's
    ordinary fit of the responsibilities the family's loop starts from, and the loop
    (`bayesgen.inference.unlabelled_em.run`) takes it from there."""
    loop = unlabelled_em.loop_for(estimator._base_family(), estimator._fit_settings(), X)
    start = unlabelled_em.start_responsibilities(loop, rows, initial)
    with warnings.catch_warnings():
        # Only a start: with missing values this runs EM over them on the labelled rows,
        # and whether that converges is beside the point once the outer EM takes over.
        if loop == "em":
            warnings.simplefilter("ignore", ConvergenceWarning)
        estimator._add_rows(X, start, reset=True)
    # What a mixture's leaf holds through the run is resolved from EM's row totals, which
    # every M-step's responsibilities share (not from the start's, which may leave out the
    # unlabelled rows).
    totals = unlabelled_em.row_totals(rows).astype(compute_dtype(X.dtype), copy=False)
    options = estimator._fit_options(X, totals)
    family = estimator._base_family()
    return unlabelled_em.run(loop, family, options, estimator.joint_, X, rows, initial)
