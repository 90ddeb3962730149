"""MixedNB is a CompositeFamily of its column groups: no group holds an estimator of its own."""

import ast
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from bayesgen import GaussianNB, MixedNB, PoissonNB, registry, stories
from bayesgen.families.poisson import PoissonFamily


def _frame(n=150, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    frame = pd.DataFrame(
        {
            "height": rng.normal(170 + 5 * y, 7),
            "visits": rng.poisson(1 + 2 * y),
            "city": rng.choice(["rome", "oslo", "lima"], n),
        }
    )
    return frame, y


def test_mixed_nb_calls_no_private_method_of_another_object():
    """Every ``obj._name(...)`` call in mixed_nb.py is on ``self``, ``cls`` or ``super()``."""
    source = Path(__file__).parents[2] / "bayesgen" / "estimators" / "mixed_nb.py"
    foreign = []
    for node in ast.walk(ast.parse(source.read_text())):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
            continue
        if not node.func.attr.startswith("_") or node.func.attr.startswith("__"):
            continue
        owner = node.func.value
        if isinstance(owner, ast.Name) and owner.id in ("self", "cls"):
            continue
        if isinstance(owner, ast.Call) and getattr(owner.func, "id", None) == "super":
            continue
        foreign.append((node.lineno, node.func.attr))
    assert foreign == []


@pytest.fixture
def new_family():
    """A family registered only for the test: Poisson rates under another name."""

    class TestRates(PoissonFamily):
        name = "test-rates"

    registry.register_story_part("test-rates")(stories.part("poisson"))  # imports the parts
    yield TestRates
    registry._FAMILIES.pop("test-rates")
    registry._STORY_PARTS.pop("test-rates")


def test_a_newly_registered_family_is_a_column_family_with_no_edit(new_family):
    """features={col: <new family>} fits, predicts and samples through the family alone."""
    frame, y = _frame()
    model = MixedNB(features={"visits": "test-rates", "city": "categorical"}).fit(frame, y)
    assert model.feature_families_["visits"] == "test-rates"
    plain = MixedNB(features={"visits": "poisson", "city": "categorical"}).fit(frame, y)
    np.testing.assert_allclose(
        model.predict_joint_log_proba(frame), plain.predict_joint_log_proba(frame), rtol=1e-12
    )
    assert isinstance(model.estimators_["test-rates"], PoissonNB)
    X, _ = model.sample(20, random_state=0)
    assert (X["visits"] >= 0).all() and X["visits"].dtype == frame["visits"].dtype
    draws = model.posterior(num_samples=5, random_state=0)
    assert "test-rates/rates" in draws.posterior


def test_estimators_are_built_from_the_groups_and_read_only():
    """Each group's estimator predicts the group's share of the joint; NaN-EM kept."""
    frame, y = _frame(seed=1)
    frame.loc[::7, "height"] = np.nan
    model = MixedNB(features={"visits": "poisson", "height": "gaussian"}).fit(frame, y)
    groups = {
        family: [c for c, f in model.feature_families_.items() if f == family]
        for family in set(model.feature_families_.values())
    }
    total = np.log(model.class_prior_)
    for family, estimator in model.estimators_.items():
        part = frame[groups[family]]
        if family != "categorical":
            part = part.astype(float)
        total = total + estimator.predict_joint_log_proba(part) - np.log(estimator.class_prior_)
        np.testing.assert_array_equal(estimator.class_prior_, model.class_prior_)
    np.testing.assert_allclose(model.predict_joint_log_proba(frame), total, rtol=1e-10)
    gaussian = model.estimators_["gaussian"]
    assert gaussian.fitted_with_missing_
    standalone = GaussianNB(estimate="mean").fit(frame[["height"]], y)
    np.testing.assert_allclose(gaussian.means_, standalone.means_, rtol=1e-10)
    with pytest.raises(AttributeError):
        model.estimators_ = {}


def test_settings_a_group_does_not_use_are_refused():
    """GaussianNB takes shrinkage, but a diagonal column group has no use for it."""
    frame, y = _frame(40)
    with pytest.raises(ValueError, match=r"sets \['shrinkage'\], which MixedNB's gaussian"):
        MixedNB(family_params={"gaussian": {"shrinkage": 0.5}}).fit(frame, y)


def test_family_params_reach_the_group_family():
    """A group's own settings (max_iter of its EM, binarize of a Bernoulli) are its own."""
    rng = np.random.default_rng(3)
    y = rng.integers(0, 2, 120)
    frame = pd.DataFrame({"score": rng.normal(2 * y, 1), "level": rng.normal(y, 1)})
    model = MixedNB(
        features={"level": "bernoulli"}, family_params={"bernoulli": {"binarize": 0.5}}
    ).fit(frame, y)
    binary = (frame[["level"]] > 0.5).astype(float)
    reference = MixedNB(features={"level": "bernoulli"}).fit(frame.assign(level=binary["level"]), y)
    np.testing.assert_allclose(
        model.predict_proba(frame),
        reference.predict_proba(frame.assign(level=binary["level"])),
        rtol=1e-12,
    )


def test_a_late_category_re_lays_the_statistics_in_partial_fit():
    """partial_fit with a city first seen in the last chunk equals fit on all rows."""
    frame, y = _frame(90, seed=2)
    frame.loc[frame.index[-4:], "city"] = "kyiv"
    whole = MixedNB(features={"visits": "poisson", "height": "gaussian"}).fit(frame, y)
    chunked = MixedNB(features={"visits": "poisson", "height": "gaussian"})
    for rows in np.array_split(np.arange(len(y)), 3):
        chunked.partial_fit(frame.iloc[rows], y[rows], classes=[0, 1])
    assert list(chunked.estimators_["categorical"].categories_[0]) == [
        "kyiv",
        "lima",
        "oslo",
        "rome",
    ]
    np.testing.assert_allclose(chunked.predict_proba(frame), whole.predict_proba(frame), rtol=1e-10)
