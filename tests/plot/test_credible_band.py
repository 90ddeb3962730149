"""credible_band: the lines are the plug-in and the mean of the posterior draws, the band
their equal-tailed quantiles (numpy.quantile of the same draws)."""

import numpy as np
import pytest
from matplotlib.collections import PolyCollection

from bayesgen import QDA, BernoulliNB
from bayesgen.plot import credible_band


@pytest.fixture(scope="module")
def fitted():
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal([0, 0], 1, (25, 2)), rng.normal([2, 1], 0.8, (25, 2))])
    y = np.repeat(["no", "yes"], 25)
    return QDA(estimate="mean").fit(X, y)


def path_through(n_points=30):
    t = np.linspace(-3, 5, n_points)
    return t, np.column_stack([t, 0.5 * t])


def bands(ax):
    return [c for c in ax.collections if isinstance(c, PolyCollection)]


def assert_band_between(band, t, lower, upper):
    """fill_between's polygon holds (t_i, lower_i) and (t_i, upper_i) for every i."""
    vertices = band.get_paths()[0].vertices
    for t_i, low, high in zip(t, lower, upper, strict=True):
        at = vertices[np.isclose(vertices[:, 0], t_i, rtol=0, atol=1e-12), 1]
        np.testing.assert_allclose([at.min(), at.max()], [low, high], rtol=1e-12)


@pytest.mark.parametrize("level", [0.5, 0.9])
def test_lines_and_band_are_the_draws_summaries(fitted, level, render):
    t, X_path = path_through()
    ax = credible_band(fitted, X_path, class_="yes", level=level, n_draws=60, t=t, random_state=3)
    render(ax)
    draws = fitted.predict_proba_draws(X_path, 60, random_state=3)[:, :, 1]
    plugin, mean = ax.lines
    np.testing.assert_array_equal(plugin.get_xdata(), t)
    np.testing.assert_allclose(plugin.get_ydata(), fitted.predict_proba(X_path)[:, 1], rtol=1e-12)
    np.testing.assert_allclose(mean.get_ydata(), draws.mean(axis=0), rtol=1e-12)
    tail = (1 - level) / 2
    (band,) = bands(ax)
    assert_band_between(
        band, t, np.quantile(draws, tail, axis=0), np.quantile(draws, 1 - tail, axis=0)
    )
    # The band is a real spread: 25 rows per class leave the parameters uncertain.
    assert np.max(np.quantile(draws, 1 - tail, axis=0) - np.quantile(draws, tail, axis=0)) > 0.05


def test_every_class_by_default_and_row_index_as_t(render):
    rng = np.random.default_rng(1)
    X = (rng.random((90, 5)) < np.repeat([[0.2], [0.5], [0.8]], 30, axis=0)).astype(int)
    y = np.repeat([0, 1, 2], 30)
    model = BernoulliNB().fit(X, y)
    ax = credible_band(model, X[::9], n_draws=20, random_state=0)
    render(ax)
    assert len(ax.lines) == 6 and len(bands(ax)) == 3
    np.testing.assert_array_equal(ax.lines[0].get_xdata(), np.arange(10))
    plugin = model.predict_proba(X[::9])
    for k in range(3):
        np.testing.assert_allclose(ax.lines[2 * k].get_ydata(), plugin[:, k], rtol=1e-12)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"level": 0.0}, "level must be a probability strictly between 0 and 1"),
        ({"level": 1.0}, "level must be a probability strictly between 0 and 1"),
        ({"level": 95}, "level must be a probability strictly between 0 and 1"),
        ({"n_draws": 1}, "n_draws must be an integer >= 2"),
        ({"class_": "maybe"}, "class_ must be one of the model's classes_"),
        ({"t": np.arange(3)}, r"t must hold one value per row of X_path \(30\)"),
    ],
)
def test_bad_arguments_are_named(fitted, kwargs, match):
    _, X_path = path_through()
    with pytest.raises(ValueError, match=match):
        credible_band(fitted, X_path, **kwargs)


def test_bad_path_and_unfitted_model():
    _, X_path = path_through()
    with pytest.raises(ValueError, match="model must be a fitted classifier"):
        credible_band(QDA(), X_path)
    with pytest.raises(ValueError, match="X_path must be 2-D"):
        credible_band(QDA().fit(X_path, np.arange(30) % 2), X_path[:, 0])


def test_chosen_classes_and_one_legend_entry_per_thing(render):
    rng = np.random.default_rng(2)
    X = np.vstack([rng.normal(centre, 1.0, (20, 2)) for centre in ([0, 0], [3, 0], [0, 3])])
    y = np.repeat(["a", "b", "c"], 20)
    model = QDA(estimate="mean").fit(X, y)
    t = np.linspace(0, 1, 15)
    X_path = np.outer(1 - t, [0, 0]) + np.outer(t, [3, 0])
    ax = credible_band(
        model, X_path, class_=["b", "a"], t=t, n_draws=20, random_state=0, xlabel="a to b"
    )
    render(ax)
    assert len(ax.lines) == 4 and len(bands(ax)) == 2
    plugin = model.predict_proba(X_path)
    np.testing.assert_allclose(ax.lines[0].get_ydata(), plugin[:, 1], rtol=1e-12)
    np.testing.assert_allclose(ax.lines[2].get_ydata(), plugin[:, 0], rtol=1e-12)
    legend = [text.get_text() for text in ax.get_legend().get_texts()]
    assert legend == ["y = b", "y = a", "plug-in p(y | x)", "posterior mean", "90% credible band"]
    assert ax.get_xlabel() == "a to b"
    with pytest.raises(ValueError, match="class_ must be one of the model's classes_"):
        credible_band(model, X_path, class_=["a", "z"])
