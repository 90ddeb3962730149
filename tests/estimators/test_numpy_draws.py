"""``sample`` draws in NumPy with the story's law: checked against the fitted parameters'
closed-form moments for every family, and against the story run by NumPyro (two-sample
tests), with Monte-Carlo tolerances (``Z`` standard errors; ``P_VALUE`` for the tests)."""

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from sklearn.datasets import load_iris

import bayesgen as bg

N = 6000  # rows per check
Z = 4.5  # Monte-Carlo standard errors allowed
P_VALUE = 1e-4  # two-sample tests


def _iris():
    X, y = load_iris(return_X_y=True)
    return X, np.asarray(["setosa", "versicolor", "virginica"])[y]


def _counts(seed=0, n=300, d=5):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    return rng.poisson(1.0 + 2.0 * y[:, None] * np.arange(1, d + 1) / d), y


def _within(found, expected, standard_error, what):
    gap = np.abs(np.asarray(found) - np.asarray(expected))
    assert np.all(gap <= Z * np.asarray(standard_error) + 1e-12), (what, gap.max())


def _per_class(model, n=N):
    """Rows drawn given each class in turn: {class index: X}."""
    return {
        k: np.asarray(model.sample(n, y=label, random_state=k)[0], dtype=np.float64)
        for k, label in enumerate(model.classes_)
    }


@pytest.mark.parametrize("covariance_type", ["full", "tied", "diag", "spherical"])
def test_gaussian_rows_have_the_class_means_and_covariances(covariance_type):
    X, y = _iris()
    model = bg.GaussianDA(covariance_type=covariance_type).fit(X, y)
    full = model.family_.full_covariances(model.joint_.params)
    for k, rows in _per_class(model).items():
        sd = np.sqrt(np.diagonal(full[k]))
        _within(rows.mean(axis=0), model.means_[k], sd / np.sqrt(N), "means")
        # Var of an empirical covariance entry: (S_ii S_jj + S_ij^2) / n.
        spread = np.sqrt((np.outer(sd**2, sd**2) + full[k] ** 2) / N)
        _within(np.cov(rows, rowvar=False), full[k], spread, "covariances")


def test_labels_follow_the_class_prior():
    X, y = _iris()
    weights = np.where(y == "setosa", 4.0, 1.0)
    model = bg.QDA().fit(X, y, sample_weight=weights)
    _, labels = model.sample(N, random_state=1)
    frequencies = np.mean(labels[:, None] == model.classes_, axis=0)
    prior = model.class_prior_
    _within(frequencies, prior, np.sqrt(prior * (1 - prior) / N), "class frequencies")


def test_bernoulli_entries_are_one_with_the_class_probability():
    X, y = _counts()
    model = bg.BernoulliNB().fit(X > 2, y)
    theta = np.exp(model.feature_log_prob_)
    for k, rows in _per_class(model).items():
        assert set(np.unique(rows)) <= {0.0, 1.0}
        _within(rows.mean(axis=0), theta[k], np.sqrt(theta[k] * (1 - theta[k]) / N), "theta")


def test_poisson_counts_have_the_class_rates():
    X, y = _counts()
    model = bg.PoissonNB().fit(X, y)
    for k, rows in _per_class(model).items():
        assert np.all(rows == np.rint(rows)) and np.all(rows >= 0)
        rate = model.rates_[k]
        _within(rows.mean(axis=0), rate, np.sqrt(rate / N), "rates")
        _within(rows.var(axis=0), rate, np.sqrt((rate + 2 * rate**2) / N), "variances")


def test_exponential_times_have_the_class_means():
    X, y = _counts()
    model = bg.ExponentialNB().fit(X + 0.5, y)
    for k, rows in _per_class(model).items():
        mean = 1.0 / model.rates_[k]
        _within(rows.mean(axis=0), mean, mean / np.sqrt(N), "means")
        assert stats.kstest(rows[:, 0], stats.expon(scale=mean[0]).cdf).pvalue > P_VALUE


def test_multinomial_rows_spread_their_length_with_the_class_probabilities():
    X, y = _counts()
    model = bg.MultinomialNB().fit(X, y)
    theta = np.exp(model.feature_log_prob_)
    for k, label in enumerate(model.classes_):
        rows = model.sample(N, y=label, random_state=k, lengths=20)[0]
        assert np.all(rows.sum(axis=1) == 20)
        _within(rows.mean(axis=0), 20 * theta[k], np.sqrt(20 * theta[k] * (1 - theta[k]) / N), "")


def test_categorical_values_have_the_class_probabilities_and_never_the_unseen_one():
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 400)
    X = np.where(rng.random((400, 2)) < 0.3 + 0.4 * y[:, None], "a", "b").astype(object)
    X[y == 0, 1] = np.where(rng.random((y == 0).sum()) < 0.5, "c", X[y == 0, 1])
    model = bg.CategoricalNB(unseen_category=True).fit(X, y)
    for k, label in enumerate(model.classes_):
        rows = model.sample(N, y=label, random_state=k)[0]
        for j, known in enumerate(model.categories_):
            probabilities = np.exp(model.feature_log_prob_[j][k])[: len(known)]
            probabilities /= probabilities.sum()  # the unseen category's share spread out
            frequencies = np.mean(rows[:, j][:, None] == known, axis=0)
            error = np.sqrt(probabilities * (1 - probabilities) / N)
            _within(frequencies, probabilities, error, f"column {j}")


def _mixed_frame():
    X, y = _iris()
    frame = pd.DataFrame(X[:, :2], columns=["length", "width"])
    frame["size"] = np.where(X[:, 2] > 4.0, "large", "small")
    frame["count"] = np.rint(X[:, 3] * 3).astype(int)
    return frame, y


def test_mixed_nb_columns_have_their_families_laws():
    frame, y = _mixed_frame()
    model = bg.MixedNB(
        features={
            "length": "gaussian",
            "width": "gaussian",
            "size": "categorical",
            "count": "poisson",
        }
    ).fit(frame, y)
    for k, label in enumerate(model.classes_):
        rows = model.sample(N, y=label, random_state=k)[0]
        assert list(rows.columns) == list(frame.columns)
        own = frame[y == label]
        gaussian = model.estimators_["gaussian"]
        _within(
            rows[["length", "width"]].mean().to_numpy(),
            gaussian.means_[k],
            np.sqrt(gaussian.var_[k] / N),
            "gaussian means",
        )
        rate = model.estimators_["poisson"].rates_[k, 0]
        _within(rows["count"].mean(), rate, np.sqrt(rate / N), "poisson rate")
        assert set(rows["size"]) <= set(own["size"]) | set(frame["size"])


def test_latent_class_rows_are_the_class_mixture():
    X, y = _iris()
    gaussian = {j: "gaussian" for j in range(X.shape[1])}  # iris is positive: else lognormal
    model = bg.LatentClassNB(n_components=2, features=gaussian, random_state=0).fit(X, y)
    for k, label in enumerate(model.classes_):
        rows = np.asarray(model.sample(N, y=label, random_state=k)[0], dtype=np.float64)
        pairs = slice(k * 2, k * 2 + 2)
        means = model.joint_.params.leaves["gaussian"].means[pairs]
        weights = model.weights_[k]
        mixture_mean = weights @ means
        _within(rows.mean(axis=0), mixture_mean, rows.std(axis=0) / np.sqrt(N), "mixture means")


@pytest.mark.parametrize(
    "model",
    [bg.QDA(), bg.LDA(), bg.CategoricalNB()],
    ids=["QDA", "LDA", "CategoricalNB"],
)
def test_numpy_draws_and_the_story_draws_have_one_law(model):
    """The same fitted model sampled both ways: each feature's values, per class, pass a
    two-sample test (Kolmogorov-Smirnov for numbers, chi-square for categories)."""
    X, y = _iris()
    if isinstance(model, bg.CategoricalNB):
        X = np.digitize(X, [2.0, 4.0, 6.0])
    model.fit(X, y)
    numpy_X, numpy_y = model.sample(3000, random_state=0)
    story_X, story_y = model.sample(3000, random_state=0, method="story")
    table = [[np.sum(labels == c) for c in model.classes_] for labels in (numpy_y, story_y)]
    assert stats.chi2_contingency(table).pvalue > P_VALUE
    for label in model.classes_:
        ours, theirs = numpy_X[numpy_y == label], story_X[story_y == label]
        for j in range(X.shape[1]):
            if isinstance(model, bg.CategoricalNB):
                values = np.union1d(ours[:, j], theirs[:, j])
                counts = [[np.sum(v[:, j] == value) for value in values] for v in (ours, theirs)]
                counts = np.asarray(counts)[:, np.asarray(counts).sum(axis=0) > 0]
                if counts.shape[1] > 1:
                    assert stats.chi2_contingency(counts).pvalue > P_VALUE
            else:
                assert stats.ks_2samp(ours[:, j], theirs[:, j]).pvalue > P_VALUE


def test_the_same_seed_gives_the_same_rows_and_another_seed_others():
    X, y = _iris()
    model = bg.QDA().fit(X, y)
    first, again = model.sample(50, random_state=3), model.sample(50, random_state=3)
    np.testing.assert_array_equal(first[0], again[0])
    np.testing.assert_array_equal(first[1], again[1])
    assert not np.array_equal(first[0], model.sample(50, random_state=4)[0])


def test_float32_models_draw_float32_rows():
    X, y = _iris()
    model = bg.QDA().fit(X.astype(np.float32), y)
    assert model.sample(10, random_state=0)[0].dtype == np.float32


def test_a_singular_covariance_still_draws_rows_on_its_subspace():
    X, y = _iris()
    model = bg.QDA().fit(X, y)
    model.covariances_ = model.covariances_.copy()
    model.covariances_[0] = np.outer([1.0, 2.0, 0.0, 0.0], [1.0, 2.0, 0.0, 0.0])
    rows = model.sample(200, y=model.classes_[0], random_state=0)[0]
    assert np.all(np.isfinite(rows))
    centred = rows - model.means_[0]
    np.testing.assert_allclose(centred[:, 1], 2 * centred[:, 0], atol=1e-9)
    np.testing.assert_allclose(centred[:, 2:], 0.0, atol=1e-9)


def _covariance_error(rows):
    """Standard errors of the empirical covariance's entries, from the rows themselves."""
    centred = rows - rows.mean(axis=0)
    products = centred[:, :, None] * centred[:, None, :]
    return products.std(axis=0) / np.sqrt(rows.shape[0])


@pytest.mark.parametrize("covariance_type", ["full", "tied", "diag", "spherical"])
def test_mixture_da_rows_are_the_class_mixture(covariance_type):
    X, y = _iris()
    model = bg.MixtureDA(n_components=2, covariance_type=covariance_type, random_state=0)
    model.fit(X, y)
    for k, rows in _per_class(model).items():
        weights = model.weights_[k]
        expected = weights @ model.means_[k]
        _within(rows.mean(axis=0), expected, rows.std(axis=0) / np.sqrt(N), "mixture means")


def test_kernel_density_rows_are_kernels_around_the_class_rows():
    """Mean: the class rows' mean. Covariance: theirs (biased, 1/n) plus the kernel's."""
    X, y = _iris()
    model = bg.KernelDensityDA(bandwidth=0.5).fit(X, y)
    for k, rows in _per_class(model).items():
        own = X[y == model.classes_[k]]
        covariance = np.cov(own, rowvar=False, bias=True) + model.kernel_covariances_[k]
        _within(rows.mean(axis=0), own.mean(axis=0), rows.std(axis=0) / np.sqrt(N), "means")
        _within(np.cov(rows, rowvar=False), covariance, _covariance_error(rows), "covariances")
