"""The textbook classifiers as presets of ``GaussianDA`` with a fixed covariance type."""

from __future__ import annotations

import numpy as np

from bayesgen.estimators import covariance_estimator as _covariance_estimator
from bayesgen.estimators.covariance_estimator import (
    COVARIANCE_ESTIMATOR_DOC,
    QDA_COVARIANCE_ESTIMATOR_DOC,
)
from bayesgen.estimators.gaussian import (
    _ATTRIBUTES_DOC,
    _PARAMETERS_DOC,
    GAUSSIAN_KEYWORDS,
    GaussianDA,
)
from bayesgen.estimators.gaussian_regularised import N_COMPONENTS_DOC
from bayesgen.estimators.sklearn_names import (
    GaussianNBNames,
    LinearDiscriminantNames,
    QuadraticDiscriminantNames,
)
from bayesgen.families import e1071_floor


class _GaussianPreset(GaussianDA):
    """A ``GaussianDA`` whose ``covariance_type`` is a class constant, not a parameter."""

    hyperparameters = GAUSSIAN_KEYWORDS


def _preset_doc(
    summary: str, covariance_type: str, example_score: str, extra_parameters: str = ""
) -> str:
    return (
        summary
        + f"""

    ``GaussianDA(covariance_type="{covariance_type}")`` under its textbook name; see
    [`bayesgen.GaussianDA`][bayesgen.GaussianDA] for the generative story.

    Parameters
    ----------
"""
        + extra_parameters.lstrip("\n")
        + _PARAMETERS_DOC.lstrip("\n")
        + _ATTRIBUTES_DOC
        + f"""
    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> import bayesgen
    >>> X, y = load_iris(return_X_y=True)
    >>> float(bayesgen.{{name}}().fit(X, y).score(X, y))
    {example_score}
"""
    )


class _CovarianceEstimatorFit:
    """``fit`` with ``covariance_estimator`` (`bayesgen.estimators.covariance_estimator`):
    ``partial_fit`` and the conjugate posterior refused with it."""

    def fit(self, X, y, sample_weight=None):
        """Fit as `GaussianDA.fit`; with ``covariance_estimator``, the covariances are the
        estimator's (see the parameter).

        Returns
        -------
        self
        """
        if self.covariance_estimator is None:
            return super().fit(X, y, sample_weight=sample_weight)
        _covariance_estimator.check_rows(self, X, y, sample_weight)
        super().fit(X, y)
        rows = self._check_X(X, reset=False)
        labels = np.asarray(y).ravel()
        _covariance_estimator.install(self, np.asarray(rows, dtype=np.float64), labels)
        return self

    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """Add a batch of rows; see `GaussianDA.partial_fit` (not with ``covariance_estimator``).

        Returns
        -------
        self
        """
        if self.covariance_estimator is not None:
            raise ValueError(
                f"{type(self).__name__} with a covariance_estimator needs every row at once; "
                "use fit, or shrinkage= for a shrunk covariance from statistics."
            )
        return super().partial_fit(X, y, classes=classes, sample_weight=sample_weight)

    def _check_model_posterior(self):
        super()._check_model_posterior()
        if self.covariance_estimator is not None:
            raise ValueError(
                f"This {type(self).__name__}'s covariance comes from covariance_estimator, "
                "which the conjugate posterior does not describe; refit without it for a "
                "posterior."
            )


class LDA(_CovarianceEstimatorFit, LinearDiscriminantNames, _GaussianPreset):
    model_name = "lda"
    min_classes = 2  # as scikit-learn's LinearDiscriminantAnalysis
    covariance_type = "tied"
    __doc__ = _preset_doc(
        "Linear discriminant analysis: Gaussian classes sharing one covariance.",
        "tied",
        "0.98",
        N_COMPONENTS_DOC + COVARIANCE_ESTIMATOR_DOC.lstrip("\n"),
    ).replace("{name}", "LDA")

    hyperparameters = {"n_components": None, "covariance_estimator": None, **GAUSSIAN_KEYWORDS}


class QDA(_CovarianceEstimatorFit, QuadraticDiscriminantNames, _GaussianPreset):
    model_name = "qda"
    min_classes = 2  # as scikit-learn's QuadraticDiscriminantAnalysis
    covariance_type = "full"
    __doc__ = _preset_doc(
        "Quadratic discriminant analysis: a full covariance per class.",
        "full",
        "0.98",
        QDA_COVARIANCE_ESTIMATOR_DOC,
    ).replace("{name}", "QDA")

    hyperparameters = {"covariance_estimator": None, **GAUSSIAN_KEYWORDS}


class GaussianNB(GaussianNBNames, _GaussianPreset):
    model_name = "gaussian-nb"
    min_classes = 1  # as scikit-learn's GaussianNB: one class is that class's density
    covariance_type = "diag"
    __doc__ = _preset_doc(
        "Gaussian naive Bayes: features independent given the class (diagonal covariances).",
        "diag",
        "0.96",
        e1071_floor.THRESHOLD_DOC,
    ).replace("{name}", "GaussianNB")

    hyperparameters = {"threshold": None, "eps": 0.0, **GAUSSIAN_KEYWORDS}

    def _check_hyperparameters(self):
        e1071_floor.check(self.threshold, self.eps)  # before the family reads the floor
        super()._check_hyperparameters()

    def _floor(self):
        return None if self.threshold is None else (float(self.threshold), float(self.eps))
