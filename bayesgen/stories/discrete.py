r"""The naive-Bayes stories for binary, count and categorical features."""

from __future__ import annotations

import jax.numpy as jnp
import numpyro
import numpyro.distributions as dist
from jax import Array

from bayesgen.families.bernoulli import Beta
from bayesgen.families.class_prior import Dirichlet
from bayesgen.families.poisson import Gamma
from bayesgen.stories.common import class_probabilities, n_rows


def bernoulli_story(
    X: Array | None = None,
    y: Array | None = None,
    *,
    class_prior: Dirichlet,
    prior: Beta,
    fixed_class_prior: Array | None = None,
    n_samples: int | None = None,
) -> None:
    r"""Beta–Bernoulli naive Bayes.

    .. math::

        \pi \sim \mathrm{Dirichlet}, \quad \theta_{kj} \sim \mathrm{Beta}(\alpha_1, \alpha_0),
        \quad y_i \sim \mathrm{Categorical}(\pi), \quad
        x_{ij} \mid y_i \sim \mathrm{Bernoulli}(\theta_{y_i j}).

    Sites ``"class_prior"``, ``"feature_probs"`` (n_classes, n_features), ``"y"``, ``"X"``.
    """
    rows = n_rows(X, y, n_samples)
    pi = class_probabilities(class_prior, fixed_class_prior)
    n_classes = jnp.shape(class_prior.concentration)[-1]
    with numpyro.plate("classes", n_classes, dim=-2):
        theta = numpyro.sample(
            "feature_probs",
            dist.Beta(jnp.asarray(prior.concentration1), jnp.asarray(prior.concentration0)),
        )
    with numpyro.plate("rows", rows):
        labels = numpyro.sample("y", dist.Categorical(probs=pi), obs=y)
        numpyro.sample("X", dist.Bernoulli(probs=theta[labels]).to_event(1), obs=X)


def multinomial_story(
    X: Array | None = None,
    y: Array | None = None,
    *,
    class_prior: Dirichlet,
    concentration: Array,
    fixed_class_prior: Array | None = None,
    lengths: Array | None = None,
    n_samples: int | None = None,
) -> None:
    r"""Dirichlet–multinomial naive Bayes.

    .. math::

        \theta_k \sim \mathrm{Dirichlet}(\alpha), \quad y_i \sim \mathrm{Categorical}(\pi),
        \quad x_i \mid y_i, L_i \sim \mathrm{Multinomial}(L_i, \theta_{y_i}).

    The row totals :math:`L_i` are not modelled: they are the row sums of ``X`` or the
    given ``lengths``. Sites ``"class_prior"``, ``"feature_probs"``, ``"y"``, ``"X"``.
    """
    if X is not None:
        lengths = jnp.sum(X, axis=-1)
    elif lengths is None:
        raise ValueError("multinomial_story needs X or lengths (the row totals to draw).")
    rows = n_rows(X, y, n_samples if n_samples is not None else jnp.shape(lengths)[0])
    pi = class_probabilities(class_prior, fixed_class_prior)
    n_classes = jnp.shape(class_prior.concentration)[-1]
    with numpyro.plate("classes", n_classes):
        theta = numpyro.sample("feature_probs", dist.Dirichlet(jnp.asarray(concentration)))
    with numpyro.plate("rows", rows):
        labels = numpyro.sample("y", dist.Categorical(probs=pi), obs=y)
        counts = dist.Multinomial(total_count=lengths, probs=theta[labels])
        numpyro.sample("X", counts, obs=X)


def poisson_story(
    X: Array | None = None,
    y: Array | None = None,
    *,
    class_prior: Dirichlet,
    prior: Gamma,
    fixed_class_prior: Array | None = None,
    n_samples: int | None = None,
) -> None:
    r"""Gamma–Poisson naive Bayes.

    .. math::

        \lambda_{kj} \sim \mathrm{Gamma}(a, b), \quad y_i \sim \mathrm{Categorical}(\pi),
        \quad x_{ij} \mid y_i \sim \mathrm{Poisson}(\lambda_{y_i j}).

    Sites ``"class_prior"``, ``"rates"`` (n_classes, n_features), ``"y"``, ``"X"``.
    """
    rows = n_rows(X, y, n_samples)
    pi = class_probabilities(class_prior, fixed_class_prior)
    n_classes = jnp.shape(class_prior.concentration)[-1]
    with numpyro.plate("classes", n_classes, dim=-2):
        rates = numpyro.sample(
            "rates", dist.Gamma(jnp.asarray(prior.shape), jnp.asarray(prior.rate))
        )
    with numpyro.plate("rows", rows):
        labels = numpyro.sample("y", dist.Categorical(probs=pi), obs=y)
        numpyro.sample("X", dist.Poisson(rates[labels]).to_event(1), obs=X)


def categorical_story(
    X: Array | None = None,
    y: Array | None = None,
    *,
    class_prior: Dirichlet,
    concentrations: list[Array],
    fixed_class_prior: Array | None = None,
    n_samples: int | None = None,
) -> None:
    r"""Dirichlet–categorical naive Bayes, one Dirichlet per feature and class.

    .. math::

        \theta_{kj} \sim \mathrm{Dirichlet}(\alpha_j), \quad y_i \sim \mathrm{Categorical}(\pi),
        \quad x_{ij} \mid y_i \sim \mathrm{Categorical}(\theta_{y_i j}).

    ``X`` holds category codes ``0..C_j`` (code ``C_j`` stands for every category not seen
    in training). Sites ``"class_prior"``, ``"y"``, and per feature ``j``:
    ``"category_probs_j"`` (n_classes, C_j + 1) and ``"X_j"``.
    """
    rows = n_rows(X, y, n_samples)
    pi = class_probabilities(class_prior, fixed_class_prior)
    n_classes = jnp.shape(class_prior.concentration)[-1]
    thetas = []
    with numpyro.plate("classes", n_classes):
        for j, concentration in enumerate(concentrations):
            thetas.append(
                numpyro.sample(f"category_probs_{j}", dist.Dirichlet(jnp.asarray(concentration)))
            )
    with numpyro.plate("rows", rows):
        labels = numpyro.sample("y", dist.Categorical(probs=pi), obs=y)
        for j, theta in enumerate(thetas):
            observed = None if X is None else X[:, j]
            numpyro.sample(f"X_{j}", dist.Categorical(probs=theta[labels]), obs=observed)
