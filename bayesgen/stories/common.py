"""Pieces every story shares: how many rows, and the class probabilities."""

from __future__ import annotations

import jax.numpy as jnp
import numpyro
import numpyro.distributions as dist
from jax import Array

from bayesgen.families.class_prior import Dirichlet


def n_rows(X, y, n_samples) -> int:
    if X is not None:
        return X.shape[0]
    if y is not None:
        return y.shape[0]
    if n_samples is None:
        raise ValueError("A story needs X, y or n_samples to know how many rows to draw.")
    return n_samples


def class_probabilities(class_prior: Dirichlet, fixed_class_prior: Array | None) -> Array:
    if fixed_class_prior is not None:
        return jnp.asarray(fixed_class_prior)
    return numpyro.sample("class_prior", dist.Dirichlet(jnp.asarray(class_prior.concentration)))
