r"""Semi-supervised fitting: EM over unlabelled rows on the sufficient-statistics path.

An unlabelled row has the mixture likelihood $\sum_k \pi_k\, p(x \mid k)$
(``004_dce6e695048eec0f.txt``, "unlabeled inputs"). EM alternates

- E-step: $R_{ik} = \lambda\, w_i\, p(k \mid x_i)$ for an unlabelled row (one-hot
  times $w_i$ for a labelled one), under the current parameters;
- M-step: the family's ordinary closed-form fit from $R$ (``_add_rows``), i.e. the
  same conjugate update as a labelled fit.

The objective is $\sum_{\text{labelled}} w_i \log p(x_i, y_i) + \lambda
\sum_{\text{unlabelled}} w_i \log p(x_i)$, plus the log prior whose mode the M-step
takes (``_em_log_prior``): none for ``"mle"``, the prior for ``"map"``, and for the
Dirichlet, Beta and Gamma families under ``"mean"`` the prior with one more pseudo-count,
whose mode is that posterior mean. EM never decreases it. $\lambda$ is the EM-λ
weight of Nigam et al. (2000).
"""

from __future__ import annotations

import copy
import numbers
import warnings

import numpy as np
import pandas as pd
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_random_state

from bayesgen import progress
from bayesgen._precision import compute_dtype, precision
from bayesgen.inference import em
from bayesgen.inference.log_space import log_evidence, normalise
from bayesgen.validation import check_labels, check_positive

EM_ITERATION_DOC = """
    max_iter : int, default=100
        Most EM iterations when ``y`` has unlabelled rows.
    tol : float, default=1e-6
        EM stops when the objective changes by at most ``tol`` times its size.
"""

UNLABELED_MARKER_DOC = """
    unlabeled_marker : int, float, str or None, default=-1
        The label that marks a row of ``y`` as unlabelled; -1 is scikit-learn's
        semi-supervised convention. ``None``: no label marks a row, so -1 is an ordinary
        class. A missing label (None, NaN) is unlabelled either way. A number marks only
        numeric labels and a string only string labels. Where -1 looks like one more
        integer class (-1/+1 coding, classes below -1, or classes 0, 1, … with as many -1
        rows as a class has rows) the default marker warns (`UnlabeledMarkerWarning`).
"""

EM_PARAMETERS_DOC = """
    n_init : int, default=1
        EM over unlabelled rows runs from this many starts and keeps the best objective.
        The first start is the fit on the labelled rows alone; the others give the
        unlabelled rows random class probabilities (``random_state``).
    unlabeled_weight : float, default=1.0
        $\\lambda$, the weight of an unlabelled row relative to a labelled one
        (EM-λ of Nigam et al. 2000); in (0, 1].
    n_classes : int, optional
        Number of classes when no row is labelled (clustering); the classes are then
        ``0 .. n_classes - 1``.
    random_state : None, int or numpy.random.RandomState
        For the random starts of EM.
""" + UNLABELED_MARKER_DOC.lstrip("\n")


_EM_DESCRIPTION = "EM over unlabelled rows"


class UnlabeledMarkerWarning(UserWarning):
    """The default marker -1 made rows unlabelled where -1 may well be a class.

    Raised when the labelled rows' classes are integers that -1 would fit among, such as
    ``{-1, +1}`` coding (1 but no 0) or classes below -1. Pass ``unlabeled_marker=None``
    when -1 is a class; silence the warning with :func:`warnings.filterwarnings` when the
    rows are meant to be unlabelled.
    """


def check_unlabeled_marker(marker):
    """``marker`` when it can mark a label: None, a real number other than NaN, or a string.

    Raises
    ------
    ValueError
        Naming ``unlabeled_marker``, for a bool, NaN, or any other type.
    """
    if marker is None or isinstance(marker, str):
        return marker
    if isinstance(marker, numbers.Real) and not isinstance(marker, (bool, np.bool_)):
        if np.isnan(marker):
            raise ValueError(
                "unlabeled_marker must be a number, a string or None; got NaN (a missing "
                "label is unlabelled whatever the marker)."
            )
        return marker
    raise ValueError(
        f"unlabeled_marker must be a number, a string or None; got {marker!r} "
        f"({type(marker).__name__})."
    )


def unlabeled_rows(y, marker=-1) -> np.ndarray:
    """Where ``y`` marks a row as unlabelled: a missing label, or ``marker``.

    Parameters
    ----------
    y : array-like of shape (n_samples,)
    marker : int, float, str or None, default=-1
        A number matches numeric labels only, a string string labels only; ``None``
        matches nothing (only missing labels are unlabelled).

    Returns
    -------
    numpy.ndarray of bool, shape (n_samples,)
    """
    y = np.asarray(y)
    numeric_marker = isinstance(marker, numbers.Real) and not isinstance(marker, bool)
    if y.dtype.kind in "iu":
        return y == marker if numeric_marker else np.zeros(y.shape, dtype=bool)
    if y.dtype.kind == "f":
        return np.isnan(y) | (y == marker) if numeric_marker else np.isnan(y)
    if y.dtype.kind == "U":
        return y == marker if isinstance(marker, str) else np.zeros(y.shape, dtype=bool)
    if y.dtype == object:
        missing = pd.isna(pd.Series(y)).to_numpy()
        if marker is None:
            return missing
        marked = np.array([_is_marker(value, marker) for value in y], dtype=bool)
        return missing | marked
    return np.zeros(y.shape, dtype=bool)


def _is_marker(value, marker) -> bool:
    if isinstance(marker, str):
        return isinstance(value, str) and value == marker
    return isinstance(value, numbers.Real) and not isinstance(value, bool) and value == marker


def marked_unlabeled(estimator, y, *, stacklevel: int = 3) -> np.ndarray:
    """The unlabelled rows of ``y`` under ``estimator.unlabeled_marker``, warning when the
    default marker -1 sits among integer classes it could belong to (`UnlabeledMarkerWarning`).
    """
    marker = check_unlabeled_marker(getattr(estimator, "unlabeled_marker", -1))
    unlabeled = unlabeled_rows(y, marker)
    marked = int(np.sum(unlabeled & ~unlabeled_rows(y, None)))  # not the missing labels
    if marked:
        labels = np.asarray(y, dtype=object)[~unlabeled]
        warn_if_marker_is_a_class(marker, labels, marked, stacklevel + 1, labels_are_rows=True)
    return unlabeled


def warn_if_marker_is_a_class(
    marker, labels, n_unlabeled: int, stacklevel: int, *, labels_are_rows: bool = False
) -> None:
    """Warn (`UnlabeledMarkerWarning`) when ``marker`` is the default -1, it marked
    ``n_unlabeled`` rows, and -1 looks like one more integer class among the labelled
    rows' ``labels``: 1 but no 0 (-1/+1 coding), a class below -1, or (when ``labels`` holds
    one entry per labelled row, ``labels_are_rows``) classes ``0, 1, …`` with as many -1
    rows as a labelled class has rows (iris coded -1/0/1: three classes of 50)."""
    if isinstance(marker, str) or marker != -1 or not n_unlabeled:
        return
    labels = np.asarray(labels, dtype=object)
    if _minus_one_looks_like_a_class(labels, n_unlabeled if labels_are_rows else None):
        warnings.warn(
            f"y marks {n_unlabeled} rows -1, read as unlabelled (unlabeled_marker=-1), but "
            f"the labelled classes {sorted(set(labels.tolist()))[:10]} look like integer "
            "classes -1 could belong to. If -1 is a class, pass unlabeled_marker=None; if "
            "these rows are unlabelled, silence this UnlabeledMarkerWarning.",
            UnlabeledMarkerWarning,
            stacklevel=stacklevel,
        )


def _minus_one_looks_like_a_class(labels: np.ndarray, n_unlabeled: int | None) -> bool:
    """Whether -1 looks like one more class of the whole-number ``labels``; the class-size
    rule needs ``n_unlabeled`` (None: ``labels`` are distinct values, not rows)."""
    whole = [
        value
        for value in labels
        if isinstance(value, numbers.Real)
        and not isinstance(value, bool)
        and float(value).is_integer()
    ]
    if not labels.size or len(whole) < labels.size:
        return False
    classes, counts = np.unique(np.asarray(whole, dtype=float), return_counts=True)
    if classes.size < 2:  # the fit fails on one class anyway, with its own message
        return False
    if (1 in classes and 0 not in classes) or classes[0] < -1:
        return True
    consecutive = classes[0] == 0 and np.all(np.diff(classes) == 1)
    return bool(
        n_unlabeled is not None and consecutive and counts.min() <= n_unlabeled <= counts.max()
    )


def _check_em_parameters(estimator) -> None:
    for name in ("max_iter", "n_init"):
        value = getattr(estimator, name)
        if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1:
            raise ValueError(f"{name} must be an integer >= 1; got {value!r}.")
    check_positive(estimator.tol, "tol", allow_zero=True)
    weight = check_positive(estimator.unlabeled_weight, "unlabeled_weight")
    if weight > 1:
        raise ValueError(f"unlabeled_weight must be in (0, 1]; got {weight!r}.")
    n_classes = estimator.n_classes
    if n_classes is not None and (
        isinstance(n_classes, bool) or not isinstance(n_classes, numbers.Integral) or n_classes < 2
    ):
        raise ValueError(f"n_classes must be an integer >= 2; got {n_classes!r}.")


def check_n_classes(estimator, classes: np.ndarray) -> None:
    """``n_classes``, when given, must agree with the labelled classes."""
    n_classes = estimator.n_classes
    if n_classes is not None and n_classes != classes.shape[0]:
        raise ValueError(
            f"n_classes={n_classes}, but the labelled rows have {classes.shape[0]} classes "
            f"{classes.tolist()}; classes come from the labelled rows."
        )


def em_classes(estimator, labels: np.ndarray, *, stacklevel: int = 3) -> np.ndarray:
    """The classes of a semi-supervised fit: those of the labelled rows ``labels``, or
    ``0 .. n_classes - 1`` (clustering, with a warning) when there are none."""
    if labels.size:
        classes = np.unique(check_labels(np.asarray(labels, dtype=object).tolist()))
        check_n_classes(estimator, classes)
    else:
        if estimator.n_classes is None:
            raise ValueError(
                "y has no labelled rows: pass n_classes to cluster the rows into that many "
                "classes, or label some rows."
            )
        warnings.warn(
            f"y has no labelled rows: fitting is clustering into n_classes="
            f"{estimator.n_classes} classes 0..{estimator.n_classes - 1}, which are unnamed "
            "and arbitrary in order.",
            UserWarning,
            stacklevel=stacklevel,
        )
        classes = np.arange(estimator.n_classes)
    if classes.shape[0] < 2:
        raise ValueError(
            f"The labelled rows have {classes.shape[0]} class ({classes.tolist()}); a "
            "classifier needs at least two (or no labels and n_classes). If the label "
            f"unlabeled_marker={getattr(estimator, 'unlabeled_marker', -1)!r} is a class, pass "
            "unlabeled_marker=None."
        )
    return classes


def fit(estimator, X, y, unlabeled: np.ndarray, weights: np.ndarray):
    """Fit ``estimator`` by EM on labelled and unlabelled rows; see the module docstring."""
    _check_em_parameters(estimator)
    labeled = ~unlabeled
    labels = np.asarray(y, dtype=object)[labeled]
    classes = em_classes(estimator, labels, stacklevel=4)
    class_index = (
        np.searchsorted(classes, check_labels(labels.tolist()))
        if labels.size
        else np.empty(0, dtype=int)
    )
    estimator.classes_ = classes
    n_classes = classes.shape[0]
    fixed = np.zeros((X.shape[0], n_classes), dtype=np.float64)
    fixed[np.flatnonzero(labeled), class_index] = weights[labeled]
    unlabeled_weights = estimator.unlabeled_weight * weights[unlabeled]
    rng = check_random_state(estimator.random_state)
    best = None
    for start in range(estimator.n_init):
        if start == 0 and labeled.any():
            initial = fixed  # the labelled rows alone
        else:
            initial = fixed.copy()
            random = rng.dirichlet(np.ones(n_classes), size=int(unlabeled.sum()))
            initial[unlabeled] = random * unlabeled_weights[:, None]
        history, converged = _run(estimator, X, fixed, unlabeled, unlabeled_weights, initial)
        if best is None or history[-1] > best[0]:
            best = (history[-1], copy.deepcopy(estimator.__dict__), history, converged)
    return keep_best_run(estimator, best)


def keep_best_run(estimator, best):
    """Restore the best EM run's state and record its history; warn if it did not converge.

    ``best`` is ``(final objective, estimator.__dict__ copy, history, converged)``.
    """
    _, state, history, converged = best
    estimator.__dict__.update(state)
    if not converged:
        warnings.warn(
            f"EM over the unlabelled rows did not converge in max_iter={estimator.max_iter} "
            f"iterations (tol={estimator.tol}); raise max_iter or tol.",
            ConvergenceWarning,
            stacklevel=4,
        )
    estimator._fitted_semi_supervised = True
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
        responsibilities = fixed.copy()
        responsibilities[unlabeled] = np.exp(log_posterior[unlabeled]) * unlabeled_weights[:, None]
        if m_step is None:
            estimator._add_rows(X, responsibilities, reset=True)
        else:  # a model whose M-step inside EM differs from a plain fit (a warm start)
            m_step(X, responsibilities)
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
        log_prior = np.log(estimator.class_prior_).astype(log_likelihood.dtype)
    joint = log_likelihood + log_prior
    log_posterior = normalise(joint, log_prior)
    with np.errstate(invalid="ignore"):
        labelled_term = np.sum(np.where(fixed > 0, fixed * joint, 0.0))
    unlabelled_term = np.sum(unlabeled_weights * log_evidence(joint[unlabeled])[:, 0])
    return log_posterior, float(labelled_term + unlabelled_term + log_prior_of_parameters)
