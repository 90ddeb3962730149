"""Classifying, fitting and imputing with missing features, on the wine data.

Hides a fraction of the entries (NaN) in both the training and the test wines. LDA is
fitted by EM over the missing training entries, classifies the test wines by integrating
their missing features out, and imputes the hidden entries; the imputation error is
compared with filling each column with its mean.

Run: ``python examples/missing_features.py [--hidden 0.3]``
"""

from __future__ import annotations

import argparse

import numpy as np
from sklearn.datasets import load_wine
from sklearn.model_selection import train_test_split

from bayesgen import LDA


def main(hidden: float = 0.3) -> dict[str, float]:
    """Print accuracies and imputation errors; return them."""
    X, y = load_wine(return_X_y=True)
    X_train, X_test, y_train, y_test = train_test_split(
        X, y, test_size=0.3, stratify=y, random_state=0
    )
    rng = np.random.default_rng(0)
    train_holes, test_holes = X_train.copy(), X_test.copy()
    train_holes[rng.random(X_train.shape) < hidden] = np.nan
    test_missing = rng.random(X_test.shape) < hidden
    test_holes[test_missing] = np.nan

    complete = LDA().fit(X_train, y_train)
    model = LDA().fit(train_holes, y_train)
    accuracy_complete = complete.score(X_test, y_test)
    accuracy_missing = model.score(test_holes, y_test)
    scale = X_train.std(axis=0)
    model_error = (model.impute(test_holes) - X_test) / scale
    mean_error = (np.where(test_missing, np.nanmean(train_holes, axis=0), X_test) - X_test) / scale
    rmse_model = float(np.sqrt(np.mean(model_error[test_missing] ** 2)))
    rmse_mean = float(np.sqrt(np.mean(mean_error[test_missing] ** 2)))
    print(f"{hidden:.0%} of entries hidden; EM took {model.n_iter_} iterations")
    print(f"test accuracy, complete data:              {accuracy_complete:.3f}")
    print(f"test accuracy, holes in training and test: {accuracy_missing:.3f}")
    print(f"imputation RMSE (in SDs): model {rmse_model:.3f}, column means {rmse_mean:.3f}")
    return {
        "accuracy_complete": float(accuracy_complete),
        "accuracy_missing": float(accuracy_missing),
        "rmse_model": rmse_model,
        "rmse_mean": rmse_mean,
    }


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hidden", type=float, default=0.3)
    main(parser.parse_args().hidden)
