"""Gaussian discriminant analysis as a NumPyro story."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import numpyro
import numpyro.distributions as dist
from jax import Array

from bayesgen import registry
from bayesgen.families.class_prior import Dirichlet
from bayesgen.families.gaussian import NormalInverseWishart, observed_block
from bayesgen.missing import has_missing
from bayesgen.stories.common import StoryPart, classifier_story


def _gaussian_parameters(prior: NormalInverseWishart, covariance_type: str, n_classes: int):
    m0, kappa0, nu0, psi0 = (jnp.asarray(field) for field in prior)
    n_features = m0.shape[-1]
    if covariance_type in ("full", "tied"):
        if covariance_type == "tied":
            covariance = numpyro.sample("covariances", dist.InverseWishart(nu0, scale_matrix=psi0))
        with numpyro.plate("classes", n_classes):
            if covariance_type == "full":
                covariance = numpyro.sample(
                    "covariances", dist.InverseWishart(nu0, scale_matrix=psi0)
                )
            means = numpyro.sample(
                "means", dist.MultivariateNormal(m0, covariance_matrix=covariance / kappa0)
            )
        return means, covariance
    if covariance_type == "diag":
        with numpyro.plate("classes", n_classes, dim=-2), numpyro.plate("features", n_features):
            variances = numpyro.sample("covariances", dist.InverseGamma(nu0 / 2, psi0 / 2))
            means = numpyro.sample("means", dist.Normal(m0, jnp.sqrt(variances / kappa0)))
        return means, variances
    with numpyro.plate("classes", n_classes):
        variances = numpyro.sample("covariances", dist.InverseGamma(nu0 / 2, psi0 / 2))
        scale = jnp.sqrt(variances / kappa0)[:, None] * jnp.ones(n_features)
        means = numpyro.sample("means", dist.Normal(m0, scale).to_event(1))
    return means, variances


def _features_given_label(means: Array, covariances: Array, y: Array, covariance_type: str):
    if covariance_type == "full":
        return dist.MultivariateNormal(means[y], scale_tril=jnp.linalg.cholesky(covariances)[y])
    if covariance_type == "tied":
        return dist.MultivariateNormal(means[y], scale_tril=jnp.linalg.cholesky(covariances))
    if covariance_type == "diag":
        return dist.Normal(means[y], jnp.sqrt(covariances[y])).to_event(1)
    return dist.Normal(means[y], jnp.sqrt(covariances[y])[:, None]).to_event(1)


def _may_have_missing(X) -> bool:
    if X is None:
        return False
    if isinstance(X, jax.core.Tracer):  # unknown while tracing: take the path that handles NaN
        return True
    return has_missing(np.asarray(X))  # NumPy: jnp would be staged out under jit


def _observe_with_missing(means, covariances, y, X, covariance_type):
    """Observe rows with NaN entries: each row's observed block has its marginal density.

    Diagonal types mask the missing coordinates' factors. Full and tied covariances are
    masked to $\\Sigma_{oo} \\oplus I$
    (`bayesgen.families.gaussian.observed_block`); the factor ``"X_missing"`` takes
    out the $-\\tfrac{m}{2}\\log 2\\pi$ the identity block adds.
    """
    present = ~jnp.isnan(X)
    filled = jnp.where(present, X, 0.0)
    if covariance_type in ("diag", "spherical"):
        scale = jnp.sqrt(covariances[y])
        if covariance_type == "spherical":
            scale = scale[:, None] * jnp.ones(X.shape[-1])
        distribution = dist.Normal(means[y], scale).mask(present).to_event(1)
        numpyro.sample("X", distribution, obs=filled)
        return
    covariance = covariances[y] if covariance_type == "full" else covariances
    lower = observed_block.masked_cholesky(covariance, present)
    loc = observed_block.masked_mean(means[y], present)
    numpyro.sample("X", dist.MultivariateNormal(loc, scale_tril=lower), obs=filled)
    numpyro.factor("X_missing", observed_block.missing_log_norm(present))


def gaussian_part(prior: NormalInverseWishart, covariance_type: str, n_classes: int) -> StoryPart:
    """The Gaussian family's share of a story: sites ``"means"``, ``"covariances"``, ``"X"``.

    Observed rows may have missing entries (NaN): their observed block is observed, the
    missing entries integrated out exactly.
    """

    def features(params, labels, X):
        means, covariances = params
        if _may_have_missing(X):
            _observe_with_missing(means, covariances, labels, X, covariance_type)
            return
        numpyro.sample(
            "X", _features_given_label(means, covariances, labels, covariance_type), obs=X
        )

    return StoryPart(lambda: _gaussian_parameters(prior, covariance_type, n_classes), features)


@registry.register_story_part("gaussian")
def family_part(family, prior: NormalInverseWishart, n_classes: int) -> StoryPart:
    """[`gaussian_part`][bayesgen.stories.gaussian_part] for a `GaussianFamily`."""
    return gaussian_part(prior, family.covariance_type, n_classes)


def gaussian_story(
    X: Array | None = None,
    y: Array | None = None,
    *,
    class_prior: Dirichlet,
    prior: NormalInverseWishart,
    covariance_type: str,
    fixed_class_prior: Array | None = None,
    n_samples: int | None = None,
) -> None:
    r"""Gaussian discriminant analysis as a generative story.

    $$
    \pi \sim \mathrm{Dirichlet}(\alpha), \quad
    (\mu_k, \Sigma_k) \sim \mathrm{NIW}(m_0, \kappa_0, \nu_0, \Psi_0), \quad
    y_i \sim \mathrm{Categorical}(\pi), \quad
    x_i \mid y_i \sim \mathcal N(\mu_{y_i}, \Sigma_{y_i}),
    $$

    with the covariance structure of ``covariance_type`` (see
    `bayesgen.families.gaussian.posterior` for the exact prior of each type).

    Parameters
    ----------
    X : array of shape (n_samples, n_features), optional
        Observed features; ``None`` draws them.
    y : array of shape (n_samples,), optional
        Observed class indices ``0..K-1``; ``None`` draws them.
    class_prior : Dirichlet
        Prior over the class probabilities (site ``"class_prior"``).
    prior : NormalInverseWishart
        Prior over the class means (site ``"means"``) and covariances (site
        ``"covariances"``).
    covariance_type : {"full", "tied", "diag", "spherical"}
    fixed_class_prior : array of shape (n_classes,), optional
        Known class probabilities; then ``"class_prior"`` is not a random site.
    n_samples : int, optional
        Number of rows to draw when neither ``X`` nor ``y`` is given.
    """
    n_classes = jnp.shape(class_prior.concentration)[-1]
    classifier_story(
        X,
        y,
        class_prior=class_prior,
        part=gaussian_part(prior, covariance_type, n_classes),
        fixed_class_prior=fixed_class_prior,
        n_samples=n_samples,
    )
