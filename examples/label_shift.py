"""Label shift and unequal costs: the class prior of a fitted model, replaced or re-estimated.

QDA is fitted to balanced training rows of three 2-D Gaussian classes. It is deployed where
the classes occur in proportions 0.7, 0.2 and 0.1: a target set subsampled from a held-out
pool in those proportions. Three models score it by accuracy and log loss:

- the fitted model, which assumes the training proportions (1/3 each);
- ``with_class_prior(true proportions)``, the oracle;
- ``adapt_class_prior(X_target)``, with the proportions estimated by EM from the
  unlabelled target inputs (Saerens, Latinne & Decaestecker 2002).

Then a cost matrix in which missing the rare class costs ten times as much as any other
error: the mean cost of ``predict(X)`` (most probable class) against that of
``predict(X, cost=C)`` (least expected cost), both with the adapted model.

Run: ``python examples/label_shift.py [--seed 0]``
"""

from __future__ import annotations

import argparse

import numpy as np
from sklearn.metrics import accuracy_score, log_loss

from bayesgen import QDA

MEANS = np.array([[0.0, 0.0], [2.0, 0.0], [1.0, 1.5]])
COVARIANCES = np.array(
    [
        [[1.0, 0.3], [0.3, 1.0]],
        [[0.6, 0.0], [0.0, 1.5]],
        [[1.5, -0.4], [-0.4, 0.8]],
    ]
)
TRAIN_PER_CLASS = 300
POOL_PER_CLASS = 3000
TARGET_ROWS = 3000
TARGET_PROPORTIONS = np.array([0.7, 0.2, 0.1])
RARE_CLASS = 2
MISS_COST = 10.0  # cost of predicting another class when the truth is RARE_CLASS


def draw(rng: np.random.Generator, n_per_class: int) -> tuple[np.ndarray, np.ndarray]:
    """``n_per_class`` rows of each class, with their labels."""
    X = np.concatenate(
        [
            rng.multivariate_normal(m, c, size=n_per_class)
            for m, c in zip(MEANS, COVARIANCES, strict=True)
        ]
    )
    return X, np.repeat(np.arange(MEANS.shape[0]), n_per_class)


def subsample(rng, X, y, proportions, n_rows):
    """Rows of ``(X, y)`` drawn without replacement, ``round(n_rows * proportions)`` per class."""
    counts = np.round(n_rows * proportions).astype(int)
    rows = np.concatenate(
        [rng.choice(np.flatnonzero(y == k), size=n, replace=False) for k, n in enumerate(counts)]
    )
    return X[rows], y[rows]


def cost_matrix() -> np.ndarray:
    """``C[k, j]``, the cost of predicting j when the truth is k: 0-1, but MISS_COST for k rare."""
    cost = 1.0 - np.eye(MEANS.shape[0])
    cost[RARE_CLASS, np.arange(MEANS.shape[0]) != RARE_CLASS] = MISS_COST
    return cost


def main(random_state: int = 0) -> dict[str, float | list[float]]:
    """Print the scores of the three models and the costs of the two decisions; return them."""
    rng = np.random.default_rng(random_state)
    X_train, y_train = draw(rng, TRAIN_PER_CLASS)
    X_pool, y_pool = draw(rng, POOL_PER_CLASS)
    X_target, y_target = subsample(rng, X_pool, y_pool, TARGET_PROPORTIONS, TARGET_ROWS)
    true_prior = np.bincount(y_target) / y_target.shape[0]

    model = QDA().fit(X_train, y_train)
    models = {
        "unadapted": model,
        "oracle": model.with_class_prior(true_prior),
        "adapted": model.adapt_class_prior(X_target),
    }
    adapted = models["adapted"]
    result: dict[str, float | list[float]] = {}
    for name, fitted in models.items():
        proba = fitted.predict_proba(X_target)
        result[f"accuracy_{name}"] = float(accuracy_score(y_target, fitted.predict(X_target)))
        result[f"log_loss_{name}"] = float(log_loss(y_target, proba, labels=fitted.classes_))
    result["true_prior"] = true_prior.tolist()
    result["adapted_prior"] = adapted.class_prior_.tolist()
    result["adaptation_iterations"] = adapted.class_prior_adaptation_.n_iter

    cost = cost_matrix()
    most_probable = adapted.predict(X_target)
    cheapest = adapted.predict(X_target, cost=cost)
    result["cost_argmax"] = float(np.mean(cost[y_target, most_probable]))
    result["cost_sensitive"] = float(np.mean(cost[y_target, cheapest]))
    result["accuracy_cost_sensitive"] = float(accuracy_score(y_target, cheapest))
    result["rare_predicted_argmax"] = float(np.mean(most_probable == RARE_CLASS))
    result["rare_predicted_cost_sensitive"] = float(np.mean(cheapest == RARE_CLASS))

    print(
        f"QDA on {TRAIN_PER_CLASS} rows per class; target: {TARGET_ROWS} rows in proportions "
        f"{np.round(true_prior, 3).tolist()}"
    )
    print(
        f"estimated by EM ({result['adaptation_iterations']} iterations): "
        f"{np.round(adapted.class_prior_, 3).tolist()}"
    )
    print(f"  {'class prior':<24}{'accuracy':>10}{'log loss':>10}")
    for name, label in [
        ("unadapted", "training (1/3 each)"),
        ("oracle", "true target proportions"),
        ("adapted", "estimated by EM"),
    ]:
        print(
            f"  {label:<24}{result[f'accuracy_{name}']:>10.3f}{result[f'log_loss_{name}']:>10.3f}"
        )
    print(f"missing class {RARE_CLASS} costs {MISS_COST:g}, any other error 1 (adapted model):")
    print(f"  {'decision':<24}{'mean cost':>10}{'accuracy':>10}{'share of ' + str(RARE_CLASS):>12}")
    for label, cost_key, accuracy_key, share_key in [
        ("most probable class", "cost_argmax", "accuracy_adapted", "rare_predicted_argmax"),
        (
            "least expected cost",
            "cost_sensitive",
            "accuracy_cost_sensitive",
            "rare_predicted_cost_sensitive",
        ),
    ]:
        print(
            f"  {label:<24}{result[cost_key]:>10.3f}{result[accuracy_key]:>10.3f}"
            f"{result[share_key]:>12.3f}"
        )
    return result


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=0)
    main(parser.parse_args().seed)
