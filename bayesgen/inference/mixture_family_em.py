r"""EM for `MixtureFamily`: the components of every class density, over any leaf family.

One iteration, from memberships $\gamma$ (n, K, M):

1. statistics of the sub-classes with responsibilities $R_{ik}\gamma_{ikm}$, then the
   point estimate (M-step: the leaf's own, and the Dirichlet estimate of the weights);
2. the objective of those parameters, $\sum_{ik} R_{ik} \log p(x_i \mid k) + \log p(\theta)$
   (the log prior whose mode the estimate is, so the objective never decreases), and the
   memberships under them (E-step), in the same pass.

A leaf that cannot skip missing entries (a Gaussian with dependent features) joins them to
the same EM: from its parameters the E-step gives the memberships (each row's observed-block
density) and the leaf's expected statistics of the completed rows under the sub-classes'
responsibilities (``leaf.expected_stats``), so components and missing entries are one EM,
its steps extrapolated by SQUAREM as Gaussian EM over missing entries is
(`bayesgen.inference.gaussian_em`). The leaf's ridge and prior are held fixed from the
start (``frozen``), so that every iteration climbs one objective.

Each step reads the rows as the family fixed them once (`FeatureFamily.fixed_rows`), and
where every row has one class and the leaf `slices_classes`, the E-step scores each row
under its own class's components only (`ClassRows`): the other classes' scores were
computed to be weighted by 0.

The driver is `bayesgen.inference.em.run` (or `em.run_extrapolated`), with its one
convergence rule. Restarts start from random memberships (a Dirichlet(1) draw per row and
class) from one seeded NumPy generator, so a fit is reproducible from ``random_state``.
Where the leaf splits its log prior by class (`MixtureFamily.class_log_prior`) the classes'
mixtures are independent given the rows' classes, and each class keeps its own best
restart; otherwise the restart with the largest final objective is kept. Everything here is
a function of the family, the rows and values: no estimator is involved.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import NamedTuple

import numpy as np

from bayesgen._precision import compute_dtype
from bayesgen.families import class_prior
from bayesgen.families.component_mixture import ClassRows, MixtureFamily, MixtureFamilyStats
from bayesgen.families.namespace import tree_map
from bayesgen.inference import em, gaussian_em
from bayesgen.inference.sampling import numpy_generator
from bayesgen.joint import FitSettings, FittedJoint, from_stats, rows_to_learn_from
from bayesgen.missing import at_column_means, has_missing
from bayesgen.validation import check_count, check_positive

DEFAULT_SETTINGS = FitSettings()


class MixtureFamilyFit(NamedTuple):
    """The outcome of `fit`.

    Attributes
    ----------
    joint : FittedJoint
        The fitted value; its ``feature_stats`` are those of the last memberships.
    n_iter : int
        Iterations of the kept restart.
    converged : bool
        Whether the kept restart met the convergence rule within ``max_iter``.
    history : ndarray of shape (n_iter,)
        The objective after each iteration of the kept restart.
    """

    joint: FittedJoint
    n_iter: int
    converged: bool
    history: np.ndarray


def _check_rows(X, R: np.ndarray) -> None:
    if R.ndim != 2 or R.shape[0] != np.shape(X)[0]:
        raise ValueError(
            f"responsibilities must have shape (n_samples, n_classes) = ({np.shape(X)[0]}, K); "
            f"got {R.shape}."
        )
    if not np.all(np.isfinite(R)) or np.any(R < 0):
        raise ValueError("responsibilities must be finite and non-negative.")


def _joins_missing(family: MixtureFamily, X, leaf_stats) -> bool:
    """Whether EM over missing entries joins the components' EM: a leaf that cannot skip
    them, rows that miss some, and no ``leaf_stats`` of the caller's."""
    if leaf_stats is not None or not family.missing_needs_em:
        return False
    X = np.asarray(X)  # a composite's dict of column groups is no float array
    if not (np.issubdtype(X.dtype, np.floating) and has_missing(X)):
        return False
    if not hasattr(family.leaf, "expected_stats"):
        raise ValueError(
            f"X contains NaN, and the {family.leaf.name} leaf can neither skip missing "
            "entries in its statistics nor complete them (expected_stats)."
        )
    return True


def objective(
    family: MixtureFamily, prior, params, X, R: np.ndarray, kind: str, leaf_log_likelihood=None
):
    """``(objective, memberships)``: $\\sum_{ik} R_{ik}\\log p(x_i \\mid k) + \\log p(\\theta)$
    of ``params``, and $\\gamma$ under them. The objective is one value per class where the
    family splits its log prior by class (`MixtureFamily.class_log_prior`), else a float.
    ``leaf_log_likelihood``: the leaf's (n, K M) log-likelihoods when the caller has them.
    ``X``: the rows, or `ClassRows` (each row scored under its own class only, its weights of
    the other classes 0)."""
    gamma, log_likelihood = family.memberships(params, X, leaf_log_likelihood)
    # A row of weight 0 adds nothing, even where its class gives it probability 0 (0 * -inf).
    weighted = np.sum(R * np.where(R > 0, log_likelihood, 0.0), axis=0)
    log_prior = family.class_log_prior(prior, params, kind)
    if np.ndim(log_prior) == 1:
        return weighted + log_prior, gamma
    return float(np.sum(weighted)) + log_prior, gamma


def fit(
    family: MixtureFamily,
    X,
    R: np.ndarray,
    classes,
    settings: FitSettings = DEFAULT_SETTINGS,
    *,
    max_iter: int = 100,
    tol: float = 1e-6,
    n_init: int = 1,
    random_state=None,
    start=None,
    leaf_stats=None,
    frozen=None,
    start_params=None,
) -> MixtureFamilyFit:
    """Fit the per-class mixtures to rows ``X`` with class weights ``R`` by EM.

    Parameters
    ----------
    family : MixtureFamily
    X : array-like of shape (n_samples, n_features)
        Rows as the leaf reads them (``family.check_columns``); NaN entries are missing:
        integrated out, or completed by the E-step for a leaf that cannot skip them.
    R : ndarray of shape (n_samples, n_classes)
        Responsibilities (one-hot times sample weight for labelled rows); their dtype is
        the computation's precision.
    classes : array-like of shape (n_classes,)
    settings : FitSettings
        The point estimate of the M-step (and of the class probabilities).
    max_iter : int, default=100
    tol : float, default=1e-6
        The relative change of the objective below which EM stops (`em.has_converged`).
    n_init : int, default=1
        Restarts from random memberships; the best final objective is kept.
    random_state : None, int or numpy RandomState
        Seeds the starting memberships: the same value gives the same fit.
    start : ndarray of shape (n_samples, n_classes, n_components), or a sequence of them
        Starting memberships (rows summing to one), one run from each, instead of
        ``n_init`` random ones.
    leaf_stats : callable, optional
        ``leaf_stats(leaf, X, sub_responsibilities, dtype) -> (statistics, frozen)``: the
        statistics of the (learned) ``leaf`` of the encoded rows (as ``leaf.fixed_rows``
        gives them) under the sub-classes' responsibilities (n, K M),
        and what it held fixed (`bayesgen.inference.gaussian_em.stats_with_missing`: EM
        over missing entries of a leaf that cannot skip them); by default the leaf's
        ``suff_stats``, nothing held.
    frozen : pytree, optional
        What the leaf's estimate holds fixed (the Gaussian leaf's ``(ridge, prior)``)
        instead of resolving it from the statistics; by default nothing, or, where EM over
        missing entries joins the components', what the leaf resolves from the starting
        statistics (missing entries at their column means).
    start_params : MixtureFamilyParams, optional
        Parameters to start from (one run, its first E-step under them), instead of
        starting memberships: EM continued from a fit. ``family`` is then that fit's
        (what it learned about the columns put back, `bayesgen.joint.family_of`), and
        learns nothing more from ``X``: its parameters are over those columns.

    Returns
    -------
    MixtureFamilyFit

    Raises
    ------
    ValueError
        For bad hyperparameters, responsibilities of the wrong shape or sign, a ``start``
        of the wrong shape, or missing entries under a leaf that can neither skip nor
        complete them.
    """
    family.check()
    if family.chooses_counts:
        raise ValueError(
            "n_components='auto' is chosen by a fit that compares the counts on held-out "
            "rows (FamilyClassifier, MixtureDA; bayesgen.inference.component_count."
            "choose_for_family); give this fit the counts: family.with_counts(...)."
        )
    max_iter = check_count(max_iter, "max_iter")
    n_init = check_count(n_init, "n_init")
    tol = check_positive(tol, "tol", allow_zero=True)
    R = np.asarray(R)
    _check_rows(X, R)
    dtype = compute_dtype(R.dtype)
    R = R.astype(dtype, copy=False)
    if start_params is None:  # a continued fit keeps the columns its parameters are over
        family, _ = family.learn(rows_to_learn_from(family, X, R))
    family.active(R.shape[1])  # n_components per class: one per class
    encoded = family.encode(X)
    if _joins_missing(family, encoded, leaf_stats):
        run = _MissingRun(family, encoded, R, dtype, settings.estimate, None, frozen)
    else:  # every step reads the same rows: what the family derives from them, made once
        fixed = family.fixed_rows(encoded)
        scored = _class_rows(family, encoded, R)
        run = _Run(family, fixed, R, dtype, settings.estimate, leaf_stats, frozen, scored)
    if start_params is not None:
        starts = [run.from_params(start_params)]
    else:
        starts = [
            run.from_memberships(gamma)
            for gamma in _starts(family, R, dtype, start, n_init, random_state)
        ]
    runs = [run.iterate(initial, tol, max_iter) for initial in starts]
    stats, frozen, history, n_iter, converged = run.best(runs)
    fitted = from_stats(
        family,
        classes,
        class_prior.suff_stats(R),
        stats,
        settings,
        learned=family.learned(),
        frozen=frozen,
    )
    return MixtureFamilyFit(fitted, n_iter, converged, history)


def _class_rows(family: MixtureFamily, encoded, R: np.ndarray) -> ClassRows | None:
    """The rows class by class where each has one class (no row weighs on two) and the leaf
    `slices_classes`, so that the E-step scores each row under its own class's components
    only (`ClassRows`); else None."""
    positive = R > 0
    if R.shape[1] < 2 or not family.leaf.slices_classes or np.any(positive.sum(axis=1) > 1):
        return None
    index = [np.flatnonzero(in_class) for in_class in positive.T]
    rows = [family.fixed_rows(_rows_of(encoded, of_class)) for of_class in index]
    return ClassRows(R.shape[0], index, rows)


def _rows_of(encoded, index: np.ndarray):
    """Rows ``index`` of encoded rows (an array, or a composite's dict of group arrays)."""
    if isinstance(encoded, Mapping):
        return {name: part[index] for name, part in encoded.items()}
    return encoded[index]


def _starts(family, R, dtype, start, n_init, random_state) -> list:
    n, K, M = R.shape[0], R.shape[1], family.size
    if start is not None:
        starts = [start] if np.ndim(start) == 3 else list(start)
        starts = [np.asarray(initial, dtype=dtype) for initial in starts]
        for initial in starts:
            if initial.shape != (n, K, M):
                raise ValueError(f"start must have shape {(n, K, M)}; got {initial.shape}.")
        return starts
    rng = numpy_generator(random_state)
    active = family.active(K)
    starts = []
    for _ in range(n_init):
        gamma = rng.dirichlet(np.ones(M), size=(n, K)).astype(dtype)
        if not active.all():  # a class's components past its own count start empty
            gamma = np.where(active, gamma, 0.0)
            gamma /= gamma.sum(axis=2, keepdims=True)
        starts.append(gamma)
    return starts


class _Run:
    """One EM over the components: its steps carry ``(memberships, statistics, frozen,
    used)``: the memberships under the last parameters, the statistics and what the leaf's
    estimate held behind those parameters, and the memberships those statistics weight."""

    def __init__(self, family, X, R, dtype, kind, leaf_stats, frozen, scored=None):
        self.family, self.X, self.R, self.dtype, self.kind = family, X, R, dtype, kind
        self.leaf_stats, self.frozen = leaf_stats, frozen
        # What the E-step scores: the rows, or the rows class by class (`ClassRows`).
        self.scored = X if scored is None else scored

    def stats_of(self, gamma):
        """The statistics under memberships ``gamma``, and what their estimate holds."""
        family = self.family
        if self.leaf_stats is None:
            return family.suff_stats(self.X, self.R, self.dtype, memberships=gamma), self.frozen
        counts, sub = family.sub_responsibilities(self.R, gamma, self.dtype)
        leaves, frozen = self.leaf_stats(family.leaf, self.X, sub, self.dtype)
        return MixtureFamilyStats(counts, leaves), frozen

    def step(self, payload):
        used = payload[0]
        stats, frozen = self.stats_of(used)
        prior, params = self.family.estimate(stats, self.kind, frozen)
        value, gamma = objective(self.family, prior, params, self.scored, self.R, self.kind)
        return (gamma, stats, frozen, used), value

    def from_memberships(self, gamma):
        return (gamma, None, None, None)

    def from_params(self, params):
        gamma, _ = self.family.memberships(params, self.scored)
        return (gamma, None, None, None)

    def iterate(self, initial, tol, max_iter) -> em.EMState:
        return em.run(initial, self.step, tol=tol, max_iter=max_iter)

    def final(self, state):
        """``(statistics, frozen)`` whose estimate has the last recorded objective."""
        return state.payload[1], state.payload[2]

    def best(self, runs):
        """The kept statistics, frozen, history, iterations and convergence: each class's
        best run where the objective is split by class, else the best run."""
        ends = [np.asarray(state.history[-1]) for state in runs]
        if ends[0].ndim == 0 or len(runs) == 1:
            state = runs[int(np.argmax([np.sum(end) for end in ends]))]
            stats, frozen = self.final(state)
            history = np.asarray([np.sum(value) for value in state.history])
            return stats, frozen, history, int(state.iteration), bool(state.converged)
        chosen = np.argmax(np.stack(ends), axis=0)
        n_iter = max(len(runs[r].history) for r in chosen)
        history = np.zeros(n_iter)
        for k, r in enumerate(chosen):
            own = np.asarray(runs[r].history)[:, k]  # a class that stopped keeps its last value
            history += np.concatenate([own, np.full(n_iter - own.size, own[-1])])
        stats, frozen = self.assemble(runs, chosen)
        return stats, frozen, history, n_iter, all(bool(runs[r].converged) for r in chosen)

    def assemble(self, runs, chosen):
        """Each class's statistics from its chosen run: the memberships behind its last
        statistics, restated (a class's statistics depend on its own memberships only)."""
        gamma = np.array(runs[0].payload[3])
        for k, r in enumerate(chosen):
            gamma[:, k] = runs[r].payload[3][:, k]
        return self.stats_of(gamma)


class _MissingRun(_Run):
    """EM over components and missing entries at once: the steps carry the leaf's expected
    statistics, ``(next, used)``: those the next M-step takes and those behind the last
    recorded objective."""

    def estimate(self, leaves, frozen):
        counts = np.asarray(leaves.counts).reshape(self.R.shape[1], self.family.size)
        stats = MixtureFamilyStats(counts.astype(self.dtype, copy=False), leaves)
        return stats, self.family.estimate(stats, self.kind, frozen)

    def expected(self, params, gamma=None):
        """The leaf's expected statistics of the completed rows under ``params`` (and the
        memberships ``gamma`` under them, when known)."""
        if gamma is None:
            gamma, _ = self.family.memberships(params, self.X, self.leaf_log_likelihood(params))
        _, sub = self.family.sub_responsibilities(self.R, gamma, self.dtype)
        leaves = self.family.leaf.expected_stats(params.leaves, self.X, sub)
        return tree_map(lambda a: np.asarray(a, self.dtype), leaves)

    def leaf_log_likelihood(self, params):
        """Each row's observed-block density under every component, in one pass."""
        leaf = self.family.leaf
        scorer = getattr(leaf, "observed_log_likelihood", None)
        if scorer is None:
            return leaf.log_likelihood(params.leaves, self.X)
        return scorer(params.leaves, self.X)

    def step(self, payload):
        used = payload[0]
        _, (prior, params) = self.estimate(used, self.frozen)
        value, gamma = objective(
            self.family,
            prior,
            params,
            self.X,
            self.R,
            self.kind,
            self.leaf_log_likelihood(params),
        )
        return (self.expected(params, gamma), used), value

    def from_memberships(self, gamma):
        filled = at_column_means(self.X).astype(self.dtype)
        _, sub = self.family.sub_responsibilities(self.R, gamma, self.dtype)
        return self._started(self.family.leaf.suff_stats(filled, sub, self.dtype))

    def from_params(self, params):
        return self._started(self.expected(params))

    def _started(self, leaves):
        """The first payload; the leaf's ridge and prior resolved from it unless given
        (they hold for every start: their totals do not depend on the memberships)."""
        if self.frozen is None:
            leaf = self.family.leaf
            ridge = leaf.ridge(leaves)
            self.frozen = (ridge, leaf.prior(leaves, ridge))
        return (leaves, None)

    def iterate(self, initial, tol, max_iter) -> em.EMState:
        leaf = self.family.leaf
        fit = em.run_extrapolated(
            initial,
            self.step,
            tol=tol,
            max_iter=max_iter,
            extrapolate=gaussian_em.extrapolation(self.kind, leaf.covariance_type),
            trial_step=gaussian_em.trial(self.step),
        )
        return fit.state

    def final(self, state):
        stats, _ = self.estimate(state.payload[1], self.frozen)
        return stats, self.frozen

    def assemble(self, runs, chosen):
        """Each class's sub-classes' statistics from its chosen run."""
        M = self.family.size
        parts = [state.payload[1] for state in runs]
        leaves = tree_map(np.array, parts[0])
        for k, r in enumerate(chosen):
            block = slice(k * M, (k + 1) * M)
            leaves = type(leaves)(
                *(
                    np.concatenate([mine[: block.start], theirs[block], mine[block.stop :]])
                    for mine, theirs in zip(leaves, parts[r], strict=True)
                )
            )
        stats, _ = self.estimate(leaves, self.frozen)
        return stats, self.frozen
