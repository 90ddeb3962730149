"""Estimators with the scikit-learn API."""

from bayesgen.estimators.gaussian import GaussianDA
from bayesgen.estimators.presets import LDA, QDA, GaussianNB

__all__ = ["LDA", "QDA", "GaussianDA", "GaussianNB"]
