r"""EM for mixture discriminant analysis: a Gaussian mixture per class, from responsibilities.

Class $k$ has the density $p(x \mid k) = \sum_m w_{km}\,\mathcal N(x;
\mu_{km}, \Sigma_{km})$. Its $K M$ components are treated as Gaussian "sub-classes"
whose responsibilities are $R_{ik}\,\gamma_{ikm}$, with $R$ the class
responsibilities of the rows (one-hot times sample weight, or soft in the semi-supervised
EM) and

$$
\gamma_{ikm} = \frac{w_{km}\,\mathcal N(x_i; \mu_{km}, \Sigma_{km})}
{\sum_{m'} w_{km'}\,\mathcal N(x_i; \mu_{km'}, \Sigma_{km'})}.
$$

The M-step is then the Gaussian family's own point estimate from the sub-classes'
sufficient statistics (per class, so that ``"tied"`` shares one covariance among a class's
components), plus the ridge, and the weights are the Dirichlet point estimate of
$N_{km} = \sum_i R_{ik}\gamma_{ikm}$. With missing entries (NaN) the statistics are
the exact expected ones (`bayesgen.inference.gaussian_em._expected_stats`), so
components and missing entries are one EM. The objective, per class,

$$
\ell_k = \sum_i R_{ik} \log p(x_{i,o} \mid k) + \log p(w_k, \mu_k, \Sigma_k)
$$

(the log prior only for ``"map"``) never decreases. Components past a class's own count
(a per-class ``n_components``) are inactive: weight zero, left out of the prior.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from bayesgen._lazy import lazy_jit, lazy_module
from bayesgen.families.gaussian import NormalInverseWishart, suff_stats
from bayesgen.families.mixture import (
    component_log_likelihood,
    full_flat_covariances,
    log_prior,
    m_step,
    missing_component_log_likelihood,
    split,
    stats_type,
)
from bayesgen.inference import em, gaussian_em

if TYPE_CHECKING:
    from jax import Array

jax = lazy_module("jax")
jnp = lazy_module("jax.numpy")


class EMSettings(NamedTuple):
    """What stays fixed during one EM run (the prior and ridge are resolved beforehand)."""

    prior: NormalInverseWishart
    ridge: Array
    concentration: Array  # Dirichlet prior of each class's weights
    active: Array  # (K, M) bool: components that exist
    tol: float
    covariance_type: str
    kind: str
    max_iter: int


def _objective(params, per_class, settings: EMSettings):
    if settings.kind == "mle":
        return per_class
    return per_class + log_prior(
        params,
        settings.prior,
        settings.concentration,
        settings.active,
        covariance_type=settings.covariance_type,
    )


@lazy_jit(static_argnames=("covariance_type", "kind", "max_iter"))
def _complete_em(
    X,
    responsibilities,
    initial,
    prior,
    ridge,
    concentration,
    active,
    tol,
    *,
    covariance_type,
    kind,
    max_iter,
):
    """EM on complete rows in one ``lax.while_loop``; returns the statistics of the last
    M-step, the per-class objective history (max_iter, K; NaN past the end), the number of
    iterations and whether it converged."""
    settings = EMSettings(prior, ridge, concentration, active, tol, covariance_type, kind, max_iter)

    def m_and_e(sub):
        stats = suff_stats(X, sub, stats_type(covariance_type))
        params = m_step(
            stats, prior, ridge, concentration, active, covariance_type=covariance_type, kind=kind
        )
        component = component_log_likelihood(params, X, covariance_type)
        following, per_class = split(component, params.weights, responsibilities)
        return following, _objective(params, per_class, settings)

    def step(payload):
        sub, _ = payload
        following, per_class = m_and_e(sub)
        return (following, sub), per_class

    state = em.run_jitted(
        (initial, initial),
        step,
        tol=tol,
        max_iter=max_iter,
        objective_shape=(active.shape[0],),
        dtype=X.dtype,
    )
    last = state.payload[1]
    return (
        suff_stats(X, last, stats_type(covariance_type)),
        state.history,
        state.iteration,
        state.converged,
    )


def filled(X: np.ndarray) -> np.ndarray:
    """``X`` with each missing entry at its column's mean (0 for a column with none)."""
    missing_entries = np.isnan(X)
    counts = np.maximum(np.sum(~missing_entries, axis=0), 1)
    column_means = np.sum(np.where(missing_entries, 0, X), axis=0) / counts
    return np.where(missing_entries, column_means, X).astype(X.dtype)


def _bucket(n_samples: int) -> int:
    """Rows padded up to this many (zero weight), so that jit compiles once per size band:
    the next power of two up to 1024 rows, then the next multiple of an eighth of it."""
    size = max(64, 1 << (n_samples - 1).bit_length())
    step = size if size <= 1024 else size // 8
    return -(-n_samples // step) * step


def pad_rows(X: np.ndarray, *arrays):
    """``X`` and per-row ``arrays`` padded with zero rows to `_bucket` rows, as JAX
    arrays in ``X``'s dtype. A zero-weight row adds nothing to any statistic."""
    rows = X.shape[0]
    padded = _bucket(rows)
    out = []
    for array in (X, *arrays):
        array = np.asarray(array, dtype=X.dtype)
        full = np.zeros((padded, *array.shape[1:]), dtype=X.dtype)
        full[:rows] = array
        out.append(jnp.asarray(full))
    return out


def run(X: np.ndarray, responsibilities, initial, settings: EMSettings, start=None):
    """One EM run over components (and missing entries, if any).

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        NaN marks a missing entry.
    responsibilities : Array of shape (n_samples, n_classes)
        The class responsibilities R, fixed during the run.
    initial : Array of shape (n_samples, n_classes * n_components), optional
        Starting sub-class responsibilities (a fresh start); with missing entries the
        first M-step then uses them on ``X`` with its NaN at the column means.
    settings : EMSettings
    start : MixtureParams, optional
        Current parameters to start from instead (a warm start): the first E-step is
        taken under them.

    Returns
    -------
    stats : GaussianStats
        The components' (expected) statistics whose M-step gives the final parameters.
    history : ndarray of shape (n_iter, n_classes)
        Each class's objective after each iteration.
    converged : bool
    """
    responsibilities = jnp.asarray(responsibilities, X.dtype)
    covariance_type = settings.covariance_type
    if np.isnan(X).any():
        return _missing_em(X, responsibilities, initial, settings, start)
    if start is not None:
        X_padded, R_padded = pad_rows(X, responsibilities)
        initial, _ = split(
            component_log_likelihood(start, X_padded, covariance_type), start.weights, R_padded
        )
    else:
        X_padded, R_padded, initial = pad_rows(X, responsibilities, initial)
    stats, history, n_iter, converged = _complete_em(
        X_padded,
        R_padded,
        initial,
        *settings[:4],
        jnp.asarray(settings.tol, X.dtype),
        covariance_type=covariance_type,
        kind=settings.kind,
        max_iter=settings.max_iter,
    )
    return stats, np.asarray(history)[: int(n_iter)], bool(converged)


def _expected(params, X, responsibilities, covariance_type):
    """Sub-class responsibilities and expected statistics under ``params``; objective too."""
    component = missing_component_log_likelihood(params, X, covariance_type)
    sub, per_class = split(jnp.asarray(component), params.weights, responsibilities)
    stats = gaussian_em._expected_stats(
        np.asarray(params.means).reshape(sub.shape[1], -1),
        full_flat_covariances(params, covariance_type),
        X,
        np.asarray(sub),
        stats_type(covariance_type),
    )
    return jax.tree.map(lambda leaf: jnp.asarray(leaf, X.dtype), stats), per_class


def _missing_em(X, responsibilities, initial, settings: EMSettings, start):
    """EM over components and missing entries at once, one NumPy/JAX pass per iteration."""
    covariance_type = settings.covariance_type
    if start is None:
        stats = suff_stats(
            jnp.asarray(filled(X)), jnp.asarray(initial), stats_type(covariance_type)
        )
    else:
        stats, _ = _expected(start, X, responsibilities, covariance_type)

    def step(payload):
        following, _ = payload  # the statistics behind the objective recorded next
        params = m_step(
            following, *settings[:4], covariance_type=covariance_type, kind=settings.kind
        )
        expected, per_class = _expected(params, X, responsibilities, covariance_type)
        return (expected, following), np.asarray(_objective(params, per_class, settings))

    # SQUAREM steps as in GaussianDA's EM over missing entries, on the sub-classes'
    # statistics (their counts move here too); a step's input ignores its second half.
    fit = em.run_extrapolated(
        (stats, None),
        step,
        tol=settings.tol,
        max_iter=settings.max_iter,
        extrapolate=gaussian_em.extrapolation(settings.kind, stats_type(covariance_type)),
        trial_step=gaussian_em.trial(step),
    )
    state = fit.state
    return state.payload[1], np.asarray(state.history), state.converged
