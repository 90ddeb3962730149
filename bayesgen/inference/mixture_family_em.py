r"""EM for `MixtureFamily`: the components of every class density, over any leaf family.

One iteration, from memberships $\gamma$ (n, K, M):

1. statistics of the sub-classes with responsibilities $R_{ik}\gamma_{ikm}$, then the
   point estimate (M-step: the leaf's own, and the Dirichlet estimate of the weights);
2. the objective of those parameters, $\sum_{ik} R_{ik} \log p(x_i \mid k) + \log p(\theta)$
   (the log prior whose mode the estimate is, so the objective never decreases), and the
   memberships under them (E-step), in the same pass.

The driver is `bayesgen.inference.em.run`, with its one convergence rule. Restarts start
from random memberships (a Dirichlet(1) draw per row and class) from one seeded NumPy
generator, so a fit is reproducible from ``random_state``; the restart with the largest
final objective is kept. Everything here is a function of the family, the rows and values:
no estimator is involved.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from bayesgen._precision import compute_dtype
from bayesgen.families import class_prior
from bayesgen.families.component_mixture import MixtureFamily, MixtureFamilyStats
from bayesgen.inference import em
from bayesgen.inference.sampling import numpy_generator
from bayesgen.joint import FitSettings, FittedJoint, from_stats, rows_to_learn_from
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


def _check_rows(family: MixtureFamily, X, R: np.ndarray, skips_missing: bool) -> None:
    if R.ndim != 2 or R.shape[0] != np.shape(X)[0]:
        raise ValueError(
            f"responsibilities must have shape (n_samples, n_classes) = ({np.shape(X)[0]}, K); "
            f"got {R.shape}."
        )
    if not np.all(np.isfinite(R)) or np.any(R < 0):
        raise ValueError("responsibilities must be finite and non-negative.")
    floats = np.issubdtype(np.asarray(X).dtype, np.floating)
    if skips_missing and family.missing_needs_em and floats:
        if np.isnan(X).any():
            raise ValueError(
                f"X contains NaN, and the {family.leaf.name} leaf cannot skip missing entries "
                "in its statistics; use a naive-Bayes leaf (Poisson, Bernoulli, categorical, "
                "...), or MixtureDA for Gaussian mixtures over gappy rows."
            )


def objective(family: MixtureFamily, prior, params, X, R: np.ndarray, kind: str):
    """``(objective, memberships)``: $\\sum_{ik} R_{ik}\\log p(x_i \\mid k) + \\log p(\\theta)$
    of ``params``, and $\\gamma$ under them."""
    gamma, log_likelihood = family.memberships(params, X)
    # A row of weight 0 adds nothing, even where its class gives it probability 0 (0 * -inf).
    weighted = R * np.where(R > 0, log_likelihood, 0.0)
    return float(np.sum(weighted)) + family.log_prior(prior, params, kind), gamma


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
) -> MixtureFamilyFit:
    """Fit the per-class mixtures to rows ``X`` with class weights ``R`` by EM.

    Parameters
    ----------
    family : MixtureFamily
    X : array-like of shape (n_samples, n_features)
        Rows as the leaf reads them (``family.check_columns``); NaN entries are missing and
        integrated out.
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
        statistics of the (learned) ``leaf`` of the encoded rows under the sub-classes'
        responsibilities (n, K M),
        and what it held fixed (`bayesgen.inference.gaussian_em.stats_with_missing`: EM
        over missing entries of a leaf that cannot skip them); by default the leaf's
        ``suff_stats``, nothing held.

    Returns
    -------
    MixtureFamilyFit

    Raises
    ------
    ValueError
        For bad hyperparameters, responsibilities of the wrong shape or sign, a ``start``
        of the wrong shape, or missing entries under a leaf that cannot skip them.
    """
    family.check()
    max_iter = check_count(max_iter, "max_iter")
    n_init = check_count(n_init, "n_init")
    tol = check_positive(tol, "tol", allow_zero=True)
    R = np.asarray(R)
    _check_rows(family, X, R, skips_missing=leaf_stats is None)
    dtype = compute_dtype(R.dtype)
    R = R.astype(dtype, copy=False)
    family, _ = family.learn(rows_to_learn_from(family, X, R))
    encoded = family.encode(X)
    n, K, M = R.shape[0], R.shape[1], family.n_components
    kind = settings.estimate

    def step(payload):
        gamma = payload[0]
        if leaf_stats is None:
            stats, frozen = family.suff_stats(encoded, R, dtype, memberships=gamma), None
        else:
            counts, sub = family.sub_responsibilities(R, gamma, dtype)
            leaves, frozen = leaf_stats(family.leaf, encoded, sub, dtype)
            stats = MixtureFamilyStats(counts, leaves)
        prior, params = family.estimate(stats, kind, frozen)
        value, gamma = objective(family, prior, params, encoded, R, kind)
        return (gamma, stats, frozen), value

    if start is not None:
        starts = [start] if np.ndim(start) == 3 else list(start)
        starts = [np.asarray(initial, dtype=dtype) for initial in starts]
        for initial in starts:
            if initial.shape != (n, K, M):
                raise ValueError(f"start must have shape {(n, K, M)}; got {initial.shape}.")
    else:
        rng = numpy_generator(random_state)
        starts = [rng.dirichlet(np.ones(M), size=(n, K)).astype(dtype) for _ in range(n_init)]
    best = None
    for initial in starts:
        state = em.run((initial, None, None), step, tol=tol, max_iter=max_iter)
        if best is None or state.history[-1] > best.history[-1]:
            best = state
    _, stats, frozen = best.payload
    fitted = from_stats(
        family,
        classes,
        class_prior.suff_stats(R),
        stats,
        settings,
        learned=family.learned(),
        frozen=frozen,
    )
    return MixtureFamilyFit(
        fitted, int(best.iteration), bool(best.converged), np.asarray(best.history)
    )
