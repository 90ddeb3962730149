"""The kernel density family on its own: statistics, smoothing, density, draws, fill."""

import numpy as np
import pytest
from scipy import stats
from sklearn.datasets import load_iris

from bayesgen import KernelDensityDA, joint, registry
from bayesgen.families.kernel_density_family import KernelChoice, KernelDensityFamily

X, Y = load_iris(return_X_y=True)
R = np.eye(3)[Y]


def test_registered_by_its_name():
    assert registry.family("kernel_density") is KernelDensityFamily
    assert not KernelDensityFamily.has_exact_posterior


def test_each_class_density_is_scipy_gaussian_kde_of_its_rows():
    family = KernelDensityFamily()
    _, params = family.estimate(family.suff_stats(X, R, np.float64), "mle")
    log_likelihood = family.log_likelihood(params, X[:20])
    for k in range(3):
        expected = stats.gaussian_kde(X[Y == k].T, bw_method="scott").logpdf(X[:20].T)
        # reg_covar's ridge (1e-6 of each feature's variance) moves the density a little.
        np.testing.assert_allclose(log_likelihood[:, k], expected, rtol=1e-4, atol=1e-4)


def test_two_batches_merge_into_the_statistics_of_all_rows():
    family = KernelDensityFamily(bandwidth="silverman")
    first = family.suff_stats(X[:70], R[:70], np.float64)
    second = family.suff_stats(X[70:], R[70:], np.float64)
    merged, whole = family.merge(first, second), family.suff_stats(X, R, np.float64)
    np.testing.assert_array_equal(merged.rows, whole.rows)
    np.testing.assert_array_equal(merged.weights, whole.weights)
    np.testing.assert_allclose(family.prior(merged).kernel_covariances, family.prior(whole)[2])


def test_a_frozen_choice_is_kept_as_given():
    family = KernelDensityFamily()
    frozen = family.prior(family.suff_stats(X, R, np.float64))
    half = family.suff_stats(X[::2], R[::2], np.float64)
    choice, params = family.estimate(half, "mle", frozen)
    assert isinstance(choice, KernelChoice)
    np.testing.assert_array_equal(choice.bandwidth, frozen.bandwidth)
    np.testing.assert_array_equal(params.kernel_covariances, frozen.kernel_covariances)
    np.testing.assert_array_equal(params.training_X, X[::2])
    assert not np.array_equal(family.prior(half).bandwidth, frozen.bandwidth)


def test_the_estimator_is_a_view_of_the_family_value():
    model = KernelDensityDA(bandwidth_scope="shared").fit(X, Y)
    family = KernelDensityFamily(bandwidth_scope="shared")
    expected = joint.fit(family, X, R, np.arange(3))
    np.testing.assert_array_equal(model.kernel_covariances_, expected.params.kernel_covariances)
    np.testing.assert_array_equal(model.bandwidth_, expected.feature_prior.bandwidth)
    np.testing.assert_allclose(
        model.predict_joint_log_proba(X), joint.log_joint(family, expected, X), rtol=1e-12
    )


def test_rows_with_missing_entries_are_refused_when_fitting():
    holes = X.copy()
    holes[3, 1] = np.nan
    with pytest.raises(ValueError, match="cannot fit rows with missing values"):
        KernelDensityFamily().suff_stats(holes, R, np.float64)


@pytest.mark.parametrize(
    ("settings", "message"),
    [({"bandwidth": -1.0}, "bandwidth must be"), ({"bandwidth_scope": "all"}, "bandwidth_scope")],
)
def test_bad_settings_are_named(settings, message):
    with pytest.raises(ValueError, match=message):
        KernelDensityFamily(**settings).check()


def test_draws_centre_on_the_class_rows():
    family = KernelDensityFamily(bandwidth=0.05)
    _, params = family.estimate(family.suff_stats(X, R, np.float64), "mle")
    classes = np.repeat([0, 2], 4000)
    draws = family.draw_features(params, classes, np.random.default_rng(0))
    assert np.all(Y[draws["kernel_center"]] == classes)
    for k in (0, 2):
        np.testing.assert_allclose(
            draws["X"][classes == k].mean(axis=0), X[Y == k].mean(axis=0), atol=0.03
        )


def test_the_fill_keeps_observed_entries_and_mixes_the_classes():
    family = KernelDensityFamily()
    _, params = family.estimate(family.suff_stats(X, R, np.float64), "mle")
    rows = X[[0, 100]].copy()
    rows[:, 2:] = np.nan
    weights = np.array([[1.0, 0.0, 0.0], [0.0, 0.0, 1.0]])
    filled = family.conditional(params, rows, weights, "mean", np.random.default_rng(0))
    np.testing.assert_array_equal(filled[:, :2], X[[0, 100], :2])
    # Petal sizes of a setosa-like row are small, of a virginica-like one large.
    assert filled[0, 2] < 2.5 < 4.5 < filled[1, 2]
