"""Issue 32: the data-augmentation chains behind a gappy fit's posterior draws ran again on
every call (54 s each for predict_proba_draws(X, 200) on breast cancer). They are a function
of the fitted model, the rows, the sizes and the generator's state, and are now computed
once for the same inputs."""

import warnings

import numpy as np
import pytest
from sklearn.datasets import load_wine

from bayesgen import QDA
from bayesgen.inference import data_augmentation


@pytest.fixture
def gappy_fit():
    X, y = load_wine(return_X_y=True)
    X, y = X[::2, :5].copy(), y[::2]
    X[np.random.default_rng(0).random(X.shape) < 0.2] = np.nan
    return X, y, QDA(estimate="map").fit(X, y)


@pytest.fixture
def counted_chains(monkeypatch):
    data_augmentation._cache.clear()
    calls = []
    original = data_augmentation.chains

    def counting(*args, **kwargs):
        calls.append(kwargs["num_samples"])
        return original(*args, **kwargs)

    monkeypatch.setattr(data_augmentation, "chains", counting)
    return calls


def test_the_same_random_state_gives_the_same_draws_from_one_run(gappy_fit, counted_chains):
    X, _, model = gappy_fit
    first = model.predict_proba_draws(X[:7], 12, random_state=3)
    second = model.predict_proba_draws(X[:7], 12, random_state=3)
    np.testing.assert_array_equal(first, second)
    assert len(counted_chains) == 1  # the second call reused the chains
    other = model.predict_proba_draws(X[:7], 12, random_state=4)
    assert len(counted_chains) == 2 and not np.array_equal(first, other)


def test_a_refit_is_never_served_the_old_chains(gappy_fit, counted_chains):
    X, y, model = gappy_fit
    before = model.predict_proba_draws(X[:7], 12, random_state=3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model.fit(X[:-10], y[:-10])
    after = model.predict_proba_draws(X[:7], 12, random_state=3)
    assert len(counted_chains) == 2 and not np.array_equal(before, after)


def test_a_cache_hit_leaves_the_generator_where_the_run_would(gappy_fit):
    X, y, model = gappy_fit
    family = model._feature_family()
    R = (y[:, None] == model.classes_[None, :]).astype(float)
    arguments = (family, model.prior_, X, R, model.suff_stats_)
    sizes = {"num_chains": 2, "num_samples": 3, "num_warmup": 2}
    data_augmentation._cache.clear()
    fresh = np.random.default_rng(11)
    computed = data_augmentation.run(*arguments, rng=fresh, **sizes)
    reused_rng = np.random.default_rng(11)
    reused = data_augmentation.run(*arguments, rng=reused_rng, **sizes)
    for a, b in zip(computed, reused, strict=True):
        np.testing.assert_array_equal(a, b)
    assert fresh.random() == reused_rng.random()
    # And the chains equal a run that never saw the cache.
    direct = data_augmentation.chains(*arguments, rng=np.random.default_rng(11), **sizes)
    np.testing.assert_array_equal(direct[0], computed[0])


def test_the_key_does_not_depend_on_numpy_s_print_options(gappy_fit):
    """A printed generator state abbreviates its 624 words under a small print threshold:
    two states would then share a key. The digest reads their bytes."""
    X, y, model = gappy_fit
    R = (y[:, None] == model.classes_[None, :]).astype(float)
    arguments = (model._feature_family(), model.prior_, X, R, model.suff_stats_)
    first = np.random.Generator(np.random.MT19937(1))
    second = np.random.Generator(np.random.MT19937(2))
    with np.printoptions(threshold=10):
        keys = [
            data_augmentation._fingerprint(*arguments, rng, (1, 1, 1)) for rng in (first, second)
        ]
    assert keys[0] != keys[1]
