r"""Proper multiple imputation: completed copies, each under its own parameter draw.

Copy $i$ of $m$ takes a draw $\theta_i \sim p(\theta \mid \mathcal D)$ of the parameters,
then each row's class $k \sim p(k \mid x_o, \theta_i)$ (or its known label) and its missing
entries $x_m \sim p(x_m \mid x_o, k, \theta_i)$, so the spread between the copies holds the
uncertainty about the parameters as well as about the entries (Rubin's "proper"
imputation). Functions of the family, the fitted value and the draws, never an estimator.

The copies are made side by side: the family lays a stack of draws out as one model over
``n_draws * n_classes`` classes (``family.side_by_side``), so every draw's class
posterior comes from one scoring of the rows (`bayesgen.inference.posterior_draws`), and
the rows, repeated once per draw with their weights on that draw's classes only, are
filled by one call of the family's conditional. A Gaussian fit thereby factors the
observed blocks of all copies in one stack per number of missing entries.
"""

from __future__ import annotations

import math

import numpy as np

from bayesgen.inference import class_posterior, posterior_draws

#: Copies scored and filled in one stack: at most about this many entries in the stack's
#: largest arrays (its rows x its classes x the features, the layout of a count family's
#: conditional; a Gaussian's classes x features x features).
STACK_ENTRIES = 2**22


def check_n_imputations(n_imputations) -> int:
    """``n_imputations`` as an int, or a ValueError naming it."""
    if isinstance(n_imputations, bool) or not isinstance(n_imputations, (int, np.integer)):
        raise ValueError(f"n_imputations must be an integer >= 1; got {n_imputations!r}.")
    if n_imputations < 1:
        raise ValueError(f"n_imputations must be >= 1; got {n_imputations}.")
    return int(n_imputations)


def _apply(function, values):
    """``function`` of an array, or of each array of a dict of them (a composite's groups)."""
    if isinstance(values, dict):
        return {name: _apply(function, part) for name, part in values.items()}
    return function(np.asarray(values))


def _stack_size(n_rows: int, n_classes: int, n_features: int) -> int:
    """Draws side by side in one stack: the family over ``size * n_classes`` classes holds
    (rows x classes x features) and (classes x features x features) arrays, and the rows
    are repeated once per draw, so both are bounded by `STACK_ENTRIES`."""
    by_rows = math.isqrt(STACK_ENTRIES // max(1, n_rows * n_classes * n_features))
    by_features = STACK_ENTRIES // max(1, n_classes * n_features * n_features)
    return max(1, min(by_rows, by_features))


def _n_features(X) -> int:
    """Columns of checked rows (an array, or a composite's groups with the table's shape)."""
    shape = getattr(X, "shape", (len(X),))
    return shape[1] if len(shape) > 1 else 1


def _stacks(draws: dict, size: int):
    """The draws' sites in stacks of ``size`` draws."""
    n_draws = next(iter(draws.values())).shape[0]
    for start in range(0, n_draws, size):
        yield {name: value[start : start + size] for name, value in draws.items()}


def _draw(draws: dict, index: int) -> dict:
    """Draw ``index`` of the parameter sites (the class probabilities left out)."""
    return {name: value[index] for name, value in draws.items() if name != "class_prior"}


def class_weights_under_draws(family, joint, X, draws: dict, known, dtype):
    """Each draw's class weights of the rows of ``X``: $p(k \\mid x_o, \\theta_i)$, or the
    known label's one-hot weights.

    Parameters
    ----------
    family : FeatureFamily
        With what the fit learned (``estimator._feature_family()``).
    joint : FittedJoint
        The fit the draws are of (its class probabilities stand in for undrawn ones).
    X : array-like
        Rows as the family reads them (checked).
    draws : dict
        The family's parameter sites, each (n_draws, ...), and optionally
        ``"class_prior"`` (n_draws, n_classes).
    known : tuple or None
        ``(rows, weights)``: the rows whose label is known (boolean, (n_samples,)) and
        their one-hot weights; None when no label is known.
    dtype : numpy dtype
        The scoring's precision.

    Returns
    -------
    weights : ndarray of shape (n_draws, n_samples, n_classes)
    n_impossible : int
        The most rows without a known label that one draw gives probability zero under
        every class (they get the class prior; the caller warns).
    """
    size = _stack_size(len(X), len(joint.classes), _n_features(X))
    weights, n_impossible = [], 0
    for stack in _stacks(draws, size):
        index = 0
        for log_joint, log_prior in posterior_draws.log_joint_draws(family, joint, X, stack, dtype):
            for s in range(log_joint.shape[0]):
                params = family.params_from_sites(_draw(stack, index))
                index += 1
                scores = class_posterior.overflowed_as_zero(log_joint[s], params)
                if known is not None:  # their class is given: nothing to score
                    scores = scores.copy()
                    scores[known[0]] = 0.0
                posterior, impossible = class_posterior.from_joint(
                    family, params, X, scores, log_prior[min(s, len(log_prior) - 1), 0], log=False
                )
                if known is not None:
                    posterior[known[0]] = known[1]
                weights.append(posterior)
                n_impossible = max(n_impossible, impossible)
    return np.stack(weights), n_impossible


def copies_under_draws(family, X, draws: dict, class_weights: np.ndarray, rng) -> list:
    """The family's draws of the missing entries of ``X`` under each parameter draw.

    Parameters
    ----------
    family : FeatureFamily
        With what the fit learned.
    X : array-like
        Rows as the family reads them (checked), NaN where missing.
    draws : dict
        The family's parameter sites, each (n_draws, ...) (``"class_prior"`` is ignored).
    class_weights : ndarray of shape (n_draws, n_samples, n_classes)
        Each draw's class weights (`class_weights_under_draws`).
    rng : numpy.random.Generator

    Returns
    -------
    list of n_draws
        Each draw's filled rows as the family decodes them (``family.decode`` of its
        ``conditional``; a dict of groups for a composite); observed entries are as the
        family gives them back, so the caller puts the given ones in place.
    """
    _, n_rows, n_classes = class_weights.shape
    encoded = family.encode(X)
    per_stack = _stack_size(n_rows, n_classes, _n_features(X))
    copies = []
    for stack in _stacks(draws, per_stack):
        stack.pop("class_prior", None)
        wide_family, wide_params = family.side_by_side(stack)
        size, start = next(iter(stack.values())).shape[0], len(copies)
        # Copy i's rows weigh only draw i's classes: a block-diagonal stack of weights.
        weights = np.zeros((size, n_rows, size, n_classes))
        weights[np.arange(size), :, np.arange(size)] = class_weights[start : start + size]
        rows = _apply(lambda part, n=size: np.tile(part, (n,) + (1,) * (part.ndim - 1)), encoded)
        filled = wide_family.decode(
            wide_family.conditional(
                wide_params, rows, weights.reshape(size * n_rows, -1), "sample", rng
            )
        )
        copies += [
            _apply(lambda part, i=i: part[i * n_rows : (i + 1) * n_rows], filled)
            for i in range(size)
        ]
    return copies
