"""sample(): rows drawn from the fitted story refit to the fitted parameters, for every family."""

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import load_digits, load_iris

from bayesgen import (
    BernoulliNB,
    CategoricalNB,
    GaussianDA,
    MixedNB,
    MultinomialNB,
    PoissonNB,
)

N_DRAWS = 20_000


def _within(estimate, truth, standard_error, sigmas=5.0):
    np.testing.assert_array_less(np.abs(estimate - truth), sigmas * standard_error + 1e-12)


@pytest.mark.parametrize("covariance_type", ["full", "tied", "diag", "spherical"])
def test_gaussian_samples_refit_to_the_fitted_model(covariance_type):
    """Class frequencies, means and covariances of 20 000 draws match the fitted ones."""
    X, y = load_iris(return_X_y=True)
    model = GaussianDA(covariance_type=covariance_type).fit(X, y)
    X_new, y_new = model.sample(N_DRAWS, random_state=0)
    assert X_new.shape == (N_DRAWS, 4) and X_new.dtype == np.float64
    frequencies = np.bincount(y_new, minlength=3) / N_DRAWS
    _within(frequencies, model.class_prior_, np.sqrt(model.class_prior_ / N_DRAWS))
    refit = GaussianDA(covariance_type=covariance_type, reg_covar=0).fit(X_new, y_new)
    spread = np.sqrt(np.diag(np.cov(X.T)))
    _within(refit.means_ / spread, model.means_ / spread, 1 / np.sqrt(N_DRAWS / 3))
    np.testing.assert_allclose(refit.covariances_, model.covariances_, rtol=0.06, atol=2e-3)


@pytest.mark.parametrize("model_class", [BernoulliNB, PoissonNB, MultinomialNB])
def test_count_samples_refit_to_the_fitted_model(model_class):
    """Integer rows whose per-class means give back theta (or the rates)."""
    X, y = load_digits(return_X_y=True)
    model = (model_class(binarize=7) if model_class is BernoulliNB else model_class()).fit(X, y)
    # N_DRAWS rows in four calls: NumPyro draws a multinomial row by Gumbel-max over
    # (total count x n_features) noise, so one call of 20,000 digits rows (about 313 words of
    # 64 pixels each) held 3.2 GB at once. Four independent samples of 5,000 rows are one
    # sample of 20,000, so the standard errors below are unchanged.
    blocks = [model.sample(N_DRAWS // 4, random_state=seed) for seed in range(1, 5)]
    X_new = np.concatenate([rows for rows, _ in blocks])
    y_new = np.concatenate([labels for _, labels in blocks])
    assert X_new.dtype == np.int64 and np.all(X_new >= 0)
    counts = np.bincount(y_new, minlength=10)[:, None]
    means = np.array([X_new[y_new == k].mean(axis=0) for k in range(10)])
    if model_class is PoissonNB:
        truth, variance = model.rates_, model.rates_
    elif model_class is BernoulliNB:
        assert set(np.unique(X_new)) <= {0, 1}
        truth = np.exp(model.feature_log_prob_)
        variance = truth * (1 - truth)
    else:
        length = round(model.feature_count_.sum() / model.class_count_.sum())
        np.testing.assert_array_equal(X_new.sum(axis=1), length)
        truth = length * np.exp(model.feature_log_prob_)
        variance = truth * (1 - truth / length)
    _within(means, truth, np.sqrt(variance / counts))


def test_categorical_samples_use_the_original_categories():
    """String categories come back; frequencies follow theta given a seen category."""
    rng = np.random.default_rng(0)
    X = rng.choice(np.array(["red", "green", "blue"], dtype=object), size=(300, 2))
    y = rng.integers(0, 2, size=300)
    model = CategoricalNB().fit(X, y)
    X_new, y_new = model.sample(N_DRAWS, y=1, random_state=2)
    assert np.all(y_new == 1) and set(np.unique(X_new)) <= {"red", "green", "blue"}
    seen = np.exp(model.feature_log_prob_[0][1, :-1])
    seen = seen / seen.sum()
    frequencies = np.array([np.mean(X_new[:, 0] == c) for c in model.categories_[0]])
    _within(frequencies, seen, np.sqrt(seen * (1 - seen) / N_DRAWS))


def test_mixed_samples_are_a_dataframe_with_the_training_columns():
    """MixedNB fitted on a DataFrame draws a DataFrame, column by column in its family."""
    rng = np.random.default_rng(3)
    y = rng.integers(0, 2, 500)
    frame = pd.DataFrame(
        {
            "size": rng.normal(3 * y, 1),
            "count": rng.poisson(2 + 3 * y),
            "kind": rng.choice(["a", "b"], 500),
        }
    )
    model = MixedNB().fit(frame, y)
    X_new, y_new = model.sample(N_DRAWS, random_state=4)
    assert list(X_new.columns) == ["size", "count", "kind"]
    for k in (0, 1):
        rows = X_new[y_new == k]
        gaussian = model.estimators_["gaussian"]
        _within(
            rows["size"].mean(),
            gaussian.means_[k, 0],
            np.sqrt(gaussian.covariances_[k, 0] / len(rows)),
        )
        rate = model.estimators_["poisson"].rates_[k, 0]
        _within(rows["count"].mean(), rate, np.sqrt(rate / len(rows)))
    assert set(X_new["kind"]) <= {"a", "b"}


def test_same_random_state_same_rows_and_labels_given():
    """A fixed random_state repeats the draw; y given generates that class (or classes)."""
    X, y = load_iris(return_X_y=True)
    model = GaussianDA().fit(X, y)
    first, second = model.sample(7, random_state=11), model.sample(7, random_state=11)
    np.testing.assert_array_equal(first[0], second[0])
    np.testing.assert_array_equal(first[1], second[1])
    _, labels = model.sample(y=[2, 0, 0], random_state=0)
    np.testing.assert_array_equal(labels, [2, 0, 0])


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"n_samples": 0}, "n_samples must be >= 1"),
        ({"n_samples": 2.5}, "n_samples must be an integer"),
        ({"y": 7}, r"y contains labels \[7\] that are not in classes_"),
    ],
)
def test_bad_sample_arguments(kwargs, message):
    """n_samples < 1, a non-integer count or an unknown label: ValueError."""
    X, y = load_iris(return_X_y=True)
    with pytest.raises(ValueError, match=message):
        GaussianDA().fit(X, y).sample(**kwargs)


def test_sampled_rows_are_writable_arrays():
    """Synthetic rows are ordinary NumPy arrays a user may edit (not read-only JAX views)."""
    X, y = load_iris(return_X_y=True)
    rows, labels = GaussianDA().fit(X, y).sample(5, random_state=0)
    rows[0, 0] = np.nan
    labels[0] = labels[1]
    assert np.isnan(rows[0, 0])
