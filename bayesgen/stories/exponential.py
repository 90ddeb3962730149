r"""The Gamma–exponential naive-Bayes story: non-negative real features."""

from __future__ import annotations

import jax.numpy as jnp
import numpyro
import numpyro.distributions as dist

from bayesgen import registry
from bayesgen.families.class_prior import Dirichlet
from bayesgen.families.poisson import Gamma
from bayesgen.stories.common import StoryPart, classifier_story
from bayesgen.stories.discrete import _class_feature_plates, _present


@registry.register_story_part("exponential")
def exponential_part(family, prior: Gamma, n_classes: int) -> StoryPart:
    """Sites ``"rates"`` (n_classes, n_features) ~ Gamma and ``"X"`` ~ Exponential.

    Missing entries (NaN) are masked out: their factor is dropped. ``family`` (an
    `ExponentialFamily`) is not needed beyond its
    prior.
    """

    def parameters():
        shape, rate = jnp.asarray(prior.shape), jnp.asarray(prior.rate)
        with _class_feature_plates(n_classes, jnp.broadcast_shapes(shape.shape, rate.shape)[-1]):
            return numpyro.sample("rates", dist.Gamma(shape, rate))

    def features(rates, labels, X):
        present, observed = _present(X)
        numpyro.sample("X", dist.Exponential(rates[labels]).mask(present).to_event(1), obs=observed)

    return StoryPart(parameters, features)


def exponential_story(
    X=None, y=None, *, class_prior: Dirichlet, prior: Gamma, fixed_class_prior=None, n_samples=None
) -> None:
    r"""Gamma–exponential naive Bayes.

    $$
    \pi \sim \mathrm{Dirichlet}, \quad \lambda_{kj} \sim \mathrm{Gamma}(\alpha, \beta),
    \quad y_i \sim \mathrm{Categorical}(\pi), \quad
    x_{ij} \mid y_i \sim \mathrm{Exponential}(\lambda_{y_i j}).
    $$"""
    part = exponential_part(None, prior, jnp.shape(class_prior.concentration)[-1])
    classifier_story(
        X,
        y,
        class_prior=class_prior,
        part=part,
        fixed_class_prior=fixed_class_prior,
        n_samples=n_samples,
    )
