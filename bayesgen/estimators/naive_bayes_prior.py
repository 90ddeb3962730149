"""What the naive-Bayes estimators share: the class prior's hyperparameters and their docs."""

from __future__ import annotations

import numpy as np

from bayesgen.estimators.base import GenerativeClassifier
from bayesgen.estimators.sklearn_names import ClassLogPriorNames
from bayesgen.families.estimates import check_estimate_kind
from bayesgen.inference.semi_supervised import EM_ITERATION_DOC, EM_PARAMETERS_DOC

COMMON_PARAMETERS_DOC = (
    """
    estimate : {"mean", "map", "mle"}, default="mean"
        Point estimate of the feature parameters: the posterior mean (additive smoothing
        with ``alpha``), the posterior mode, or maximum likelihood (which may give zero
        probabilities; a row impossible under every class then gets the class prior,
        with a warning).
    fit_prior : bool, default=True
        Estimate the class probabilities as the training frequencies (their maximum
        likelihood, also the posterior mode under a uniform Dirichlet prior), as
        scikit-learn does; if False they are uniform.
    class_prior : array-like of shape (n_classes,), optional
        Known class probabilities, used as they are.
"""
    + EM_ITERATION_DOC
    + EM_PARAMETERS_DOC
)


class NaiveBayesClassPrior(ClassLogPriorNames, GenerativeClassifier):
    """The naive-Bayes hyperparameters ``estimate``, ``fit_prior`` and ``class_prior``.

    The class probabilities are the training frequencies (``fit_prior=True``, as in
    scikit-learn), uniform (``fit_prior=False``), or given (``class_prior``).
    """

    _class_prior_argument = "class_prior"
    min_classes = 1  # as scikit-learn's naive Bayes: one class is that class's density

    def _check_hyperparameters(self):
        check_estimate_kind(self.estimate)
        super()._check_hyperparameters()

    def _class_prior_settings(self):
        if self.class_prior is not None:
            return self.class_prior, 1.0, "mle"
        if not self.fit_prior:
            n_classes = self.classes_.shape[0]
            return np.full(n_classes, 1.0 / n_classes), 1.0, "mle"
        return None, 1.0, "mle"


def log_parameters(estimator, value) -> np.ndarray:
    """$\\log\\theta$ of a fitted value (``-inf`` where a probability is 0)."""
    with np.errstate(divide="ignore"):
        return np.log(np.asarray(value.params))
