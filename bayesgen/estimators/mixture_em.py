r"""EM for mixture discriminant analysis: a Gaussian mixture per class, from responsibilities.

Class :math:`k` has the density :math:`p(x \mid k) = \sum_m w_{km}\,\mathcal N(x;
\mu_{km}, \Sigma_{km})`. Its :math:`K M` components are treated as Gaussian "sub-classes"
whose responsibilities are :math:`R_{ik}\,\gamma_{ikm}`, with :math:`R` the class
responsibilities of the rows (one-hot times sample weight, or soft in the semi-supervised
EM) and

.. math::

    \gamma_{ikm} = \frac{w_{km}\,\mathcal N(x_i; \mu_{km}, \Sigma_{km})}
                        {\sum_{m'} w_{km'}\,\mathcal N(x_i; \mu_{km'}, \Sigma_{km'})}.

The M-step is then the Gaussian family's own point estimate from the sub-classes'
sufficient statistics (per class, so that ``"tied"`` shares one covariance among a class's
components), plus the ridge, and the weights are the Dirichlet point estimate of
:math:`N_{km} = \sum_i R_{ik}\gamma_{ikm}`. With missing entries (NaN) the statistics are
the exact expected ones (:func:`bayesgen.estimators.gaussian_em._expected_stats`), so
components and missing entries are one EM. The objective, per class,

.. math::

    \ell_k = \sum_i R_{ik} \log p(x_{i,o} \mid k) + \log p(w_k, \mu_k, \Sigma_k)

(the log prior only for ``"map"``) never decreases. Components past a class's own count
(a per-class ``n_components``) are inactive: weight zero, left out of the prior.
"""

from __future__ import annotations

from functools import partial
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
import numpyro.distributions as dist
from jax import Array
from jax.scipy.special import gammaln

from bayesgen.estimators import gaussian_em
from bayesgen.families import dirichlet
from bayesgen.families.gaussian import (
    GaussianParams,
    GaussianStats,
    NormalInverseWishart,
    add_ridge,
    log_likelihood,
    missing,
    point_estimate,
    suff_stats,
)
from bayesgen.inference import em


class MixtureParams(NamedTuple):
    """Parameters of the per-class mixtures, shaped like ``sklearn.mixture`` with a class axis.

    Attributes
    ----------
    weights : Array of shape (n_classes, n_components)
    means : Array of shape (n_classes, n_components, n_features)
    covariances : Array
        ``(K, M, d, d)`` full, ``(K, d, d)`` tied (one per class), ``(K, M, d)`` diag,
        ``(K, M)`` spherical.
    """

    weights: Array
    means: Array
    covariances: Array


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


def stats_type(covariance_type: str) -> str:
    """The statistics kept per component: full scatter for full/tied, diagonals otherwise."""
    return "full" if covariance_type in ("full", "tied") else "diag"


def flat_params(params: MixtureParams, covariance_type: str):
    """The K·M components as GaussianDA's classes: ``(GaussianParams, covariance_type)``."""
    n_classes, n_components, n_features = params.means.shape
    means = jnp.reshape(params.means, (n_classes * n_components, n_features))
    covariances = params.covariances
    if covariance_type == "tied":
        return GaussianParams(means, jnp.repeat(covariances, n_components, axis=0)), "full"
    covariances = jnp.reshape(covariances, (n_classes * n_components, *covariances.shape[2:]))
    return GaussianParams(means, covariances), covariance_type


@partial(jax.jit, static_argnames=("covariance_type", "kind"))
def m_step(stats: GaussianStats, prior, ridge, concentration, active, *, covariance_type, kind):
    r"""The M-step: parameters from the components' (expected) statistics.

    Each class's components go through the Gaussian family's ``point_estimate`` together
    (so ``"tied"`` pools their scatter into one covariance per class), plus the ridge; the
    weights are the Dirichlet point estimate of :math:`N_{km}`, zero for inactive slots.

    Parameters
    ----------
    stats : GaussianStats
        Of the K·M components (class-major), scatter as :func:`stats_type` says.
    prior : NormalInverseWishart
        Every component's prior (ignored for ``kind="mle"``).
    ridge : Array
        Added to every covariance (``add_ridge``).
    concentration : Array
        Dirichlet concentration of each class's weights.
    active : Array of bool of shape (n_classes, n_components)
    covariance_type : {"full", "tied", "diag", "spherical"}
    kind : {"mle", "map"}

    Returns
    -------
    MixtureParams
    """
    n_classes, n_components = active.shape
    counts = jnp.reshape(stats.counts, (n_classes, n_components))
    means = jnp.reshape(stats.means, (n_classes, n_components, -1))
    scatter = jnp.reshape(stats.scatter, (n_classes, n_components, *stats.scatter.shape[1:]))
    if covariance_type == "tied":
        scatter = jnp.sum(scatter, axis=1)

    def per_class(class_counts, class_means, class_scatter):
        class_stats = GaussianStats(class_counts, class_means, class_scatter)
        params = point_estimate(prior, class_stats, covariance_type, kind)
        return add_ridge(params, ridge, covariance_type)

    params = jax.vmap(per_class)(counts, means, scatter)
    weights = jnp.where(active, dirichlet.point_estimate(concentration, counts, kind), 0.0)
    weights = weights / jnp.sum(weights, axis=1, keepdims=True)
    return MixtureParams(weights, params.means, params.covariances)


def _split(component_log_likelihood, weights, responsibilities):
    r"""The E-step: :math:`R_{ik}\gamma_{ikm}` and each class's log-likelihood.

    Parameters
    ----------
    component_log_likelihood : Array of shape (n_samples, n_classes, n_components)
        :math:`\log \mathcal N(x_i; \mu_{km}, \Sigma_{km})` (observed block if NaN).
    weights : Array of shape (n_classes, n_components)
    responsibilities : Array of shape (n_samples, n_classes)
        :math:`R_{ik}`.

    Returns
    -------
    sub_responsibilities : Array of shape (n_samples, n_classes * n_components)
    per_class : Array of shape (n_classes,)
        :math:`\sum_i R_{ik} \log p(x_i \mid k)`.
    """
    n_samples, n_classes, n_components = component_log_likelihood.shape
    joint = component_log_likelihood + jnp.log(weights)  # -inf for inactive components
    class_log_likelihood = jax.nn.logsumexp(joint, axis=2)
    membership = jnp.exp(joint - class_log_likelihood[..., None])
    sub = responsibilities[:, :, None] * membership
    positive = responsibilities > 0
    terms = jnp.where(positive, responsibilities * class_log_likelihood, 0.0)
    return jnp.reshape(sub, (n_samples, n_classes * n_components)), jnp.sum(terms, axis=0)


split = jax.jit(_split)


def _component_log_likelihood(params: MixtureParams, X, covariance_type):
    """:math:`\\log \\mathcal N(x_i; \\mu_{km}, \\Sigma_{km})` of complete rows, (n, K, M)."""
    flat, flat_type = flat_params(params, covariance_type)
    n_classes, n_components = params.weights.shape
    values = log_likelihood(flat, X, flat_type)
    return jnp.reshape(values, (X.shape[0], n_classes, n_components))


component_log_likelihood = jax.jit(_component_log_likelihood, static_argnames="covariance_type")


@partial(jax.jit, static_argnames="covariance_type")
def class_log_likelihood(params: MixtureParams, X: Array, covariance_type: str) -> Array:
    """:math:`\\log p(x_i \\mid k)` of complete rows, (n_samples, n_classes)."""
    joint = _component_log_likelihood(params, X, covariance_type) + jnp.log(params.weights)
    return jax.nn.logsumexp(joint, axis=2)


def missing_component_log_likelihood(params: MixtureParams, X, covariance_type):
    """Observed-block :math:`\\log \\mathcal N(x_{i,o}; \\mu_{km,o}, \\Sigma_{km,oo})`, (n, K, M).

    NumPy (``families.gaussian.missing``): every missing pattern has its own block shapes.
    """
    flat, flat_type = flat_params(params, covariance_type)
    means, covariances = np.asarray(flat.means), np.asarray(flat.covariances)
    n_classes, n_components = np.shape(params.weights)
    if flat_type in ("diag", "spherical"):
        variances = np.broadcast_to(np.reshape(covariances, (means.shape[0], -1)), means.shape)
        values = missing.diagonal_log_likelihood(means, variances.astype(means.dtype), X)
    else:
        values = missing.log_likelihood(means, covariances, X)
    return values.reshape(X.shape[0], n_classes, n_components)


def full_flat_covariances(params: MixtureParams, covariance_type: str) -> np.ndarray:
    """Every component's covariance as a (K·M, d, d) NumPy array."""
    flat, flat_type = flat_params(params, covariance_type)
    n_components, n_features = flat.means.shape
    return np.array(
        missing.full_covariances(np.asarray(flat.covariances), flat_type, *flat.means.shape)
    ).reshape(n_components, n_features, n_features)


@partial(jax.jit, static_argnames="covariance_type")
def log_prior(
    params: MixtureParams,
    prior: NormalInverseWishart,
    concentration,
    active,
    *,
    covariance_type: str,
) -> Array:
    """Per class, the log density of its weights, means and covariances under the prior.

    Dirichlet(``concentration``) on the active weights, and the Normal–Inverse-Wishart (or
    Normal–Inverse-Gamma) of :mod:`bayesgen.families.gaussian.posterior` on each active
    component (``"tied"``: one inverse-Wishart per class, a normal mean per component), as
    in :func:`bayesgen.stories.mixture.mixture_part`. Shape (n_classes,).
    """
    m0, kappa0, nu0, psi0 = prior
    weights, means, covariances = params
    n_active = jnp.sum(active, axis=1)
    log_weights = jnp.where(active, jnp.log(jnp.where(active, weights, 1.0)), 0.0)
    total = (
        gammaln(concentration * n_active)
        - n_active * gammaln(concentration)
        + jnp.where(concentration == 1.0, 0.0, (concentration - 1.0) * jnp.sum(log_weights, 1))
    )
    if covariance_type == "full":
        per_component = dist.InverseWishart(nu0, scale_matrix=psi0).log_prob(covariances)
        per_component += dist.MultivariateNormal(
            m0, covariance_matrix=covariances / kappa0
        ).log_prob(means)
    elif covariance_type == "tied":
        total += dist.InverseWishart(nu0, scale_matrix=psi0).log_prob(covariances)
        per_component = dist.MultivariateNormal(
            m0, covariance_matrix=covariances[:, None] / kappa0
        ).log_prob(means)
    elif covariance_type == "diag":
        per_component = jnp.sum(
            dist.InverseGamma(nu0 / 2, psi0 / 2).log_prob(covariances)
            + dist.Normal(m0, jnp.sqrt(covariances / kappa0)).log_prob(means),
            axis=-1,
        )
    else:
        per_component = dist.InverseGamma(nu0 / 2, psi0 / 2).log_prob(covariances)
        scale = jnp.sqrt(covariances / kappa0)[..., None]
        per_component += jnp.sum(dist.Normal(m0, scale).log_prob(means), axis=-1)
    return total + jnp.sum(jnp.where(active, per_component, 0.0), axis=1)


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


@partial(jax.jit, static_argnames=("covariance_type", "kind", "max_iter"))
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
        component = _component_log_likelihood(params, X, covariance_type)
        following, per_class = _split(component, params.weights, responsibilities)
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
    """``X`` and per-row ``arrays`` padded with zero rows to :func:`_bucket` rows, as JAX
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

    state = em.run((stats, None), step, tol=settings.tol, max_iter=settings.max_iter)
    return state.payload[1], np.asarray(state.history), state.converged
