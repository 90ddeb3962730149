"""Plug-in versus posterior-predictive class probabilities, with credible bands, on little data.

Two classes of 2-D Gaussians with unequal covariances; QDA is fitted to a handful of rows
per class. Along a straight line through both true class means (and well beyond them) the
script compares the plug-in p(y = 1 | x), the exact posterior predictive
(``predict_proba(X, method="predictive")``) and the 5%-95% band of p(y = 1 | x, theta_s)
over posterior draws (``predict_proba_draws``). A large held-out set from the true Gaussians
scores both kinds of probabilities by log loss, and a refit on fifty times as many rows
shows the band narrowing.

Run: ``python examples/uncertainty.py`` (writes ``uncertainty.png``)
"""

from __future__ import annotations

import os

import matplotlib

matplotlib.use("Agg")  # draw to a file, with no display

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from scipy.stats import multivariate_normal  # noqa: E402
from sklearn.metrics import log_loss  # noqa: E402

from bayesgen import QDA  # noqa: E402

MEANS = np.array([[0.0, 0.0], [2.0, 1.0]])
COVARIANCES = np.array([[[1.0, 0.5], [0.5, 1.0]], [[0.25, 0.0], [0.0, 2.0]]])
LINE_POINTS = 200
TEST_ROWS = 20_000


def draw(rng: np.random.Generator, n_per_class: int) -> tuple[np.ndarray, np.ndarray]:
    """``n_per_class`` rows of each class from the true Gaussians, with their labels."""
    X = np.concatenate(
        [
            rng.multivariate_normal(m, c, size=n_per_class)
            for m, c in zip(MEANS, COVARIANCES, strict=True)
        ]
    )
    return X, np.repeat([0, 1], n_per_class)


def true_proba(X: np.ndarray) -> np.ndarray:
    """p(y = 1 | x) under the true Gaussians and equal class probabilities: (n_samples,)."""
    log_densities = [
        multivariate_normal(m, c).logpdf(X) for m, c in zip(MEANS, COVARIANCES, strict=True)
    ]
    return 1.0 / (1.0 + np.exp(log_densities[0] - log_densities[1]))


def band(model: QDA, line: np.ndarray, num_samples: int, seed: int) -> np.ndarray:
    """The 5% and 95% quantiles of p(y = 1 | x, theta_s) along the line: (2, n_points)."""
    draws = model.predict_proba_draws(line, num_samples, random_state=seed)[:, :, 1]
    return np.quantile(draws, [0.05, 0.95], axis=0)


def confidence_at_ends(proba: np.ndarray) -> float:
    """max_k p(k | x) at the two ends of the line, averaged."""
    ends = proba[[0, -1]]
    return float(np.mean(np.maximum(ends, 1.0 - ends)))


def main(
    n_per_class: int = 6,
    num_samples: int = 400,
    out: str | os.PathLike | None = None,
    random_state: int = 0,
) -> dict[str, float | str | None]:
    """Print the log losses and band widths; return them, with the figure's path."""
    rng = np.random.default_rng(random_state)
    X, y = draw(rng, n_per_class)
    X_test, y_test = draw(rng, TEST_ROWS // 2)
    X_large, y_large = draw(rng, 50 * n_per_class)

    # Position t along the line: t = 0 at the mean of class 0, t = 1 at that of class 1.
    direction = MEANS[1] - MEANS[0]
    position = np.linspace(-2.0, 3.0, LINE_POINTS)
    line = MEANS[0] + position[:, None] * direction

    model = QDA().fit(X, y)
    large = QDA().fit(X_large, y_large)
    plugin = model.predict_proba(line)[:, 1]
    predictive = model.predict_proba(line, method="predictive")[:, 1]
    small_band = band(model, line, num_samples, random_state)
    large_band = band(large, line, num_samples, random_state)

    result = {
        "log_loss_plugin": float(log_loss(y_test, model.predict_proba(X_test))),
        "log_loss_predictive": float(
            log_loss(y_test, model.predict_proba(X_test, method="predictive"))
        ),
        "log_loss_true": float(log_loss(y_test, true_proba(X_test))),
        "band_width_small": float(np.mean(small_band[1] - small_band[0])),
        "band_width_large": float(np.mean(large_band[1] - large_band[0])),
        "max_plugin_confidence_far": confidence_at_ends(plugin),
        "max_predictive_confidence_far": confidence_at_ends(predictive),
        "figure": None,
    }

    if out is not None:
        figure, axes = plt.subplots(figsize=(7, 4))
        axes.fill_between(
            position, *small_band, color="C0", alpha=0.2, label="5%-95% over posterior draws"
        )
        axes.plot(position, plugin, color="C3", label="plug-in")
        axes.plot(position, predictive, color="C0", label="posterior predictive")
        axes.plot(position, true_proba(line), "k--", linewidth=1, label="true")
        # Training rows at their projection on the line, at the height of their class.
        projected = (X - MEANS[0]) @ direction / (direction @ direction)
        axes.plot(projected, y, "|", color="k", markersize=12, label="training rows")
        axes.set_xlabel("position along the line (0: mean of class 0, 1: mean of class 1)")
        axes.set_ylabel("p(y = 1 | x)")
        axes.set_title(f"QDA on {n_per_class} rows per class")
        axes.legend(loc="center left", fontsize="small")
        figure.tight_layout()
        figure.savefig(out, dpi=120)
        plt.close(figure)
        result["figure"] = str(out)

    print(f"QDA on {n_per_class} rows per class; held-out log loss on {TEST_ROWS} rows:")
    print(f"  plug-in     {result['log_loss_plugin']:.3f}")
    print(f"  predictive  {result['log_loss_predictive']:.3f}")
    print(f"  true model  {result['log_loss_true']:.3f}")
    print(
        "mean width of the 5%-95% band along the line: "
        f"{result['band_width_small']:.3f} ({n_per_class} rows per class), "
        f"{result['band_width_large']:.3f} ({50 * n_per_class} rows per class)"
    )
    print(
        "confidence max_k p(k | x) at the ends of the line: "
        f"plug-in {result['max_plugin_confidence_far']:.3f}, "
        f"predictive {result['max_predictive_confidence_far']:.3f}"
    )
    return result


if __name__ == "__main__":
    main(out="uncertainty.png")
