"""The frame every story shares: class probabilities, parameters, then a plate of rows.

A family contributes a [`StoryPart`][bayesgen.stories.StoryPart]: how to draw its parameters from
their prior,
and how to draw (or observe) its features given the labels.
[`classifier_story`][bayesgen.stories.classifier_story] puts
one part inside the common frame; [`combined_part`][bayesgen.stories.combined_part] joins the parts
of several
families (each under its own name scope) so that they share one label per row.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
import numpyro
import numpyro.distributions as dist
from jax import Array
from numpyro import handlers

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
    r"""The common frame: $\pi$, the family's parameters, then per row ``y`` and ``X``.

    Parameters
    ----------
    X : array, dict of arrays, or None
        Observed features (``None`` draws them).
    y : array of shape (n_samples,), optional
        Observed class indices (``None`` draws them). With ``X`` observed, an index of -1
        marks an unlabelled row: it enters through the factor ``"unlabelled"``, its
        mixture likelihood $\\sum_k \\pi_k\\, p(x \\mid k)$.
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
    unlabelled = _unlabelled_rows(X, y)
    if unlabelled is not None:
        labelled = np.flatnonzero(~unlabelled)
        with numpyro.plate("rows", labelled.size):
            labels = numpyro.sample("y", dist.Categorical(probs=pi), obs=y[labelled])
            part.features(params, labels, take_rows(X, labelled))
        _observe_unlabelled(part, params, pi, take_rows(X, np.flatnonzero(unlabelled)))
        return
    with numpyro.plate("rows", rows):
        labels = numpyro.sample("y", dist.Categorical(probs=pi), obs=y)
        part.features(params, labels, X)


def _unlabelled_rows(X, y):
    """Where observed labels are -1 (unlabelled), or None when every row is labelled."""
    if X is None or y is None or isinstance(y, jax.core.Tracer):
        return None
    unlabelled = np.asarray(y) < 0
    return unlabelled if unlabelled.any() else None


def take_rows(X, rows):
    """Rows of the observed features: an array, or a dict of arrays (combined parts)."""
    if isinstance(X, dict):
        return {name: None if value is None else value[rows] for name, value in X.items()}
    return X[rows]


def _observe_unlabelled(part, params, pi, X) -> None:
    r"""The factor ``"unlabelled"``: $\sum_i \log \sum_k \pi_k\, p(x_i \mid k)$.

    The label of an unlabelled row is summed out exactly: the family's feature sites are
    run once per class under ``block`` (hidden from inference) and ``trace`` (to read
    their log densities), so any part, combined ones included, works unchanged.
    """
    n_unlabelled = n_rows(X, None, None)
    n_classes = jnp.shape(pi)[-1]
    per_class = []
    for k in range(n_classes):
        with handlers.block(), handlers.trace() as trace:
            with numpyro.plate("unlabelled_rows", n_unlabelled):
                part.features(params, jnp.full(n_unlabelled, k), X)
        per_class.append(
            sum(
                site["fn"].log_prob(site["value"])
                for site in trace.values()
                if site["type"] == "sample" and site["is_observed"]
            )
        )
    joint = jnp.log(pi) + jnp.stack(per_class, axis=-1)
    numpyro.factor("unlabelled", jax.nn.logsumexp(joint, axis=-1))


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
