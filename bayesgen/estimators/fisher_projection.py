"""Fisher's discriminant coordinates as a scikit-learn transform (``GaussianDA``, tied)."""

from __future__ import annotations

import numpy as np
from sklearn.utils import TransformerTags
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import check_is_fitted

from bayesgen._lazy import lazy_module
from bayesgen._precision import precision
from bayesgen.device_arrays import is_device_array
from bayesgen.missing import has_missing

jnp = lazy_module("jax.numpy")


def _has_shared_covariance(estimator) -> bool:
    return estimator.covariance_type == "tied"


class FisherProjection:
    """``transform`` and its companions for a model with one shared covariance.

    Present only when ``covariance_type="tied"`` (``hasattr`` is false otherwise), so
    scikit-learn treats LDA as a transformer and QDA as a plain classifier, as its own
    discriminant analysis does.
    """

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        if _has_shared_covariance(self):
            tags.transformer_tags = TransformerTags()
        return tags

    @available_if(_has_shared_covariance)
    def fit_transform(self, X, y, **fit_params) -> np.ndarray:
        """Fit, then `transform` the same rows.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        **fit_params
            Passed to `fit` (``sample_weight``).

        Returns
        -------
        ndarray of shape (n_samples, n_components)
        """
        return self.fit(X, y, **fit_params).transform(X)

    @available_if(_has_shared_covariance)
    def transform(self, X) -> np.ndarray:
        """Project ``X`` onto Fisher's discriminant coordinates.

        $z = W_q^\\top (x - \\bar\\mu)$, with the directions $W$ of
        ``scalings_`` (unit within-class variance) and ``q = n_components``. Agrees with
        ``sklearn.discriminant_analysis.LinearDiscriminantAnalysis(solver="eigen")``
        up to the sign of each coordinate (and a shift: scikit-learn's eigen solver does
        not centre). Missing entries (NaN) are first filled with their conditional mean
        given the observed ones (`impute`).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, n_components)
            A ``jax.Array`` on the input's device when ``X`` is a floating ``jax.Array``.
        """
        check_is_fitted(self)
        X = self._check_X(X, reset=False)
        kept = self.explained_variance_ratio_.shape[0]
        if is_device_array(X):
            with precision(X.dtype):
                if has_missing(X):
                    X = jnp.asarray(self.impute(X), X.dtype)
                xbar, scalings = (jnp.asarray(a, X.dtype) for a in (self.xbar_, self.scalings_))
                return (X - xbar) @ scalings[:, :kept]
        if has_missing(X):
            X = self.impute(X)
        return (X - self.xbar_) @ self.scalings_[:, :kept]

    @available_if(_has_shared_covariance)
    def get_feature_names_out(self, input_features=None) -> np.ndarray:
        """Names of the discriminant coordinates: ``"<classname>0"``, ``"<classname>1"``, ...

        Parameters
        ----------
        input_features : array-like of str, optional
            Ignored; accepted for the scikit-learn API.

        Returns
        -------
        ndarray of str
        """
        check_is_fitted(self)
        prefix = type(self).__name__.lower()
        kept = self.explained_variance_ratio_.shape[0]
        return np.asarray([f"{prefix}{i}" for i in range(kept)], dtype=object)
