r"""Semi-supervised fitting: EM over unlabelled rows on the sufficient-statistics path.

An unlabelled row has the mixture likelihood $\sum_k \pi_k\, p(x \mid k)$
(``004_dce6e695048eec0f.txt``, "unlabeled inputs"). EM alternates

- E-step: $R_{ik} = \lambda\, w_i\, p(k \mid x_i)$ for an unlabelled row (one-hot
  times $w_i$ for a labelled one), under the current parameters;
- M-step: the family's ordinary closed-form fit from $R$, i.e. the same conjugate update
  as a labelled fit.

The objective is $\sum_{\text{labelled}} w_i \log p(x_i, y_i) + \lambda
\sum_{\text{unlabelled}} w_i \log p(x_i)$, plus the log prior whose mode the M-step
takes: none for ``"mle"``, the prior for ``"map"``, and for the
Dirichlet, Beta and Gamma families under ``"mean"`` the prior with one more pseudo-count,
whose mode is that posterior mean. EM never decreases it. $\lambda$ is the EM-λ
weight of Nigam et al. (2000).

This module holds the pieces, over labels and arrays: which rows are unlabelled, the
checked EM keywords, the classes, the starting and M-step responsibilities and the E-step
with its objective. The loop that fits an estimator with them, restarts included, is
`bayesgen.estimators.semi_supervised_fit`, driven by `bayesgen.inference.em.run`.
"""

from __future__ import annotations

import numbers
import warnings
from typing import NamedTuple

import numpy as np
import pandas as pd

from bayesgen.inference.log_space import log_evidence, normalise
from bayesgen.validation import caller_stacklevel, check_count, check_labels, check_positive

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


def marked_unlabeled(y, marker=-1) -> np.ndarray:
    """The unlabelled rows of ``y`` under the unlabelled-row ``marker``, warning when the
    default marker -1 sits among integer classes it could belong to (`UnlabeledMarkerWarning`).
    """
    marker = check_unlabeled_marker(marker)
    unlabeled = unlabeled_rows(y, marker)
    marked = int(np.sum(unlabeled & ~unlabeled_rows(y, None)))  # not the missing labels
    if marked:
        labels = np.asarray(y, dtype=object)[~unlabeled]
        warn_if_marker_is_a_class(marker, labels, marked, labels_are_rows=True)
    return unlabeled


def warn_if_marker_is_a_class(
    marker, labels, n_unlabeled: int, *, labels_are_rows: bool = False
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
            stacklevel=caller_stacklevel(),
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


class SemiSupervisedSettings(NamedTuple):
    """The EM keywords of a semi-supervised fit, checked (`check_em_settings`)."""

    max_iter: int
    tol: float
    n_init: int
    unlabeled_weight: float
    n_classes: int | None
    marker: object = -1


def check_em_settings(max_iter, tol, n_init, unlabeled_weight, n_classes, marker=-1):
    """`SemiSupervisedSettings` when every keyword is valid, else a ValueError naming it."""
    check_count(max_iter, "max_iter")
    check_count(n_init, "n_init")
    check_positive(tol, "tol", allow_zero=True)
    weight = check_positive(unlabeled_weight, "unlabeled_weight")
    if weight > 1:
        raise ValueError(f"unlabeled_weight must be in (0, 1]; got {weight!r}.")
    if n_classes is not None and (
        isinstance(n_classes, bool) or not isinstance(n_classes, numbers.Integral) or n_classes < 2
    ):
        raise ValueError(f"n_classes must be an integer >= 2; got {n_classes!r}.")
    return SemiSupervisedSettings(int(max_iter), tol, int(n_init), weight, n_classes, marker)


def check_n_classes(n_classes, classes: np.ndarray) -> None:
    """``n_classes``, when given, must agree with the labelled classes."""
    if n_classes is not None and n_classes != classes.shape[0]:
        raise ValueError(
            f"n_classes={n_classes}, but the labelled rows have {classes.shape[0]} classes "
            f"{classes.tolist()}; classes come from the labelled rows."
        )


def em_classes(labels: np.ndarray, n_classes, marker=-1) -> np.ndarray:
    """The classes of a semi-supervised fit: those of the labelled rows ``labels``, or
    ``0 .. n_classes - 1`` (clustering, with a warning) when there are none."""
    if labels.size:
        classes = np.unique(check_labels(np.asarray(labels, dtype=object).tolist()))
        check_n_classes(n_classes, classes)
    else:
        if n_classes is None:
            raise ValueError(
                "y has no labelled rows: pass n_classes to cluster the rows into that many "
                "classes, or label some rows."
            )
        warnings.warn(
            f"y has no labelled rows: fitting is clustering into n_classes="
            f"{n_classes} classes 0..{n_classes - 1}, which are unnamed "
            "and arbitrary in order.",
            UserWarning,
            stacklevel=caller_stacklevel(),
        )
        classes = np.arange(n_classes)
    if classes.shape[0] < 2:
        raise ValueError(
            f"The labelled rows have {classes.shape[0]} class ({classes.tolist()}); a "
            "classifier needs at least two (or no labels and n_classes). If the label "
            f"unlabeled_marker={marker!r} is a class, pass "
            "unlabeled_marker=None."
        )
    return classes


def fixed_responsibilities(labeled, class_index, weights, n_classes: int) -> np.ndarray:
    """``(n_samples, n_classes)``: one-hot times the weight for a labelled row, 0 otherwise."""
    fixed = np.zeros((labeled.shape[0], n_classes), dtype=np.float64)
    fixed[np.flatnonzero(labeled), class_index] = weights[labeled]
    return fixed


def starting_responsibilities(fixed, unlabeled, unlabeled_weights, rng, *, random: bool):
    """The responsibilities an EM run starts from: the labelled rows alone, or (``random``)
    the unlabelled rows given random class probabilities (Dirichlet(1) draws from ``rng``)."""
    if not random:
        return fixed
    initial = fixed.copy()
    draws = rng.dirichlet(np.ones(fixed.shape[1]), size=int(unlabeled.sum()))
    initial[unlabeled] = draws * unlabeled_weights[:, None]
    return initial


def responsibilities(fixed, unlabeled, unlabeled_weights, log_posterior) -> np.ndarray:
    r"""The M-step's responsibilities: ``fixed`` with each unlabelled row weighted by its
    $\lambda\, w_i\, p(k \mid x_i)$."""
    R = fixed.copy()
    R[unlabeled] = np.exp(log_posterior[unlabeled]) * unlabeled_weights[:, None]
    return R


def e_step(log_joint, log_class_prior, fixed, unlabeled, unlabeled_weights, log_prior):
    r"""``(log p(k | x), objective)`` from the rows' ``log p(x, k)`` under the current
    parameters: the posterior of every row, and the EM objective (labelled rows'
    $w_i \log p(x_i, y_i)$, unlabelled rows' $\lambda w_i \log p(x_i)$, plus the
    parameters' ``log_prior``)."""
    log_posterior = normalise(log_joint, log_class_prior)
    with np.errstate(invalid="ignore"):
        labelled_term = np.sum(np.where(fixed > 0, fixed * log_joint, 0.0))
    unlabelled_term = np.sum(unlabeled_weights * log_evidence(log_joint[unlabeled])[:, 0])
    return log_posterior, float(labelled_term + unlabelled_term + log_prior)
