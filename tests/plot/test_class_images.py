"""class_images: each image is the class-conditional mean reshaped, compared with
scikit-learn's fitted parameters or the class averages of the training rows."""

import matplotlib.pyplot as plt
import numpy as np
import pytest
from sklearn.datasets import load_digits
from sklearn.naive_bayes import BernoulliNB as SklearnBernoulliNB
from sklearn.naive_bayes import MultinomialNB as SklearnMultinomialNB

from bayesgen import (
    QDA,
    BernoulliNB,
    CategoricalNB,
    ExponentialNB,
    GaussianNB,
    KernelDensityDA,
    MultinomialNB,
    PoissonNB,
)
from bayesgen.plot import class_images


@pytest.fixture(scope="module")
def digits():
    X, y = load_digits(return_X_y=True)
    return X[:600], y[:600]


def images(axes):
    return np.stack([ax.images[0].get_array() for ax in axes])


def test_multinomial_pixel_probabilities_as_in_the_seed_figure(digits, render):
    """Seed 004: the fitted pixel probabilities of each digit, each a blurred average digit."""
    X, y = digits
    axes = class_images(MultinomialNB().fit(X, y), (8, 8), cmap="gray_r")
    render(axes[0])
    assert axes.shape == (10,)
    reference = np.exp(SklearnMultinomialNB(alpha=1.0).fit(X, y).feature_log_prob_)
    np.testing.assert_allclose(images(axes), reference.reshape(10, 8, 8), rtol=1e-6)
    assert [ax.get_title() for ax in axes] == [str(k) for k in range(10)]
    # One colour scale for all: the smallest and largest probability of any class.
    for ax in axes:
        assert ax.images[0].get_clim() == pytest.approx((reference.min(), reference.max()))


def test_gaussian_means_are_the_class_averages(digits, render):
    X, y = digits
    axes = class_images(GaussianNB().fit(X, y), (8, 8), share_scale=False)
    render(axes[0])
    averages = np.stack([X[y == k].mean(axis=0) for k in range(10)])
    np.testing.assert_allclose(images(axes), averages.reshape(10, 8, 8), rtol=1e-10)
    # Each image on its own scale.
    assert axes[0].images[0].get_clim() == pytest.approx((averages[0].min(), averages[0].max()))


def test_bernoulli_feature_probabilities(digits):
    X, y = digits
    binary = (X > 8).astype(int)
    axes = class_images(BernoulliNB().fit(binary, y), (8, 8))
    reference = np.exp(SklearnBernoulliNB(alpha=1.0).fit(binary, y).feature_log_prob_)
    np.testing.assert_allclose(images(axes), reference.reshape(10, 8, 8), rtol=1e-6)


def test_poisson_rates_and_kernel_density_means(digits):
    X, y = digits
    poisson = PoissonNB(alpha=1e-10, beta=1e-10).fit(X, y)  # rates close to class averages
    averages = np.stack([X[y == k].mean(axis=0) for k in range(10)])
    np.testing.assert_allclose(
        images(class_images(poisson, (8, 8))), poisson.rates_.reshape(10, 8, 8)
    )
    np.testing.assert_allclose(poisson.rates_, averages, atol=1e-6)
    small = X[:200, :16]
    kernel = KernelDensityDA().fit(small, y[:200])
    expected = np.stack([small[y[:200] == k].mean(axis=0) for k in kernel.classes_])
    np.testing.assert_allclose(
        images(class_images(kernel, (4, 4))), expected.reshape(-1, 4, 4), rtol=1e-10
    )


def test_exponential_mean_waiting_times(digits):
    """A family the plot module never names: drawn through its protocol ``mean``."""
    X, y = digits
    X = X + 0.5  # positive values; with alpha, beta -> 0 the rate estimate is 1 / class average
    model = ExponentialNB(alpha=1e-10, beta=1e-10).fit(X, y)
    averages = np.stack([X[y == k].mean(axis=0) for k in range(10)])
    np.testing.assert_allclose(images(class_images(model, (8, 8))), averages.reshape(10, 8, 8))


def test_a_non_square_image_into_given_axes():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 6)) + np.repeat([[0.0], [3.0]], 30, axis=0)
    y = np.repeat(["left", "right"], 30)
    model = QDA().fit(X, y)
    _, grid = plt.subplots(2, 2)
    axes = class_images(model, (2, 3), axes=grid)
    assert list(axes) == list(grid.ravel()[:2])
    np.testing.assert_allclose(images(axes), model.means_.reshape(2, 2, 3))


@pytest.mark.parametrize(
    ("image_shape", "match"),
    [
        ((7, 8), r"image_shape \(7, 8\) holds 56 pixels, but the model has 64 features"),
        ((64,), "image_shape must be a pair"),
        (("8", 8), "image_shape must be a pair"),
        ((0, 64), "image_shape must be a pair"),
        (64, "image_shape must be a pair"),
    ],
)
def test_wrong_image_shape(digits, image_shape, match):
    X, y = digits
    with pytest.raises(ValueError, match=match):
        class_images(GaussianNB().fit(X, y), image_shape)


def test_too_few_axes_unfitted_model_and_no_means(digits):
    X, y = digits
    model = GaussianNB().fit(X, y)
    _, grid = plt.subplots(1, 3)
    with pytest.raises(ValueError, match=r"axes must hold at least one Axes per class \(10\)"):
        class_images(model, (8, 8), axes=grid)
    with pytest.raises(ValueError, match="model must be a fitted classifier"):
        class_images(GaussianNB(), (8, 8))
    categorical = CategoricalNB().fit((X > 8).astype(int), y)
    with pytest.raises(ValueError, match="model must have one mean value per feature and class"):
        class_images(categorical, (8, 8))
