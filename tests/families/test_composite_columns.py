"""How families read and write table columns, alone and composed (the MixedNB side of the
protocol): checking, learning categories, encoding, story sites, draws and dims."""

import numpy as np
import pytest

from bayesgen._precision import precision
from bayesgen.families.bernoulli import BernoulliFamily
from bayesgen.families.categorical import CategoricalFamily, CategoricalStats
from bayesgen.families.composite import CompositeFamily
from bayesgen.families.exponential import ExponentialFamily
from bayesgen.families.gaussian import GaussianFamily, GaussianParams
from bayesgen.families.poisson import PoissonFamily
from bayesgen.families.protocol import FeatureFamily


@pytest.fixture
def float64():
    """Callers run a family inside the precision of their data (here float64)."""
    with precision(np.float64):
        yield


def test_check_columns_names_the_owner_and_the_column():
    composite = CompositeFamily(
        {"poisson": (PoissonFamily(), [1]), "bernoulli": (BernoulliFamily(), [0])}
    )
    X = {"poisson": np.array([[1.0], [-2.0]]), "bernoulli": np.array([[0.0], [1.0]])}
    with pytest.raises(ValueError, match=r"-2.0 at row 1, column 'n'; Mixed's poisson family"):
        composite.check_columns(X, owner="Mixed", columns=["b", "n"])
    X = {"poisson": np.array([[1.0], [2.0]]), "bernoulli": np.array([[0.0], [3.0]])}
    with pytest.raises(ValueError, match="column 'b'; Mixed's bernoulli family needs 0/1"):
        composite.check_columns(X, owner="Mixed", columns=["b", "n"])


def test_values_become_numbers_with_none_missing():
    values = np.array([[True], [None], [False]], dtype=object)
    checked = BernoulliFamily().check_columns(values)
    np.testing.assert_array_equal(checked, [[1.0], [np.nan], [0.0]])
    with pytest.raises(ValueError, match="exponential data, which are >= 0"):
        ExponentialFamily().check_columns(np.array([[0.5], [-1.0]]))
    binarized = BernoulliFamily(binarize=0.5).check_columns(np.array([[0.2], [np.nan], [0.9]]))
    np.testing.assert_array_equal(binarized, [[0.0], [np.nan], [1.0]])


def test_of_reads_the_hyperparameters_by_name():
    class Settings:
        alpha, beta, binarize = 0.25, 3.0, None

    family = PoissonFamily.of(Settings())
    assert (family.alpha, family.beta) == (0.25, 3.0)
    assert PoissonFamily.settings_read() == {"alpha", "beta"}


def test_categories_are_learned_and_counts_re_laid(float64):
    """A second batch's new category gets a zero column in the earlier counts."""
    X = np.array([["b"], ["a"], [None]], dtype=object)
    family, stats = CategoricalFamily().learn(X)
    assert stats is None and family.learned()["categories"][0].tolist() == ["a", "b"]
    codes = family.encode(X)
    np.testing.assert_array_equal(codes, [[1], [0], [-1]])
    np.testing.assert_array_equal(family.decode(codes), X)
    R = np.eye(2)[[0, 1, 1]]
    earlier = family.suff_stats(codes, R, np.float64)
    wider, relaid = family.learn(np.array([["c"]], dtype=object), earlier)
    assert wider.learned()["categories"][0].tolist() == ["a", "b", "c"]
    assert isinstance(relaid, CategoricalStats)
    # ["a", "b", unseen] -> ["a", "b", "c", unseen]: "c" and the unseen column start at 0.
    expected = np.insert(np.asarray(earlier.category_counts), 2, 0.0, axis=1)
    np.testing.assert_array_equal(relaid.category_counts, expected)
    fresh = wider.suff_stats(wider.encode(X), R, np.float64)
    np.testing.assert_array_equal(relaid.category_counts, fresh.category_counts)


def test_sites_round_trip_and_are_scoped_by_group():
    categorical = CategoricalFamily(categories=[np.array(["x", "y"], dtype=object)])
    composite = CompositeFamily(
        {
            "gaussian": (GaussianFamily("diag"), [0]),
            "categorical": (categorical, [2]),
            "poisson": (PoissonFamily(), [1]),
        }
    )
    theta = np.array([[0.5, 0.3, 0.2], [0.1, 0.6, 0.3]])
    params = {
        "gaussian": GaussianParams(np.zeros((2, 1)), np.ones((2, 1))),
        "categorical": theta,
        "poisson": np.array([[1.0], [2.0]]),
    }
    sites = composite.sites(params)
    assert set(sites) == {
        "gaussian/means",
        "gaussian/covariances",
        "categorical/category_probs_0",
        "poisson/rates",
    }
    back = composite.params_from_sites(sites)
    np.testing.assert_array_equal(back["categorical"], theta)
    np.testing.assert_array_equal(back["gaussian"].covariances, np.ones((2, 1)))
    # Drawing the unseen category would give no value: its mass goes to the seen ones.
    drawn = composite.sampling_sites(params)["categorical/category_probs_0"]
    np.testing.assert_allclose(drawn, [[0.625, 0.375, 0.0], [0.1 / 0.7, 0.6 / 0.7, 0.0]])
    dims, coords = composite.parameter_dims(["h", "n", "c"])
    assert dims["categorical/category_probs_0"] == ("class", "categorical/category_0")
    assert coords["categorical/category_0"] == ["x", "y", "<unseen>"]
    assert coords["poisson/feature"] == ["n"] and coords["gaussian/feature"] == ["h"]
    draws = {
        "gaussian/X": np.array([0.5, 1.5]),
        "categorical/X_0": np.array([1, 0]),
        "poisson/X": np.array([[2.0], [3.0]]),
    }
    draws["gaussian/X"] = draws["gaussian/X"][:, None]
    columns = composite.features_from_draws(draws)
    np.testing.assert_array_equal(columns[0], [0.5, 1.5])
    np.testing.assert_array_equal(columns[1], [2, 3])
    assert columns[1].dtype == np.int64
    np.testing.assert_array_equal(columns[2], ["y", "x"])


def test_the_default_estimate_is_the_prior_and_point_estimate(float64):
    family = PoissonFamily(alpha=2.0)
    X = np.array([[1.0], [3.0], [0.0]])
    R = np.eye(2)[[0, 0, 1]]
    stats = family.suff_stats(X, R, np.float64)
    prior, rates = family.estimate(stats, "mean")
    np.testing.assert_allclose(rates, [[(4 + 2) / (2 + 1)], [(0 + 2) / (1 + 1)]])
    assert type(prior) is type(family.prior(stats))


def test_gaussian_estimate_keeps_a_frozen_prior_and_ridge(float64):
    family = GaussianFamily("diag")
    X = np.array([[0.0], [2.0], [5.0], [9.0]])
    R = np.eye(2)[[0, 0, 1, 1]]
    stats = family.suff_stats(X, R)
    prior, params = family.estimate(stats, "map")
    ridge = family.ridge(stats)
    other = family.suff_stats(X * 3, R)
    kept_prior, kept = family.estimate(other, "map", (ridge, prior))
    assert kept_prior is prior
    expected = family.point_estimate(prior, other, "map", ridge=ridge)
    np.testing.assert_allclose(kept.covariances, expected.covariances)


def test_protocol_defaults_describe_one_array_of_counts():
    assert FeatureFamily.site == "feature_probs" and PoissonFamily.site == "rates"
    dims, coords = PoissonFamily().parameter_dims(["a", "b"])
    assert dims == {"rates": ("class", "feature")} and coords == {"feature": ["a", "b"]}
    counts = PoissonFamily().features_from_draws({"X": np.array([[1.0000001, 2.0]])})
    assert counts.dtype == np.int64 and counts.tolist() == [[1, 2]]
