"""``ExponentialNB``: naive Bayes for non-negative real features (waiting times, sizes)."""

from __future__ import annotations

import scipy.sparse as sp

from bayesgen.estimators.fitted_attribute import fitted_attribute
from bayesgen.estimators.hyperparameters import EM_KEYWORDS, NAIVE_BAYES_KEYWORDS
from bayesgen.estimators.naive_bayes_prior import COMMON_PARAMETERS_DOC, NaiveBayesClassPrior
from bayesgen.families.exponential import ExponentialFamily, check_values
from bayesgen.validation import check_features


class ExponentialNB(NaiveBayesClassPrior):
    __doc__ = (
        """Naive Bayes with exponential features and Gamma-distributed rates.

    $$
    \\pi \\sim \\mathrm{Dirichlet}, \\quad
    \\lambda_{kj} \\sim \\mathrm{Gamma}(\\alpha, \\beta), \\quad
    y \\sim \\mathrm{Categorical}(\\pi), \\quad
    x_j \\mid y = k \\sim \\mathrm{Exponential}(\\lambda_{kj}), \\ x_j \\ge 0.
    $$

    With $N_{kj}$ the weighted number of observed entries of feature $j$ in
    class $k$ and $S_{kj}$ their weighted sum, the posterior of a rate is
    $\\mathrm{Gamma}(\\alpha + N_{kj}, \\beta + S_{kj})$; ``predict_proba(X,
    method="predictive")`` integrates the rates out, giving each entry the Lomax density
    $a' b'^{a'} / (b' + x)^{a' + 1}$ with $a' = \\alpha + N_{kj}$,
    $b' = \\beta + S_{kj}$. A missing entry (NaN) drops its factor. ``X`` must be a
    dense array of finite values >= 0 (SciPy sparse input is refused: a zero here is a
    value, not an absence).

    Parameters
    ----------
    alpha : float or array-like of shape (n_features,), default=1.0
        Gamma prior shape (pseudo-observations of every feature).
    beta : float or array-like of shape (n_features,), default=1.0
        Gamma prior rate (their pseudo-sum).
"""
        + COMMON_PARAMETERS_DOC.replace(
            "posterior mean (additive smoothing\n        with ``alpha``)",
            "posterior mean\n        $(\\alpha + N)/(\\beta + S)$",
        )
        + """
    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    class_count_ : ndarray of shape (n_classes,)
        Weighted number of training rows per class.
    class_prior_ : ndarray of shape (n_classes,)
    feature_count_ : ndarray of shape (n_classes, n_features)
        $S_{kj}$, the weighted per-class sums of each feature (observed entries).
    observed_count_ : ndarray of shape (n_classes, n_features)
        $N_{kj}$, the weighted per-class number of observed entries.
    rates_ : ndarray of shape (n_classes, n_features)
        $\\lambda_{kj}$ (``"mean"``: $(\\alpha + N)/(\\beta + S)$; ``"map"``:
        $(\\alpha + N - 1)_+/(\\beta + S)$; ``"mle"``: $N/S$).
    n_features_in_ : int

    Examples
    --------
    >>> import numpy as np
    >>> from bayesgen.estimators.exponential_nb import ExponentialNB
    >>> X = np.array([[0.1, 2.0], [0.3, 1.5], [2.0, 0.2], [3.0, 0.1]])
    >>> y = np.array([0, 0, 1, 1])
    >>> model = ExponentialNB().fit(X, y)
    >>> model.rates_.round(3)
    array([[2.143, 0.667],
           [0.5  , 2.308]])
    >>> model.predict(np.array([[0.2, np.nan], [2.5, 0.3]]))
    array([0, 1])
"""
    )
    model_name = "exponential-nb"

    hyperparameters = {"alpha": 1.0, "beta": 1.0, **NAIVE_BAYES_KEYWORDS, **EM_KEYWORDS}

    def _check_X(self, X, *, reset):
        if sp.issparse(X):
            raise TypeError(
                "ExponentialNB needs a dense X (a zero is a value here, not an absence); got a "
                "sparse matrix: pass X.toarray()."
            )
        return check_values(check_features(self, X, reset=reset, allow_nan=True))

    feature_count_ = fitted_attribute(lambda self, value: value.feature_stats.feature_sums)
    observed_count_ = fitted_attribute(lambda self, value: value.feature_stats.observed_counts)
    rates_ = fitted_attribute(lambda self, value: value.params)

    def _base_family(self) -> ExponentialFamily:
        return ExponentialFamily(alpha=self.alpha, beta=self.beta)
