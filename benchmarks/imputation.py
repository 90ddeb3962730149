"""Imputation and classification with missing inputs against scikit-learn (issue 32, item 6).

``python -m benchmarks --section imputation [--quick]`` prints two Markdown tables. Each
table (wine and breast cancer from scikit-learn; statsmodels' ``anes96`` and ``fair``
surveys, skipped with the reason when statsmodels is missing) is split 70/30, stratified,
its features standardised by the training rows, and cells of the training and test rows
hidden under two mechanisms:

- **MCAR**: every cell with probability 0.2;
- **MAR**: the first feature is always observed, and every other cell is hidden with
  probability 0.3 where that feature is above its median and 0.1 elsewhere (0.2 on average).

Three seeds (one with ``--quick``, on wine only) draw the split and the mask. Reported, as
the mean over seeds:

- **RMSE** of the imputed test cells against the hidden truth, in standard deviations;
- **seconds** to fit the imputer and fill the training and test rows.

The imputers: the column mean, ``KNNImputer``, ``IterativeImputer`` (BayesianRidge) without
and with the label (one-hot columns, known for training rows and missing for test rows), a
random-forest ``IterativeImputer`` (ExtraTrees, missForest-style, with the label), and
bayesgen's conditional means: ``LDA``, ``QDA`` and ``MixtureDA`` (a mixture per class)
fitted by EM on the gappy training rows with their labels, which fill a training row given
its label and a test row mixed over $p(k \\mid x_o)$, and ``bayesgen.Imputer`` (one Gaussian,
no label). Every scikit-learn imputer is fitted on the gappy training rows.

The second table is classification with missing inputs: ``LDA``, ``QDA`` and ``MixtureDA``
integrate the missing entries out of $p(x_o \\mid k)$; ``HistGradientBoostingClassifier``
learns where to send them. Accuracy and log loss on the gappy test rows.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import time
import warnings

os.environ.setdefault("XLA_FLAGS", "--xla_cpu_enable_concurrency_optimized_scheduler=false")

import numpy as np  # noqa: E402
from sklearn.datasets import load_breast_cancer, load_wine  # noqa: E402
from sklearn.ensemble import ExtraTreesRegressor, HistGradientBoostingClassifier  # noqa: E402
from sklearn.experimental import enable_iterative_imputer  # noqa: E402, F401
from sklearn.impute import IterativeImputer, KNNImputer, SimpleImputer  # noqa: E402
from sklearn.metrics import accuracy_score, log_loss  # noqa: E402
from sklearn.model_selection import train_test_split  # noqa: E402
from sklearn.preprocessing import StandardScaler  # noqa: E402

import bayesgen  # noqa: E402

MECHANISMS = ("MCAR", "MAR")
SHARE = 0.2


def _anes96():
    from statsmodels.datasets import anes96

    data = anes96.load_pandas().data
    return data.drop(columns=["vote", "popul"]).to_numpy(float), data["vote"].to_numpy(int)


def _fair():
    from statsmodels.datasets import fair

    data = fair.load_pandas().data
    return data.drop(columns="affairs").to_numpy(float), (data["affairs"] > 0).astype(int)


def tables(quick: bool) -> dict:
    """``{name: (X, y)}`` of the tables whose packages are installed (the reason printed
    for the others)."""
    chosen = {"wine": lambda: load_wine(return_X_y=True)}
    if quick:
        return {name: load() for name, load in chosen.items()}
    chosen["breast cancer"] = lambda: load_breast_cancer(return_X_y=True)
    if importlib.util.find_spec("statsmodels") is None:
        print("anes96 and fair skipped: they need statsmodels (pip install 'bayesgen[bench]').")
    else:
        chosen.update(anes96=_anes96, fair=_fair)
    return {name: load() for name, load in chosen.items()}


def hide(X: np.ndarray, mechanism: str, rng) -> np.ndarray:
    """The boolean mask of hidden cells (module docstring); no row loses every cell."""
    if mechanism == "MCAR":
        hidden = rng.random(X.shape) < SHARE
    else:
        high = X[:, 0] > np.median(X[:, 0])
        rate = np.where(high, 1.5 * SHARE, 0.5 * SHARE)[:, None]
        hidden = rng.random(X.shape) < rate
        hidden[:, 0] = False
    hidden[hidden.all(axis=1), 0] = False
    return hidden


def _with_label(y, classes):
    """One-hot label columns."""
    return (np.asarray(y)[:, None] == classes[None, :]).astype(float)


def _sklearn(make, *, label: bool = False):
    def fill(train, test, y_train, seed):
        imputer = make(seed)
        if not label:
            imputer.fit(train)
            return imputer.transform(train), imputer.transform(test)
        classes = np.unique(y_train)
        known = np.c_[train, _with_label(y_train, classes)]
        unknown = np.c_[test, np.full((test.shape[0], classes.size), np.nan)]
        imputer.fit(known)
        d = train.shape[1]
        return imputer.transform(known)[:, :d], imputer.transform(unknown)[:, :d]

    return fill


def _bayesgen(make, *, labelled: bool = True):
    def fill(train, test, y_train, seed):
        model = make(seed)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if not labelled:
                model.fit(train)
                return model.transform(train), model.transform(test)
            model.fit(train, y_train)
            return model.impute(train, y=y_train), model.impute(test)

    return fill


def imputers(quick: bool) -> dict:
    """``{name: fill(train, test, y_train, seed) -> (train, test)}``."""
    trees = 20 if quick else 50
    return {
        "mean": _sklearn(lambda seed: SimpleImputer()),
        "KNNImputer": _sklearn(lambda seed: KNNImputer()),
        "IterativeImputer": _sklearn(lambda seed: IterativeImputer(random_state=seed)),
        "IterativeImputer + label": _sklearn(
            lambda seed: IterativeImputer(random_state=seed), label=True
        ),
        "ExtraTrees IterativeImputer + label": _sklearn(
            lambda seed: IterativeImputer(
                ExtraTreesRegressor(n_estimators=trees, random_state=seed, n_jobs=-1),
                max_iter=5,
                random_state=seed,
            ),
            label=True,
        ),
        "bayesgen LDA": _bayesgen(lambda seed: bayesgen.LDA()),
        "bayesgen QDA": _bayesgen(lambda seed: bayesgen.QDA()),
        "bayesgen MixtureDA (3 tied)": _bayesgen(_mixture),
        "bayesgen Imputer (no label)": _bayesgen(lambda seed: bayesgen.Imputer(), labelled=False),
    }


def _mixture(seed):
    return bayesgen.MixtureDA(n_components=3, covariance_type="tied", random_state=seed)


def classifiers() -> dict:
    """``{name: make(seed)}`` of models that predict from gappy rows as they are."""
    return {
        "bayesgen LDA": lambda seed: bayesgen.LDA(),
        "bayesgen QDA": lambda seed: bayesgen.QDA(),
        "bayesgen MixtureDA (3 tied)": _mixture,
        "HistGradientBoosting": lambda seed: HistGradientBoostingClassifier(random_state=seed),
    }


def _split(X, y, mechanism, seed):
    X_train, X_test, y_train, y_test = train_test_split(
        X, y, test_size=0.3, stratify=y, random_state=seed
    )
    scaler = StandardScaler().fit(X_train)  # the training rows' scale: nothing seen of the test
    X_train, X_test = scaler.transform(X_train), scaler.transform(X_test)
    rng = np.random.default_rng(seed)
    train, test = X_train.copy(), X_test.copy()
    train[hide(train, mechanism, rng)] = np.nan
    hidden = hide(test, mechanism, rng)
    test[hidden] = np.nan
    return train, test, X_test, hidden, y_train, y_test


def run(quick: bool = False) -> tuple[list[dict], list[dict]]:
    """``(imputation rows, classification rows)``: one per table, mechanism and method,
    averaged over the seeds."""
    seeds = (0,) if quick else (0, 1, 2)
    mechanisms = ("MCAR",) if quick else MECHANISMS
    filled_rows, classified_rows = [], []
    for table, (X, y) in tables(quick).items():
        for mechanism in mechanisms:
            scores: dict = {}
            for seed in seeds:
                train, test, truth, hidden, y_train, y_test = _split(X, y, mechanism, seed)
                for name, fill in imputers(quick).items():
                    start = time.perf_counter()
                    _, filled = fill(train, test, y_train, seed)
                    seconds = time.perf_counter() - start
                    rmse = float(np.sqrt(np.mean((filled[hidden] - truth[hidden]) ** 2)))
                    scores.setdefault(("fill", name), []).append((rmse, seconds))
                for name, make in classifiers().items():
                    start = time.perf_counter()
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        model = make(seed).fit(train, y_train)
                        probabilities = model.predict_proba(test)
                    seconds = time.perf_counter() - start
                    accuracy = accuracy_score(y_test, model.classes_[probabilities.argmax(1)])
                    loss = log_loss(y_test, probabilities, labels=model.classes_)
                    scores.setdefault(("classify", name), []).append((accuracy, loss, seconds))
            for (kind, name), values in scores.items():
                means = np.mean(values, axis=0)
                row = {"table": table, "mechanism": mechanism, "method": name}
                if kind == "fill":
                    filled_rows.append({**row, "rmse": means[0], "seconds": means[1]})
                else:
                    classified_rows.append(
                        {**row, "accuracy": means[0], "log loss": means[1], "seconds": means[2]}
                    )
    return filled_rows, classified_rows


def report(results: tuple[list[dict], list[dict]]) -> str:
    """The two tables in Markdown; the best RMSE of each table and mechanism in bold."""
    filled, classified = results
    best = {}
    for r in filled:
        key = (r["table"], r["mechanism"])
        best[key] = min(best.get(key, np.inf), r["rmse"])
    lines = [
        "| table | missing | imputer | test-cell RMSE (sd) | seconds |",
        "| --- | --- | --- | ---: | ---: |",
    ]
    for r in filled:
        rmse = f"{r['rmse']:.3f}"
        if r["rmse"] == best[(r["table"], r["mechanism"])]:
            rmse = f"**{rmse}**"
        lines.append(
            f"| {r['table']} | {r['mechanism']} | {r['method']} | {rmse} | {r['seconds']:.2f} |"
        )
    lines += [
        "",
        "| table | missing | classifier | accuracy | log loss | seconds |",
        "| --- | --- | --- | ---: | ---: | ---: |",
    ]
    for r in classified:
        lines.append(
            f"| {r['table']} | {r['mechanism']} | {r['method']} | {r['accuracy']:.3f} | "
            f"{r['log loss']:.3f} | {r['seconds']:.2f} |"
        )
    return "\n".join(lines)


def main(argv=None) -> None:
    """Run the comparison and print its tables."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="wine, MCAR, one seed")
    arguments = parser.parse_args(argv)
    print(report(run(arguments.quick)))


if __name__ == "__main__":
    main()
