"""The posterior of a ``GaussianDA`` fitted on rows with missing entries (by EM).

EM's expected statistics are not sufficient for the posterior, so such a fit keeps its
training rows (`keep_rows`): ``_missing_fit_rows`` (n_samples, n_features), NaN where
missing, and ``_missing_fit_weights`` (n_samples, n_classes), the rows' class weights.
Memory: ``n_samples * (n_features + n_classes)`` values more than a fit of complete rows,
which keeps neither; they are saved in model files with the rest. From them:

- ``"diag"`` has an exact posterior from the observed entries
  (`bayesgen.inference.observed_entries`);
- ``"full"``, ``"tied"`` and ``"spherical"`` draw by data augmentation
  (`bayesgen.inference.data_augmentation`), in several chains.

A model without the rows (a model file written before they were kept) refuses, as before.
"""

from __future__ import annotations

import numpy as np

from bayesgen.families.namespace import as_jax
from bayesgen.inference import data_augmentation, observed_entries


def keep_rows(estimator, X, responsibilities) -> None:
    """Keep a copy of the rows of a fit with missing entries, and their class weights."""
    estimator._missing_fit_rows = np.array(X, dtype=np.float64)
    estimator._missing_fit_weights = np.array(responsibilities, dtype=np.float64)


def add_rows(estimator, X, responsibilities) -> None:
    """Append the rows ``partial_fit`` adds to a fit with missing entries (if kept)."""
    if has_rows(estimator):
        estimator._missing_fit_rows = np.concatenate(
            [estimator._missing_fit_rows, np.asarray(X, dtype=np.float64)]
        )
        estimator._missing_fit_weights = np.concatenate(
            [estimator._missing_fit_weights, np.asarray(responsibilities, dtype=np.float64)]
        )


def drop_rows(estimator) -> None:
    """Forget the rows of an earlier fit with missing entries (a fit of complete rows)."""
    estimator.__dict__.pop("_missing_fit_rows", None)
    estimator.__dict__.pop("_missing_fit_weights", None)


def applies(estimator) -> bool:
    """Whether the posterior comes from the kept rows: a fit with missing entries."""
    return bool(getattr(estimator, "fitted_with_missing_", False))


def has_rows(estimator) -> bool:
    """Whether the rows are kept (not in a model file from before they were)."""
    return getattr(estimator, "_missing_fit_rows", None) is not None


def is_exact(estimator) -> bool:
    """Diagonal covariances: independent features, an exact posterior."""
    return estimator.covariance_type == "diag"


def exact_posterior(estimator):
    """The observed-entry posterior, fields (n_classes, n_features) (``"diag"`` only)."""
    dtype = estimator.suff_stats_.means.dtype
    return observed_entries.posterior(
        estimator._feature_family(),
        as_jax(estimator.prior_, dtype),
        estimator._missing_fit_rows,
        estimator._missing_fit_weights,
    )


def exact_draws(estimator, key, num_samples: int) -> dict:
    """``num_samples`` exact draws of ``means`` and ``covariances`` (``"diag"`` only)."""
    return observed_entries.sample_params(
        estimator._feature_family(), key, exact_posterior(estimator), num_samples
    )


def exact_predictive(estimator, X) -> np.ndarray:
    """The Student-t predictive of the observed entries, (n_samples, n_classes) (``"diag"``)."""
    return observed_entries.predictive_log_likelihood(exact_posterior(estimator), X)


def augmentation_draws(estimator, rng, *, num_chains, num_samples, num_warmup) -> dict:
    """``{"means", "covariances"}`` shaped (num_chains, num_samples, ...)."""
    means, covariances = data_augmentation.run(
        estimator._feature_family(),
        estimator.prior_,
        estimator._missing_fit_rows,
        estimator._missing_fit_weights,
        estimator.suff_stats_,
        rng=rng,
        num_chains=num_chains,
        num_samples=num_samples,
        num_warmup=num_warmup,
    )
    dtype = estimator.suff_stats_.means.dtype
    return {"means": means.astype(dtype), "covariances": covariances.astype(dtype)}
