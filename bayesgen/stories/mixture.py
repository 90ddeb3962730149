r"""Mixture discriminant analysis as a NumPyro story: a Gaussian mixture inside each class.

$$
\pi \sim \mathrm{Dirichlet}(\alpha), \quad
w_k \sim \mathrm{Dirichlet}(\beta), \quad
(\mu_{km}, \Sigma_{km}) \sim \mathrm{NIW}(m_0, \kappa_0, \nu_0, \Psi_0), \quad
y_i \sim \mathrm{Categorical}(\pi), \quad
c_i \mid y_i \sim \mathrm{Categorical}(w_{y_i}), \quad
x_i \mid y_i, c_i \sim \mathcal N(\mu_{y_i c_i}, \Sigma_{y_i c_i}).
$$

With ``"tied"`` one $\Sigma_k \sim \mathcal{IW}(\nu_0, \Psi_0)$ per class is shared by
its components, each $\mu_{km} \mid \Sigma_k \sim \mathcal N(m_0, \Sigma_k/\kappa_0)$;
``"diag"`` and ``"spherical"`` use the Normal–Inverse-Gamma of
`bayesgen.families.gaussian.posterior`. The component $c_i$ is a site
(``"component"``) only when ``X`` is drawn; an observed row is scored by the closed-form
mixture $\sum_m w_{km}\,\mathcal N(x_i; \mu_{km}, \Sigma_{km})$ (NumPyro's
``MixtureSameFamily``), so the log density is exact and has no discrete latent site.
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np
import numpyro
import numpyro.distributions as dist
from jax import Array

from bayesgen import registry
from bayesgen.families.class_prior import Dirichlet
from bayesgen.families.gaussian import NormalInverseWishart, observed_block
from bayesgen.families.namespace import tree_map
from bayesgen.stories.common import StoryPart, classifier_story
from bayesgen.stories.gaussian import _may_have_missing
from bayesgen.stories.latent_class import restricted_weights


def _mixture_parameters(
    prior, covariance_type, n_classes, n_components, weight_concentration, active
):
    m0, kappa0, nu0, psi0 = (jnp.asarray(field) for field in prior)
    n_features = m0.shape[-1]
    with numpyro.plate("classes", n_classes):
        weights = numpyro.sample(
            "weights", dist.Dirichlet(jnp.full(n_components, weight_concentration))
        )
    weights = restricted_weights(weights, active)
    if covariance_type in ("full", "tied"):
        if covariance_type == "tied":
            with numpyro.plate("classes", n_classes):
                covariances = numpyro.sample(
                    "covariances", dist.InverseWishart(nu0, scale_matrix=psi0)
                )
        with (
            numpyro.plate("classes", n_classes, dim=-2),
            numpyro.plate("components", n_components, dim=-1),
        ):
            if covariance_type == "full":
                covariances = numpyro.sample(
                    "covariances", dist.InverseWishart(nu0, scale_matrix=psi0)
                )
                per_component = covariances
            else:
                per_component = covariances[:, None]
            means = numpyro.sample(
                "means", dist.MultivariateNormal(m0, covariance_matrix=per_component / kappa0)
            )
        return weights, means, covariances
    if covariance_type == "diag":
        with (
            numpyro.plate("classes", n_classes, dim=-3),
            numpyro.plate("components", n_components, dim=-2),
            numpyro.plate("features", n_features, dim=-1),
        ):
            variances = numpyro.sample("covariances", dist.InverseGamma(nu0 / 2, psi0 / 2))
            means = numpyro.sample("means", dist.Normal(m0, jnp.sqrt(variances / kappa0)))
        return weights, means, variances
    with (
        numpyro.plate("classes", n_classes, dim=-2),
        numpyro.plate("components", n_components, dim=-1),
    ):
        variances = numpyro.sample("covariances", dist.InverseGamma(nu0 / 2, psi0 / 2))
        scale = jnp.sqrt(variances / kappa0)[..., None] * jnp.ones(n_features)
        means = numpyro.sample("means", dist.Normal(m0, scale).to_event(1))
    return weights, means, variances


def _components(means, covariances, covariance_type, present=None):
    """The Gaussian components indexed like ``means`` (..., d), optionally masked to the
    observed entries ``present`` (..., d): the missing block becomes N(0, I) at 0."""
    if covariance_type in ("diag", "spherical"):
        scale = jnp.sqrt(covariances)
        if covariance_type == "spherical":
            scale = scale[..., None] * jnp.ones(means.shape[-1])
        if present is None:
            return dist.Normal(means, scale).to_event(1)
        return dist.Normal(means, scale).mask(present).to_event(1)
    if present is None:
        return dist.MultivariateNormal(means, scale_tril=jnp.linalg.cholesky(covariances))
    loc = observed_block.masked_mean(means, present)
    return dist.MultivariateNormal(
        loc, scale_tril=observed_block.masked_cholesky(covariances, present)
    )


def _per_component_covariances(covariances, labels, covariance_type):
    if covariance_type == "tied":
        return covariances[labels][:, None]  # (n, 1, d, d): shared by the components
    return covariances[labels]


def mixture_part(
    prior: NormalInverseWishart,
    covariance_type: str,
    n_classes: int,
    n_components: int,
    weight_concentration: float = 1.0,
    active=None,
) -> StoryPart:
    """Mixture discriminant analysis's share of a story.

    ``active`` (n_classes, n_components) marks the components each class has (a count per
    class): the weights' draw restricted to them (`bayesgen.stories.latent_class.
    restricted_weights`); by default all.

    Sites ``"weights"`` (n_classes, n_components), ``"means"`` (n_classes, n_components,
    n_features) and ``"covariances"`` (shaped as ``MixtureDA.covariances_``), then per row
    ``"component"`` (only when ``X`` is drawn) and ``"X"``. Observed rows may have
    missing entries (NaN): the mixture of their observed blocks is observed, with the
    factor ``"X_missing"`` taking out the $-\\tfrac{m}{2}\\log 2\\pi$ of the masked
    identity block (as in [`bayesgen.stories.gaussian_part`][bayesgen.stories.gaussian_part]).
    """

    def parameters():
        return _mixture_parameters(
            prior, covariance_type, n_classes, n_components, weight_concentration, active
        )

    def features(params, labels, X):
        weights, means, covariances = params
        if X is None:
            component = numpyro.sample("component", dist.Categorical(probs=weights[labels]))
            if covariance_type == "tied":
                chosen = covariances[labels]
            else:
                chosen = covariances[labels, component]
            numpyro.sample("X", _components(means[labels, component], chosen, covariance_type))
            return
        selector = dist.Categorical(probs=weights[labels])
        row_covariances = _per_component_covariances(covariances, labels, covariance_type)
        if not _may_have_missing(X):
            mixture = dist.MixtureSameFamily(
                selector, _components(means[labels], row_covariances, covariance_type)
            )
            numpyro.sample("X", mixture, obs=X)
            return
        present = ~jnp.isnan(X)
        components = _components(
            means[labels], row_covariances, covariance_type, present[:, None, :]
        )
        numpyro.sample(
            "X", dist.MixtureSameFamily(selector, components), obs=jnp.where(present, X, 0.0)
        )
        if covariance_type in ("full", "tied"):
            numpyro.factor("X_missing", observed_block.missing_log_norm(present))

    return StoryPart(parameters, features)


def mixture_story(
    X: Array | None = None,
    y: Array | None = None,
    *,
    class_prior: Dirichlet,
    prior: NormalInverseWishart,
    covariance_type: str,
    n_components: int,
    weight_concentration: float = 1.0,
    fixed_class_prior: Array | None = None,
    n_samples: int | None = None,
) -> None:
    """Mixture discriminant analysis as a generative story (see the module docstring).

    Parameters
    ----------
    X : array of shape (n_samples, n_features), optional
        Observed features (NaN for a missing entry); ``None`` draws them.
    y : array of shape (n_samples,), optional
        Observed class indices ``0..K-1`` (-1: unlabelled); ``None`` draws them.
    class_prior : Dirichlet
        Prior of the class probabilities (site ``"class_prior"``).
    prior : NormalInverseWishart
        Prior of every component's mean and covariance.
    covariance_type : {"full", "tied", "diag", "spherical"}
    n_components : int
        Components per class.
    weight_concentration : float, default=1.0
        $\\beta$, the symmetric Dirichlet prior of each class's weights.
    fixed_class_prior : array of shape (n_classes,), optional
        Known class probabilities; then ``"class_prior"`` is not a random site.
    n_samples : int, optional
        Number of rows to draw when neither ``X`` nor ``y`` is given.
    """
    n_classes = jnp.shape(class_prior.concentration)[-1]
    part = mixture_part(prior, covariance_type, n_classes, n_components, weight_concentration)
    classifier_story(
        X,
        y,
        class_prior=class_prior,
        part=part,
        fixed_class_prior=fixed_class_prior,
        n_samples=n_samples,
    )


@registry.register_story_part("gaussian-mixture")
def gaussian_mixture_family_part(family, prior: NormalInverseWishart, n_classes: int):
    """The registered part of `bayesgen.families.gaussian_mixture.GaussianMixtureFamily`
    (``MixtureDA``): `mixture_part` with the family's covariance type, components, weight
    concentration and each class's components."""
    return mixture_part(
        tree_map(np.asarray, prior),
        family.covariance_type,
        n_classes,
        family.size,
        family.weight_concentration,
        family.active(n_classes),
    )
