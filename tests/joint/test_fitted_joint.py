"""The fitted joint as a value: fit, update, merge and score it with no estimator involved.

References: the estimators' own fits (which the redesign will make views of these values),
brute-force likelihoods from SciPy, and the sum property of the statistics.
"""

import numpy as np
import pytest
import scipy.stats
from sklearn.datasets import load_iris, load_wine

import bayesgen
from bayesgen import joint, training_range
from bayesgen.families.bernoulli import BernoulliFamily
from bayesgen.families.categorical import CategoricalFamily
from bayesgen.families.exponential import ExponentialFamily
from bayesgen.families.gaussian import GaussianFamily
from bayesgen.families.multinomial import MultinomialFamily
from bayesgen.families.poisson import PoissonFamily

NAIVE_BAYES_PRIOR = joint.ClassPriorRule(None, 1.0, "mle")


def _counts(seed=0, n=120, d=6):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    rates = rng.uniform(0.5, 6.0, (3, d))
    return rng.poisson(rates[y]).astype(np.float64), y


def _cases():
    X, y = _counts()
    binary = (X > 2).astype(np.float64)
    positive = np.random.default_rng(3).exponential(1.0, X.shape) * (1 + y[:, None])
    categories = np.where(X > 3, "high", np.where(X > 1, "mid", "low")).astype(object)
    return [
        (PoissonFamily(alpha=0.5), bayesgen.PoissonNB(alpha=0.5), X, y),
        (MultinomialFamily(alpha=1.0), bayesgen.MultinomialNB(alpha=1.0), X, y),
        (BernoulliFamily(alpha=2.0), bayesgen.BernoulliNB(alpha=2.0), binary, y),
        (ExponentialFamily(), bayesgen.ExponentialNB(), positive, y),
        (CategoricalFamily(alpha=1.0), bayesgen.CategoricalNB(alpha=1.0), categories, y),
    ]


CASES = _cases()
IDS = [type(case[1]).__name__ for case in CASES]


def _one_hot(y, n_classes=None):
    classes, index = np.unique(y, return_inverse=True)
    weights = np.ones(len(y))
    return classes, joint.responsibilities(index, weights, n_classes or classes.shape[0])


@pytest.mark.parametrize(("family", "estimator", "X", "y"), CASES, ids=IDS)
def test_the_value_fits_and_scores_as_the_estimator(family, estimator, X, y):
    classes, R = _one_hot(y)
    value = joint.fit(family, X, R, classes, joint.FitSettings("mean", NAIVE_BAYES_PRIOR))
    estimator.fit(X, y)
    np.testing.assert_array_equal(value.classes, estimator.classes_)
    np.testing.assert_allclose(value.class_probabilities, estimator.class_prior_, rtol=1e-14)
    np.testing.assert_allclose(
        joint.log_joint(family, value, X), estimator.predict_joint_log_proba(X), rtol=1e-12
    )


@pytest.mark.parametrize(("family", "estimator", "X", "y"), CASES, ids=IDS)
def test_update_and_merge_equal_one_fit_of_all_rows(family, estimator, X, y):
    classes, R = _one_hot(y)
    settings = joint.FitSettings("mean", NAIVE_BAYES_PRIOR)
    whole = joint.fit(family, X, R, classes, settings)
    first = joint.fit(family, X[:50], R[:50], classes, settings)
    updated = joint.update(family, first, X[50:], R[50:], settings)
    merged = joint.merge(
        family, first, joint.fit(family, X[50:], R[50:], classes, settings), settings
    )
    for value in (updated, merged):
        np.testing.assert_allclose(value.class_stats.counts, whole.class_stats.counts)
        np.testing.assert_allclose(
            joint.log_joint(family, value, X), joint.log_joint(family, whole, X), rtol=1e-12
        )


def test_update_learns_categories_the_first_rows_did_not_have():
    X = np.array([["a"], ["b"], ["a"], ["c"], ["b"], ["c"]], dtype=object)
    y = np.array([0, 1, 0, 1, 0, 1])
    classes, R = _one_hot(y)
    family = CategoricalFamily(alpha=1.0)
    first = joint.fit(family, X[:3], R[:3], classes)
    assert [list(c) for c in first.learned["categories"]] == [["a", "b"]]
    updated = joint.update(family, first, X[3:], R[3:])
    whole = joint.fit(family, X, R, classes)
    assert [list(c) for c in updated.learned["categories"]] == [["a", "b", "c"]]
    np.testing.assert_allclose(
        joint.log_joint(family, updated, X), joint.log_joint(family, whole, X), rtol=1e-14
    )


def test_records_of_the_columns_merge_with_the_values():
    """`joint.merge` merges the two records (the record of all the rows); `joint.update`
    keeps the value's, which its caller merges with the batch's; a value without a
    record merges into one without."""
    X, y = _counts()
    X[::7, 2] = np.nan
    classes, R = _one_hot(y)
    family = PoissonFamily()

    def recorded(rows):
        value = joint.fit(family, X[rows], R[rows], classes)
        return value._replace(record=training_range.column_ranges(X[rows]))

    first, second = recorded(slice(0, 50)), recorded(slice(50, None))
    whole = training_range.column_ranges(X)
    merged = joint.merge(family, first, second).record
    for field in whole._fields:
        np.testing.assert_array_equal(getattr(merged, field), getattr(whole, field))
    assert joint.update(family, first, X[50:], R[50:]).record is first.record
    assert joint.merge(family, first, second._replace(record=None)).record is None


def test_merge_refuses_fits_over_other_classes():
    X, y = _counts()
    family = PoissonFamily()
    a = joint.fit(family, X, _one_hot(y)[1], np.array([0, 1, 2]))
    b = joint.fit(family, X, _one_hot(y)[1], np.array([0, 1, 5]))
    with pytest.raises(ValueError, match="different classes"):
        joint.merge(family, a, b)


@pytest.mark.parametrize("covariance_type", ["full", "tied", "diag", "spherical"])
def test_gaussian_value_is_gaussian_da_maximum_likelihood(covariance_type):
    X, y = load_wine(return_X_y=True)
    classes, R = _one_hot(y)
    family = GaussianFamily(covariance_type)
    value = joint.fit(family, X, R, classes, joint.FitSettings("mle", NAIVE_BAYES_PRIOR))
    model = bayesgen.GaussianDA(covariance_type=covariance_type, estimate="mle").fit(X, y)
    np.testing.assert_allclose(
        joint.log_joint(family, value, X), model.predict_joint_log_proba(X), rtol=1e-11
    )


def test_log_joint_is_the_brute_force_poisson_joint():
    X, y = _counts(seed=4)
    classes, R = _one_hot(y)
    family = PoissonFamily(alpha=2.0, beta=0.5)
    value = joint.fit(family, X, R, classes, joint.FitSettings("map", NAIVE_BAYES_PRIOR))
    rates = (2.0 + R.T @ X - 1.0) / (0.5 + R.sum(axis=0)[:, None])
    expected = np.log(R.mean(axis=0)) + np.stack(
        [scipy.stats.poisson.logpmf(X, rates[k]).sum(axis=1) for k in range(3)], axis=1
    )
    np.testing.assert_allclose(joint.log_joint(family, value, X), expected, rtol=1e-13)


def test_with_params_scores_a_posterior_draw_and_keeps_the_statistics():
    X, y = _counts(seed=5)
    classes, R = _one_hot(y)
    family = PoissonFamily()
    value = joint.fit(family, X, R, classes)
    posterior = family.posterior(value.feature_prior, value.feature_stats)
    draw = np.asarray(family.sample_params(np.random.default_rng(0), posterior, 1))[0]
    pi = np.array([0.2, 0.3, 0.5])
    drawn = joint.with_params(value, draw, pi)
    assert drawn.feature_stats is value.feature_stats
    expected = np.log(pi) + np.stack(
        [scipy.stats.poisson.logpmf(X, draw[k]).sum(axis=1) for k in range(3)], axis=1
    )
    np.testing.assert_allclose(joint.log_joint(family, drawn, X), expected, rtol=1e-13)


def test_missing_entries_are_integrated_out_of_the_value():
    X, y = _counts(seed=6)
    X[::4, 1] = np.nan
    classes, R = _one_hot(y)
    family = PoissonFamily()
    value = joint.fit(family, X, R, classes)
    # The same parameters without feature 1 score the rows whose feature 1 is missing alike.
    reduced = joint.with_params(value, np.delete(value.params, 1, axis=1))
    np.testing.assert_allclose(
        joint.log_joint(family, value, X[::4]),
        joint.log_joint(family, reduced, np.delete(X[::4], 1, axis=1)),
        rtol=1e-13,
    )


def test_fixed_class_probabilities_are_checked_and_used():
    X, y = load_iris(return_X_y=True)
    classes, R = _one_hot(y)
    rule = joint.ClassPriorRule(fixed=[0.5, 0.25, 0.25], name="class_prior")
    value = joint.fit(GaussianFamily("diag"), X, R, classes, joint.FitSettings("mle", rule))
    np.testing.assert_array_equal(value.class_probabilities, [0.5, 0.25, 0.25])
    bad = joint.ClassPriorRule(fixed=[0.5, 0.5], name="class_prior")
    with pytest.raises(ValueError, match=r"class_prior must have one entry per class"):
        joint.fit(GaussianFamily("diag"), X, R, classes, joint.FitSettings("mle", bad))


def test_unknown_estimate_kinds_are_refused():
    X, y = _counts()
    classes, R = _one_hot(y)
    with pytest.raises(ValueError, match="estimate must be one of"):
        joint.fit(PoissonFamily(), X, R, classes, joint.FitSettings("median"))


def test_float32_rows_give_a_float32_value():
    X, y = _counts()
    classes, R = _one_hot(y)
    value = joint.fit(PoissonFamily(), X.astype(np.float32), R.astype(np.float32), classes)
    assert value.class_stats.counts.dtype == np.float32
    assert joint.log_joint(PoissonFamily(), value, X.astype(np.float32)).dtype == np.float32
