"""Hyperparameters declared once (`bayesgen.estimators.hyperparameters`): the ``__init__``
made from a class's table behaves as a hand-written scikit-learn one."""

import inspect
import re

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.datasets import load_iris

import bayesgen.estimators
from bayesgen import registry
from bayesgen.estimators.base import GenerativeClassifier
from bayesgen.estimators.gaussian import GAUSSIAN_KEYWORDS
from bayesgen.estimators.hyperparameters import (
    EM_KEYWORDS,
    NAIVE_BAYES_KEYWORDS,
    SHARED_CHECKS,
    DeclaredHyperparameters,
)
from bayesgen.estimators.naive_bayes_prior import NaiveBayesClassPrior

CLASSIFIERS = sorted(
    (cls for cls in registry.estimators().values() if issubclass(cls, GenerativeClassifier)),
    key=lambda cls: cls.__name__,
)
assert len(CLASSIFIERS) == len(bayesgen.estimators.__all__) - 2  # all but Imputer and RDACV


@pytest.mark.parametrize("cls", CLASSIFIERS, ids=lambda cls: cls.__name__)
def test_signature_is_the_table(cls):
    """Keyword-only, in the table's order, with its defaults; scikit-learn reads the same
    names, and a default instance holds the defaults."""
    parameters = list(inspect.signature(cls.__init__).parameters.values())
    assert parameters[0].name == "self"
    assert all(p.kind is inspect.Parameter.KEYWORD_ONLY for p in parameters[1:])
    assert [(p.name, p.default) for p in parameters[1:]] == list(cls.hyperparameters.items())
    assert cls._get_param_names() == sorted(cls.hyperparameters)
    params = cls().get_params(deep=False)
    assert params == dict(cls.hyperparameters)
    assert not set(vars(cls())) - set(cls.hyperparameters)  # stores its arguments, nothing else


@pytest.mark.parametrize("cls", CLASSIFIERS, ids=lambda cls: cls.__name__)
def test_arguments_are_stored_and_cloned(cls):
    """Each argument given is stored under its name; the others keep their defaults;
    ``clone`` and ``set_params`` round-trip."""
    name = "random_state" if "random_state" in cls.hyperparameters else "unlabeled_marker"
    model = cls(**{name: 7})
    assert getattr(model, name) == 7
    others = {key for key in cls.hyperparameters if key != name}
    assert {key: getattr(model, key) for key in others} == {
        key: cls.hyperparameters[key] for key in others
    }
    copy = clone(model)
    assert copy is not model and copy.get_params() == model.get_params()
    assert model.set_params(**{name: 8}).get_params()[name] == 8


@pytest.mark.parametrize("cls", CLASSIFIERS, ids=lambda cls: cls.__name__)
def test_unknown_or_positional_arguments_are_refused(cls):
    with pytest.raises(TypeError, match=r"__init__\(\) got an unexpected keyword argument 'alpah'"):
        cls(alpah=1.0)
    with pytest.raises(TypeError, match="positional"):
        cls(1.0)


def test_shared_groups_are_declared_once():
    """Every estimator that fits unlabelled rows by EM takes the EM keywords with their one
    set of defaults (the Gaussian ones iterate 200 times, as before); every naive-Bayes
    estimator over one family takes the naive-Bayes keywords."""
    for cls in CLASSIFIERS:
        if "max_iter" not in cls.hyperparameters:
            assert cls.__name__ == "ComplementNB"  # no EM: it refuses unlabelled rows
            continue
        table = cls.hyperparameters
        expected = dict(EM_KEYWORDS, max_iter=table["max_iter"])
        assert {key: table[key] for key in EM_KEYWORDS} == expected, cls.__name__
        assert table["max_iter"] in (100, 200)
        # FamilyClassifier and LatentClassNB default to estimate="map" (their docs say why).
        if issubclass(cls, NaiveBayesClassPrior) and cls.__name__ not in (
            "FamilyClassifier",
            "LatentClassNB",
        ):
            assert {key: table[key] for key in NAIVE_BAYES_KEYWORDS} == dict(NAIVE_BAYES_KEYWORDS)
    assert GAUSSIAN_KEYWORDS["max_iter"] == 200


def test_a_class_without_a_table_keeps_its_parents_init():
    class Plain(DeclaredHyperparameters):
        hyperparameters = {"a": 1, "b": None}

    class Child(Plain):
        """Declares no table."""

    assert Child.__init__ is Plain.__init__
    child = Child(b=2)
    assert (child.a, child.b) == (1, 2)
    assert Plain.__init__.__qualname__ == (
        "test_a_class_without_a_table_keeps_its_parents_init.<locals>.Plain.__init__"
    )


def test_a_table_and_a_written_init_are_refused():
    with pytest.raises(TypeError, match="declares hyperparameters and writes __init__"):

        class Both(DeclaredHyperparameters):
            hyperparameters = {"a": 1}

            def __init__(self, *, a=1):
                self.a = a


def test_the_table_cannot_be_changed_after_the_class_is_made():
    """The ``__init__`` reads the table it was made from: the class's table is read-only,
    so the two cannot drift apart."""
    with pytest.raises(TypeError):
        bayesgen.MultinomialNB.hyperparameters["alpha"] = 2.0
    with pytest.raises(TypeError):
        EM_KEYWORDS["tol"] = 1.0


def test_fit_with_declared_arguments_matches_defaults_given_explicitly():
    """A model built from its defaults given by name is the default model."""
    X, y = load_iris(return_X_y=True)
    for cls in (bayesgen.LDA, bayesgen.GaussianNB, bayesgen.MixtureDA):
        implicit = cls(random_state=0).fit(X, y).predict_proba(X)
        explicit = cls(**{**cls.hyperparameters, "random_state": 0}).fit(X, y).predict_proba(X)
        np.testing.assert_array_equal(implicit, explicit)


def test_an_attribute_of_that_name_that_is_no_table_is_left_alone():
    """A user's subclass with its own ``hyperparameters`` (a tuple, a property) keeps the
    parent's ``__init__``, as before the tables."""

    class Named(bayesgen.QDA):
        hyperparameters = ("reg_covar",)

        def __init__(self, *, reg_covar=1e-6):
            super().__init__(reg_covar=reg_covar)

    class Computed(bayesgen.GaussianNB):
        @property
        def hyperparameters(self):
            return self.get_params()

    assert list(inspect.signature(Named).parameters) == ["reg_covar"]
    assert Computed.__init__ is bayesgen.GaussianNB.__init__
    assert Computed(eps=0.5).hyperparameters["eps"] == 0.5


@pytest.mark.parametrize("name", ["self", "class", "not a name", "1st", "__debug__", "ﬁ", 1])
def test_a_table_entry_that_is_no_argument_name_is_refused(name):
    with pytest.raises(TypeError, match="is not a name"):

        class Bad(DeclaredHyperparameters):
            hyperparameters = {name: 1}


def test_the_made_init_is_an_ordinary_function():
    """Python itself checks the arguments (its own messages, such as 3.13's 'Did you
    mean'); no ``__signature__`` stands in for the real one."""
    init = bayesgen.LDA.__init__
    assert "__signature__" not in vars(init)
    assert init.__qualname__ == "LDA.__init__"
    assert init.__module__ == "bayesgen.estimators.presets"
    assert init.__kwdefaults__ == dict(bayesgen.LDA.hyperparameters)


#: A refused value of each shared hyperparameter, and what the error says.
BAD_SHARED_VALUES = {
    "max_iter": (0, "max_iter must be an integer >= 1; got 0"),
    "tol": (-1.0, "tol must be >= 0; got -1.0"),
    "n_init": (2.5, "n_init must be an integer >= 1; got 2.5"),
    "n_init_components": (0, "n_init_components must be an integer >= 1; got 0"),
    "reg_covar": (float("nan"), "reg_covar must be a finite real number; got nan"),
    "class_concentration_prior": (0.0, "class_concentration_prior must be > 0; got 0.0"),
    "weight_concentration_prior": (-2, "weight_concentration_prior must be > 0; got -2"),
    "mean_precision_prior": ("1", "mean_precision_prior must be a finite real number"),
    "fit_prior": ("yes", "fit_prior must be True or False; got 'yes'"),
}


def test_the_shared_checks_cover_the_refused_values():
    assert set(BAD_SHARED_VALUES) == set(SHARED_CHECKS)


@pytest.mark.parametrize("cls", CLASSIFIERS, ids=lambda cls: cls.__name__)
def test_a_shared_hyperparameter_is_checked_alike_in_every_estimator_that_declares_it(cls):
    """Each estimator refuses a bad value of every shared hyperparameter it declares at fit
    (labelled rows only: no EM runs), with one message, and accepts its defaults."""
    X, y = load_iris(return_X_y=True)
    X = np.rint(X).astype(int)  # counts suit every family here
    declared = [name for name in SHARED_CHECKS if name in cls.hyperparameters]
    assert declared, "every classifier declares some shared hyperparameter"
    cls().check_shared()
    for name in declared:
        value, message = BAD_SHARED_VALUES[name]
        with pytest.raises(ValueError, match=re.escape(message)):
            cls(**{name: value}).fit(X, y)


def test_the_floor_is_checked_before_the_family_reads_it():
    """GaussianNB's e1071 floor is refused by name at fit and at a first partial_fit."""
    X, y = load_iris(return_X_y=True)
    message = "threshold must be None or a positive number; got 'x'"
    with pytest.raises(ValueError, match=message):
        bayesgen.GaussianNB(threshold="x").fit(X, y)
    with pytest.raises(ValueError, match=message):
        bayesgen.GaussianNB(threshold="x").partial_fit(X, y, classes=[0, 1, 2])
