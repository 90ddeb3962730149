"""The frame every story shares: class probabilities, parameters, then a plate of rows.

A family contributes a :class:`StoryPart`: how to draw its parameters from their prior,
and how to draw (or observe) its features given the labels. :func:`classifier_story` puts
one part inside the common frame; :func:`combined_part` joins the parts of several
families (each under its own name scope) so that they share one label per row.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import jax.numpy as jnp
import numpyro
import numpyro.distributions as dist
from jax import Array

from bayesgen.families.class_prior import Dirichlet


class StoryPart(NamedTuple):
    """One family's share of a story.

    Attributes
    ----------
    parameters : callable () -> params
        Samples the family's parameter sites (inside the caller's handlers).
    features : callable (params, labels, X) -> None
        Samples or observes the feature site(s) of the rows, inside the ``"rows"`` plate.
    """

    parameters: Callable[[], Any]
    features: Callable[[Any, Array, Any], None]


def n_rows(X, y, n_samples) -> int:
    """Number of rows of a story: from ``X``, else ``y``, else ``n_samples``."""
    if isinstance(X, dict):
        X = next((value for value in X.values() if value is not None), None)
    if X is not None:
        return X.shape[0]
    if y is not None:
        return y.shape[0]
    if n_samples is None:
        raise ValueError("A story needs X, y or n_samples to know how many rows to draw.")
    return n_samples


def class_probabilities(class_prior: Dirichlet, fixed_class_prior: Array | None) -> Array:
    """The ``"class_prior"`` site, or the fixed probabilities when they are given."""
    if fixed_class_prior is not None:
        return jnp.asarray(fixed_class_prior)
    return numpyro.sample("class_prior", dist.Dirichlet(jnp.asarray(class_prior.concentration)))


def classifier_story(
    X,
    y: Array | None,
    *,
    class_prior: Dirichlet,
    part: StoryPart,
    fixed_class_prior: Array | None = None,
    n_samples: int | None = None,
) -> None:
    r"""The common frame: :math:`\pi`, the family's parameters, then per row ``y`` and ``X``.

    Parameters
    ----------
    X : array, dict of arrays, or None
        Observed features (``None`` draws them).
    y : array of shape (n_samples,), optional
        Observed class indices (``None`` draws them).
    class_prior : Dirichlet
    part : StoryPart
    fixed_class_prior : array, optional
        Known class probabilities: no ``"class_prior"`` site.
    n_samples : int, optional
        Rows to draw when neither ``X`` nor ``y`` is given.
    """
    rows = n_rows(X, y, n_samples)
    pi = class_probabilities(class_prior, fixed_class_prior)
    params = part.parameters()
    with numpyro.plate("rows", rows):
        labels = numpyro.sample("y", dist.Categorical(probs=pi), obs=y)
        part.features(params, labels, X)


def combined_part(parts: dict[str, StoryPart]) -> StoryPart:
    """Several families side by side, their sites prefixed ``"<name>/"``; ``X`` is a dict."""

    def parameters():
        values = {}
        for name, part in parts.items():
            with numpyro.handlers.scope(prefix=name):
                values[name] = part.parameters()
        return values

    def features(params, labels, X):
        for name, part in parts.items():
            with numpyro.handlers.scope(prefix=name):
                part.features(params[name], labels, None if X is None else X[name])

    return StoryPart(parameters, features)
