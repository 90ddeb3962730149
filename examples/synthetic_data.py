"""Synthetic data from a fitted generative classifier, and how faithful it is.

Fits QDA to the wine data, draws synthetic wines from its story (``model.sample``), and
compares them with the real ones: per-feature means and standard deviations, and the
accuracy on real test wines of a model trained on synthetic wines only.

Run: ``python examples/synthetic_data.py [--rows N]``
"""

from __future__ import annotations

import argparse

import numpy as np
from sklearn.datasets import load_wine
from sklearn.model_selection import train_test_split

from bayesgen import QDA


def main(rows: int = 5000) -> dict[str, float]:
    """Print the comparison; return its numbers."""
    X, y = load_wine(return_X_y=True)
    X_train, X_test, y_train, y_test = train_test_split(
        X, y, test_size=0.3, stratify=y, random_state=0
    )
    model = QDA().fit(X_train, y_train)
    X_synthetic, y_synthetic = model.sample(rows, random_state=0)
    scale = X_train.std(axis=0)
    mean_gap = np.max(np.abs(X_synthetic.mean(axis=0) - X_train.mean(axis=0)) / scale)
    spread_ratio = X_synthetic.std(axis=0) / scale
    trained_on_synthetic = QDA().fit(X_synthetic, y_synthetic).score(X_test, y_test)
    trained_on_real = model.score(X_test, y_test)
    print(f"{rows} synthetic wines; classes drawn: {np.bincount(y_synthetic).tolist()}")
    print(f"largest gap between real and synthetic feature means: {mean_gap:.3f} SD")
    print(f"synthetic / real feature SD: {spread_ratio.min():.2f} to {spread_ratio.max():.2f}")
    print(f"test accuracy, trained on real wines:      {trained_on_real:.3f}")
    print(f"test accuracy, trained on synthetic wines: {trained_on_synthetic:.3f}")
    return {
        "mean_gap_sd": float(mean_gap),
        "spread_ratio_min": float(spread_ratio.min()),
        "spread_ratio_max": float(spread_ratio.max()),
        "accuracy_real": float(trained_on_real),
        "accuracy_synthetic": float(trained_on_synthetic),
    }


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=5000)
    main(parser.parse_args().rows)
