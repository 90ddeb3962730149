r"""The log-normal family's share of a story: positive features, Normal–Inverse-Gamma prior."""

from __future__ import annotations

import jax.numpy as jnp
import numpyro
import numpyro.distributions as dist

from bayesgen import registry
from bayesgen.families.lognormal import LogNormalParams, NormalInverseGamma
from bayesgen.stories.common import StoryPart
from bayesgen.stories.discrete import _class_feature_plates


@registry.register_story_part("lognormal")
def lognormal_part(family, prior: NormalInverseGamma, n_classes: int) -> StoryPart:
    r"""Sites ``"log_variances"`` ~ InvGamma$(\nu_0/2, \psi_0/2)$, ``"log_means"`` ~
    Normal$(m_0, \sigma^2/\kappa_0)$, each (n_classes, n_features), and ``"X"`` ~ LogNormal.

    Missing entries (NaN) are masked out: their factor is dropped (and they are read as 1,
    whose log-normal density is finite, so no NaN reaches a gradient). ``family`` (a
    `LogNormalFamily`) is not needed beyond its prior.
    """

    def parameters():
        mean, kappa, dof, scale = (jnp.asarray(p) for p in prior)
        with _class_feature_plates(n_classes, jnp.shape(mean)[-1]):
            variances = numpyro.sample("log_variances", dist.InverseGamma(dof / 2, scale / 2))
            means = numpyro.sample("log_means", dist.Normal(mean, jnp.sqrt(variances / kappa)))
        return LogNormalParams(means, variances)

    def features(params, labels, X):
        present = True if X is None else ~jnp.isnan(X)
        observed = None if X is None else jnp.where(present, X, 1.0)
        distribution = dist.LogNormal(
            params.log_means[labels], jnp.sqrt(params.log_variances[labels])
        )
        numpyro.sample("X", distribution.mask(present).to_event(1), obs=observed)

    return StoryPart(parameters, features)
