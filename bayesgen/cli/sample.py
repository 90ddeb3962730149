"""``bayesgen sample``: synthetic rows drawn from a fitted model's generative story."""

from __future__ import annotations

import click
import pandas as pd

from bayesgen.cli.errors import UserError, user_errors
from bayesgen.cli.model_files import feature_names, metadata_of, open_model
from bayesgen.cli.outputs import check_output
from bayesgen.cli.tables import check_output_suffix, write_table


def class_named(model, text: str):
    """The class of ``model`` whose text is ``text`` (labels read from a file are text)."""
    for label in model.classes_:
        if str(label) == text:
            return label
    raise UserError(
        f"--class {text!r} is not a class of the model; its classes are "
        f"{', '.join(map(str, model.classes_))}."
    )


@click.command()
@click.argument("model_path", metavar="MODEL", type=click.Path(dir_okay=False))
@click.option("-n", "n_rows", required=True, type=click.IntRange(1), help="Rows to draw.")
@click.option("--class", "class_", help="Draw every row from this class (default: y ~ prior).")
@click.option("--seed", default=0, show_default=True, type=int, help="Random seed.")
@click.option("--out", type=click.Path(dir_okay=False), help="Output table (default: stdout, CSV).")
def sample(model_path, n_rows, class_, seed, out):
    """Draw N synthetic rows from the model in MODEL: a class, then the features given it."""
    check_output_suffix(out)
    check_output(out, {"MODEL": model_path})
    model, info = open_model(model_path)
    label = None if class_ is None else class_named(model, class_)
    with user_errors("sample: "):
        X, y = model.sample(n_rows, y=label, random_state=seed)
    names = feature_names(model, info) or [f"x{j}" for j in range(X.shape[1])]
    table = X.copy() if isinstance(X, pd.DataFrame) else pd.DataFrame(X, columns=names)
    metadata = metadata_of(info)
    if "target" not in metadata or metadata["target"] is not None:  # a table without one
        table[metadata.get("target", "class")] = y
    write_table(table, out)
