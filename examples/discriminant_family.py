"""The Gaussian family side by side: GaussianNB, LDA, QDA, RDA and MixtureDA, plus a KDE.

Three classes in two dimensions: class 0 has two separate modes (upper left, lower right),
class 1 is a tilted ellipse between them, class 2 a round blob. Each model is fitted to the
same few hundred rows, scored on fresh rows from the same distribution (accuracy and log
loss), and its decision regions are drawn with the training rows. Only the mixture (and the
kernel density) give class 0 two separate components; QDA spends one ellipse on both modes.

Run: ``python examples/discriminant_family.py [--rows N] [--out FILE.png]``
"""

from __future__ import annotations

import argparse
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # files only, no display needed
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from sklearn.metrics import log_loss  # noqa: E402

from bayesgen import LDA, QDA, RDACV, GaussianNB, KernelDensityDA, MixtureDA  # noqa: E402

MODELS = {
    "GaussianNB": lambda: GaussianNB(),
    "LDA": lambda: LDA(),
    "QDA": lambda: QDA(),
    "RDA (cross-validated)": lambda: RDACV(),
    "MixtureDA (2 per class)": lambda: MixtureDA(n_components=2, max_iter=500, random_state=0),
    "KernelDensityDA": lambda: KernelDensityDA(),
}


def draw(n_rows: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Rows of the three classes in equal numbers (class 0's two modes equally likely)."""
    y = np.repeat([0, 1, 2], n_rows // 3)
    X = np.empty((y.size, 2))
    zeros = np.flatnonzero(y == 0)
    modes = np.where(rng.random(zeros.size) < 0.5, -1.0, 1.0)
    X[zeros] = np.column_stack([-3.5 * modes, 3.0 * modes]) + 0.7 * rng.normal(size=(zeros.size, 2))
    ones = np.flatnonzero(y == 1)
    tilted = np.array([[1.5, 0.0], [1.2, 0.4]])
    X[ones] = rng.normal(size=(ones.size, 2)) @ tilted.T
    twos = np.flatnonzero(y == 2)
    X[twos] = 0.9 * rng.normal(size=(twos.size, 2)) + [3.5, 3.5]
    return X, y


def main(rows: int = 300, out: Path | str = "discriminant_family.png") -> dict[str, float]:
    """Fit every model, print its test accuracy and log loss, save the regions figure."""
    rng = np.random.default_rng(0)
    X, y = draw(rows, rng)
    X_test, y_test = draw(6000, rng)
    grid_x, grid_y = np.meshgrid(np.linspace(-7, 7, 200), np.linspace(-7, 7, 200))
    grid = np.column_stack([grid_x.ravel(), grid_y.ravel()])
    figure, axes = plt.subplots(2, 3, figsize=(13, 8.5), sharex=True, sharey=True)
    result = {}
    print(f"{'model':<26}{'accuracy':>10}{'log loss':>10}")
    for axis, (name, make) in zip(axes.ravel(), MODELS.items(), strict=True):
        model = make().fit(X, y)
        accuracy = model.score(X_test, y_test)
        loss = log_loss(y_test, model.predict_proba(X_test), labels=model.classes_)
        result[name] = accuracy
        result[f"{name} log loss"] = loss
        print(f"{name:<26}{accuracy:>10.3f}{loss:>10.3f}")
        regions = model.predict(grid).reshape(grid_x.shape)
        axis.contourf(grid_x, grid_y, regions, levels=[-0.5, 0.5, 1.5, 2.5], alpha=0.25)
        axis.scatter(X[:, 0], X[:, 1], c=y, s=8, edgecolors="none")
        axis.set_title(f"{name}\naccuracy {accuracy:.3f}, log loss {loss:.3f}", fontsize=10)
    figure.tight_layout()
    figure.savefig(out, dpi=90)
    plt.close(figure)
    print(f"decision regions written to {out}")
    return result


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=300, help="training rows (default 300)")
    parser.add_argument("--out", default="discriminant_family.png", help="figure file")
    arguments = parser.parse_args()
    main(rows=arguments.rows, out=arguments.out)
