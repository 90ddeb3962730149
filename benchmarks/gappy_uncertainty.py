"""Uncertainty after a fit on a gappy table: posterior draws and multiple imputation.

scikit-learn's breast cancer table, a 70/30 stratified split (``random_state=0``), each cell
of both parts hidden with probability 0.2 (``numpy.random.default_rng(77)``). A full or tied
Gaussian fitted on such rows has no closed-form posterior; its draws come from data
augmentation over the rows it kept, computed on the first call and kept with the model.
The references are bayesgen's own point-estimate calls on the same rows: what the
uncertainty costs on top of them.
"""

from __future__ import annotations

import time
import warnings
from dataclasses import dataclass

import numpy as np
from sklearn.datasets import load_breast_cancer
from sklearn.model_selection import train_test_split

import bayesgen
from bayesgen.validation import FewRowsWarning
from benchmarks.gaussian import _median_seconds

#: The models timed, as the issue that asked for these times named them.
MODELS = {"LDA": bayesgen.LDA, "QDA(estimate='map')": lambda: bayesgen.QDA(estimate="map")}


@dataclass
class UncertaintyTiming:
    """Seconds of one uncertainty call (first and later) against its point-estimate call."""

    model: str
    operation: str
    first: float
    later: float
    reference: float
    reference_name: str
    same_draws: bool

    @property
    def ratio(self) -> float:
        """Later calls / the point-estimate call."""
        return self.later / self.reference


def gappy_breast_cancer():
    """``(train, test, y_train)`` as the module docstring says."""
    X, y = load_breast_cancer(return_X_y=True)
    train, test, y_train, _ = train_test_split(X, y, test_size=0.3, stratify=y, random_state=0)
    rng = np.random.default_rng(77)
    train = np.where(rng.uniform(size=train.shape) < 0.2, np.nan, train)
    test = np.where(rng.uniform(size=test.shape) < 0.2, np.nan, test)
    return train, test, y_train


def _seconds(call) -> float:
    start = time.perf_counter()
    call()
    return time.perf_counter() - start


def _median(call, repeats: int) -> float:
    return _median_seconds(call, (), repeats)


def _timing(model, operation: tuple, call, reference: str, point, repeats: int):
    """`UncertaintyTiming` of ``call(model)`` (``operation``: the model's and the call's
    names), first on the fresh ``model``, then again, against ``point(model)``."""
    # The point estimate first (it draws nothing, so the model stays fresh), and more often:
    # a call of a few milliseconds is the one a busy machine disturbs most.
    point_seconds = _median(lambda: point(model), 3 * repeats)
    first = _seconds(lambda: call(model))
    same = bool(np.array_equal(call(model), call(model)))
    later = _median(lambda: call(model), repeats)
    return UncertaintyTiming(*operation, first, later, point_seconds, reference, same)


def run(repeats: int = 7, n_draws: int = 200, n_imputations: int = 5) -> list[UncertaintyTiming]:
    """Time ``predict_proba_draws(test, n_draws)`` and ``impute(test, method="sample",
    n_imputations=...)``, each on a freshly fitted model (first call: the chains) and
    again (later calls: median of ``repeats``), against ``predict_proba`` and the
    conditional-mean ``impute``."""
    train, test, y_train = gappy_breast_cancer()
    timings = []
    for name, make in MODELS.items():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FewRowsWarning)
            fitted = [make().fit(train, y_train) for _ in range(2)]
        timings.append(
            _timing(
                fitted[0],
                (name, f"predict_proba_draws(X, {n_draws})"),
                lambda model: model.predict_proba_draws(test, n_draws, random_state=0),
                "predict_proba",
                lambda model: model.predict_proba(test),
                repeats,
            )
        )
        timings.append(
            _timing(
                fitted[1],
                (name, f"impute(n_imputations={n_imputations})"),
                lambda model: model.impute(
                    test, method="sample", n_imputations=n_imputations, random_state=0
                ),
                "impute (conditional mean)",
                lambda model: model.impute(test),
                repeats,
            )
        )
    return timings


def table(title: str, timings: list[UncertaintyTiming]) -> list[str]:
    """The Markdown table of `run`'s timings."""
    lines = [
        f"### {title}",
        "",
        "| model | operation | first call s | later calls s | point estimate s | ratio | "
        "against | same draws again |",
        "| --- | --- | ---: | ---: | ---: | ---: | --- | --- |",
    ]
    for t in timings:
        lines.append(
            f"| {t.model} | {t.operation} | {t.first:.3f} | {t.later:.4f} | "
            f"{t.reference:.4f} | {t.ratio:.1f}x | {t.reference_name} | "
            f"{'yes' if t.same_draws else 'no'} |"
        )
    return lines + [""]
