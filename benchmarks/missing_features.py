"""Rows with missing features against the same work on complete rows.

Scikit-learn's discriminant analysis cannot score a row with a missing entry, so the
reference is bayesgen itself on the complete rows: the ratio says what the missing
entries cost. 20 % of entries are missing completely at random.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
from sklearn.exceptions import ConvergenceWarning

import bayesgen
from bayesgen.validation import FewRowsWarning
from benchmarks.gaussian import _median_seconds, make_data


@dataclass
class MissingTiming:
    """Median seconds of one operation on complete rows and on rows with missing entries."""

    model: str
    operation: str
    complete: float
    missing: float

    @property
    def ratio(self) -> float:
        """Time with missing entries / time on complete rows."""
        return self.missing / self.complete


def _median(call, repeats: int) -> float:
    return _median_seconds(call, (), repeats)


def _em_iteration(X, y, repeats: int) -> float:
    """Seconds per iteration of EM over the missing entries (two iterations, timed)."""
    model = bayesgen.QDA(max_iter=2, tol=0.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        warnings.simplefilter("ignore", FewRowsWarning)  # 20 % missing of 40: expected
        seconds = _median(lambda: model.fit(X, y), repeats)
    return seconds / model.n_iter_


#: The models `run` can score, by covariance type; the report times the first two.
MODELS = {
    "LDA": bayesgen.LDA,  # tied
    "QDA": bayesgen.QDA,  # full
    "GaussianNB": bayesgen.GaussianNB,  # diag
    "spherical": lambda: bayesgen.GaussianDA(covariance_type="spherical"),
}


def run(
    n_samples: int,
    n_features: int,
    n_classes: int,
    repeats: int,
    fraction=0.2,
    models=("LDA", "QDA"),
):
    """Time predict_proba, score_samples (``models``, keys of `MODELS`), one EM iteration
    and impute (QDA)."""
    X, y = make_data(n_samples, n_features, n_classes)
    gappy = X.copy()
    gappy[np.random.default_rng(1).random(X.shape) < fraction] = np.nan
    timings = []
    for name in models:
        model = MODELS[name]().fit(X, y)
        for operation in ("predict_proba", "score_samples"):
            call = getattr(model, operation)
            call(X[:10]), call(gappy[:10])  # warm-up: compilation is not the point here
            complete = _median(lambda call=call: call(X), repeats)
            missing = _median(lambda call=call: call(gappy), repeats)
            timings.append(MissingTiming(name, operation, complete, missing))
    qda = bayesgen.QDA().fit(X, y)
    complete_fit = _median(lambda: bayesgen.QDA().fit(X, y), repeats)
    timings.append(
        MissingTiming("QDA", "one EM iteration", complete_fit, _em_iteration(gappy, y, 1))
    )
    complete_proba = _median(lambda: qda.predict_proba(X), repeats)
    timings.append(
        MissingTiming("QDA", "impute", complete_proba, _median(lambda: qda.impute(gappy), repeats))
    )
    return timings


def table(title: str, timings: list[MissingTiming]) -> list[str]:
    """The Markdown table of `run`'s timings."""
    lines = [
        f"### {title}",
        "",
        "| model | operation | complete rows s | 20 % missing s | ratio | against |",
        "| --- | --- | ---: | ---: | ---: | --- |",
    ]
    for t in timings:
        reference = "a complete fit" if t.operation == "one EM iteration" else "complete rows"
        if t.operation == "impute":
            reference = "complete predict_proba"
        lines.append(
            f"| {t.model} | {t.operation} | {t.complete:.3f} | {t.missing:.3f} | "
            f"{t.ratio:.1f}x | {reference} |"
        )
    return lines + [""]
