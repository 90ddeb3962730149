r"""The Gaussian-mixture class density: parameters, M-step, memberships, log-likelihoods.

Class $k$ has the density $p(x \mid k) = \sum_m w_{km}\,\mathcal N(x;
\mu_{km}, \Sigma_{km})$, its $K M$ components treated as Gaussian "sub-classes" of
the Gaussian family (`bayesgen.families.gaussian`). The memberships are

$$
\gamma_{ikm} = \frac{w_{km}\,\mathcal N(x_i; \mu_{km}, \Sigma_{km})}
{\sum_{m'} w_{km'}\,\mathcal N(x_i; \mu_{km'}, \Sigma_{km'})},
$$

and the sub-classes' responsibilities $R_{ik}\gamma_{ikm}$ feed the Gaussian
family's statistics, whose point estimate (per class, so that ``"tied"`` shares one
covariance among a class's components) is the M-step; the weights are the Dirichlet point
estimate of $N_{km} = \sum_i R_{ik}\gamma_{ikm}$. The EM loops over these pieces
are in `bayesgen.inference.mixture_em`; `log_prior` is the prior term of the
``"map"`` objective.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from bayesgen._lazy import lazy_attribute, lazy_jit, lazy_module
from bayesgen.families import dirichlet
from bayesgen.families.gaussian import (
    GaussianParams,
    GaussianStats,
    NormalInverseWishart,
    add_ridge,
    covariance_log_prior,
    log_likelihood,
    mean_log_prior,
    missing,
    point_estimate,
)

if TYPE_CHECKING:
    from jax import Array

jax = lazy_module("jax")
jnp = lazy_module("jax.numpy")
gammaln = lazy_attribute("jax.scipy.special", "gammaln")


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


@lazy_jit(static_argnames=("covariance_type", "kind"))
def m_step(stats: GaussianStats, prior, ridge, concentration, active, *, covariance_type, kind):
    r"""The M-step: parameters from the components' (expected) statistics.

    Each class's components go through the Gaussian family's ``point_estimate`` together
    (so ``"tied"`` pools their scatter into one covariance per class), plus the ridge; the
    weights are the Dirichlet point estimate of $N_{km}$, zero for inactive slots.

    Parameters
    ----------
    stats : GaussianStats
        Of the K·M components (class-major), scatter as `stats_type` says.
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
    r"""The E-step: $R_{ik}\gamma_{ikm}$ and each class's log-likelihood.

    Parameters
    ----------
    component_log_likelihood : Array of shape (n_samples, n_classes, n_components)
        $\log \mathcal N(x_i; \mu_{km}, \Sigma_{km})$ (observed block if NaN).
    weights : Array of shape (n_classes, n_components)
    responsibilities : Array of shape (n_samples, n_classes)
        $R_{ik}$.

    Returns
    -------
    sub_responsibilities : Array of shape (n_samples, n_classes * n_components)
    per_class : Array of shape (n_classes,)
        $\sum_i R_{ik} \log p(x_i \mid k)$.
    """
    n_samples, n_classes, n_components = component_log_likelihood.shape
    joint = component_log_likelihood + jnp.log(weights)  # -inf for inactive components
    class_log_likelihood = jax.nn.logsumexp(joint, axis=2)
    membership = jnp.exp(joint - class_log_likelihood[..., None])
    sub = responsibilities[:, :, None] * membership
    positive = responsibilities > 0
    terms = jnp.where(positive, responsibilities * class_log_likelihood, 0.0)
    return jnp.reshape(sub, (n_samples, n_classes * n_components)), jnp.sum(terms, axis=0)


split = lazy_jit(_split)


def _component_log_likelihood(params: MixtureParams, X, covariance_type):
    """$\\log \\mathcal N(x_i; \\mu_{km}, \\Sigma_{km})$ of complete rows, (n, K, M)."""
    flat, flat_type = flat_params(params, covariance_type)
    n_classes, n_components = params.weights.shape
    values = log_likelihood(flat, X, flat_type)
    return jnp.reshape(values, (X.shape[0], n_classes, n_components))


component_log_likelihood = lazy_jit(_component_log_likelihood, static_argnames="covariance_type")


@lazy_jit(static_argnames="covariance_type")
def class_log_likelihood(params: MixtureParams, X: Array, covariance_type: str) -> Array:
    """$\\log p(x_i \\mid k)$ of complete rows, (n_samples, n_classes)."""
    joint = _component_log_likelihood(params, X, covariance_type) + jnp.log(params.weights)
    return jax.nn.logsumexp(joint, axis=2)


def missing_component_log_likelihood(params: MixtureParams, X, covariance_type):
    """Observed-block $\\log \\mathcal N(x_{i,o}; \\mu_{km,o}, \\Sigma_{km,oo})$, (n, K, M).

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


@lazy_jit(static_argnames="covariance_type")
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
    Normal–Inverse-Gamma) of `bayesgen.families.gaussian.posterior` on each active
    component (``"tied"``: one inverse-Wishart per class, a normal mean per component), as
    in [`bayesgen.stories.mixture.mixture_part`][bayesgen.stories.mixture_part]. Shape (n_classes,).
    """
    weights, means, covariances = params
    n_active = jnp.sum(active, axis=1)
    log_weights = jnp.where(active, jnp.log(jnp.where(active, weights, 1.0)), 0.0)
    total = (
        gammaln(concentration * n_active)
        - n_active * gammaln(concentration)
        + jnp.where(concentration == 1.0, 0.0, (concentration - 1.0) * jnp.sum(log_weights, 1))
    )
    covariance_terms = covariance_log_prior(prior, covariances, covariance_type)
    if covariance_type == "tied":  # one covariance per class, shared by its components
        total += covariance_terms
        per_component = mean_log_prior(prior, means, covariances[:, None], covariance_type)
    else:
        per_component = covariance_terms + mean_log_prior(
            prior, means, covariances, covariance_type
        )
    return total + jnp.sum(jnp.where(active, per_component, 0.0), axis=1)
