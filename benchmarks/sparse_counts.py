"""Sparse text-like counts: bayesgen's and scikit-learn's MultinomialNB side by side.

``python -m benchmarks.sparse_counts [--n-samples N] [--n-features D] [--nnz-per-row M]``
builds a CSR count matrix (as a bag-of-words corpus would be), fits and predicts with
both libraries, and reports median time and peak memory *beyond X* (tracemalloc traces
NumPy and SciPy allocations, which is where the count families work).
"""

from __future__ import annotations

import argparse
import os
import time
import tracemalloc

os.environ.setdefault("XLA_FLAGS", "--xla_cpu_enable_concurrency_optimized_scheduler=false")

import numpy as np  # noqa: E402
import scipy.sparse as sp  # noqa: E402
from sklearn import naive_bayes  # noqa: E402

import bayesgen  # noqa: E402


def make_counts(n_samples: int, n_features: int, nnz_per_row: int, n_classes: int, seed=0):
    """A CSR matrix of small integer counts with class-dependent word frequencies."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, n_classes, size=n_samples)
    popularity = 1.0 / (rng.permutation(n_features) + 10.0) ** 0.8  # a Zipf-like vocabulary
    indices = np.empty((n_samples, nnz_per_row), dtype=np.int32)
    for k in range(n_classes):
        rows = np.flatnonzero(y == k)
        weights = popularity * rng.gamma(1.0, size=n_features)
        indices[rows] = rng.choice(
            n_features, size=(rows.size, nnz_per_row), p=weights / weights.sum()
        )
    indices.sort(axis=1)
    data = rng.integers(1, 4, size=n_samples * nnz_per_row).astype(np.float64)
    indptr = np.arange(0, n_samples * nnz_per_row + 1, nnz_per_row)
    X = sp.csr_matrix((data, indices.ravel(), indptr), shape=(n_samples, n_features))
    X.sum_duplicates()
    return X, y


def _measure(operation):
    tracemalloc.start()
    start = time.perf_counter()
    operation()
    seconds = time.perf_counter() - start
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return seconds, peak / 2**20


def main(argv=None) -> str:
    """Print (and return) a Markdown table of times and peak memory beyond X."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n-samples", type=int, default=200_000)
    parser.add_argument("--n-features", type=int, default=100_000)
    parser.add_argument("--nnz-per-row", type=int, default=100)
    parser.add_argument("--n-classes", type=int, default=20)
    args = parser.parse_args(argv)
    X, y = make_counts(args.n_samples, args.n_features, args.nnz_per_row, args.n_classes)
    x_megabytes = (X.data.nbytes + X.indices.nbytes + X.indptr.nbytes) / 2**20
    ours, reference = bayesgen.MultinomialNB(), naive_bayes.MultinomialNB()
    ours.fit(X[:1000], y[:1000]).predict_proba(X[:1000])  # warm up
    rows = []
    for name, model in (("bayesgen", ours), ("scikit-learn", reference)):
        fit = _measure(lambda model=model: model.fit(X, y))
        predict = _measure(lambda model=model: model.predict_proba(X))
        rows.append((name, *fit, *predict))
    assert np.allclose(ours.predict_log_proba(X[:100]), reference.predict_log_proba(X[:100]))
    lines = [
        f"CSR counts {X.shape[0]:,} x {X.shape[1]:,}, {X.nnz:,} non-zeros "
        f"(X itself {x_megabytes:.0f} MiB), K = {args.n_classes}",
        "",
        "| library | fit s | fit peak MiB beyond X | predict_proba s | predict peak MiB |",
        "| --- | ---: | ---: | ---: | ---: |",
    ]
    lines += [f"| {r[0]} | {r[1]:.3f} | {r[2]:.0f} | {r[3]:.3f} | {r[4]:.0f} |" for r in rows]
    table = "\n".join(lines)
    print(table)
    return table


if __name__ == "__main__":
    main()
