"""scikit-learn's tags are read off the family (`GenerativeClassifier.__sklearn_tags__`), and
say what a fit does: each tag is checked against the fit it describes."""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import load_iris
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import get_tags

import bayesgen
from bayesgen.families.categorical import CategoricalFamily
from bayesgen.families.component_mixture import MixtureFamily
from bayesgen.families.poisson import PoissonFamily

MODELS = [
    bayesgen.BernoulliNB(),
    bayesgen.BernoulliNB(binarize=None),
    bayesgen.MultinomialNB(),
    bayesgen.PoissonNB(),
    bayesgen.CategoricalNB(),
    bayesgen.ComplementNB(),
    bayesgen.ExponentialNB(),
    bayesgen.GaussianDA(),
    bayesgen.LDA(shrinkage="ledoit-wolf"),
    bayesgen.GaussianNB(),
    bayesgen.MixtureDA(random_state=0),
    bayesgen.KernelDensityDA(),
    bayesgen.FamilyClassifier(family=PoissonFamily()),
    bayesgen.FamilyClassifier(family=CategoricalFamily()),
    bayesgen.FamilyClassifier(family=MixtureFamily(PoissonFamily(), 2), random_state=0),
]


@pytest.fixture(scope="module")
def counts():
    X, y = load_iris(return_X_y=True)
    return np.rint(X).astype(float), y


def _fits(model, X, y) -> bool:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            model.fit(X, y)
    except (ValueError, TypeError):
        return False
    return True


@pytest.mark.parametrize("model", MODELS, ids=repr)
def test_the_input_tags_say_what_a_fit_takes(model, counts):
    X, y = counts
    X = X.copy()
    if isinstance(model, bayesgen.BernoulliNB) and model.binarize is None:
        X = (X > 2).astype(float)
    tags = get_tags(model).input_tags
    assert _fits(model, X, y)
    gappy = X.copy()
    gappy[3, 1] = np.nan
    assert tags.allow_nan == _fits(model, gappy, y)
    assert tags.sparse == _fits(model, sp.csr_matrix(X), y)
    negative = X.copy()
    negative[5, 0] = -1.0
    assert tags.positive_only == (not _fits(model, negative, y))


def test_tags_are_read_even_for_hyperparameters_that_build_no_family():
    """``is_classifier`` (which reads the tags) works on any settings; fit reports them."""
    model = bayesgen.FamilyClassifier(family="poisson")
    assert get_tags(model).estimator_type == "classifier"
    with pytest.raises(ValueError, match="family must be a feature family"):
        model.fit([[1.0], [2.0]], [0, 1])
