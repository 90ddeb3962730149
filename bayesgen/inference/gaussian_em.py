r"""Fitting Gaussian class densities when features are missing: EM over the missing entries.

The E-step completes each row given its class: the missing block gets its conditional mean
$\hat x_{m} = \mathbb E[x_m \mid x_o, k]$, and the scatter gets the conditional
covariance $\mathrm{Cov}[x_m \mid x_o, k]$ added in the missing block, so the
expected sufficient statistics are exact. The M-step is the family's ordinary point
estimate from those statistics. For ``estimate="mle"`` and ``"map"`` this is EM, and the
objective (observed-data log-likelihood, plus the log prior for ``"map"``) never decreases;
``"mean"`` takes the posterior mean in the M-step instead, a fixed-point iteration.
"""

from __future__ import annotations

import warnings
from typing import Any, NamedTuple

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from bayesgen.families import gaussian
from bayesgen.families.gaussian import missing
from bayesgen.inference import em


class GaussianBatch(NamedTuple):
    """The statistics of a batch of rows for ``GaussianDA``, and what fitting them needs.

    Attributes
    ----------
    stats : GaussianStats
        Exact, or expected under EM over missing entries.
    frozen_prior : tuple or None
        ``(ridge, prior)`` to fit under instead of resolving them from ``stats``: those
        EM over missing entries fixed at its start. None without missing entries.
    fourth_moments : FourthMoments or None
        The batch's fourth moments, for the Ledoit–Wolf intensity; None otherwise.
    """

    stats: Any
    frozen_prior: Any = None
    fourth_moments: Any = None


EM_PRIOR = object()
"""Default of ``GaussianDA._update_parameters(frozen_prior=...)``: `em_prior`."""


def em_prior(estimator):
    """The ``(ridge_, prior_)`` a model fitted by EM over missing entries keeps, else None.

    EM fixed them from its starting statistics; re-resolving them from the expected
    statistics would move the fit off EM's fixed point.
    """
    if getattr(estimator, "fitted_with_missing_", False):
        return estimator.ridge_, estimator.prior_
    return None


def _expected_stats(means, covariances, X, responsibilities, covariance_type):
    """Expected GaussianStats of the completed rows under the current parameters."""
    n_classes, n_features = means.shape
    per_class, corrections = [], np.zeros((n_classes, n_features * n_features))
    for k in range(n_classes):  # one completed copy of X at a time
        completed = X.copy()
        pieces = missing.conditionals(means[k : k + 1], covariances[k : k + 1], X)
        for rows, index, mean, covariance in pieces:
            completed[rows[:, None], index] = mean[0]
            # The conditional covariances, weighted by each row's responsibility, added
            # into their (missing x missing) blocks of the scatter.
            cells = (index[:, :, None] * n_features + index[:, None, :]).ravel()
            weighted = responsibilities[rows, k][:, None, None] * covariance[0]
            corrections[k] += np.bincount(
                cells, weights=weighted.ravel(), minlength=n_features * n_features
            )
        # NumPy blocks: the same statistics as the JAX kernel, compiled for no row count.
        per_class.append(gaussian.suff_stats(completed, responsibilities[:, [k]], "full"))
    counts = np.concatenate([s.counts for s in per_class])
    class_means = np.concatenate([s.means for s in per_class])
    scatter = np.concatenate([s.scatter for s in per_class]) + corrections.reshape(
        n_classes, n_features, n_features
    )
    if covariance_type == "tied":
        scatter = np.sum(scatter, axis=0)
    elif covariance_type in ("diag", "spherical"):
        scatter = np.diagonal(scatter, axis1=1, axis2=2)
    return gaussian.GaussianStats(counts, class_means, scatter)


def _log_prior(estimator) -> float:
    """log p(means, covariances) under the fitted prior: the story's parameter part."""
    import jax
    import jax.numpy as jnp

    params = gaussian.GaussianParams(
        jnp.asarray(estimator.means_), jnp.asarray(estimator.covariances_)
    )
    prior = jax.tree.map(jnp.asarray, estimator.prior_)
    return float(gaussian.log_prior(prior, params, estimator.covariance_type))


def objective(estimator, X, responsibilities) -> float:
    """Observed-data log-likelihood of the labelled rows (+ log prior unless ``"mle"``)."""
    covariances = estimator._full_covariances()
    per_class = missing.log_likelihood(estimator.means_, covariances, X)
    value = float(np.sum(responsibilities * per_class))
    return value if estimator.estimate in ("mle", "unbiased") else value + _log_prior(estimator)


def fit_with_missing(estimator, X, responsibilities, dtype):
    """Run EM from a start with the missing entries at their column means.

    Sets ``n_iter_``, ``converged_`` and ``log_likelihood_history_`` on ``estimator`` and
    returns the expected statistics at convergence (what ``suff_stats_`` will hold) and
    the ``(ridge, prior)`` EM kept fixed, under which they are to be installed.
    """
    responsibilities = np.asarray(responsibilities, dtype=np.float64)
    column_means = np.nanmean(X, axis=0)
    start = np.where(np.isnan(X), np.where(np.isnan(column_means), 0.0, column_means), X)
    stats = gaussian.suff_stats(
        start.astype(dtype), responsibilities.astype(dtype), estimator.covariance_type
    )

    def e_step():
        stats = _expected_stats(
            estimator.means_,
            estimator._full_covariances(),
            X,
            responsibilities,
            estimator.covariance_type,
        )
        return gaussian.GaussianStats(*(np.asarray(leaf, dtype) for leaf in stats))

    def step(payload):
        stats, frozen = payload
        if frozen is not None:  # the E-step under the parameters of the previous step
            stats = e_step()
        estimator._stats = stats
        estimator._update_parameters(frozen_prior=frozen)
        # The empirical-Bayes prior and the ridge come from the starting statistics and
        # stay fixed, so that every iteration climbs the same objective.
        frozen = (estimator.ridge_, estimator.prior_)
        return (stats, frozen), objective(estimator, X, responsibilities)

    state = em.run((stats, None), step, tol=estimator.tol, max_iter=estimator.max_iter)
    stats, frozen = state.payload
    converged, history = state.converged, state.history
    if not converged:
        stats = e_step()  # one E-step past the last objective: the next M-step's input
        warnings.warn(
            f"EM over the missing entries did not converge in max_iter={estimator.max_iter} "
            f"iterations (tol={estimator.tol}); raise max_iter or tol.",
            ConvergenceWarning,
            stacklevel=5,
        )
    estimator.n_iter_ = len(history)
    estimator.converged_ = converged
    estimator.log_likelihood_history_ = np.asarray(history)
    return stats, frozen
