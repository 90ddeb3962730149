r"""How many mixture components each class gets: held-out log-likelihood, class by class.

Given the rows' classes the class densities of a mixture family are independent, and so is
each class's choice of $M_k$. For every candidate $M$ and each of ``n_folds`` folds (rows
split within each class), the mixture is fitted on the other folds and scored on the fold:
class $k$'s score is its held-out rows' mean $\log p(x_i \mid k)$, weighted by
$R_{ik}$. Each class takes the fewest components whose mean score over the folds is within
one standard error of its best (the one-standard-error rule, as
`bayesgen.synthetic.fewest_components` applies to one $M$ for every class): a class that
more components do not describe better keeps fewer. A held-out row that no candidate can
give a positive density (a category its class's training folds never showed) is left out
of every candidate's score: it would make them all ``-inf`` and the choice blind.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from bayesgen.families.component_mixture import AUTO_CANDIDATES
from bayesgen.inference.sampling import numpy_generator
from bayesgen.joint import family_of


class ComponentChoice(NamedTuple):
    """The outcome of `choose`.

    Attributes
    ----------
    counts : ndarray of int of shape (n_classes,)
        The chosen $M_k$.
    candidates : ndarray of int of shape (n_candidates,)
    scores : ndarray of shape (n_candidates, n_folds, n_classes)
        Each class's held-out mean log-likelihood per row; ``-inf`` where a candidate had
        more components than the class had training rows in that fold (or gave density
        zero to a row another candidate explained), NaN where no held-out row of the class
        was explained by any candidate (the fold is left out of that class's choice).
    """

    counts: np.ndarray
    candidates: np.ndarray
    scores: np.ndarray


def folds(R: np.ndarray, n_folds: int, random_state=None) -> np.ndarray:
    """A fold number per row: each class's rows (by their largest weight) dealt in a
    shuffled order, so every fold holds about ``1 / n_folds`` of each class."""
    rng = numpy_generator(random_state)
    owner = np.argmax(R, axis=1)
    fold = np.empty(R.shape[0], dtype=int)
    for k in range(R.shape[1]):
        rows = np.flatnonzero(owner == k)
        fold[rows[rng.permutation(rows.size)]] = np.arange(rows.size) % n_folds
    return fold


def choose(fit, log_likelihood, R: np.ndarray, candidates, *, n_folds=3, random_state=None):
    """Each class's number of components by held-out log-likelihood (module docstring).

    Parameters
    ----------
    fit : callable
        ``fit(n_components, rows) -> model``: the mixture with ``n_components`` per class
        fitted on the rows of index ``rows``.
    log_likelihood : callable
        ``log_likelihood(model, rows) -> (len(rows), n_classes)`` $\\log p(x_i \\mid k)$.
    R : ndarray of shape (n_samples, n_classes)
        The rows' class weights.
    candidates : sequence of int
        The component counts to compare, each at least 1.
    n_folds : int, default=3
    random_state : None, int or numpy RandomState
        Seeds the folds.

    Returns
    -------
    ComponentChoice

    Raises
    ------
    ValueError
        For no candidates, a candidate below 1 or fewer than 2 folds.
    """
    candidates = np.asarray(sorted(set(int(c) for c in candidates)))
    if candidates.size == 0 or candidates[0] < 1:
        raise ValueError(f"candidates must be integers >= 1; got {candidates.tolist()}.")
    if n_folds < 2:
        raise ValueError(f"n_folds must be at least 2; got {n_folds}.")
    R = np.asarray(R, dtype=np.float64)
    fold = folds(R, n_folds, random_state)
    scores = np.full((candidates.size, n_folds, R.shape[1]), -np.inf)
    for f in range(n_folds):
        train, held = np.flatnonzero(fold != f), np.flatnonzero(fold == f)
        rows_per_class = np.count_nonzero(R[train] > 0, axis=0)
        valid = rows_per_class[None, :] >= candidates[:, None]  # (n_candidates, n_classes)
        values = {
            c: np.asarray(log_likelihood(fit(int(count), train), held), dtype=np.float64)
            for c, count in enumerate(candidates)
            if valid[c].any()
        }
        if values:
            scores[:, f] = _fold_scores(values, valid, R[held], candidates.size)
    return ComponentChoice(_fewest_within_one_error(scores, candidates), candidates, scores)


def _fold_scores(values: dict, valid: np.ndarray, weights: np.ndarray, n_candidates: int):
    """``(n_candidates, n_classes)`` held-out mean log-likelihoods of one fold.

    A held-out row that every candidate fitted for its class gives density zero (a
    category the class's training folds never showed) says nothing about which candidate
    is better: it is left out of every candidate's mean. A row some candidates can explain
    and others cannot still counts, at ``-inf`` for the latter. A class whose held-out rows
    are all left out scores NaN in this fold (no evidence), so the fold drops out of its
    means.
    """
    explained = np.zeros(weights.shape, dtype=bool)
    for c, fold_values in values.items():
        explained |= np.isfinite(fold_values) & valid[c]
    counted = np.where(explained, weights, 0.0)
    totals = counted.sum(axis=0)
    scores = np.full((n_candidates, weights.shape[1]), -np.inf)
    for c, fold_values in values.items():
        terms = (counted * np.where(counted > 0, fold_values, 0.0)).sum(axis=0)
        with np.errstate(invalid="ignore", divide="ignore"):
            mean = np.where(totals > 0, terms / np.where(totals > 0, totals, 1.0), np.nan)
        scores[c] = np.where(valid[c], mean, -np.inf)
    return scores


def _fewest_within_one_error(scores: np.ndarray, candidates: np.ndarray) -> np.ndarray:
    """Per class, the fewest candidates whose mean over folds is within one standard error
    (the best candidate's spread over the folds over their square root) of the best."""
    counts = np.empty(scores.shape[2], dtype=int)
    for k in range(scores.shape[2]):
        # Folds where no held-out row of the class was explained (NaN) carry no evidence.
        informative = ~np.isnan(scores[:, :, k]).any(axis=0)
        n_folds = int(np.count_nonzero(informative))
        with np.errstate(invalid="ignore"):
            means = scores[:, informative, k].mean(axis=1) if n_folds else scores[:, 0, k]
            spreads = scores[:, informative, k].std(axis=1) if n_folds else scores[:, 0, k]
        finite = np.isfinite(means)
        if not finite.any():
            counts[k] = candidates[0]
            continue
        best = int(np.argmax(np.where(finite, means, -np.inf)))
        bar = means[best] - spreads[best] / np.sqrt(n_folds)
        counts[k] = candidates[np.flatnonzero(finite & (means >= bar))[0]]
    return counts


def choose_for_family(family, X, R: np.ndarray, fit, *, random_state=None) -> ComponentChoice:
    """`choose` among `AUTO_CANDIDATES` for a mixture family with ``n_components="auto"``.

    Parameters
    ----------
    family : MixtureFamily
        Its ``with_counts`` gives each candidate's mixture.
    X : ndarray of shape (n_samples, n_features)
        Rows as the family reads them (checked).
    R : ndarray of shape (n_samples, n_classes)
        The rows' class weights.
    fit : callable
        ``fit(candidate, rows) -> FittedJoint``: the ``candidate`` mixture (each class's
        count at most its rows in the fold) fitted on the rows of index ``rows``; the
        caller supplies its starts and what its leaf holds fixed.
    random_state : None, int or numpy RandomState
        Seeds the folds.

    Returns
    -------
    ComponentChoice
    """

    def fit_count(count, rows):
        rows_per_class = np.count_nonzero(R[rows] > 0, axis=0)
        candidate = family.with_counts(np.minimum(count, rows_per_class).clip(1))
        return candidate, fit(candidate, rows)

    def log_likelihood(fitted, rows):
        candidate, value = fitted
        learned = family_of(candidate, value)
        return learned.log_likelihood(value.params, learned.encode(X[rows]))

    return choose(fit_count, log_likelihood, R, AUTO_CANDIDATES, random_state=random_state)
