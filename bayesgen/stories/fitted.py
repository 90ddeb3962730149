r"""The story of a fitted model: its family's part under the fitted prior, in the common frame.

A fitted model is its family and its value (`bayesgen.joint.FittedJoint`); its story is the
family's registered part (`bayesgen.stories.part`) under the prior the family's
`story_prior` gives from the fitted prior and parameters, inside `classifier_story` with
the class probabilities' Dirichlet, or the fitted probabilities when they are fixed. The
functions here take the family, the value and the rule for the class probabilities
(`bayesgen.joint.ClassPriorRule`), never an estimator.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from bayesgen import registry
from bayesgen._lazy import lazy_module
from bayesgen.families.class_prior import Dirichlet
from bayesgen.stories.common import StoryPart, classifier_story
from bayesgen.validation import class_indices

jnp = lazy_module("jax.numpy")


def fitted_part(family, value, n_features: int, **options) -> StoryPart:
    """The family's part of the story under the fitted prior (``options``: the part's own,
    ``lengths`` for the multinomial).

    Parameters
    ----------
    family : FeatureFamily
        With what the fit learned about the columns (`bayesgen.joint.family_of`).
    value : FittedJoint
    n_features : int
    """
    prior = family.story_prior(value.feature_prior, n_features, value.params)
    n_classes = np.asarray(value.classes).shape[0]
    return registry.story_part(family.story_name)(family, prior, n_classes, **options)


def class_prior_arguments(rule, value) -> dict:
    """The class-prior arguments of `classifier_story` under ``rule``: the Dirichlet of its
    concentration, and the fitted probabilities when the rule fixes them."""
    n_classes = np.asarray(value.classes).shape[0]
    return {
        "class_prior": Dirichlet(jnp.full(n_classes, rule.concentration)),
        "fixed_class_prior": (
            None if rule.fixed is None else jnp.asarray(value.class_probabilities)
        ),
    }


def observed_features(family, X):
    """Checked rows ``X`` as the story observes them: the family's encoding, as JAX arrays in
    the caller's precision (dense; a composite's by column group)."""
    encoded = family.encode(X)
    if isinstance(encoded, dict):
        return {name: jnp.asarray(values) for name, values in encoded.items()}
    return jnp.asarray(encoded.toarray() if sp.issparse(encoded) else encoded)


def fitted_story(family, value, rule, part: StoryPart, X=None, y=None, n_samples=None) -> None:
    """Run the fitted model's story: `classifier_story` with ``part`` (`fitted_part`) and
    the class prior of ``rule``.

    Parameters
    ----------
    family : FeatureFamily
        With what the fit learned.
    value : FittedJoint
    rule : ClassPriorRule
    part : StoryPart
    X : array-like, optional
        Checked rows, observed (`observed_features`); None draws them.
    y : array-like of shape (n_samples,), optional
        Labels from ``value.classes``, observed; None draws them.
    n_samples : int, optional
        Rows to draw when neither ``X`` nor ``y`` is given.
    """
    observed = None if X is None else observed_features(family, X)
    labels = None if y is None else jnp.asarray(class_indices(value.classes, y))
    classifier_story(
        observed, labels, **class_prior_arguments(rule, value), part=part, n_samples=n_samples
    )
