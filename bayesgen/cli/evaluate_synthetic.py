"""``bayesgen evaluate-synthetic``: the quality report of a synthetic table against the real one."""

from __future__ import annotations

import json
from pathlib import Path

import click

from bayesgen.cli.errors import UserError, one_line, user_errors
from bayesgen.cli.outputs import atomic_output, check_output
from bayesgen.cli.tables import READERS, na_values_option, read_table, write_table
from bayesgen.synthetic import quality_report


def _write_report(report, out: str) -> None:
    if Path(out).suffix.lower() != ".json":
        write_table(report.to_frame(), out)
        return
    try:
        with atomic_output(out) as temporary:
            Path(temporary).write_text(json.dumps(report.to_dict(), indent=2), encoding="utf-8")
    except OSError as error:
        raise UserError(f"--out '{out}' could not be written: {one_line(error)}") from error


@click.command("evaluate-synthetic")
@click.argument("real_path", metavar="REAL", type=click.Path(dir_okay=False))
@click.argument("synthetic_path", metavar="SYNTHETIC", type=click.Path(dir_okay=False))
@click.option("--target", help="Class column: adds train-on-synthetic-test-on-real scores.")
@click.option(
    "--holdout",
    "holdout_path",
    type=click.Path(dir_okay=False),
    help="Real rows the generator never saw (default: hold out 30% of REAL).",
)
@click.option("--seed", default=0, show_default=True, type=int, help="Random seed.")
@click.option(
    "--out",
    type=click.Path(dir_okay=False),
    help="Also write the figures: a table (.csv, .tsv, .parquet) or nested .json.",
)
@na_values_option
def evaluate_synthetic(real_path, synthetic_path, target, holdout_path, seed, out, na_values):
    """Measure the synthetic table SYNTHETIC against the real table REAL it was made from.

    Prints each column's marginal distance (KS or total variation), the mean difference of
    the columns' associations, train-on-synthetic against train-on-real scores (with
    --target), a detector's ROC AUC and the distances to the closest real record against
    real holdout rows (--holdout; by default 30% of REAL is held out). See
    docs/synthetic-data.md.
    """
    if out is not None and Path(out).suffix.lower() not in (*READERS, ".json"):
        raise UserError(
            f"--out '{out}' has suffix '{Path(out).suffix}'; expected one of "
            f"{', '.join((*READERS, '.json'))}."
        )
    inputs = {"REAL": real_path, "SYNTHETIC": synthetic_path, "--holdout": holdout_path}
    check_output(out, inputs)
    literal = [target] if target is not None else []
    tables = {
        name: read_table(path, name, na_values, literal)
        for name, path in inputs.items()
        if path is not None
    }
    for name in ("REAL", "--holdout"):
        table = tables.get(name)
        blank = [] if table is None else [c for c in table.columns if table[c].isna().all()]
        if blank:
            raise UserError(
                f"{name} column(s) {', '.join(map(repr, blank))} have no value (every cell is "
                "blank): there is nothing to compare them with; drop them from the tables."
            )
    with user_errors("evaluate-synthetic: "):
        report = quality_report(
            tables["REAL"],
            tables["SYNTHETIC"],
            target=target,
            holdout=tables.get("--holdout"),
            random_state=seed,
        )
    click.echo(str(report))
    if out is not None:
        _write_report(report, out)
