r"""The Gaussian copula family's share of a story: the Gaussian's on the normal scores, and
the Jacobian of the columns' maps."""

from __future__ import annotations

import jax.numpy as jnp
import numpyro

from bayesgen import registry
from bayesgen.families.gaussian import NormalInverseWishart
from bayesgen.stories.common import StoryPart
from bayesgen.stories.gaussian import gaussian_part


@registry.register_story_part("gaussian_copula")
def gaussian_copula_part(family, prior: NormalInverseWishart, n_classes: int) -> StoryPart:
    r"""Sites ``"means"``, ``"covariances"`` and ``"X"`` of
    [`gaussian_part`][bayesgen.stories.gaussian_part] on the scores $z = T(x)$ the story
    observes (`GaussianCopulaFamily.encode`), and the factor ``"X_jacobian"``,
    $\sum_j \log T_j'(x_j)$ over the observed entries, so that the story's density is that
    of the values. Drawn rows are scores; `GaussianCopulaFamily.features_from_draws` maps
    them back."""
    gaussian = gaussian_part(prior, family.covariance_type, n_classes)
    slopes = [(jnp.asarray(s), jnp.asarray(log)) for s, log in family.story_slopes()]

    def features(params, labels, X):
        gaussian.features(params, labels, X)
        if X is None:
            return
        total = 0.0
        for j, (scores, log_slopes) in enumerate(slopes):
            z = X[..., j]
            piece = jnp.clip(jnp.searchsorted(scores, z, side="right") - 1, 0, log_slopes.size - 1)
            total = total + jnp.where(jnp.isnan(z), 0.0, log_slopes[piece])
        numpyro.factor("X_jacobian", total)

    return StoryPart(gaussian.parameters, features)
