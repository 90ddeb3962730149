"""decision_regions: the drawn regions are the model's decisions, the contours its marginal
class densities (checked against scipy), the points the data."""

import matplotlib
import numpy as np
import pandas as pd
import pytest
from matplotlib.contour import ContourSet
from matplotlib.path import Path
from scipy.stats import multivariate_normal

from bayesgen import QDA, GaussianNB
from bayesgen.plot import decision_regions


def three_classes(n_features, rng):
    means = rng.normal(scale=2.0, size=(3, n_features))
    X = np.vstack(
        [
            rng.normal(size=(40, n_features)) @ rng.normal(size=(n_features,) * 2) * 0.6 + mean
            for mean in means
        ]
    )
    return X, np.repeat([0, 1, 2], 40)


def full_covariance(model, k):
    """Class k's covariance matrix from the public ``covariances_`` (full or diagonal)."""
    if model.covariance_type == "diag":
        return np.diag(model.covariances_[k])
    return model.covariances_[k]


def contour_sets(ax):
    return [c for c in ax.collections if isinstance(c, ContourSet)]


def test_regions_are_the_model_decisions_on_the_grid(render):
    rng = np.random.default_rng(0)
    X, y = three_classes(2, rng)
    model = QDA().fit(X, y)
    limits = ((-5.0, 4.0), (-3.0, 6.0))
    ax = decision_regions(model, X, y, resolution=60, limits=limits, density_contours=False)
    render(ax)
    grid_x, grid_y = np.meshgrid(np.linspace(-5, 4, 60), np.linspace(-3, 6, 60))
    grid = np.column_stack([grid_x.ravel(), grid_y.ravel()])
    expected = np.searchsorted(model.classes_, model.predict(grid)).reshape(60, 60)
    image = ax.images[0]
    np.testing.assert_array_equal(image.get_array(), expected)
    assert len(np.unique(expected)) == 3  # every class has a region in this window
    assert image.origin == "lower"
    assert ax.get_xlim() == limits[0] and ax.get_ylim() == limits[1]
    # The opacity follows the top class probability.
    top = model.predict_proba(grid).max(axis=1).reshape(60, 60)
    np.testing.assert_allclose(image.get_alpha(), 0.35 * (0.25 + 0.75 * (top - 1 / 3) / (2 / 3)))
    assert contour_sets(ax) == []


def test_plain_regions_have_one_opacity():
    rng = np.random.default_rng(1)
    X, y = three_classes(2, rng)
    ax = decision_regions(QDA().fit(X, y), X, shade_confidence=False, region_alpha=0.5)
    assert ax.images[0].get_alpha() == 0.5


@pytest.mark.parametrize("model_class", [QDA, GaussianNB])
def test_contours_are_the_marginal_density_of_the_chosen_pair(model_class, render):
    """Three features, the pair (2, 0): the third is integrated out, so the class density is
    the Gaussian with the sub-mean and sub-covariance (scipy's multivariate_normal).

    Each level is the grid maximum of that log density minus c^2 / 2. Each contour vertex
    is a linear interpolation along a grid edge of length h, so its log density is the
    level up to h^2 / 8 times the curvature along that edge (the quadratic's second
    derivative, a diagonal entry of the inverse covariance).
    """
    rng = np.random.default_rng(2)
    X, y = three_classes(3, rng)
    model = model_class().fit(X, y)
    pair = [2, 0]
    limits = ((X[:, 2].min(), X[:, 2].max()), (X[:, 0].min(), X[:, 0].max()))
    resolution = 80
    ax = decision_regions(model, X, y, features=pair, resolution=resolution, limits=limits)
    render(ax)
    grid_x, grid_y = np.meshgrid(
        np.linspace(*limits[0], resolution), np.linspace(*limits[1], resolution)
    )
    grid = np.column_stack([grid_x.ravel(), grid_y.ravel()])
    step = np.array([np.ptp(limits[0]), np.ptp(limits[1])]) / (resolution - 1)
    sets = contour_sets(ax)
    assert len(sets) == 3
    for k, contours in enumerate(sets):
        mean = model.means_[k][pair]
        covariance = full_covariance(model, k)[np.ix_(pair, pair)]
        density = multivariate_normal(mean, covariance)
        peak = density.logpdf(grid).max()
        np.testing.assert_allclose(contours.levels, peak - np.array([9.0, 4.0, 1.0]) / 2)
        tolerance = np.max(step**2 * np.diag(np.linalg.inv(covariance))) / 8
        for level, path in zip(contours.levels, contours.get_paths(), strict=True):
            vertices = path.vertices[path.codes != Path.CLOSEPOLY]
            assert len(vertices) > 10
            gap = np.max(np.abs(density.logpdf(vertices) - level))
            # The bound is sharp (a crossing mid-edge): measured gaps reach 0.99999 of it.
            assert gap <= tolerance + 1e-9


def test_points_colours_legend_and_feature_names(render):
    rng = np.random.default_rng(3)
    X, y = three_classes(3, rng)
    labels = np.array(["setosa", "versicolor", "virginica"])[y]
    frame = pd.DataFrame(X, columns=["length", "width", "depth"])
    model = QDA().fit(frame, labels)
    ax = decision_regions(model, frame, labels, features=("depth", "length"), resolution=30)
    render(ax)
    assert ax.get_xlabel() == "depth" and ax.get_ylabel() == "length"
    points = [c for c in ax.collections if not isinstance(c, ContourSet)][0]
    np.testing.assert_array_equal(points.get_offsets(), X[:, [2, 0]])
    tab10 = matplotlib.colormaps["tab10"]
    np.testing.assert_allclose(points.get_facecolors(), tab10(y))
    legend = ax.get_legend()
    assert [text.get_text() for text in legend.get_texts()] == list(model.classes_)


def test_draws_into_the_given_axes():
    import matplotlib.pyplot as plt

    rng = np.random.default_rng(4)
    X, y = three_classes(2, rng)
    _, ax = plt.subplots()
    assert decision_regions(QDA().fit(X, y), X, y, ax=ax, resolution=20) is ax


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"features": (0, 3)}, "features holds the feature index 3, out of range"),
        ({"features": (-1, 0)}, "features holds the feature index -1, out of range"),
        ({"features": (1, 1)}, "features must name two different features"),
        ({"features": (0, 1, 2)}, r"features must be a pair \(i, j\)"),
        ({"features": ("a", 0)}, "features names the feature 'a'"),
        ({"resolution": 1}, "resolution must be an integer >= 2"),
        ({"contour_levels": (1, -2)}, "contour_levels must be positive"),
        ({"limits": ((1, 0), (0, 1))}, "limits of x must be finite with low < high"),
        ({"region_alpha": 0}, r"region_alpha must be in \(0, 1\]"),
    ],
)
def test_bad_arguments_are_named(kwargs, match):
    rng = np.random.default_rng(5)
    X, y = three_classes(3, rng)
    model = QDA().fit(X, y)
    with pytest.raises(ValueError, match=match):
        decision_regions(model, X, y, **kwargs)


def test_bad_data_and_unfitted_model():
    rng = np.random.default_rng(6)
    X, y = three_classes(3, rng)
    with pytest.raises(ValueError, match="model must be a fitted classifier"):
        decision_regions(QDA(), X, y)
    model = QDA().fit(X, y)
    with pytest.raises(ValueError, match="X must have the model's 3 features"):
        decision_regions(model, X[:, :2], y)
    with pytest.raises(ValueError, match=r"y has labels \[7\]"):
        decision_regions(model, X, np.full(len(y), 7))
    with pytest.raises(ValueError, match="y must hold one label per row of X"):
        decision_regions(model, X, y[:5])
