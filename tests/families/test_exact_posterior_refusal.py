"""Whether a fitted value's parameters have a closed-form posterior is the family's to say
(`FeatureFamily.exact_posterior_refusal`), for any estimator over it."""

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import load_iris

import bayesgen
from bayesgen import FamilyClassifier, joint
from bayesgen.families.categorical import CategoricalFamily
from bayesgen.families.composite import CompositeFamily
from bayesgen.families.gamma import GammaFamily
from bayesgen.families.gaussian import GaussianFamily
from bayesgen.families.poisson import PoissonFamily


@pytest.fixture(scope="module")
def iris():
    X, y = load_iris(return_X_y=True)
    gappy = X.copy()
    gappy[np.random.default_rng(0).random(X.shape) < 0.1] = np.nan
    return X, gappy, y


def test_a_gaussian_fitted_by_em_over_missing_entries_without_its_rows_is_refused(iris):
    X, gappy, y = iris
    complete = FamilyClassifier(family=GaussianFamily()).fit(X, y)
    assert complete.family_.exact_posterior_refusal(complete.joint_) is None
    # The same family through another estimator: its conjugate draws are QDA's.
    np.testing.assert_array_equal(
        complete.posterior(4, random_state=1).posterior["means"],
        bayesgen.QDA().fit(X, y).posterior(4, random_state=1).posterior["means"],
    )
    model = FamilyClassifier(family=GaussianFamily()).fit(gappy, y)
    assert model.joint_.frozen is not None and model.joint_.rows is None
    # EM's expected statistics are not data: their conjugate update is no posterior.
    for call in (
        lambda: model.posterior(4),
        lambda: model.predict_proba_draws(X[:3], 4),
        lambda: model.predict_proba(X[:3], method="predictive"),
    ):
        with pytest.raises(ValueError, match="This FamilyClassifier was fitted on rows with"):
            call()
    # GaussianDA keeps the rows, and its posterior draws from them.
    qda = bayesgen.QDA().fit(gappy, y)
    assert qda.family_.exact_posterior_refusal(qda.joint_) is None
    without_rows = qda.joint_._replace(rows=None)
    assert "fitted on rows with missing values" in qda.family_.exact_posterior_refusal(without_rows)


def test_a_regularised_estimate_is_refused_before_the_missing_entries(iris):
    X, gappy, y = iris
    model = bayesgen.QDA(reg_alpha=0.5).fit(gappy, y)
    reason = model.family_.exact_posterior_refusal(model.joint_._replace(rows=None))
    assert reason.startswith(" has a regularised point estimate (reg_alpha")
    with pytest.raises(ValueError, match="This QDA has a regularised point estimate"):
        model.posterior(3)


def test_a_composite_names_its_first_group_without_a_closed_form(iris):
    X, _, y = iris
    frame = pd.DataFrame({"size": X[:, 0], "kind": np.where(X[:, 1] > 3, "hi", "lo")})
    model = bayesgen.MixedNB(features={"size": "gaussian", "kind": "categorical"}).fit(frame, y)
    family, value = model.family_, model.joint_
    assert family.exact_posterior_refusal(value) is None
    frozen = value._replace(frozen={"gaussian": np.ones(1), "categorical": None})
    assert family.exact_posterior_refusal(frozen).startswith(
        "'s gaussian family was fitted on rows with missing values (by EM)"
    )
    model.joint_ = frozen
    with pytest.raises(ValueError, match="This MixedNB's gaussian family was fitted on rows"):
        model.posterior(3)
    gamma = CompositeFamily(
        {"gamma": (GammaFamily(), [0]), "categorical": (CategoricalFamily(), [1])}
    )
    assert gamma.exact_posterior_refusal(value) == "'s gamma family has no closed-form posterior."


def test_a_family_without_a_conjugate_prior_says_so_and_a_conjugate_one_refuses_nothing():
    rng = np.random.default_rng(2)
    X = rng.gamma(2.0, 1.5, size=(60, 2))
    R = np.repeat(np.eye(2), 30, axis=0)
    classes = np.array([0, 1])
    gamma = joint.fit(GammaFamily(), X, R, classes, joint.FitSettings("mle"))
    reason = GammaFamily().exact_posterior_refusal(gamma)
    assert reason.startswith("'s gamma family has no closed-form posterior (its parameters")
    counts = joint.fit(PoissonFamily(), np.rint(X), R, classes)
    assert PoissonFamily().exact_posterior_refusal(counts) is None
