"""``CategoricalNB``: naive Bayes over features whose values are categories of any kind."""

from __future__ import annotations

import numpy as np
from sklearn.utils.validation import validate_data

from bayesgen.estimators.fitted_attribute import fitted_attribute
from bayesgen.estimators.hyperparameters import EM_KEYWORDS, NAIVE_BAYES_KEYWORDS, check_flag
from bayesgen.estimators.naive_bayes_prior import (
    COMMON_PARAMETERS_DOC,
    NaiveBayesClassPrior,
    log_parameters,
)
from bayesgen.families import categorical, e1071_floor
from bayesgen.families.categorical import CategoricalFamily
from bayesgen.validation import _check_finite, _column_name


class CategoricalNB(NaiveBayesClassPrior):
    model_name = "categorical-nb"
    __doc__ = (
        """Naive Bayes for categorical features: a Dirichlet–categorical story per feature.

    $$
    \\theta_{kj} \\sim \\mathrm{Dirichlet}(\\alpha \\mathbf 1), \\quad
    y \\sim \\mathrm{Categorical}(\\pi), \\quad
    x_j \\mid y = k \\sim \\mathrm{Categorical}(\\theta_{kj}).
    $$

    Categories may be any hashable values (ints, strings, ...), learned per feature in
    ``fit`` (and extended by ``partial_fit``). By default each feature also has one
    category for every value not seen in training, so a new value at prediction time gets
    its posterior-predictive probability $\\alpha / (N_k + \\alpha (C_j + 1))$ under
    ``estimate="mean"`` instead of an error. This extra category makes the smoothed
    probabilities $(n + \\alpha)/(N + \\alpha (C_j + 1))$ differ slightly from the
    usual $(n + \\alpha)/(N + \\alpha C_j)$ of scikit-learn's ``CategoricalNB`` and R's
    e1071 ``naiveBayes(laplace=alpha)``; ``unseen_category=False`` gives theirs.

    Parameters
    ----------
    alpha : float, default=1.0
        Dirichlet concentration of every category (additive smoothing).
    min_categories : int or array-like of shape (n_features,), optional
        As in scikit-learn: the features are then read as its ``CategoricalNB`` reads them,
        as non-negative integer codes $0, \\dots, C_j - 1$ with $C_j$ = max(largest code
        + 1, ``min_categories[j]``), so codes never seen in training still count among the
        categories (a value of ``None`` in the array leaves that feature's categories as
        learned).
    unseen_category : bool, default=True
        Keep the extra category of unseen values (above). With False the smoothing is
        $(n + \\alpha)/(N + \\alpha C_j)$ and a value not seen in training is an error
        at prediction time.
"""
        + e1071_floor.THRESHOLD_DOC
        + COMMON_PARAMETERS_DOC
        + """
    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    class_count_ : ndarray of shape (n_classes,)
    class_prior_ : ndarray of shape (n_classes,)
    categories_ : list of ndarray
        The categories of each feature seen in training (all codes up to $C_j - 1$ with
        ``min_categories``). A pandas ``Categorical`` column keeps its declared categories,
        in their order, even those no training row holds (as R keeps a factor's levels).
    n_categories_ : ndarray of shape (n_features,)
        $C_j$, the number of categories of each feature, the unseen category not counted.
    category_count_ : list of ndarray of shape (n_classes, n_categories_j)
        Weighted per-class count of each category.
    feature_log_prob_ : list of ndarray of shape (n_classes, n_categories_j + 1)
        $\\log\\theta_{kj}$; the last column is the category of unseen values (absent
        with ``unseen_category=False``).
    n_features_in_ : int
"""
    )

    hyperparameters = {
        "alpha": 1.0,
        "min_categories": None,
        "unseen_category": True,
        **NAIVE_BAYES_KEYWORDS,
        **EM_KEYWORDS,
        "threshold": None,
        "eps": 0.0,
    }

    def _check_hyperparameters(self):
        super()._check_hyperparameters()
        check_flag(self.unseen_category, "unseen_category")

    def _check_X(self, X, *, reset):
        X = validate_data(self, X, reset=reset, dtype=None, ensure_all_finite=False)
        # NaN and None are missing values: their feature is left out of the row's likelihood.
        if X.dtype.kind in "fc":
            _check_finite(X, self, allow_nan=True)
        else:
            categorical.check_hashable(X, "CategoricalNB", lambda j: _column_name(self, j))
        return X

    # ------------------------------------------------------------------ the value
    categories_ = fitted_attribute(
        lambda self, value: value.learned["categories"],
        doc="The categories of each feature seen in training.",
    )
    category_count_ = fitted_attribute(
        lambda self, value: [
            block[:, : len(known)]
            for block, known in zip(
                self._feature_family().blocks(np.asarray(value.feature_stats.category_counts)),
                value.learned["categories"],
                strict=True,
            )
        ],
        doc="Weighted per-class count of each category.",
    )
    feature_log_prob_ = fitted_attribute(
        lambda self, value: self._feature_family().blocks(log_parameters(self, value)),
        doc="log theta per feature; the last column is the category of unseen values.",
    )

    @property
    def n_categories_(self) -> np.ndarray:
        """$C_j$ per feature: the categories of ``categories_`` (the unseen one not counted)."""
        return np.array([len(known) for known in self.categories_], dtype=np.int64)

    def _base_family(self) -> CategoricalFamily:
        return CategoricalFamily(
            alpha=self.alpha,
            unseen=self.unseen_category,
            min_categories=self.min_categories,
            column_names=getattr(self, "feature_names_in_", None),
            declared=self._declared_categories(),
            probability_floor=None if self.threshold is None else (self.threshold, self.eps),
        )

    def _declared_categories(self):
        """Per column, the categories a pandas ``Categorical`` column of the training
        DataFrame declared (None for the others); None when it had none."""
        schema = getattr(self, "_training_columns", None)
        if not schema or all(column["categories"] is None for column in schema):
            return None
        return [column["categories"] for column in schema]
