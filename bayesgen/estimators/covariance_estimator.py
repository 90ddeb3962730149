"""``LDA(covariance_estimator=...)``: the shared covariance from any scikit-learn estimator.

As in scikit-learn's ``LinearDiscriminantAnalysis``, the estimator is fitted to each
class's rows on their own (it centres them) and the shared covariance is the average of the
class covariances weighted by the class probabilities, $\\Sigma = \\sum_k \\pi_k
\\hat\\Sigma_k$. The estimator needs the rows, not only their statistics, so such a model
is fitted by ``fit`` alone (no ``partial_fit``, no unlabelled rows, no missing values) and
has no conjugate posterior.
"""

from __future__ import annotations

import numpy as np
from sklearn.base import clone

from bayesgen._lazy import lazy_module
from bayesgen._precision import precision
from bayesgen.estimators import gaussian_regularised
from bayesgen.families.gaussian import GaussianParams

jnp = lazy_module("jax.numpy")

COVARIANCE_ESTIMATOR_DOC = """
    covariance_estimator : estimator, optional
        A scikit-learn covariance estimator (``sklearn.covariance.LedoitWolf()``, ``OAS()``,
        ...: anything with ``fit`` and a ``covariance_``). When given it replaces the
        point estimate of the shared covariance: it is fitted to each class's rows and the
        class covariances are averaged with the class probabilities as weights, as
        scikit-learn's ``LinearDiscriminantAnalysis(solver="lsqr")`` does; ``reg_covar``'s
        ridge is added. Only ``fit`` is supported then (rows are needed, not statistics),
        without unlabelled rows or missing values, and the model has no parameter
        posterior.
"""


def check_rows(estimator, X, y, sample_weight) -> None:
    """Refuse what a covariance estimator cannot be fitted from."""
    if sample_weight is not None:
        raise ValueError(
            "covariance_estimator does not take sample weights (scikit-learn's covariance "
            "estimators have none); fit without sample_weight or without the estimator."
        )
    if not hasattr(estimator.covariance_estimator, "fit"):
        raise ValueError(
            "covariance_estimator must be a scikit-learn covariance estimator (with fit and "
            f"covariance_); got {estimator.covariance_estimator!r}."
        )


def install(estimator, X: np.ndarray, y: np.ndarray) -> None:
    """Replace the fitted shared covariance by the estimator's; keep the rest consistent."""
    if np.isnan(X).any():
        raise ValueError(
            "covariance_estimator needs complete rows, and X contains NaN (missing values); "
            "impute them first."
        )
    if not np.isin(y, estimator.classes_).all():
        raise ValueError(
            "covariance_estimator cannot be fitted with unlabelled rows (y = -1 or None)."
        )
    n_features = X.shape[1]
    covariance = np.zeros((n_features, n_features))
    for k, label in enumerate(estimator.classes_):
        fitted = clone(estimator.covariance_estimator).fit(X[y == label])
        covariance += estimator.class_prior_[k] * np.atleast_2d(fitted.covariance_)
    covariance = covariance + np.diag(np.broadcast_to(estimator.ridge_, (n_features,)))
    dtype = estimator.covariances_.dtype
    with precision(dtype):
        params = GaussianParams(
            jnp.asarray(estimator.suff_stats_.means, dtype), jnp.asarray(covariance, dtype)
        )
        estimator._check_positive_definite(params)
        params = gaussian_regularised.discriminant_coordinates(
            estimator, params, estimator.suff_stats_.counts
        )
    estimator.means_ = np.asarray(params.means)
    estimator.covariances_ = np.asarray(params.covariances)
