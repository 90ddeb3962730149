r"""A latent class model inside each class as a NumPyro story: a mixture of naive Bayes.

$$
w_k \sim \mathrm{Dirichlet}(\beta), \quad
y_i \sim \mathrm{Categorical}(\pi), \quad
c_i \mid y_i \sim \mathrm{Categorical}(w_{y_i}), \quad
x_i \mid y_i, c_i \sim \prod_g p_g(x_{i(g)} \mid \theta_{y_i c_i}).
$$

The inner part is any story part over $K M$ "classes" (the pairs $(k, m)$, flattened
as $k M + m$), such as ``MixedNB``'s combined part. The component $c_i$ is a site
(``"component"``) only when ``X`` is drawn; an observed row is scored by the closed-form
mixture $\log \sum_m w_{km}\, p(x_i \mid k, m)$, the factor ``"component"``, so its log
density is exact and has no discrete latent site (NUTS and ``log_density`` work as they are).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import numpyro
import numpyro.distributions as dist
from numpyro import handlers

from bayesgen.stories.common import StoryPart


def observed_log_density(part: StoryPart, params, labels, X):
    """The summed log density of ``part``'s observed sites for rows ``X``, per row.

    The sites are run under ``block`` (hidden from inference) and ``trace`` (to read their
    log densities), as `bayesgen.stories.common` sums out an unlabelled row's class.
    """
    with handlers.block(), handlers.trace() as trace:
        part.features(params, labels, X)
    return sum(
        site["fn"].log_prob(site["value"])
        for site in trace.values()
        if site["type"] == "sample" and site["is_observed"]
    )


def restricted_weights(weights, active):
    """Each class's weights restricted to its own components and renormalised.

    With ``weights`` a Dirichlet(β) draw over all $M$ components, the renormalised
    sub-vector over a class's first $M_k$ is a Dirichlet(β) draw over those (the Dirichlet's
    subcomposition property), so a class with fewer components is exactly its own story;
    ``active`` None (every class has $M$) leaves the weights as drawn.
    """
    if active is None or bool(np.all(active)):
        return weights
    kept = jnp.where(jnp.asarray(active), weights, 0.0)
    return kept / jnp.sum(kept, axis=-1, keepdims=True)


def latent_class_part(
    inner: StoryPart,
    n_classes: int,
    n_components: int,
    weight_concentration: float = 1.0,
    active=None,
) -> StoryPart:
    """A latent class model's share of a story: component weights, then ``inner`` per row.

    Parameters
    ----------
    inner : StoryPart
        The components' part, over ``n_classes * n_components`` classes.
    n_classes, n_components : int
    weight_concentration : float, default=1.0
        Concentration $\\beta$ of each class's symmetric Dirichlet on its component weights.
    active : array-like of bool of shape (n_classes, n_components), optional
        The components each class has (`restricted_weights`); by default all.

    Returns
    -------
    StoryPart
        Sites ``"component_weights"`` (n_classes, n_components) and ``inner``'s parameter
        sites; per row ``"component"`` (drawn rows) or the factor ``"component"`` (observed
        rows), and ``inner``'s feature sites.
    """

    def parameters():
        with numpyro.plate("component_classes", n_classes):
            weights = numpyro.sample(
                "component_weights",
                dist.Dirichlet(jnp.full(n_components, float(weight_concentration))),
            )
        return restricted_weights(weights, active), inner.parameters()

    def features(params, labels, X):
        weights, inner_params = params
        if X is None:
            component = numpyro.sample("component", dist.Categorical(probs=weights[labels]))
            inner.features(inner_params, labels * n_components + component, None)
            return
        per_component = jnp.stack(
            [
                observed_log_density(inner, inner_params, labels * n_components + m, X)
                for m in range(n_components)
            ],
            axis=-1,
        )
        joint = jnp.log(weights[labels]) + per_component
        numpyro.factor("component", jax.nn.logsumexp(joint, axis=-1))

    return StoryPart(parameters, features)
