"""Gaussian discriminant analysis as a generative story, on the wine data.

Fits GaussianNB, LDA and QDA with the three point estimates, then uses the fitted QDA's
NumPyro story to draw synthetic wines and checks that a model refitted on them classifies
the real test wines about as well.

Run: ``python examples/gaussian_discriminants.py [--synthetic-rows N]``
"""

from __future__ import annotations

import argparse

import jax
import numpy as np
from numpyro import handlers
from numpyro.infer import Predictive
from sklearn.datasets import load_wine
from sklearn.model_selection import train_test_split

from bayesgen import LDA, QDA, GaussianNB


def main(synthetic_rows: int = 2000) -> dict[str, float]:
    """Print accuracies for every model and estimate; return them with the synthetic score."""
    X, y = load_wine(return_X_y=True)
    X_train, X_test, y_train, y_test = train_test_split(
        X, y, test_size=0.3, stratify=y, random_state=0
    )
    scores = {}
    print(f"{'model':<12}{'mle':>8}{'map':>8}{'mean':>8}")
    for model in (GaussianNB, LDA, QDA):
        row = [
            model(estimate=kind).fit(X_train, y_train).score(X_test, y_test)
            for kind in ("mle", "map", "mean")
        ]
        scores.update(
            {
                f"{model.__name__}/{kind}": s
                for kind, s in zip(("mle", "map", "mean"), row, strict=True)
            }
        )
        print(f"{model.__name__:<12}" + "".join(f"{s:>8.3f}" for s in row))

    qda = QDA().fit(X_train, y_train)
    fitted = {"class_prior": qda.class_prior_, "means": qda.means_, "covariances": qda.covariances_}
    with jax.enable_x64(True):  # the story runs in the caller's precision: ask for float64
        story = handlers.substitute(qda.story, data=fitted)
        draws = Predictive(story, num_samples=1)(jax.random.key(0), n_samples=synthetic_rows)
    X_synthetic, y_synthetic = np.asarray(draws["X"][0]), np.asarray(draws["y"][0])
    refit = QDA().fit(X_synthetic, qda.classes_[y_synthetic])
    scores["QDA refitted on synthetic"] = refit.score(X_test, y_test)
    print(
        f"\nQDA refitted on {synthetic_rows} synthetic wines from its own story: "
        f"test accuracy {scores['QDA refitted on synthetic']:.3f}"
    )
    return scores


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--synthetic-rows", type=int, default=2000)
    main(parser.parse_args().synthetic_rows)
