"""`fitted_attribute`: a property read off ``joint_`` that copies, pickles (by value, as
cloudpickle sends a notebook's classes to Dask workers) and documents itself as one."""

import copy
import pydoc

import cloudpickle
import numpy as np
import pytest
from sklearn.datasets import load_iris

import bayesgen
from bayesgen.estimators.base import GenerativeClassifier
from bayesgen.estimators.fitted_attribute import fitted_attribute

X, y = load_iris(return_X_y=True)


def _model_with_own_attribute():
    class Doubled(bayesgen.LDA):
        doubled_ = fitted_attribute(lambda self, value: 2 * value.class_probabilities, doc="2π.")

    return Doubled().fit(X, y)


def test_a_class_with_its_own_fitted_attribute_pickles_by_value():
    model = _model_with_own_attribute()
    copied = cloudpickle.loads(cloudpickle.dumps(model))
    np.testing.assert_array_equal(copied.doubled_, 2 * model.class_prior_)
    np.testing.assert_array_equal(copied.predict_proba(X), model.predict_proba(X))
    assert type(copied).doubled_.name == "doubled_"


@pytest.mark.parametrize("copier", [copy.copy, copy.deepcopy])
def test_a_copy_keeps_its_name_place_and_description(copier):
    original = vars(GenerativeClassifier)["class_prior_"]
    copied = copier(original)
    assert isinstance(copied, property)
    assert (copied.name, copied.__doc__) == ("class_prior_", original.__doc__)
    assert copied.fget.__qualname__ == "GenerativeClassifier.class_prior_"
    assert copied.__module__ == "bayesgen.estimators.base"


def test_reading_writing_and_deleting():
    model = bayesgen.LDA()
    assert not hasattr(model, "class_prior_")
    with pytest.raises(AttributeError, match="This LDA is not fitted: no class_prior_"):
        model.class_prior_  # noqa: B018
    model.fit(X, y)
    model.class_prior_ = np.full(3, 1 / 3)  # a writer: the value's class probabilities
    np.testing.assert_array_equal(model.joint_.class_probabilities, np.full(3, 1 / 3))
    with pytest.raises(AttributeError, match="class_count_ is read off the fitted value"):
        model.class_count_ = np.ones(3)
    with pytest.raises(
        AttributeError, match="means_ is read off the fitted value joint_ and cannot be deleted"
    ):
        del model.means_


def test_help_lists_writable_and_read_only_attributes_apart():
    """``help`` shows a fitted attribute with a writer as a data descriptor, one without as
    a read-only property."""
    text = pydoc.render_doc(bayesgen.LDA, renderer=pydoc.plaintext)
    sections = {}
    section = None
    for line in text.splitlines():
        stripped = line.strip(" |")
        if stripped.endswith(":") and ("properties" in stripped or "descriptors" in stripped):
            section = stripped
        elif section and stripped in ("class_prior_", "class_count_"):
            sections[stripped] = section
    assert sections["class_prior_"].startswith("Data descriptors")
    assert sections["class_count_"].startswith("Readonly properties")
