"""``python -m benchmarks [--quick] [--section S] [--write PATH]``: every workload, one table.

Times bayesgen and scikit-learn side by side in one process (start-up and memory in fresh
subprocesses), prints a Markdown report of medians, ratios and peak memory, and with
``--write`` saves it. The full run takes a few minutes on 2 cores; ``--quick`` uses tiny
sizes (the test suite's smoke run). ``--section synthetic`` runs the synthetic-data
comparison instead (`benchmarks.synthetic_data`, the table of ``docs/synthetic-data.md``),
``--section all`` both.
"""

from __future__ import annotations

import argparse
import os
import platform
import time

os.environ.setdefault("XLA_FLAGS", "--xla_cpu_enable_concurrency_optimized_scheduler=false")

import jax  # noqa: E402
import numpy as np  # noqa: E402
import sklearn  # noqa: E402
from threadpoolctl import threadpool_info  # noqa: E402

from benchmarks import (  # noqa: E402
    first_answer,
    gappy_uncertainty,
    imputation,
    missing_features,
    synthetic_data,
    workloads,
)
from benchmarks.gaussian import Timing, run  # noqa: E402


def _sizes(quick: bool) -> dict:
    if quick:
        return {
            "dense": (2000, 5, 3, 1),
            "sparse": (500, 200, 5, 3, 1),
            "many_classes": (2000, 100, 5, (50, 500), 1),
            "em": (1000, 3, 2),
            "small": (300, 4, 3),
            "missing": (2000, 10, 3, 1),
            "first_answer": {"runs": 1, "varied": (2000, 2020), "quick": True},
            "gappy_uncertainty": {"repeats": 1, "n_draws": 20, "n_imputations": 2},
            # One model: the same child code as three, in a third of the fresh processes.
            "peak_models": ("LDA",),
        }
    return {
        "dense": (1_000_000, 50, 5, 3),
        "sparse": (200_000, 100_000, 100, 20, 3),
        "many_classes": (50_000, 1_000, 20, (5_000, 50_000), 3),
        "em": (1_000_000, 50, 5),
        "small": (10_000, 20, 3),
        "missing": (200_000, 40, 4, 5),  # issue 32's size
        "first_answer": {"runs": 5, "varied": (2000, 2200)},
        "gappy_uncertainty": {"repeats": 7, "n_draws": 200, "n_imputations": 5},  # issue 32
        "peak_models": ("LDA", "QDA", "GaussianNB"),
    }


def _table(title: str, timings: list[Timing]) -> list[str]:
    """A Markdown table of ``timings``; with the floor columns where any row has a floor
    (its multiple is written without an ``x``, so that each row's one ratio is the
    scikit-learn one)."""
    floored = any(not np.isnan(t.floor) for t in timings)
    header = "| model | operation | bayesgen first call s | bayesgen s | scikit-learn s | ratio |"
    rule = "| --- | --- | ---: | ---: | ---: | ---: |"
    if floored:
        header += " / floor | floor | floor s |"  # the second ratio beside the first
        rule += " ---: | --- | ---: |"
    lines = [f"### {title}", "", header, rule]
    for t in timings:
        first = "" if np.isnan(t.first_call) else f"{t.first_call:.3f}"
        reference, ratio = (
            ("not run", "n/a") if np.isnan(t.sklearn) else (f"{t.sklearn:.3f}", f"{t.ratio:.2f}x")
        )
        line = f"| {t.model} | {t.operation} | {first} | {t.bayesgen:.3f} | {reference} | {ratio} |"
        if floored:
            line += (
                " | | |"
                if np.isnan(t.floor)
                else f" {t.floor_ratio:.1f} | {t.floor_name} | {t.floor:.3f} |"
            )
        lines.append(line)
    return lines + [""]


def main(argv: list[str] | None = None) -> str:
    """Run every workload; print (and return) the Markdown report, optionally write it."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="tiny sizes (smoke run)")
    parser.add_argument("--write", metavar="PATH", help="also write the report here")
    parser.add_argument(
        "--section",
        choices=("timing", "synthetic", "imputation", "all"),
        default="timing",
        help="timings against scikit-learn (default), synthetic tables against a Gaussian "
        "copula, imputation against IterativeImputer and KNNImputer, or all three",
    )
    args = parser.parse_args(argv)
    if args.section == "synthetic":
        return _report(synthetic_section(args.quick), args.write)
    if args.section == "imputation":
        return _report(imputation_section(args.quick), args.write)
    sizes = _sizes(args.quick)
    started = time.perf_counter()
    n, d, k, repeats = sizes["dense"]
    dense = run(n, d, k, repeats)
    sparse = workloads.sparse_counts(*sizes["sparse"])
    many = workloads.many_classes(*sizes["many_classes"])
    em = workloads.semi_supervised_em(*sizes["em"])
    first = workloads.first_call(*sizes["small"])
    memory = workloads.peak_memory(n, d, k, sizes["peak_models"])
    gaps = missing_features.run(*sizes["missing"])
    answers = first_answer.run(**sizes["first_answer"])
    uncertainty = gappy_uncertainty.run(**sizes["gappy_uncertainty"])
    elapsed = time.perf_counter() - started
    blas = ", ".join(
        f"{pool['internal_api']} {pool.get('architecture', '')} x{pool['num_threads']}"
        for pool in threadpool_info()
    )
    sn, sd, sk = sizes["small"]
    en, ed, ek = sizes["em"]
    lines = [
        "# Benchmarks: bayesgen against scikit-learn",
        "",
        "Written by `python -m benchmarks --write docs/benchmarks.md` (the whole run took "
        f"{elapsed:.0f} s). Machine: {os.cpu_count()} cores, {platform.machine()}, Python "
        f"{platform.python_version()}, jax {jax.__version__}, scikit-learn "
        f"{sklearn.__version__}, BLAS {blas or 'unknown'}. Medians of repeated calls after "
        "one warm-up; the ratio is "
        "bayesgen / scikit-learn (below 1: bayesgen is faster). Speed is measured here, "
        "never asserted in the test suite.",
        "",
        "Floor: the median time, in the same run, of the least work an operation must do: "
        "`read X`, one read of X (`X.sum(axis=0)`), for a pass over the rows; `X.T @ X` for "
        "the scatter matrices of LDA and QDA and for QDA's scores (one such product per "
        "class); `read data`, one read of a CSR matrix's stored values, for the sparse naive "
        "Bayes. `/ floor` is bayesgen's time as a multiple of it.",
        "",
        "OpenBLAS kernel override: "
        + (
            f"OPENBLAS_CORETYPE={os.environ['OPENBLAS_CORETYPE']} (set by the machine; it "
            "slows NumPy's products for both libraries)."
            if "OPENBLAS_CORETYPE" in os.environ
            else "none (run as `env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE python -m "
            "benchmarks`, so OpenBLAS picks its kernel for this processor)."
        ),
        "",
    ]
    lines += _table(f"Dense Gaussian models: n = {n:,}, d = {d}, K = {k}, float64", dense)
    lines += _table("Sparse counts (CSR, never densified)", sparse)
    cn, cd, cw, _, _ = sizes["many_classes"]
    lines += _table(
        f"Many classes: MultinomialNB on {cn:,} x {cd:,} CSR counts, {cw} words a row "
        "(scikit-learn is not run where its dense rows x classes labels would pass "
        f"{workloads.REFERENCE_LABEL_ENTRIES:,} entries)",
        many,
    )
    lines += _table(
        f"Semi-supervised EM against `GaussianMixture`: n = {en:,}, d = {ed}, K = {ek}",
        em,
    )
    lines += _table(
        f"First call in a fresh process, compilation included: n = {sn:,}, d = {sd}, K = {sk}",
        first,
    )
    mn, md, mk, _ = sizes["missing"]
    lines += missing_features.table(
        f"Missing features (20 % of entries, at random) against complete rows: n = {mn:,}, "
        f"d = {md}, K = {mk}",
        gaps,
    )
    lines += gappy_uncertainty.table(
        "Uncertainty after a fit on a gappy table: breast cancer, 20 % of cells missing "
        "(first call: the posterior chains; later: kept with the model)",
        uncertainty,
    )
    answer_runs = sizes["first_answer"]["runs"]
    lines += first_answer.table(
        f"First answer: fresh processes, median of {answer_runs} each",
        answers,
    )
    lines += [
        f"### Peak memory added by `fit` (n = {n:,}, d = {d}, K = {k})",
        "",
        "Growth of the peak resident set (VmHWM) of a fresh process during `fit`, beyond "
        "its peak before (imports, data and compilation); X itself is "
        f"{memory[0]['x_mib']:.0f} MiB.",
        "",
        "| model | bayesgen MiB | scikit-learn MiB |",
        "| --- | ---: | ---: |",
    ]
    lines += [f"| {r['model']} | {r['bayesgen']:.0f} | {r['scikit-learn']:.0f} |" for r in memory]
    if args.section == "all":
        lines += [""] + synthetic_section(args.quick)
        lines += [""] + imputation_section(args.quick)
    return _report(lines, args.write)


def imputation_section(quick: bool) -> list[str]:
    """The imputation comparison's lines (`benchmarks.imputation`), with the command and the
    time it took."""
    started = time.perf_counter()
    results = imputation.run(quick=quick)
    command = "python -m benchmarks --section imputation" + (" --quick" if quick else "")
    return [
        "### Imputation against scikit-learn's imputers",
        "",
        imputation.report(results),
        "",
        f"`{command}` took {time.perf_counter() - started:.0f} s.",
    ]


def synthetic_section(quick: bool) -> list[str]:
    """The synthetic-data comparison's lines, with the command and the time it took."""
    started = time.perf_counter()
    results = synthetic_data.run(quick=quick)
    command = "python -m benchmarks --section synthetic" + (" --quick" if quick else "")
    return synthetic_data.table(results) + [
        f"Written by `{command}` in {time.perf_counter() - started:.0f} s on "
        f"{os.cpu_count()} cores ({platform.machine()}).",
        "",
    ]


def _report(lines: list[str], path: str | None) -> str:
    report = "\n".join(lines) + "\n"
    print(report)
    if path:
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(report)
    return report


if __name__ == "__main__":
    main()
