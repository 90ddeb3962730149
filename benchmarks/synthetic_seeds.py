"""``python -m benchmarks.synthetic_seeds``: `TableSynthesizer` over several splits per table.

One split and one draw move a small table's detector AUC by several hundredths (wines:
0.51 to 0.71 over four draws of one fit), so a change to the generator is read here on the
means over ``--seeds`` splits (seeds 0, 1, …): for each, ``TableSynthesizer(target=...,
random_state=seed)`` is fitted on 70 % of the table and draws as many rows, and
`bayesgen.synthetic.quality_report` gives the detector's AUC against those training rows
(with real against real), TSTR (TRTR) and the DCR ratio. Beside them, the **held-out AUC**:
the same detector on a second draw, as large as the held-out 30 %, against those held-out
rows. Draws that hold the training rows' own values sit where a training row the
detector's fold left out was, and push the first AUC below real against real with no gain
in fidelity; the held-out AUC does not reward that.

The table of ``docs/synthetic-data.md`` ("Small tables") is
``python -m benchmarks.synthetic_seeds --tables penguins,wine,breast_cancer,anes96``.
"""

from __future__ import annotations

import argparse
import os
import time
import warnings
from dataclasses import dataclass

os.environ.setdefault("XLA_FLAGS", "--xla_cpu_enable_concurrency_optimized_scheduler=false")

import numpy as np  # noqa: E402
from sklearn.exceptions import ConvergenceWarning  # noqa: E402

from benchmarks.synthetic_data import TABLES, labelled_table, split_of  # noqa: E402


@dataclass(frozen=True)
class Split:
    """One table, one split: the figures of one fit and its draws."""

    table: str
    seed: int
    detector_auc: float
    real_auc: float
    held_out_auc: float
    tstr_accuracy: float
    trtr_accuracy: float
    dcr_ratio: float
    fit_seconds: float
    choice: str


def run(tables, seeds: int, settings: dict | None = None) -> list[Split]:
    """Each of ``tables`` over ``seeds`` splits.

    Parameters
    ----------
    tables : iterable of str
        Names of `benchmarks.synthetic_data.TABLES`; a table whose package is not
        installed is left out.
    seeds : int
        Splits 0, 1, …, ``seeds - 1`` (each also the synthesizer's and the draws' seed).
    settings : dict, optional
        ``TableSynthesizer``'s settings besides its target and seed.

    Returns
    -------
    list of Split
    """
    from bayesgen import TableSynthesizer
    from bayesgen.synthetic import quality_report
    from bayesgen.synthetic.detection import detector_auc
    from bayesgen.synthetic.tables import check_tables

    results = []
    for name in tables:
        loaded = labelled_table(name)
        if loaded is None:
            continue
        frame, target = loaded
        for seed in range(seeds):
            train, holdout = split_of(frame, target, seed)
            started = time.perf_counter()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ConvergenceWarning)
                model = TableSynthesizer(target=target, random_state=seed, **(settings or {}))
                model.fit(train)
            fitted = time.perf_counter() - started
            drawn = model.sample(len(train), random_state=seed)[list(frame.columns)]
            report = quality_report(train, drawn, target=target, holdout=holdout, random_state=seed)
            second = model.sample(len(holdout), random_state=seed + 1000)[list(frame.columns)]
            (_, second, real), columns = check_tables(train, second, holdout, target)
            results.append(
                Split(
                    name,
                    seed,
                    report.detector_auc,
                    report.real_detector_auc,
                    detector_auc(real, second, columns, seed)[0],
                    report.utility.synthetic_accuracy,
                    report.utility.real_accuracy,
                    report.privacy.ratio,
                    fitted,
                    f"{model.choice_['numeric_columns']}, {model.choice_['n_components']}",
                )
            )
    return results


def table(results: list[Split]) -> list[str]:
    """The means over each table's splits.

    Parameters
    ----------
    results : list of Split
        What `run` returned.

    Returns
    -------
    list of str
        Markdown lines: a header and one row per table.
    """
    lines = [
        "| table | splits | detector AUC (real vs real) | held-out AUC | TSTR (TRTR) | DCR "
        "| fit s |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for name in dict.fromkeys(r.table for r in results):
        rows = [r for r in results if r.table == name]

        def mean(field, rows=rows):
            return float(np.nanmean([getattr(r, field) for r in rows]))

        lines.append(
            f"| {name} | {len(rows)} | {mean('detector_auc'):.3f} ({mean('real_auc'):.3f}) "
            f"| {mean('held_out_auc'):.3f} | {mean('tstr_accuracy'):.3f} "
            f"({mean('trtr_accuracy'):.3f}) | {mean('dcr_ratio'):.2f} "
            f"| {mean('fit_seconds'):.1f} |"
        )
    return lines


def main() -> None:
    """The command line: ``--tables a,b`` (default every table) and ``--seeds N``."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", default=",".join(TABLES))
    parser.add_argument("--seeds", type=int, default=5)
    options = parser.parse_args()
    results = run(options.tables.split(","), options.seeds)
    for r in results:
        print(
            f"{r.table} seed {r.seed}: AUC {r.detector_auc:.3f} ({r.real_auc:.3f}), held-out "
            f"{r.held_out_auc:.3f}, TSTR {r.tstr_accuracy:.3f} ({r.trtr_accuracy:.3f}), DCR "
            f"{r.dcr_ratio:.2f}, fit {r.fit_seconds:.1f} s, {r.choice}"
        )
    print("\n".join(table(results)))


if __name__ == "__main__":
    main()
