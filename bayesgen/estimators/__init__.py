"""Estimators with the scikit-learn API."""

from bayesgen.estimators.categorical_nb import CategoricalNB
from bayesgen.estimators.gaussian import GaussianDA
from bayesgen.estimators.kernel_density import KernelDensityDA
from bayesgen.estimators.mixed_nb import MixedNB
from bayesgen.estimators.mixture import MixtureDA
from bayesgen.estimators.naive_bayes import BernoulliNB, MultinomialNB, PoissonNB
from bayesgen.estimators.presets import LDA, QDA, GaussianNB
from bayesgen.estimators.rda_cv import RDACV

__all__ = [
    "LDA",
    "QDA",
    "RDACV",
    "BernoulliNB",
    "CategoricalNB",
    "GaussianDA",
    "GaussianNB",
    "KernelDensityDA",
    "MixedNB",
    "MixtureDA",
    "MultinomialNB",
    "PoissonNB",
]
