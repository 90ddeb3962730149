r"""How many mixture components each class gets: held-out log-likelihood, class by class.

Given the rows' classes the class densities of a mixture family are independent, and so is
each class's choice of $M_k$. For every candidate $M$ and each of ``n_folds`` folds (rows
split within each class), the mixture is fitted on the other folds and scored on the fold:
class $k$'s score is its held-out rows' mean $\log p(x_i \mid k)$, weighted by
$R_{ik}$. Each class takes the fewest components whose mean score over the folds is within
one standard error of its best (the one-standard-error rule, as
`bayesgen.synthetic.fewest_components` applies to one $M$ for every class): a class that
more components do not describe better keeps fewer.
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
        more components than the class had training rows in that fold.
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
        weights = R[held]
        totals = weights.sum(axis=0)
        for c, count in enumerate(candidates):
            if np.all(rows_per_class < count):
                continue
            fitted = fit(int(count), train)
            values = np.asarray(log_likelihood(fitted, held), dtype=np.float64)
            terms = np.where(weights > 0, weights * values, 0.0).sum(axis=0)
            with np.errstate(invalid="ignore", divide="ignore"):
                mean = terms / totals
            scores[c, f] = np.where(rows_per_class >= count, mean, -np.inf)
    return ComponentChoice(_fewest_within_one_error(scores, candidates), candidates, scores)


def _fewest_within_one_error(scores: np.ndarray, candidates: np.ndarray) -> np.ndarray:
    """Per class, the fewest candidates whose mean over folds is within one standard error
    (the best candidate's spread over the folds over their square root) of the best."""
    n_folds = scores.shape[1]
    with np.errstate(invalid="ignore"):
        means = scores.mean(axis=1)  # (n_candidates, n_classes)
        spreads = scores.std(axis=1)
    counts = np.empty(scores.shape[2], dtype=int)
    for k in range(scores.shape[2]):
        finite = np.isfinite(means[:, k])
        if not finite.any():
            counts[k] = candidates[0]
            continue
        best = int(np.argmax(np.where(finite, means[:, k], -np.inf)))
        bar = means[best, k] - spreads[best, k] / np.sqrt(n_folds)
        counts[k] = candidates[np.flatnonzero(finite & (means[:, k] >= bar))[0]]
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
