"""``LatentClassNB(n_components="auto")``: each class's count chosen by held-out
log-likelihood through the mixture family's generic path (`FitByEM._family_with_counts`)."""

import warnings

import numpy as np
import pandas as pd
import pytest

import bayesgen
from bayesgen import LatentClassNB
from bayesgen.inference.latent_class_start import initial_memberships


def _one_and_three(seed=0, n=900):
    """Class 0: three independent columns (one component explains it); class 1: three
    latent clusters that move a number, a category and a count together."""
    rng = np.random.default_rng(seed)
    y = np.repeat([0, 1], n // 2)
    z = rng.integers(0, 3, n)
    frame = pd.DataFrame(
        {
            "a": np.where(y == 1, 4.0 * z, 0.0) + rng.normal(size=n),
            "b": np.where(y == 1, np.array(["x", "y", "w"])[z], rng.choice(["x", "y", "w"], n)),
            "c": np.where(y == 1, rng.poisson(1 + 6 * z), rng.poisson(3, n)),
        }
    )
    return frame, y


@pytest.fixture(scope="module")
def auto_fit():
    frame, y = _one_and_three()
    return frame, y, LatentClassNB(n_components="auto", random_state=0).fit(frame, y)


def test_auto_finds_each_class_count(auto_fit):
    frame, y, model = auto_fit
    np.testing.assert_array_equal(model.n_components_, [1, 3])
    choice = model.component_choice_
    np.testing.assert_array_equal(choice.candidates, [1, 2, 3, 4, 5])
    assert choice.scores.shape == (5, 3, 2)
    # Class 1: three components explain held-out rows far better than one.
    means = choice.scores.mean(axis=1)
    assert means[2, 1] > means[0, 1] + 0.5
    # The fit has those counts: class 0 one component of weight 1, class 1 three.
    np.testing.assert_array_equal(model.weights_[0], [1.0, 0.0, 0.0])
    assert np.all(model.weights_[1] > 0.2)
    assert model.family_.n_components == (1, 3)
    # A refit chooses afresh, the same way for the same random_state.
    again = LatentClassNB(n_components="auto", random_state=0).fit(frame, y)
    np.testing.assert_array_equal(again.predict_proba(frame), model.predict_proba(frame))


def test_auto_with_gaps_and_unlabelled_rows():
    frame, y = _one_and_three()
    gappy = frame.copy()
    gappy.loc[::6, "a"] = np.nan
    gappy.loc[1::9, "b"] = None
    on_gaps = LatentClassNB(n_components="auto", random_state=0).fit(gappy, y)
    np.testing.assert_array_equal(on_gaps.n_components_, [1, 3])
    partly = np.where(np.arange(y.size) % 4 == 0, -1, y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # -1 beside integer classes
        semi = LatentClassNB(n_components="auto", random_state=0).fit(frame, partly)
    np.testing.assert_array_equal(semi.n_components_, [1, 3])
    assert semi.fitted_with_unlabeled_


def test_auto_is_kept_by_a_model_file(auto_fit, tmp_path):
    frame, _, model = auto_fit
    model.save(tmp_path / "auto.bgm")
    loaded = bayesgen.load(tmp_path / "auto.bgm")
    np.testing.assert_array_equal(loaded.n_components_, [1, 3])
    np.testing.assert_array_equal(loaded.predict_proba(frame), model.predict_proba(frame))
    pd.testing.assert_frame_equal(
        loaded.sample(20, random_state=1)[0], model.sample(20, random_state=1)[0]
    )


def test_a_given_count_sets_no_choice(auto_fit):
    frame, y, _ = auto_fit
    model = LatentClassNB(n_components=2, random_state=0).fit(frame, y)
    assert not hasattr(model, "n_components_") and not hasattr(model, "component_choice_")


@pytest.mark.parametrize("bad", ["x", 0, 2.5, (1, 3)])
def test_other_values_are_refused_by_name(bad):
    frame, y = _one_and_three(n=60)
    with pytest.raises(ValueError, match="n_components must be an integer >= 1 or 'auto'"):
        LatentClassNB(n_components=bad).fit(frame, y)


def test_starts_over_each_class_components():
    """Per-class counts (a mixture's ``active``): a class's absent components have
    membership 0; one count for every class is the same start, bit for bit."""
    frame, y = _one_and_three(n=90)
    R = np.eye(2)[y]
    active = np.array([[True, False, False], [True, True, True]])
    for init in ("kmeans", "random"):
        gamma = initial_memberships(frame, R, active, init, np.random.RandomState(0))
        assert gamma.shape == (90, 2, 3)
        np.testing.assert_array_equal(gamma[:, 0], np.tile([1.0, 0.0, 0.0], (90, 1)))
        np.testing.assert_allclose(gamma.sum(axis=2), 1.0)
        same = initial_memberships(frame, R, 3, init, np.random.RandomState(1))
        full = initial_memberships(frame, R, np.ones((2, 3), bool), init, np.random.RandomState(1))
        np.testing.assert_array_equal(same, full)


def test_a_failed_fit_leaves_no_choice_behind():
    """An "auto" fit that fails after choosing (a class of zero weight) must not hand its
    counts to the next fit from scratch: partial_fit with n_components=2 gets 2."""
    frame, y = _one_and_three(n=300)
    y = np.repeat([0, 1, 2], 100)
    weights = np.where(y == 2, 0.0, 1.0)
    model = LatentClassNB(n_components="auto", random_state=0)
    with pytest.raises(ValueError, match="n_components='auto' gives class 2 1 component"):
        model.fit(frame, y, sample_weight=weights)
    model.set_params(n_components=2).partial_fit(frame, y, classes=[0, 1, 2])
    assert model.weights_.shape == (3, 2) and not hasattr(model, "n_components_")
