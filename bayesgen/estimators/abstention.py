r"""Decisions that may abstain: Chow's rule, with or without a cost matrix.

The actions are the $K$ classes and one more, *abstain*. With $C_{kj}$ the cost of
predicting $j$ when the truth is $k$ and $c > 0$ the cost of abstaining whatever the
truth, the posterior expected costs are

$$
R_j(x) = \sum_k C_{kj}\,p(k \mid x), \qquad R_{\text{abstain}}(x) = c,
$$

and the Bayes decision takes the cheapest action: it abstains exactly when
$\min_j R_j(x) > c$ (a tie goes to the class). Under 0-1 loss, $C = 1 - I$,
$R_j = 1 - p(j \mid x)$, so the rule abstains when $\max_k p(k \mid x) < 1 - c$: Chow's
rule (Chow 1970, *On optimum recognition error and reject tradeoff*), meaningful for
$c \in (0, 1)$ (at $c \ge 1 - 1/K$ it never abstains).

An abstained row gets the *abstain label*. The default is the label that ``fit`` reads
as an unlabelled row, so it is never a class: -1 for integer and floating classes (in
their dtype; a signed one for unsigned classes), ``None`` for any other classes
(strings, booleans, objects; the result is then an object array). Predictions with
abstentions can thus go back into ``fit`` as ``y``: the abstained rows enter as
unlabelled.
"""

from __future__ import annotations

import numbers

import numpy as np

ABSTAIN = -1
"""The action index of abstaining (class indices are 0 .. n_classes - 1)."""


def check_reject(reject, *, with_cost: bool) -> float:
    """The abstention cost: in (0, 1) under 0-1 loss, positive and finite with a cost matrix."""
    is_real = isinstance(reject, numbers.Real) and not isinstance(reject, bool)
    if with_cost:
        if not is_real or not np.isfinite(reject) or reject <= 0:
            raise ValueError(
                "reject must be a positive finite number with cost= (the cost of abstaining, "
                f"on the scale of the cost matrix); got {reject!r}."
            )
    elif not is_real or not 0 < reject < 1:
        raise ValueError(
            "reject must be a number in (0, 1), the cost of abstaining relative to an "
            f"error's cost 1 (abstain where max p(k | x) < 1 - reject); got {reject!r}."
        )
    return float(reject)


def check_novelty_level(level) -> float:
    """The tail-probability level below which a row is abstained on, in (0, 1)."""
    is_real = isinstance(level, numbers.Real) and not isinstance(level, bool)
    if not is_real or not 0 < level < 1:
        raise ValueError(
            "reject_novelty must be a number in (0, 1), the tail probability below which a "
            f"row is abstained on; got {level!r}."
        )
    return float(level)


def abstain_label_for(classes: np.ndarray, abstain_label=None):
    """``abstain_label``, or the default for ``classes``; a label equal to a class is an error."""
    if abstain_label is None:
        abstain_label = ABSTAIN if classes.dtype.kind in "iuf" else None
        given = False
    else:
        given = True
    if np.ndim(abstain_label) != 0:
        raise ValueError(f"abstain_label must be a single label; got {abstain_label!r}.")
    for label in classes.tolist():
        if _equal(label, abstain_label):
            name = "abstain_label=" if given else "the default abstain_label "
            raise ValueError(
                f"{name}{abstain_label!r} equals the class {label!r} of classes_ "
                f"{classes.tolist()}; an abstention would read as that class: pass "
                "another abstain_label."
            )
    return abstain_label


def _equal(label, abstain_label) -> bool:
    try:
        return bool(label == abstain_label)
    except (TypeError, ValueError):  # labels that do not compare are not equal
        return False


def bayes_actions(proba: np.ndarray, cost=None, reject=None) -> np.ndarray:
    """The action of least posterior expected cost per row: a class index, or `ABSTAIN`.

    Parameters
    ----------
    proba : ndarray of shape (n_samples, n_classes)
        Class probabilities.
    cost : ndarray of shape (n_classes, n_classes), optional
        Validated cost matrix, ``cost[k, j]`` for predicting ``j`` when the truth is ``k``;
        None is 0-1 loss.
    reject : float, optional
        Validated abstention cost; None never abstains.

    Returns
    -------
    ndarray of shape (n_samples,)
        Class indices, ``ABSTAIN`` (-1) where abstaining is strictly cheaper.
    """
    rows = np.arange(proba.shape[0])
    if cost is None:
        best = np.argmax(proba, axis=1)
        if reject is None:
            return best
        top = np.asarray(proba[rows, best], dtype=np.float64)  # float32 rows: exact threshold
        return np.where(top < 1.0 - reject, ABSTAIN, best)
    expected = proba @ cost  # [i, j] = sum_k p(k | x_i) C[k, j]
    best = np.argmin(expected, axis=1)
    if reject is None:
        return best
    return np.where(expected[rows, best] > reject, ABSTAIN, best)


def labelled(classes: np.ndarray, actions: np.ndarray, abstain_label) -> np.ndarray:
    """``classes[actions]`` with ``abstain_label`` where the action is `ABSTAIN`.

    The dtype depends on the classes and the label only, never on whether a row abstained:
    the classes' dtype when it holds the label (-1 for integer classes), a string dtype
    wide enough for string classes and a string label, otherwise object.
    """
    dtype = _label_dtype(classes.dtype, abstain_label)
    labels = classes.astype(dtype)[np.maximum(actions, 0)]
    labels[actions == ABSTAIN] = abstain_label
    return labels


def _label_dtype(classes_dtype: np.dtype, abstain_label) -> np.dtype:
    if abstain_label is None or isinstance(abstain_label, (bool, np.bool_)):
        return np.dtype(object)
    value = np.asarray(abstain_label)
    if value.dtype.kind in "US" and classes_dtype.kind == value.dtype.kind:
        return np.result_type(classes_dtype, value.dtype)
    if value.dtype.kind in "iuf" and classes_dtype.kind in "iuf":
        try:
            if np.array(abstain_label, dtype=classes_dtype) == abstain_label:
                return classes_dtype
        except (OverflowError, ValueError):  # -1 for unsigned classes, say
            pass
        return np.result_type(classes_dtype, value.dtype)
    return np.dtype(object)
