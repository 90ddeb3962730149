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
    (LogNormalFamily(degrees_of_freedom_prior=-1.0), "degrees_of_freedom_prior must be > 0"),
    (LogNormalFamily(scale_prior="a"), "scale_prior must be > 0"),
    (PoissonFamily(beta=np.array([1.0, -2.0])), r"beta must be finite and > 0 in every entry"),
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


ACCEPTED = [  # settings the families took before they checked them, and still take
    PoissonFamily(beta=np.array([1.0, 2.0, 1.0, 1.0])),
    PoissonFamily(beta=np.array(2.0)),
    ExponentialFamily(alpha=np.array([1.0, 2.0, 1.0, 1.0]), beta=np.float32(2.0)),
    GaussianFamily(mean_precision_prior=np.array(2.0), reg_covar=np.array(1e-6)),
    CategoricalFamily(alpha=np.array(0.5)),
    KernelDensityFamily(reg_covar=np.array(1e-6)),
    LogNormalFamily(degrees_of_freedom_prior=np.inf, reg_covar=np.array(1e-6)),
    HistogramFamily(smoothing=np.array(2.0)),
]


@pytest.mark.parametrize("family", ACCEPTED, ids=lambda x: repr(x)[:60])
def test_array_and_limit_settings_are_still_taken(family):
    """A 0-d array, one value per feature or an infinite prior weight (a fixed variance)
    passes the check and fits as before the families checked their settings."""
    X, y = load_iris(return_X_y=True)
    assert family.check() is family
    model = FamilyClassifier(family=family).fit(np.round(X) + 1, y)
    assert np.allclose(model.predict_proba(np.round(X[:3]) + 1).sum(axis=1), 1.0)
