"""The issue-8 workloads beyond dense fit/predict: sparse counts, EM, start-up, memory.

Each function times bayesgen and scikit-learn on the same data in this process (start-up
and peak memory run in fresh subprocesses, where they can be measured) and returns
:class:`benchmarks.gaussian.Timing` rows, so one table reports every ratio.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
import warnings

import numpy as np
from sklearn import mixture, naive_bayes

import bayesgen
from benchmarks.gaussian import Timing, _median_seconds, make_data
from benchmarks.sparse_counts import make_counts


def sparse_counts(n_samples, n_features, nnz_per_row, n_classes, repeats) -> list[Timing]:
    """MultinomialNB and BernoulliNB on a CSR bag-of-words matrix (never densified)."""
    X, y = make_counts(n_samples, n_features, nnz_per_row, n_classes)
    binary = X.copy()
    binary.data[:] = 1.0
    timings = []
    pairs = {
        "MultinomialNB (sparse)": (bayesgen.MultinomialNB, naive_bayes.MultinomialNB, X),
        "BernoulliNB (sparse)": (bayesgen.BernoulliNB, naive_bayes.BernoulliNB, binary),
    }
    for name, (ours_class, reference_class, data) in pairs.items():
        ours, reference = ours_class(), reference_class()
        start = time.perf_counter()
        ours.fit(data, y).predict_proba(data[:1000])
        first = time.perf_counter() - start
        reference.fit(data, y)
        read = _median_seconds(lambda data=data: data.data.sum(), (), repeats)
        for operation in ("fit", "predict_proba"):
            args = (data, y) if operation == "fit" else (data,)
            timings.append(
                Timing(
                    name,
                    operation,
                    first if operation == "fit" else float("nan"),
                    _median_seconds(getattr(ours, operation), args, repeats),
                    _median_seconds(getattr(reference, operation), args, repeats),
                    read,
                    "read data",
                )
            )
    return timings


#: The most (rows x classes) entries of scikit-learn's dense one-hot labels this benchmark
#: lets it build (2 GiB of float64); past it, only bayesgen is timed.
REFERENCE_LABEL_ENTRIES = 2**28


def many_classes(n_samples, n_features, nnz_per_row, class_counts, repeats) -> list[Timing]:
    """MultinomialNB's fit on CSR counts over ever more classes: linear in the number of
    classes (issue 34). scikit-learn's fit makes a dense rows x classes label matrix, so it
    is timed only where that stays within `REFERENCE_LABEL_ENTRIES`. No floor: the
    classes x features statistics it writes, not the rows it reads, bound it here."""
    timings = []
    for n_classes in class_counts:
        X, _ = make_counts(n_samples, n_features, nnz_per_row, 1)
        y = np.arange(n_samples) % n_classes
        ours = bayesgen.MultinomialNB()
        with warnings.catch_warnings():  # one row a class: "could represent a regression"
            warnings.filterwarnings("ignore", "The number of unique classes", UserWarning)
            start = time.perf_counter()
            ours.fit(X, y)
            first = time.perf_counter() - start
            reference = float("nan")
            if n_samples * n_classes <= REFERENCE_LABEL_ENTRIES:
                reference = _median_seconds(naive_bayes.MultinomialNB().fit, (X, y), repeats)
            seconds = _median_seconds(ours.fit, (X, y), repeats)
        timings.append(
            Timing(
                f"MultinomialNB, {n_classes:,} classes",
                "fit",
                first,
                seconds,
                reference,
            )
        )
    return timings


#: Spread of the class means in the EM workload: classes that overlap, so that EM from the
#: labelled rows' means has not converged to rounding after 20 iterations for either
#: library. With the dense rows' spread (2.0) bayesgen's EM stops after 2 iterations, its
#: objective then still within rounding, while ``GaussianMixture`` with ``tol=0`` runs all
#: 20: that row compared 2 iterations with 20.
EM_SEPARATION = 0.2


def semi_supervised_em(n_samples, n_features, n_classes, n_iter=20) -> list[Timing]:
    """``n_iter`` EM iterations with full covariances: bayesgen on 90% unlabelled rows
    against ``GaussianMixture`` (both from the class means of the labelled rows), on
    overlapping classes (`EM_SEPARATION`). The row names the iterations each ran."""
    X, y = make_data(n_samples, n_features, n_classes, separation=EM_SEPARATION)
    partly = y.copy()
    partly[np.random.default_rng(1).random(n_samples) < 0.9] = -1
    labelled = partly >= 0
    means = np.array([X[labelled & (y == k)].mean(axis=0) for k in range(n_classes)])
    ours = bayesgen.GaussianDA(max_iter=n_iter, tol=0.0)
    reference = mixture.GaussianMixture(
        n_classes, covariance_type="full", max_iter=n_iter, tol=0.0, means_init=means
    )
    start = time.perf_counter()
    with _quiet():
        ours.fit(X, partly)
    first = time.perf_counter() - start
    with _quiet():
        ours_seconds = _median_seconds(ours.fit, (X, partly), 1)
        reference_seconds = _median_seconds(reference.fit, (X,), 1)
    ran = (
        f"{n_iter} iterations"
        if ours.n_iter_ == reference.n_iter_ == n_iter
        else f"{ours.n_iter_} iterations against {reference.n_iter_}"
    )
    return [Timing(f"EM, {ran} (full)", "fit", first, ours_seconds, reference_seconds)]


class _quiet:
    """Silence the ConvergenceWarning of a deliberately capped EM."""

    def __enter__(self):
        import warnings

        self._context = warnings.catch_warnings()
        self._context.__enter__()
        warnings.simplefilter("ignore")

    def __exit__(self, *exc):
        return self._context.__exit__(*exc)


_FIRST_CALL = """
import json, os, sys, time
import numpy as np
from benchmarks.gaussian import make_data
import bayesgen
from sklearn import discriminant_analysis, naive_bayes
X, y = make_data({n}, {d}, {k})
models = {{"LDA": (bayesgen.LDA, discriminant_analysis.LinearDiscriminantAnalysis),
          "QDA": (bayesgen.QDA, discriminant_analysis.QuadraticDiscriminantAnalysis),
          "GaussianNB": (bayesgen.GaussianNB, naive_bayes.GaussianNB)}}
out = {{}}
def seconds(model):
    start = time.perf_counter()
    model.fit(X, y).predict_proba(X)
    return time.perf_counter() - start
for name, (ours, reference) in models.items():
    out[name] = (seconds(ours()), seconds(reference()))
print(json.dumps(out))
"""


def first_call(n_samples, n_features, n_classes) -> list[Timing]:
    """fit + predict_proba in a fresh process, compilation included; then again with JAX's
    persistent compilation cache filled by a previous process."""
    code = _FIRST_CALL.format(n=n_samples, d=n_features, k=n_classes)
    cold = _run_child(code, {})
    with tempfile.TemporaryDirectory() as cache:
        settings = {
            "JAX_COMPILATION_CACHE_DIR": cache,
            "JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS": "0",
            "JAX_PERSISTENT_CACHE_MIN_ENTRY_SIZE_BYTES": "0",
        }
        _run_child(code, settings)  # fills the cache
        warm = _run_child(code, settings)
    timings = []
    for name, (mine, theirs) in cold.items():
        timings.append(Timing(name, "first fit + predict_proba", float("nan"), mine, theirs))
        cached, reference = warm[name]
        timings.append(Timing(name, "same, persistent cache", float("nan"), cached, reference))
    return timings


_PEAK = """
import json
import numpy as np
import bayesgen
from sklearn import discriminant_analysis, naive_bayes
# Filled a block at a time, so the process's peak before fit is X and little more.
rng = np.random.default_rng(0)
means = rng.normal(scale=2.0, size=({k}, {d}))
mixing = rng.normal(size=({d}, {d})) / np.sqrt({d}) + np.eye({d})
X, y = np.empty(({n}, {d})), rng.integers(0, {k}, size={n})
for start in range(0, {n}, 50_000):
    rows = slice(start, start + 50_000)
    X[rows] = means[y[rows]] + rng.standard_normal((y[rows].size, {d})) @ mixing
ours = {{"LDA": bayesgen.LDA, "QDA": bayesgen.QDA, "GaussianNB": bayesgen.GaussianNB}}
theirs = {{
    "LDA": lambda: discriminant_analysis.LinearDiscriminantAnalysis(solver="lsqr"),
    "QDA": discriminant_analysis.QuadraticDiscriminantAnalysis,
    "GaussianNB": naive_bayes.GaussianNB,
}}
factory = {{"bayesgen": ours, "scikit-learn": theirs}}["{library}"]["{model}"]
small = factory().fit(X[:1000], y[:1000])  # imports and compilation before the baseline
def peak_kib():
    # VmHWM, not getrusage's ru_maxrss: a child started by a large process inherits that
    # process's ru_maxrss through fork and exec, while VmHWM starts anew with exec.
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("VmHWM"))
before = peak_kib()
factory().fit(X, y)
after = peak_kib()
print(json.dumps({{"extra_mib": max(after - before, 0) / 1024, "x_mib": X.nbytes / 2**20}}))
"""


def peak_memory(
    n_samples, n_features, n_classes, models=("LDA", "QDA", "GaussianNB")
) -> list[dict]:
    """Peak resident memory added by ``fit``, beyond the process's peak before it.

    Two fresh processes per model (bayesgen, scikit-learn).
    """
    rows = []
    for model in models:
        row = {"model": model}
        for library in ("bayesgen", "scikit-learn"):
            code = _PEAK.format(
                n=n_samples, d=n_features, k=n_classes, library=library, model=model
            )
            result = _run_child(code, {})
            row[library], row["x_mib"] = result["extra_mib"], result["x_mib"]
        rows.append(row)
    return rows


def _run_child(code: str, settings: dict) -> dict:
    environment = {**os.environ, **settings}
    environment.setdefault("XLA_FLAGS", "--xla_cpu_enable_concurrency_optimized_scheduler=false")
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    environment["PYTHONPATH"] = root + os.pathsep + environment.get("PYTHONPATH", "")
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=environment, check=False
    )
    if done.returncode != 0:
        raise RuntimeError(f"benchmark subprocess failed:\n{done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])
