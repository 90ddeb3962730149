r"""Fitting Gaussian class densities when features are missing: EM over the missing entries.

The E-step completes each row given its class: the missing block gets its conditional mean
$\hat x_{m} = \mathbb E[x_m \mid x_o, k]$, and the scatter gets the conditional
covariance $\mathrm{Cov}[x_m \mid x_o, k]$ added in the missing block, so the
expected sufficient statistics are exact. The M-step is the family's ordinary point
estimate from those statistics. For ``estimate="mle"`` and ``"map"`` this is EM, and the
objective (observed-data log-likelihood, plus the log prior for ``"map"``) never decreases;
``"mean"`` takes the posterior mean in the M-step instead, a fixed-point iteration.

With many entries missing EM converges slowly, so for ``"mle"`` and ``"map"`` every two
EM steps are followed by a SQUAREM extrapolation (`squarem`), kept only when the objective
does not fall (`bayesgen.inference.em.run_extrapolated`): the same fixed point, in fewer
iterations, along another path.
"""

from __future__ import annotations

import warnings
from typing import Any, NamedTuple

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from bayesgen.families import gaussian
from bayesgen.families.gaussian import missing
from bayesgen.families.namespace import namespace, tree_leaves, tree_map
from bayesgen.inference import em, squarem
from bayesgen.inference.observed_entries import observed_stats
from bayesgen.missing import at_column_means
from bayesgen.validation import caller_stacklevel


class MissingFit(NamedTuple):
    """The result of EM over missing entries (`run`).

    Attributes
    ----------
    stats : GaussianStats
        The expected statistics at convergence (the next M-step's input).
    frozen : tuple
        ``(ridge, prior)``, fixed from the starting statistics, under which ``stats`` are
        to be estimated.
    n_iter : int
    converged : bool
    history : ndarray of shape (n_iter,)
        The objective per iteration.
    """

    stats: Any
    frozen: Any
    n_iter: int
    converged: bool
    history: Any


def niw_log_prior(prior, params, covariance_type: str) -> float:
    """$\\log p(\\mu, \\Sigma)$ under the Normal-Inverse-Wishart ``prior``: the story's
    parameter part, as a float."""
    # NumPy arguments: SciPy's densities, no JAX dispatch in an objective EM evaluates
    # every iteration.
    prior = type(prior)(*(np.asarray(leaf) for leaf in prior))
    params = gaussian.GaussianParams(np.asarray(params.means), np.asarray(params.covariances))
    return float(gaussian.log_prior(prior, params, covariance_type))


def family_objective(family, params, prior, X, responsibilities, kind: str) -> float:
    """The EM objective of ``params``: the observed-data log-likelihood of the rows weighted
    by ``responsibilities``, plus the NIW log prior unless ``kind`` ignores the prior."""
    per_class = missing.log_likelihood(np.asarray(params.means), family.full_covariances(params), X)
    value = float(np.sum(responsibilities * per_class))
    if kind in ("mle", "unbiased"):
        return value
    return value + niw_log_prior(prior, params, family.covariance_type)


def run(
    family, X, responsibilities, dtype, *, m_step, kind: str, tol, max_iter, stop="aitken"
) -> MissingFit:
    """EM over the missing entries of ``X`` for the Gaussian ``family``, from a start with
    them at their column means.

    Parameters
    ----------
    family : GaussianFamily
    X : ndarray of shape (n_samples, n_features)
        NaN marks a missing entry.
    responsibilities : ndarray of shape (n_samples, n_classes)
    dtype : the precision of the statistics
    m_step : callable
        ``m_step(stats, frozen) -> (params, frozen)``: the point estimate from ``stats``
        under ``frozen = (ridge, prior)`` (None on the first step: resolve them from
        ``stats``), returning `GaussianParams` and the ``(ridge, prior)`` it used. The
        empirical-Bayes prior and the ridge come from the starting statistics and stay
        fixed, so that every iteration climbs the same objective.
    kind : str
        The point estimate, for the objective's prior term.
    tol, max_iter, stop : the EM driver's (`bayesgen.inference.em.run_extrapolated`)

    Returns
    -------
    MissingFit
    """
    # One memory layout: the batched E-step's products round differently on a Fortran-order
    # array (a DataFrame's values) by an ulp, and the same rows must give the same fit.
    X = np.ascontiguousarray(X)
    responsibilities = np.asarray(responsibilities, dtype=np.float64)
    start = at_column_means(X)
    stats = gaussian.suff_stats(
        start.astype(dtype), responsibilities.astype(dtype), family.covariance_type
    )

    def step(payload):
        # The objective of a step's parameters and the next E-step share their
        # factorisations: one pass gives both.
        stats, frozen = payload
        params, frozen = m_step(stats, frozen)
        next_stats, value = family.expected_stats(
            params, X, responsibilities, with_log_likelihood=True
        )
        if kind not in ("mle", "unbiased"):
            value += niw_log_prior(frozen[1], params, family.covariance_type)
        return (
            gaussian.GaussianStats(*(np.asarray(leaf, dtype) for leaf in next_stats)),
            frozen,
        ), value

    fit = em.run_extrapolated(
        (stats, None),
        step,
        tol=tol,
        max_iter=max_iter,
        extrapolate=extrapolation(kind, family.covariance_type),
        trial_step=trial(step),
        stop=stop,
    )
    state = fit.state
    converged, history = state.converged, state.history
    # Converged: the statistics whose parameters have the last objective. Otherwise the
    # E-step past them, the next M-step's input.
    stats, frozen = fit.source if converged else state.payload
    if not converged:
        warnings.warn(
            f"EM over the missing entries did not converge in max_iter={max_iter} "
            f"iterations (tol={tol}); raise max_iter or tol.",
            ConvergenceWarning,
            stacklevel=caller_stacklevel(),
        )
    return MissingFit(stats, frozen, len(history), converged, np.asarray(history))


ACCELERATED = ("mle", "map")
"""The point estimates whose iterations EM's objective orders, so that `squarem` may
extrapolate them; ``"mean"`` and ``"unbiased"`` are fixed-point iterations, run plain."""


def _never(theta0, theta1, theta2):
    return None


def extrapolation(kind: str, covariance_type: str):
    """`em.run_extrapolated`'s ``extrapolate`` for payloads ``(GaussianStats, ...)``: SQUAREM
    for the `ACCELERATED` point estimates, none otherwise (plain EM)."""
    return squarem.Extrapolation(covariance_type) if kind in ACCELERATED else _never


def trial(step):
    """``step`` for an extrapolated payload: ``(None, -inf)`` where it has no positive
    definite estimate, its warnings silenced (a dropped point is never reported)."""

    def guarded(payload):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                return step(payload)
            except (ValueError, np.linalg.LinAlgError, FloatingPointError):
                return None, -np.inf

    return guarded


def family_m_step(family, kind: str):
    """`run`'s M-step for a bare Gaussian ``family``: its ``estimate`` under ``frozen``.

    Returns NumPy parameters and the ``(ridge, prior)`` used, as an estimator stores them.
    """

    def m_step(stats, frozen):
        dtype = stats.means.dtype
        held = None if frozen is None else tree_map(lambda a: np.asarray(a, dtype), frozen)
        prior, params = family.estimate(stats, kind, held)
        ridge = family.ridge(stats) if held is None else held[0]
        numpy = tree_map(np.asarray, (params, (ridge, prior)))
        return numpy[0], numpy[1]

    return m_step


def stats_with_missing(family, X, responsibilities, dtype, em_settings, *, stop="aitken"):
    """``(statistics, frozen)`` of encoded rows ``X``, missing entries included.

    A family that skips missing entries (``missing_needs_em`` False) takes its
    ``suff_stats`` and holds nothing; one that cannot, and whose rows miss some, is fitted
    by EM over them (`run`), which holds its ``(ridge, prior)``. A `CompositeFamily` does
    this group by group (``X`` a dict of each group's columns), its statistics and frozen
    parts dicts by group name.

    Parameters
    ----------
    family : FeatureFamily
    X : ndarray or dict of ndarray
        Encoded rows (``family.encode``); NaN is missing.
    responsibilities : ndarray of shape (n_samples, n_classes)
    dtype : the precision of the statistics
    em_settings : callable
        ``em_settings(group) -> (kind, tol, max_iter)`` of the EM over a group's missing
        entries (``group`` is None for a family that is not a composite).
    stop : {"aitken", "relative"}, default="aitken"
        The EM's stopping rule (`bayesgen.inference.em.run_extrapolated`).

    Returns
    -------
    tuple
    """
    groups = getattr(family, "groups", None)
    if groups is None:
        return _own_stats(family, X, responsibilities, dtype, lambda: em_settings(None), stop)
    stats, frozen = {}, {}
    for name, (group_family, _) in groups.items():
        stats[name], frozen[name] = _own_stats(
            group_family,
            X[name],
            responsibilities,
            dtype,
            lambda name=name: em_settings(name),
            stop,
        )
    return stats, frozen


def _own_stats(family, X, responsibilities, dtype, settings, stop):
    fit = missing_fit(family, X, responsibilities, dtype, settings, stop=stop)
    return fit.stats, fit.frozen


def missing_fit(family, X, responsibilities, dtype, settings, *, stop="aitken") -> MissingFit:
    """The statistics of encoded rows ``X`` of one family, as a `MissingFit`.

    Complete rows, or a family that skips missing entries, take one pass of its
    ``suff_stats`` (on ``X``'s own device for a ``jax.Array``) and hold nothing. A family
    that cannot skip them makes its statistics NaN where an entry is missing
    (`GaussianFamily.suff_stats`), which finds them without another pass over ``X``; those
    rows are fitted by EM over their missing entries: its fixed point in closed form where
    there is one (`diagonal_fixed_point`), else `run`.

    Parameters
    ----------
    family : FeatureFamily
    X : array of shape (n_samples, n_features)
    responsibilities : ndarray of shape (n_samples, n_classes)
    dtype : the precision of the statistics
    settings : callable
        ``settings() -> (kind, tol, max_iter)`` of the EM.
    stop : {"aitken", "relative"}, default="aitken"
        Its stopping rule (`bayesgen.inference.em.run_extrapolated`).

    Returns
    -------
    MissingFit
        ``frozen`` None (and one iteration) when no EM ran.
    """
    stats = family.suff_stats(X, responsibilities, dtype)
    if not (family.missing_needs_em and has_nan(stats)):
        return MissingFit(stats, None, 1, True, np.empty(0))
    kind, tol, max_iter = settings()
    X, responsibilities = np.asarray(X), np.asarray(responsibilities)
    m_step = family_m_step(family, kind)
    return diagonal_fixed_point(
        family, X, responsibilities, dtype, m_step=m_step, kind=kind
    ) or run(
        family,
        X,
        responsibilities,
        dtype,
        m_step=m_step,
        kind=kind,
        tol=tol,
        max_iter=max_iter,
        stop=stop,
    )


def has_nan(stats) -> bool:
    """Whether any statistic is NaN: for a family that cannot skip missing entries
    (``missing_needs_em``), whether its rows had some."""
    for leaf in tree_leaves(stats):
        xp = np if isinstance(leaf, np.ndarray) else namespace(leaf)
        if bool(xp.isnan(leaf).any()):
            return True
    return False


def diagonal_fixed_point(family, X, responsibilities, dtype, *, m_step, kind: str):
    r"""The fixed point of `run` in closed form, for diagonal covariances fitted by
    ``"mle"`` or ``"unbiased"``; None where it does not apply.

    With independent features each class's mean and variance of a feature depend on that
    feature's observed entries only. At EM's fixed point the mean is their mean
    $\bar x_{kj}$ and, with $n_{kj}$ observed of $N_k$ rows, $S_{kj}$ their centred sum of
    squares and $r_j$ the ridge,

    $$
    \sigma^2_{kj} = \frac{S_{kj} + (N_k - \ell)\, r_j}{n_{kj} - \ell},
    $$

    $\ell = 0$ for ``"mle"`` and 1 for ``"unbiased"`` (e1071's $n_{kj} - 1$ when
    $r_j = 0$). EM reaches it only in the limit, at a rate set by the share missing, and its
    relative-change rule can stop far from it (issue 32: a mean 0.36 off after 7
    iterations); the expected statistics returned are those whose point estimate is it
    exactly. The ridge and prior are the ones `run` would hold (``m_step`` on the start
    with the missing entries at their column means).

    Returns
    -------
    MissingFit or None
        None for another covariance type or estimate, for a class without weight, or when
        a class observes a feature in too few rows (fewer than ``1 + l``): EM decides then.
    """
    if family.covariance_type != "diag" or kind not in ("mle", "unbiased"):
        return None
    lost = 1 if kind == "unbiased" else 0
    X = np.ascontiguousarray(X)
    R = np.asarray(responsibilities, dtype=np.float64)
    # Per class and feature: the observed entries' weight, mean and centred sum of squares.
    n_observed, means, centred = observed_stats(X, R)
    # A class without weight yet (a partial_fit batch), or a feature seen too rarely: EM's.
    if np.any(R.sum(axis=0) <= 0) or np.any(n_observed <= lost):
        return None
    start = at_column_means(X)
    start_stats = gaussian.suff_stats(start.astype(dtype), R.astype(dtype), "diag")
    _, frozen = m_step(start_stats, None)
    ridge = np.asarray(frozen[0], dtype=np.float64)
    counts = R.sum(axis=0)
    variances = (centred + (counts[:, None] - lost) * ridge) / (n_observed - lost)
    scatter = centred + (counts[:, None] - n_observed) * variances
    stats = gaussian.GaussianStats(
        counts.astype(dtype), np.nan_to_num(means).astype(dtype), scatter.astype(dtype)
    )
    params, frozen = m_step(stats, frozen)
    _, value = family.expected_stats(params, X, R, with_log_likelihood=True)
    return MissingFit(stats, frozen, 1, True, np.asarray([value]))
