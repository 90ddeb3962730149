"""The posterior of a Gaussian value fitted on rows with missing entries (by EM).

EM's expected statistics are not sufficient for the posterior, so such a fit keeps its
training rows in its value (``value.rows``, `bayesgen.joint.KeptRows`: the rows, NaN where
missing, and their class weights). From them:

- ``"diag"`` has an exact posterior from the observed entries
  (`bayesgen.inference.observed_entries`);
- ``"full"``, ``"tied"`` and ``"spherical"`` draw by data augmentation
  (`bayesgen.inference.data_augmentation`), in several chains.

A value without the rows (a model file written before they were kept) has no posterior;
the estimator refuses it. Every function takes the family and the value.
"""

from __future__ import annotations

import numpy as np

from bayesgen.families.namespace import as_jax
from bayesgen.inference import data_augmentation, observed_entries


def is_exact(family) -> bool:
    """Diagonal covariances: independent features, an exact posterior."""
    return family.covariance_type == "diag"


def exact_posterior(family, value):
    """The observed-entry posterior, fields (n_classes, n_features) (``"diag"`` only)."""
    dtype = np.asarray(value.feature_stats.means).dtype
    return observed_entries.posterior(
        family, as_jax(value.feature_prior, dtype), value.rows.X, value.rows.weights
    )


def exact_draws(family, value, rng, num_samples: int) -> dict:
    """``num_samples`` exact draws of ``means`` and ``covariances`` (``"diag"`` only)."""
    return observed_entries.sample_params(family, rng, exact_posterior(family, value), num_samples)


def exact_predictive(family, value, X) -> np.ndarray:
    """The Student-t predictive of the observed entries, (n_samples, n_classes) (``"diag"``)."""
    return observed_entries.predictive_log_likelihood(exact_posterior(family, value), X)


def augmentation_draws(family, value, rng, *, num_chains, num_samples, num_warmup) -> dict:
    """``{"means", "covariances"}`` shaped (num_chains, num_samples, ...)."""
    means, covariances = data_augmentation.run(
        family,
        value.feature_prior,
        value.rows.X,
        value.rows.weights,
        value.feature_stats,
        rng=rng,
        num_chains=num_chains,
        num_samples=num_samples,
        num_warmup=num_warmup,
    )
    dtype = np.asarray(value.feature_stats.means).dtype
    return {"means": means.astype(dtype), "covariances": covariances.astype(dtype)}
