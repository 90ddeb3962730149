"""synthetic_vs_real: the bars are numpy's density histograms of the real rows and of the
model's own samples (same random_state), on shared bin edges."""

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest

from bayesgen import LDA, PoissonNB
from bayesgen.plot import synthetic_vs_real


@pytest.fixture(scope="module")
def fitted():
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal([0, 1, 2], 1.0, (50, 3)), rng.normal([2, 0, 1], 1.0, (50, 3))])
    y = np.repeat([0, 1], 50)
    return LDA().fit(X, y), X


def heights(container):
    return np.array([patch.get_height() for patch in container])


@pytest.mark.parametrize("bins", [12, "auto"])
def test_bars_are_density_histograms_of_real_and_sampled_rows(fitted, bins, render):
    model, X = fitted
    axes = synthetic_vs_real(model, X, n_samples=400, bins=bins, random_state=5)
    render(axes[0])
    assert axes.shape == (3,)
    synthetic, _ = model.sample(400, random_state=5)
    for j, ax in enumerate(axes):
        edges = np.histogram_bin_edges(np.concatenate([X[:, j], synthetic[:, j]]), bins=bins)
        real_bars, synthetic_bars = ax.containers
        np.testing.assert_allclose(
            heights(real_bars), np.histogram(X[:, j], edges, density=True)[0], rtol=1e-12
        )
        np.testing.assert_allclose(
            heights(synthetic_bars),
            np.histogram(synthetic[:, j], edges, density=True)[0],
            rtol=1e-12,
        )
        assert real_bars.patches[0].get_x() == pytest.approx(edges[0])
        assert ax.get_title() == f"x{j}"
    assert [t.get_text() for t in axes[0].get_legend().get_texts()] == ["real", "synthetic"]


def test_named_features_missing_values_and_counts(render):
    rng = np.random.default_rng(1)
    counts = rng.poisson(np.repeat([[1.0, 4.0], [3.0, 2.0]], 40, axis=0))
    frame = pd.DataFrame(counts, columns=["clicks", "views"])
    y = np.repeat(["a", "b"], 40)
    model = PoissonNB().fit(frame, y)
    real = frame.astype(float)
    real.iloc[:10, 1] = np.nan  # missing: left out of the real histogram
    axes = synthetic_vs_real(model, real, features=["views"], bins=8, random_state=0)
    render(axes[0])
    assert axes.shape == (1,) and axes[0].get_title() == "views"
    synthetic, _ = model.sample(80, random_state=0)
    observed = counts[10:, 1]
    # Fitted on a DataFrame, the model samples one (issue 18); its second column is views.
    edges = np.histogram_bin_edges(np.concatenate([observed, synthetic["views"]]), bins=8)
    real_bars, _ = axes[0].containers
    np.testing.assert_allclose(
        heights(real_bars), np.histogram(observed, edges, density=True)[0], rtol=1e-12
    )


def test_into_given_axes(fitted):
    model, X = fitted
    _, grid = plt.subplots(1, 2)
    axes = synthetic_vs_real(model, X, features=[2, 0], axes=grid, random_state=0)
    assert list(axes) == list(grid) and [ax.get_title() for ax in axes] == ["x2", "x0"]


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"features": [0, 3]}, "features holds the feature index 3, out of range"),
        ({"features": ["x9"]}, "features names the feature 'x9'"),
        ({"features": []}, "features must name at least one feature"),
        ({"axes": [None]}, r"axes must hold at least one Axes per feature \(3\)"),
        ({"n_samples": 0}, "n_samples must be"),
    ],
)
def test_bad_arguments_are_named(fitted, kwargs, match):
    model, X = fitted
    with pytest.raises(ValueError, match=match):
        synthetic_vs_real(model, X, **kwargs)


def test_bad_data_and_unfitted_model(fitted):
    model, X = fitted
    with pytest.raises(ValueError, match="X_real must be 2-D with the model's 3 features"):
        synthetic_vs_real(model, X[:, :2])
    with pytest.raises(ValueError, match="model must be a fitted classifier"):
        synthetic_vs_real(LDA(), X)


def test_every_panel_says_what_it_shows(fitted):
    model, X = fitted
    axes = synthetic_vs_real(model, X, ncols=2, random_state=0)
    for ax in axes:
        assert [t.get_text() for t in ax.get_legend().get_texts()] == ["real", "synthetic"]
        assert ax.get_xlabel().startswith(ax.get_title())
    # The first column names the y axis; the title names the model and the sample size.
    assert [bool(ax.get_ylabel()) for ax in axes] == [True, False, True]
    assert axes[0].get_ylabel().startswith("density")
    title = axes[0].figure.get_suptitle()
    assert title.startswith("LDA: real rows vs 100 rows sampled")
