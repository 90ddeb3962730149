"""A family checks its own hyperparameters (`FeatureFamily.check`), so an estimator over
it, `FamilyClassifier` and model files refuse the same settings with the same message;
before, a family given to `FamilyClassifier` was fitted with NaN or negative settings and
gave NaN probabilities or failed inside NumPy."""

import numpy as np
import pytest
from sklearn.datasets import load_iris

import bayesgen
from bayesgen import FamilyClassifier
from bayesgen.families.bernoulli import BernoulliFamily
from bayesgen.families.categorical import CategoricalFamily
from bayesgen.families.exponential import ExponentialFamily
from bayesgen.families.gaussian import GaussianFamily
from bayesgen.families.histogram import HistogramFamily
from bayesgen.families.kernel_density_family import KernelDensityFamily
from bayesgen.families.lognormal import LogNormalFamily
from bayesgen.families.multinomial import MultinomialFamily
from bayesgen.families.poisson import PoissonFamily

REFUSED = [
    (CategoricalFamily(alpha=np.nan), "alpha must be a finite real number"),
    (CategoricalFamily(alpha=-1.0), "alpha must be > 0"),
    (CategoricalFamily(probability_floor=("x", 0.0)), "threshold must be None or a positive"),
    (PoissonFamily(beta=np.nan), "beta must be a finite real number"),
    (PoissonFamily(beta=0.0), "beta must be > 0"),
    (PoissonFamily(alpha="x"), "alpha must be a positive number or an array"),
    (BernoulliFamily(alpha=np.inf), "alpha must be positive and finite"),
    (MultinomialFamily(alpha=-2.0), "alpha must be positive and finite"),
    (ExponentialFamily(beta=-1.0), "beta must be > 0"),
    (GaussianFamily(reg_covar=-1.0), "reg_covar must be >= 0"),
    (GaussianFamily(reg_covar="a"), "reg_covar must be a finite real number"),
    (GaussianFamily(mean_precision_prior=0.0), "mean_precision_prior must be > 0"),
    (KernelDensityFamily(reg_covar=np.nan), "reg_covar must be a finite real number"),
    (LogNormalFamily(degrees_of_freedom_prior=np.inf), "degrees_of_freedom_prior must be > 0"),
    (LogNormalFamily(scale_prior="a"), "scale_prior must be > 0 and finite"),
    (HistogramFamily(smoothing="a"), "smoothing must be a finite real number"),
]


@pytest.mark.parametrize(("family", "message"), REFUSED, ids=lambda x: repr(x)[:60])
def test_a_family_refuses_its_bad_settings_alike_everywhere(family, message):
    X, y = load_iris(return_X_y=True)
    with pytest.raises(ValueError, match=message):
        family.check()
    with pytest.raises(ValueError, match=message):
        FamilyClassifier(family=family).fit(np.round(X), y)


def test_the_estimators_refuse_as_their_families_do():
    X, y = load_iris(return_X_y=True)
    counts = np.round(X)
    with pytest.raises(ValueError, match="beta must be > 0; got 0.0"):
        bayesgen.PoissonNB(beta=0.0).fit(counts, y)
    with pytest.raises(ValueError, match="beta must be > 0; got -1.0"):
        bayesgen.ExponentialNB(beta=-1.0).fit(X, y)
    with pytest.raises(ValueError, match="alpha must be > 0; got -1"):
        bayesgen.CategoricalNB(alpha=-1).fit(counts, y)
    with pytest.raises(ValueError, match="threshold must be None or a positive number"):
        bayesgen.CategoricalNB(threshold="x").partial_fit(counts, y, classes=[0, 1, 2])
    with pytest.raises(ValueError, match="unseen_category must be True or False"):
        bayesgen.CategoricalNB(unseen_category="yes").fit(counts, y)
    with pytest.raises(ValueError, match="reg_covar must be >= 0"):
        bayesgen.KernelDensityDA(reg_covar=-1.0).fit(X, y)
    for family in (p for p, _ in REFUSED):
        assert type(family)().check() is not None  # the defaults pass
