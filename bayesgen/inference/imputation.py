"""Filling missing values from the model: p(x_missing | x_observed), mixed over the classes."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from bayesgen.missing import missing_entries

METHODS = ("mean", "sample")


def impute(estimator, X, *, method="mean", y=None, random_state=None):
    """Fill only the missing entries of ``X`` from a fitted generative classifier.

    Parameters
    ----------
    estimator : GenerativeClassifier
        Fitted; supplies ``_impute_rows(X, class_weights, method, rng)``.
    X : array-like of shape (n_samples, n_features)
        NaN (or None for categories) marks a missing entry.
    method : {"mean", "sample"}, default="mean"
        ``"mean"``: for continuous features $\\mathbb E[x_m \\mid x_o]$, the class
        conditional means mixed over $p(k \\mid x_o)$; for discrete features the most
        probable value under that mixture. ``"sample"``: a draw of the class from
        $p(k \\mid x_o)$, then of the missing entries given it.
    y : array-like of shape (n_samples,), optional
        Known labels: condition on them instead of mixing over the classes.
    random_state : None, int or numpy.random.RandomState
        For ``method="sample"``.

    Returns
    -------
    ndarray of shape (n_samples, n_features)
        ``X`` with its missing entries filled; observed entries unchanged.
    """
    check_is_fitted(estimator)
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}; got {method!r}.")
    given = X  # predict_proba checks feature names of a DataFrame against the fit's
    X = estimator._check_X(X, reset=False)
    if sp.issparse(X):
        X = X.toarray()
    X = np.array(X, copy=True)
    if y is None:
        class_weights = estimator.predict_proba(given)
    else:
        labels = np.asarray(y)
        if labels.shape != (X.shape[0],):
            raise ValueError(
                f"y must have one label per row of X, shape ({X.shape[0]},); got {labels.shape}."
            )
        class_weights = np.eye(estimator.classes_.shape[0])[np.asarray(estimator._class_index(y))]
    rng = np.random.default_rng(check_random_state(random_state).randint(2**31 - 1))
    filled = estimator._impute_rows(X, class_weights, method, rng)
    missing = missing_entries(X)
    filled[~missing] = X[~missing]  # observed entries are returned exactly as given
    return filled
