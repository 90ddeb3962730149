"""Time bayesgen's Gaussian classifiers against scikit-learn's in one process.

Each workload is timed ``repeats`` times after one warm-up call (which includes JAX's
compilation and is reported separately as ``first call``); medians and the ratio
bayesgen / scikit-learn are reported. Speed is measured here, never asserted in tests.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
from sklearn import discriminant_analysis, naive_bayes

import bayesgen

PAIRS = {
    "LDA": (
        lambda: bayesgen.LDA(),
        lambda: discriminant_analysis.LinearDiscriminantAnalysis(solver="lsqr"),
    ),
    "QDA": (lambda: bayesgen.QDA(), lambda: discriminant_analysis.QuadraticDiscriminantAnalysis()),
    "GaussianNB": (lambda: bayesgen.GaussianNB(), lambda: naive_bayes.GaussianNB()),
}


@dataclass
class Timing:
    """Median seconds of one operation for both libraries, plus bayesgen's first call and,
    where one applies, the machine's floor for the operation (issue 34): the median time of
    the least work it must do, measured in the same run (``floor_name`` says which)."""

    model: str
    operation: str
    first_call: float
    bayesgen: float
    sklearn: float
    floor: float = float("nan")
    floor_name: str = ""

    @property
    def ratio(self) -> float:
        """bayesgen time / scikit-learn time (below 1: bayesgen is faster)."""
        return self.bayesgen / self.sklearn

    @property
    def floor_ratio(self) -> float:
        """bayesgen time / the floor's time (NaN where no floor applies)."""
        return self.bayesgen / self.floor


def floors(X: np.ndarray, repeats: int) -> dict[str, float]:
    """Median seconds of one read of ``X`` (``X.sum(axis=0)``, the bound of a statistics or
    scoring pass that reads each entry once) and of one ``X.T @ X`` (the bound of a
    scatter matrix, one product per class in all)."""
    return {
        "read X": _median_seconds(lambda: X.sum(axis=0), (), repeats),
        "X.T @ X": _median_seconds(lambda: X.T @ X, (), repeats),
    }


#: The floor each dense operation is held to: Gaussian naive Bayes' statistics and the
#: linear and diagonal scores read X once; LDA's and QDA's scatter matrices need its Gram
#: matrix, and QDA's scores one product of that size per class (K floors at the least).
DENSE_FLOORS = {
    ("LDA", "fit"): "X.T @ X",
    ("QDA", "fit"): "X.T @ X",
    ("QDA", "predict_proba"): "X.T @ X",
    ("GaussianNB", "fit"): "read X",
}


def make_data(
    n_samples: int, n_features: int, n_classes: int, seed: int = 0, separation: float = 2.0
):
    """Gaussian classes with random means (spread ``separation`` around 0) and correlated
    covariances, float64."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, n_classes, size=n_samples)
    means = rng.normal(scale=separation, size=(n_classes, n_features))
    mixing = rng.normal(size=(n_features, n_features)) / np.sqrt(n_features) + np.eye(n_features)
    X = means[y] + rng.standard_normal((n_samples, n_features)) @ mixing
    return X, y


def _median_seconds(operation, args, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        operation(*args)
        times.append(time.perf_counter() - start)
    return float(np.median(times))


def run(n_samples: int, n_features: int, n_classes: int, repeats: int) -> list[Timing]:
    """Time fit and predict_proba of every pair on one synthetic dataset."""
    X, y = make_data(n_samples, n_features, n_classes)
    bounds = floors(X, repeats)
    timings = []
    for name, (ours_factory, reference_factory) in PAIRS.items():
        ours, reference = ours_factory(), reference_factory()
        start = time.perf_counter()
        ours.fit(X, y)
        first_fit = time.perf_counter() - start
        reference.fit(X, y)
        start = time.perf_counter()
        ours.predict_proba(X)
        first_predict = time.perf_counter() - start
        timings.append(
            Timing(
                name,
                "fit",
                first_fit,
                _median_seconds(ours.fit, (X, y), repeats),
                _median_seconds(reference.fit, (X, y), repeats),
            )
        )
        timings.append(
            Timing(
                name,
                "predict_proba",
                first_predict,
                _median_seconds(ours.predict_proba, (X,), repeats),
                _median_seconds(reference.predict_proba, (X,), repeats),
            )
        )
    for timing in timings:
        timing.floor_name = DENSE_FLOORS.get((timing.model, timing.operation), "read X")
        timing.floor = bounds[timing.floor_name]
    return timings


def to_markdown(timings: list[Timing], n_samples: int, n_features: int, n_classes: int) -> str:
    """A Markdown table of the timings."""
    lines = [
        f"n = {n_samples:,}, d = {n_features}, K = {n_classes}, float64, medians in seconds",
        "",
        "| model | operation | bayesgen first call | bayesgen | scikit-learn | ratio |",
        "| --- | --- | ---: | ---: | ---: | ---: |",
    ]
    lines += [
        f"| {t.model} | {t.operation} | {t.first_call:.4f} | {t.bayesgen:.4f} | "
        f"{t.sklearn:.4f} | {t.ratio:.2f}x |"
        for t in timings
    ]
    return "\n".join(lines)
