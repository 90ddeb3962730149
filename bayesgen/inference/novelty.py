r"""Tail probabilities: novelty on one scale whatever entries a row is missing.

``score_samples`` gives $s(x) = \log p(x_o)$, the density of a row's *observed* block
$x_o$. Its scale depends on the pattern $o$ of observed entries (a row with two of four
features blank has a far higher density than the same row complete), so one threshold
cannot serve rows with different patterns. The tail probability puts every pattern on the
same scale:

$$
t(x) = P\bigl(s(X_o) \le s(x_o)\bigr), \qquad X \sim p(x) = \sum_k \pi_k\, p(x \mid k),
$$

the probability that a row drawn from the fitted model, with the same entries observed,
is at least as unusual (no more probable). When $s(X_o)$ has a continuous law, $t(X)$
is uniform on (0, 1) for every pattern, so ``tail_probability(X) < 0.01`` flags 1 % of the
rows the model describes, complete or gappy alike.

For one Gaussian class $s$ is a decreasing function of the Mahalanobis distance of the
observed block, whose law is $\chi^2_{d_o}$, so $t$ has the closed form
`bayesgen.families.gaussian.tail.chi_square_tail`. A mixture of classes (every classifier)
has no closed form: $t$ is estimated from ``n_draws`` rows drawn from the model once per
call (the same rows for every pattern), each row scored with the pattern's entries
hidden, as the rank of $s(x_o)$ among the $N$ reference scores $s_j$:

$$
\hat t(x) = \frac{\#\{j : s_j < s(x_o)\} + U\,(1 + \#\{j : s_j = s(x_o)\})}{N + 1},
\qquad U \sim \mathrm{Uniform}(0, 1).
$$

A row from the model and the $N$ reference rows are exchangeable, so its rank among the
$N + 1$ scores is uniform on $\{0, \dots, N\}$ and $\hat t$, with the random tie
break $U$, is *exactly* uniform on (0, 1), for continuous and discrete features alike
(discrete features give ties, which $U$ splits). Its Monte Carlo error as an estimate
of $t$ is about $\sqrt{t(1 - t)/N}$. A row with every entry missing has no observed
block: its tail probability is 1.

Where the observed block takes few values (`BernoulliNB` with at most `MAX_CONFIGURATIONS`
of them), the law of $s(X_o)$ is enumerated instead and
$t = P(s(X_o) < s) + U\,P(s(X_o) = s)$ is exact: no Monte Carlo error at all.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import numpy as np
from sklearn.utils import check_random_state

from bayesgen.missing import missing_entries
from bayesgen.validation import check_count

#: Scores closer than this (relative to their size) count as ties: the same discrete row
#: scored in batches of different sizes may differ in the last bits.
TIE_TOLERANCE = {np.dtype(np.float32): 1e-4, np.dtype(np.float64): 1e-9}

#: Feature values held per batch of hidden-entry copies of the reference rows.
BATCH_VALUES = 2**22

#: Largest number of values of an observed block whose law is enumerated exactly.
MAX_CONFIGURATIONS = 2**14


def _margin(scores: np.ndarray, tolerance: float) -> np.ndarray:
    """How far apart two scores may be and still tie: ``tolerance * max(1, |s|)``, and 0 for
    an infinite score (a row of density 0 ties only with rows of density 0; an infinite
    margin would make every comparison NaN)."""
    with np.errstate(invalid="ignore"):
        return np.where(np.isfinite(scores), tolerance * np.maximum(1.0, np.abs(scores)), 0.0)


def exact_tail(scores, law, uniforms, tolerance: float = 0.0) -> np.ndarray:
    """$P(s(X_o) < s) + U\\,P(s(X_o) = s)$ from every value of the observed block.

    Parameters
    ----------
    scores : ndarray of shape (n_samples,)
        $s(x_o)$ of the rows.
    law : ndarray of shape (n_values,)
        $s$ of every value the observed block can take, a log probability each.
    uniforms : ndarray of shape (n_samples,)
        Uniform(0, 1) draws that split ties.
    tolerance : float, default=0.0
        As in `reference_tail`.

    Returns
    -------
    ndarray of shape (n_samples,)
    """
    law = np.sort(np.asarray(law, dtype=np.float64))
    cumulative = np.r_[0.0, np.cumsum(np.exp(law))]
    scores = np.asarray(scores, dtype=np.float64)
    margin = _margin(scores, tolerance)
    below = cumulative[np.searchsorted(law, scores - margin, side="left")]
    at_most = cumulative[np.searchsorted(law, scores + margin, side="right")]
    return np.minimum(below + uniforms * (at_most - below), 1.0)


def reference_tail(scores, reference, uniforms, tolerance: float = 0.0) -> np.ndarray:
    """The randomised rank $\\hat t$ of each score among reference scores (module docstring).

    Parameters
    ----------
    scores : ndarray of shape (n_samples,)
        $s(x_o)$ of the rows.
    reference : ndarray of shape (n_draws,)
        $s_j$ of rows drawn from the model, with the same entries observed.
    uniforms : ndarray of shape (n_samples,)
        Uniform(0, 1) draws that split ties.
    tolerance : float, default=0.0
        Scores within ``tolerance * max(1, |s|)`` of each other count as equal.

    Returns
    -------
    ndarray of shape (n_samples,)
    """
    reference = np.sort(np.asarray(reference, dtype=np.float64))
    scores = np.asarray(scores, dtype=np.float64)
    margin = _margin(scores, tolerance)
    below = np.searchsorted(reference, scores - margin, side="left")
    equal = np.searchsorted(reference, scores + margin, side="right") - below
    return (below + uniforms * (1.0 + equal)) / (reference.size + 1.0)


def _hidden(reference, missing: np.ndarray):
    """Copies of the reference rows, one per pattern, with that pattern's entries missing.

    ``missing`` is (n_patterns, n_features); the copies are stacked pattern after pattern.
    """
    import pandas as pd

    n_patterns, n_draws = missing.shape[0], reference.shape[0]
    mask = np.repeat(missing, n_draws, axis=0)
    if isinstance(reference, pd.DataFrame):
        stacked = pd.concat([reference] * n_patterns, ignore_index=True)
        return stacked.mask(mask)
    values = np.asarray(reference)
    if values.dtype.kind not in "fc":
        stacked = np.tile(values.astype(object), (n_patterns, 1))
        stacked[mask] = None
        return stacked
    stacked = np.tile(values.astype(np.result_type(values.dtype, np.float32)), (n_patterns, 1))
    stacked[mask] = np.nan
    return stacked


def _check_n_draws(n_draws) -> int:
    return check_count(n_draws, "n_draws")


class Density(NamedTuple):
    """What a tail probability needs of a fitted model: its density and its draws.

    Attributes
    ----------
    score : callable
        ``score(X) -> ndarray``: $\\log p(x_o)$ per row (``score_samples``), validating
        ``X``.
    sample : callable
        ``sample(n, random_state) -> rows``: rows drawn from the model, as ``score`` takes
        them once their hidden entries are blanked.
    as_input : callable
        Drawn values (an array) as ``score`` takes them (a DataFrame with the training
        columns for a model fitted on one).
    stratum : callable or None
        ``stratum(X) -> ndarray``: per row, a function of the observed entries the density
        conditions on (the multinomial's row total); None when there is none.
    reference : callable or None
        ``reference(n, missing, stratum, rng) -> values``: rows of that pattern and
        stratum drawn from the model (with ``stratum``).
    observed_values : callable or None
        ``observed_values(missing) -> values or None``: every value the observed block of
        a pattern can take, when they are few (their law is then enumerated exactly).
    """

    score: Callable
    sample: Callable
    as_input: Callable
    stratum: Callable | None = None
    reference: Callable | None = None
    observed_values: Callable | None = None


def _groups(missing: np.ndarray, strata):
    """``(patterns, strata, rows)``: the distinct (pattern, stratum) pairs and their rows."""
    keys = missing if strata is None else np.column_stack([missing, strata])
    unique, inverse = np.unique(keys, axis=0, return_inverse=True)
    inverse = inverse.ravel()
    order = np.argsort(inverse, kind="stable")
    rows = np.split(order, np.cumsum(np.bincount(inverse))[:-1])
    patterns = unique[:, : missing.shape[1]].astype(bool)
    return patterns, (None if strata is None else unique[:, -1]), rows


def tail_probability(density: Density, X, *, n_draws: int = 4000, random_state=None):
    """$\\hat t(x)$ of every row of ``X`` under a fitted model (module docstring).

    Parameters
    ----------
    density : Density
        The model's density and draws.
    X : array-like of shape (n_samples, n_features)
        Missing entries are NaN (or None for categories).
    n_draws : int, default=4000
        Rows drawn from the model as the reference.
    random_state : None, int or numpy.random.RandomState
        Seeds the reference rows and the tie breaks.

    Returns
    -------
    ndarray of shape (n_samples,)
        In (0, 1]; 1 for a row with every entry missing.
    """
    n_draws = _check_n_draws(n_draws)
    scores = np.asarray(density.score(X))  # validates X as score_samples does
    missing = missing_entries(X)
    rng = check_random_state(random_state)
    uniforms = rng.uniform(size=scores.shape[0])
    stratified = density.stratum is not None
    patterns, strata, groups = _groups(missing, density.stratum(X) if stratified else None)
    tolerance = TIE_TOLERANCE.get(scores.dtype, 1e-9)
    tail = np.ones(scores.shape[0], dtype=np.float64)
    scored = np.flatnonzero(~patterns.all(axis=1))
    exact = []
    for group, law in _enumerated_laws(density, patterns, scored):
        rows = groups[group]
        tail[rows] = exact_tail(scores[rows], law, uniforms[rows], tolerance)
        exact.append(group)
    scored = np.setdiff1d(scored, exact)
    if scored.size and not stratified:  # one set of reference rows serves every pattern
        reference = density.sample(n_draws, rng.randint(2**31 - 1))
    per_batch = max(1, BATCH_VALUES // (n_draws * max(1, missing.shape[1])))
    for start in range(0, scored.size, per_batch):
        batch = scored[start : start + per_batch]
        if stratified:
            drawn = [density.reference(n_draws, patterns[g], strata[g], rng) for g in batch]
            hidden = density.as_input(np.concatenate(drawn))
        else:
            hidden = _hidden(reference, patterns[batch])
        reference_scores = np.asarray(density.score(hidden))
        for position, group in enumerate(batch):
            rows = groups[group]
            own = reference_scores[position * n_draws : (position + 1) * n_draws]
            tail[rows] = reference_tail(scores[rows], own, uniforms[rows], tolerance)
    return tail


def _enumerated_laws(density: Density, patterns: np.ndarray, scored: np.ndarray):
    """``(group, law)`` for the patterns whose observed values the model can list."""
    if density.observed_values is None:
        return
    for group in scored:
        values = density.observed_values(patterns[group])
        if values is not None:
            yield group, np.asarray(density.score(density.as_input(values)))
