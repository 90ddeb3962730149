"""``bayesgen impute``: fill a table's missing feature cells from the fitted model."""

from __future__ import annotations

import click

from bayesgen.cli.errors import user_errors
from bayesgen.cli.model_files import features_of, model_input, open_model
from bayesgen.cli.outputs import check_output
from bayesgen.cli.tables import (
    as_written,
    check_output_suffix,
    na_values_option,
    read_table,
    write_table,
)


@click.command()
@click.argument("model_path", metavar="MODEL", type=click.Path(dir_okay=False))
@click.argument("data", type=click.Path(dir_okay=False))
@click.option(
    "--method",
    type=click.Choice(["mean", "sample"]),
    default="mean",
    show_default=True,
    help="Conditional mean E[x_missing | x_observed], or a draw from that conditional.",
)
@click.option("--seed", default=0, show_default=True, type=int, help="Seed of --method sample.")
@click.option("--out", type=click.Path(dir_okay=False), help="Output table (default: stdout, CSV).")
@na_values_option
def impute(model_path, data, method, seed, out, na_values):
    """Fill the blank feature cells of DATA given each row's observed cells.

    The class is integrated out. Other columns are copied unchanged.
    """
    check_output_suffix(out)
    check_output(out, {"MODEL": model_path, "DATA": data})
    model, info = open_model(model_path)
    table = read_table(data, na_values=na_values)
    X = features_of(table, model, info)
    with user_errors("impute: "):
        filled = model.impute(model_input(model, X), method=method, random_state=seed)
    passthrough = [column for column in table.columns if column not in X.columns]
    table = as_written(data, table, passthrough)
    table[list(X.columns)] = filled
    write_table(table, out)
