"""scikit-learn's names for fitted attributes, as read-only views of ours.

Code written for ``sklearn.naive_bayes`` or ``sklearn.discriminant_analysis`` reads
``theta_``, ``var_``, ``covariance_``, ``priors_``, ``coef_``, ``intercept_`` or
``class_log_prior_``; each is a property over the attribute that holds the same number
here, so nothing is stored twice (and model files, which store ``__dict__``, are unchanged).
"""

from __future__ import annotations

import numpy as np
import scipy.linalg
from sklearn.utils.validation import check_array


class GaussianNBNames:
    """``theta_`` and ``var_`` of ``sklearn.naive_bayes.GaussianNB``."""

    @property
    def theta_(self) -> np.ndarray:
        """Class means, (n_classes, n_features): ``means_``."""
        return self.means_

    @property
    def var_(self) -> np.ndarray:
        """Per-class variances, (n_classes, n_features): ``covariances_`` (ridge included)."""
        return self.covariances_


class DiscriminantNames:
    """``priors_`` and ``covariance_`` of scikit-learn's discriminant analysis."""

    @property
    def priors_(self) -> np.ndarray:
        """Class probabilities, (n_classes,): ``class_prior_``."""
        return self.class_prior_

    @property
    def covariance_(self) -> np.ndarray:
        """``covariances_``: (n_features, n_features) for LDA, one per class for QDA."""
        return self.covariances_


class LinearDiscriminantNames(DiscriminantNames):
    """``coef_`` and ``intercept_``: LDA's discriminant as the linear form $x^\\top w_k + b_k$.

    $w_k = \\Sigma^{-1}\\mu_k$ and $b_k = -\\tfrac12\\mu_k^\\top\\Sigma^{-1}\\mu_k + \\log
    \\pi_k$; for two classes the difference of the second and the first, as in
    scikit-learn, so that ``decision_function(X) == X @ coef_.T + intercept_`` there.
    """

    def _linear_form(self) -> tuple[np.ndarray, np.ndarray]:
        """``(coef, intercept)`` computed in float64, returned in the fit's precision (float32
        for a float32 fit, as scikit-learn's)."""
        dtype = np.asarray(self.means_).dtype
        coef, intercept = self._linear_form_float64()
        return coef.astype(dtype), intercept.astype(dtype)

    def _linear_form_float64(self) -> tuple[np.ndarray, np.ndarray]:
        means = np.asarray(self.means_, dtype=np.float64)
        factor = scipy.linalg.cho_factor(np.asarray(self.covariances_, dtype=np.float64))
        coef = scipy.linalg.cho_solve(factor, means.T).T
        with np.errstate(divide="ignore"):
            intercept = -0.5 * np.sum(coef * means, axis=1) + np.log(self.class_prior_)
        if coef.shape[0] == 2:
            return coef[1:] - coef[:1], intercept[1:] - intercept[:1]
        return coef, intercept

    @property
    def coef_(self) -> np.ndarray:
        """Weights, (n_classes, n_features), or (1, n_features) for two classes."""
        return self._linear_form()[0]

    @property
    def intercept_(self) -> np.ndarray:
        """Intercepts, (n_classes,), or (1,) for two classes."""
        return self._linear_form()[1]

    def decision_function(self, X) -> np.ndarray:
        """scikit-learn's discriminant ``X @ coef_.T + intercept_`` (one column, the log-odds,
        for two classes).

        It differs from ``predict_joint_log_proba`` by
        $-\\tfrac12 x^\\top\\Sigma^{-1}x - \\tfrac12\\log|2\\pi\\Sigma|$, the same for
        every class of a row, so it ranks the classes as ``predict_proba`` does. A row with
        missing entries (NaN) has no linear form: its scores are its joint log-probabilities
        with those entries integrated out (their difference for two classes).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,) or (n_samples, n_classes)
        """
        scores = super().decision_function(X)  # checks X, and scores the rows with NaN
        values = check_array(X, dtype=np.float64, ensure_all_finite="allow-nan")
        complete = ~np.isnan(values).any(axis=1)
        coef, intercept = self._linear_form_float64()
        linear = values[complete] @ coef.T + intercept
        scores[complete] = linear[:, 0] if scores.ndim == 1 else linear
        return scores


class QuadraticDiscriminantNames(DiscriminantNames):
    """``rotations_`` and ``scalings_`` of scikit-learn's ``QuadraticDiscriminantAnalysis``:
    each class covariance as $\\Sigma_k = U_k \\operatorname{diag}(s_k) U_k^\\top$."""

    def _eigen(self) -> list[tuple[np.ndarray, np.ndarray]]:
        pairs = []
        for covariance in np.asarray(self.covariances_):
            values, vectors = np.linalg.eigh(covariance)
            pairs.append((values[::-1], vectors[:, ::-1]))  # decreasing, as an SVD orders
        return pairs

    @property
    def rotations_(self) -> list[np.ndarray]:
        """Per class, the eigenvectors of ``covariances_[k]`` as columns, (n_features,
        n_features), by decreasing eigenvalue (each column's sign is arbitrary)."""
        return [vectors for _, vectors in self._eigen()]

    @property
    def scalings_(self) -> list[np.ndarray]:
        """Per class, the eigenvalues of ``covariances_[k]``, decreasing (the ridge
        included): scikit-learn's with ``reg_covar=0``."""
        return [values for values, _ in self._eigen()]


class ClassLogPriorNames:
    """``class_log_prior_`` of scikit-learn's discrete naive Bayes."""

    @property
    def class_log_prior_(self) -> np.ndarray:
        """$\\log\\pi_k$, (n_classes,): the log of ``class_prior_``."""
        with np.errstate(divide="ignore"):
            return np.log(self.class_prior_)
