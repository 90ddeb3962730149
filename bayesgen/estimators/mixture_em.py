"""The log prior of a mixture's parameters (the "map" EM objective's prior term).

The rest of the mixture moved: its parameters, M-step and log-likelihoods to
:mod:`bayesgen.families.mixture`, the EM loops to :mod:`bayesgen.inference.mixture_em`.
``log_prior`` follows into ``families/mixture.py`` once the Normal–Inverse-Wishart log prior
has one implementation in ``families/gaussian`` (it stays here meanwhile, so that change
merges cleanly); the model-file whitelist also still names this module.
"""

from __future__ import annotations

from functools import partial

import jax
import jax.numpy as jnp
import numpyro.distributions as dist
from jax import Array
from jax.scipy.special import gammaln

from bayesgen.families.gaussian import NormalInverseWishart
from bayesgen.families.mixture import MixtureParams


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
