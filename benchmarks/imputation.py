"""Imputation against scikit-learn's ``IterativeImputer`` and ``KNNImputer`` (issue 16, item 4).

``python -m benchmarks.imputation [--quick]`` prints a Markdown table. For each data set
(wine, breast cancer, and Gaussian classes from `benchmarks.gaussian.make_data`) and each
fraction of entries hidden completely at random, in training and test rows alike:

- **RMSE** of the imputed test entries against the hidden truth, in units of each feature's
  standard deviation (features are standardised first);
- **accuracy** and **log loss** on the test rows of a logistic regression trained on the
  imputed training rows (for multiple imputation, one regression per completed copy, their
  test probabilities averaged);
- **seconds** to fit the imputer and fill the training and test rows.

The scikit-learn imputers and the mean are fitted on the training rows' features. The
bayesgen models are classifiers: fitted by EM on the training rows with their labels, they
fill a training row given its label and a test row mixed over $p(k \\mid x_o)$.
Multiple imputation (``n_imputations=5``) runs data augmentation over the training rows
(labelled) and the test rows (unlabelled) together; its RMSE is that of the copies' mean.
"""

from __future__ import annotations

import argparse
import os
import time
import warnings

os.environ.setdefault("XLA_FLAGS", "--xla_cpu_enable_concurrency_optimized_scheduler=false")

import numpy as np  # noqa: E402
from sklearn.datasets import load_breast_cancer, load_wine  # noqa: E402
from sklearn.exceptions import ConvergenceWarning  # noqa: E402
from sklearn.experimental import enable_iterative_imputer  # noqa: E402, F401
from sklearn.impute import IterativeImputer, KNNImputer, SimpleImputer  # noqa: E402
from sklearn.linear_model import LogisticRegression  # noqa: E402
from sklearn.metrics import accuracy_score, log_loss  # noqa: E402
from sklearn.model_selection import train_test_split  # noqa: E402
from sklearn.preprocessing import StandardScaler  # noqa: E402

import bayesgen  # noqa: E402
from benchmarks.gaussian import make_data  # noqa: E402

N_IMPUTATIONS = 5


def datasets(quick: bool) -> dict:
    """``{name: (X, y)}``, features standardised."""
    wine, cancer = load_wine(return_X_y=True), load_breast_cancer(return_X_y=True)
    gaussian = make_data(300 if quick else 2000, 10, 3, seed=0)
    chosen = {"wine": wine} if quick else {"wine": wine, "breast cancer": cancer}
    chosen["Gaussian classes"] = gaussian
    return {name: (StandardScaler().fit_transform(X), y) for name, (X, y) in chosen.items()}


def _sklearn(imputer):
    def fill(train, test, y_train):
        imputer.fit(train)
        return imputer.transform(train), imputer.transform(test)

    return fill


def _bayesgen(model):
    def fill(train, test, y_train):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            model.fit(train, y_train)
        return model.impute(train, y=y_train), model.impute(test)

    return fill


def _bayesgen_multiple(model):
    def fill(train, test, y_train):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            model.fit(train, y_train)
        rows = np.r_[train, test]
        labels = np.r_[y_train, np.full(test.shape[0], -1)]
        copies = model.impute(
            rows, y=labels, method="sample", n_imputations=N_IMPUTATIONS, random_state=0
        )
        return copies[:, : train.shape[0]], copies[:, train.shape[0] :]

    return fill


def imputers() -> dict:
    """``{name: fill(train, test, y_train) -> (train, test)}``; copies stacked for MI."""
    return {
        "mean": _sklearn(SimpleImputer()),
        "KNNImputer": _sklearn(KNNImputer()),
        "IterativeImputer": _sklearn(IterativeImputer(max_iter=10, random_state=0)),
        "bayesgen LDA": _bayesgen(bayesgen.LDA()),
        "bayesgen QDA": _bayesgen(bayesgen.QDA()),
        f"bayesgen LDA, {N_IMPUTATIONS} imputations": _bayesgen_multiple(bayesgen.LDA()),
    }


def _downstream(train_copies, test_copies, y_train, y_test):
    """Accuracy and log loss of logistic regression, probabilities averaged over copies."""
    probabilities = 0.0
    for train, test in zip(train_copies, test_copies, strict=True):
        regression = LogisticRegression(max_iter=2000).fit(train, y_train)
        probabilities = probabilities + regression.predict_proba(test) / len(train_copies)
    labels = regression.classes_
    return (
        accuracy_score(y_test, labels[np.argmax(probabilities, axis=1)]),
        log_loss(y_test, probabilities, labels=labels),
    )


def run(quick: bool = False, fractions=(0.1, 0.25, 0.4)) -> list[dict]:
    """One result per (data set, fraction, imputer)."""
    results = []
    for data_name, (X, y) in datasets(quick).items():
        X_train, X_test, y_train, y_test = train_test_split(
            X, y, test_size=0.3, stratify=y, random_state=0
        )
        for fraction in fractions:
            rng = np.random.default_rng(1)
            train, test = X_train.copy(), X_test.copy()
            train[rng.random(train.shape) < fraction] = np.nan
            hidden = rng.random(test.shape) < fraction
            test[hidden] = np.nan
            for name, fill in imputers().items():
                start = time.perf_counter()
                filled_train, filled_test = fill(train, test, y_train)
                seconds = time.perf_counter() - start
                if filled_train.ndim == 2:
                    filled_train, filled_test = filled_train[None], filled_test[None]
                point = filled_test.mean(axis=0)
                rmse = float(np.sqrt(np.mean((point[hidden] - X_test[hidden]) ** 2)))
                accuracy, loss = _downstream(filled_train, filled_test, y_train, y_test)
                results.append(
                    {
                        "data": data_name,
                        "missing": fraction,
                        "imputer": name,
                        "rmse": rmse,
                        "accuracy": accuracy,
                        "log loss": loss,
                        "seconds": seconds,
                    }
                )
    return results


def report(results: list[dict]) -> str:
    """The results as a Markdown table."""
    lines = [
        "| data | missing | imputer | RMSE (sd) | accuracy | log loss | seconds |",
        "| --- | ---: | --- | ---: | ---: | ---: | ---: |",
    ]
    for r in results:
        lines.append(
            f"| {r['data']} | {r['missing']:.0%} | {r['imputer']} | {r['rmse']:.3f} | "
            f"{r['accuracy']:.3f} | {r['log loss']:.3f} | {r['seconds']:.2f} |"
        )
    return "\n".join(lines)


def main(argv=None) -> None:
    """Run the comparison and print its table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="wine and a small Gaussian set")
    arguments = parser.parse_args(argv)
    print(report(run(arguments.quick)))


if __name__ == "__main__":
    main()
