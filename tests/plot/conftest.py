"""Figures are drawn headless (Agg) and every figure is closed after its test."""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


@pytest.fixture
def render(tmp_path):
    """Save the figure of an Axes to a PNG in ``tmp_path`` and check that it was written."""

    def save(ax, name="figure.png"):
        path = tmp_path / name
        ax.figure.savefig(path, dpi=60)
        image = plt.imread(path)
        assert image.ndim == 3 and image.shape[0] > 0 and image.shape[1] > 0
        return path

    return save
