r"""The naive-Bayes stories for binary, count and categorical features."""

from __future__ import annotations

from contextlib import contextmanager

import jax.numpy as jnp
import numpyro
import numpyro.distributions as dist
from jax import Array

from bayesgen import registry
from bayesgen.families.bernoulli import Beta
from bayesgen.families.class_prior import Dirichlet
from bayesgen.families.poisson import Gamma
from bayesgen.stories.common import StoryPart, classifier_story


def _present(X):
    """Missing entries (NaN) are masked out of the log density: their factor is dropped."""
    if X is None:
        return True, None
    present = ~jnp.isnan(X)
    return present, jnp.where(present, X, 0)


@contextmanager
def _class_feature_plates(n_classes: int, n_features: int):
    """A (class, feature) grid of independent parameters: plates at dims -2 and -1."""
    with numpyro.plate("classes", n_classes, dim=-2), numpyro.plate("features", n_features):
        yield


def bernoulli_part(prior: Beta, n_classes: int) -> StoryPart:
    """Sites ``"feature_probs"`` (n_classes, n_features) ~ Beta and ``"X"`` ~ Bernoulli."""

    def parameters():
        concentration1 = jnp.asarray(prior.concentration1)
        concentration0 = jnp.asarray(prior.concentration0)
        n_features = jnp.broadcast_shapes(concentration1.shape, concentration0.shape)[-1]
        with _class_feature_plates(n_classes, n_features):
            return numpyro.sample("feature_probs", dist.Beta(concentration1, concentration0))

    def features(theta, labels, X):
        present, observed = _present(X)
        numpyro.sample(
            "X", dist.Bernoulli(probs=theta[labels]).mask(present).to_event(1), obs=observed
        )

    return StoryPart(parameters, features)


def multinomial_part(concentration: Array, n_classes: int, lengths=None) -> StoryPart:
    """Sites ``"feature_probs"`` (n_classes, n_features) ~ Dirichlet and ``"X"`` ~ Multinomial.

    The row totals are those of the observed ``X``, or ``lengths`` when drawing.
    """

    def parameters():
        with numpyro.plate("classes", n_classes):
            return numpyro.sample("feature_probs", dist.Dirichlet(jnp.asarray(concentration)))

    def features(theta, labels, X):
        totals = jnp.sum(X, axis=-1) if X is not None else lengths
        if totals is None:
            raise ValueError("The multinomial story needs X or lengths (the row totals to draw).")
        numpyro.sample("X", dist.Multinomial(total_count=totals, probs=theta[labels]), obs=X)

    return StoryPart(parameters, features)


def poisson_part(prior: Gamma, n_classes: int) -> StoryPart:
    """Sites ``"rates"`` (n_classes, n_features) ~ Gamma and ``"X"`` ~ Poisson."""

    def parameters():
        shape, rate = jnp.asarray(prior.shape), jnp.asarray(prior.rate)
        with _class_feature_plates(n_classes, jnp.broadcast_shapes(shape.shape, rate.shape)[-1]):
            return numpyro.sample("rates", dist.Gamma(shape, rate))

    def features(rates, labels, X):
        present, observed = _present(X)
        numpyro.sample("X", dist.Poisson(rates[labels]).mask(present).to_event(1), obs=observed)

    return StoryPart(parameters, features)


def categorical_part(concentrations: list[Array], n_classes: int) -> StoryPart:
    """Per feature ``j``: ``"category_probs_j"`` ~ Dirichlet and ``"X_j"`` ~ Categorical.

    ``X`` holds category codes ``0..C_j``; code ``C_j`` stands for every value not seen in
    training.
    """

    def parameters():
        with numpyro.plate("classes", n_classes):
            return [
                numpyro.sample(f"category_probs_{j}", dist.Dirichlet(jnp.asarray(alpha)))
                for j, alpha in enumerate(concentrations)
            ]

    def features(thetas, labels, X):
        for j, theta in enumerate(thetas):
            codes = None if X is None else X[:, j]
            present = True if codes is None else codes >= 0  # code -1: missing
            observed = None if codes is None else jnp.where(present, codes, 0)
            numpyro.sample(
                f"X_{j}", dist.Categorical(probs=theta[labels]).mask(present), obs=observed
            )

    return StoryPart(parameters, features)


@registry.register_story_part("bernoulli")
def _bernoulli_family_part(family, prior: Beta, n_classes: int) -> StoryPart:
    """The registered part of `BernoulliFamily`."""
    return bernoulli_part(prior, n_classes)


@registry.register_story_part("multinomial")
def _multinomial_family_part(family, prior: Array, n_classes: int, lengths=None) -> StoryPart:
    """The registered part of `MultinomialFamily`."""
    return multinomial_part(prior, n_classes, lengths)


@registry.register_story_part("poisson")
def _poisson_family_part(family, prior: Gamma, n_classes: int) -> StoryPart:
    """The registered part of `PoissonFamily`."""
    return poisson_part(prior, n_classes)


@registry.register_story_part("categorical")
def _categorical_family_part(family, prior, n_classes: int) -> StoryPart:
    """The registered part of `CategoricalFamily`."""
    return categorical_part(family.block_concentrations(prior), n_classes)


def _n_classes(class_prior: Dirichlet) -> int:
    return jnp.shape(class_prior.concentration)[-1]


def bernoulli_story(
    X=None, y=None, *, class_prior: Dirichlet, prior: Beta, fixed_class_prior=None, n_samples=None
) -> None:
    r"""Beta–Bernoulli naive Bayes.

    $$
    \pi \sim \mathrm{Dirichlet}, \quad \theta_{kj} \sim \mathrm{Beta}(\alpha_1, \alpha_0),
    \quad y_i \sim \mathrm{Categorical}(\pi), \quad
    x_{ij} \mid y_i \sim \mathrm{Bernoulli}(\theta_{y_i j}).
    $$"""
    part = bernoulli_part(prior, _n_classes(class_prior))
    classifier_story(
        X,
        y,
        class_prior=class_prior,
        part=part,
        fixed_class_prior=fixed_class_prior,
        n_samples=n_samples,
    )


def multinomial_story(
    X=None,
    y=None,
    *,
    class_prior: Dirichlet,
    concentration: Array,
    fixed_class_prior=None,
    lengths=None,
    n_samples=None,
) -> None:
    r"""Dirichlet–multinomial naive Bayes.

    $$
    \theta_k \sim \mathrm{Dirichlet}(\alpha), \quad y_i \sim \mathrm{Categorical}(\pi),
    \quad x_i \mid y_i, L_i \sim \mathrm{Multinomial}(L_i, \theta_{y_i}).
    $$

    The row totals $L_i$ are not modelled: they are the row sums of ``X`` or the
    given ``lengths``.
    """
    if X is None and lengths is None:
        raise ValueError("multinomial_story needs X or lengths (the row totals to draw).")
    if n_samples is None and X is None and y is None:
        n_samples = jnp.shape(lengths)[0]
    part = multinomial_part(concentration, _n_classes(class_prior), lengths)
    classifier_story(
        X,
        y,
        class_prior=class_prior,
        part=part,
        fixed_class_prior=fixed_class_prior,
        n_samples=n_samples,
    )


def poisson_story(
    X=None, y=None, *, class_prior: Dirichlet, prior: Gamma, fixed_class_prior=None, n_samples=None
) -> None:
    r"""Gamma–Poisson naive Bayes.

    $$
    \lambda_{kj} \sim \mathrm{Gamma}(a, b), \quad y_i \sim \mathrm{Categorical}(\pi),
    \quad x_{ij} \mid y_i \sim \mathrm{Poisson}(\lambda_{y_i j}).
    $$"""
    part = poisson_part(prior, _n_classes(class_prior))
    classifier_story(
        X,
        y,
        class_prior=class_prior,
        part=part,
        fixed_class_prior=fixed_class_prior,
        n_samples=n_samples,
    )


def categorical_story(
    X=None,
    y=None,
    *,
    class_prior: Dirichlet,
    concentrations: list[Array],
    fixed_class_prior=None,
    n_samples=None,
) -> None:
    r"""Dirichlet–categorical naive Bayes, one Dirichlet per feature and class.

    $$
    \theta_{kj} \sim \mathrm{Dirichlet}(\alpha_j), \quad y_i \sim \mathrm{Categorical}(\pi),
    \quad x_{ij} \mid y_i \sim \mathrm{Categorical}(\theta_{y_i j}).
    $$"""
    part = categorical_part(concentrations, _n_classes(class_prior))
    classifier_story(
        X,
        y,
        class_prior=class_prior,
        part=part,
        fixed_class_prior=fixed_class_prior,
        n_samples=n_samples,
    )
