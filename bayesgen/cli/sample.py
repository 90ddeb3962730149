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


def _given_value(model, position: int, name: str, text: str):
    """``text`` as the column's values are: a number for a numeric column, the category
    whose text it is for a categorical one, else the text itself."""
    schema = getattr(model, "_training_columns", None)
    column = None if schema is None else schema[position]
    if column is not None and column["categories"] is not None:
        for category in column["categories"]:
            if str(category) == text:
                return category
        raise UserError(
            f"--given {name}={text}: {text!r} is not a category of {name}; its categories are "
            f"{', '.join(map(str, column['categories']))}."
        )
    numeric = column is None or pd.api.types.is_numeric_dtype(
        pd.api.types.pandas_dtype(column["dtype"])
    )
    try:
        return float(text)
    except ValueError:
        if column is not None and numeric:
            raise UserError(f"--given {name}={text}: {name} takes numbers; got {text!r}.") from None
        return text


def given_columns(model, info: dict, items) -> dict | None:
    """``--given col=value`` options as ``sample``'s ``given``: column names (or positions,
    for a model saved without names, whose columns are ``x0, x1, ...``) to values."""
    if not items:
        return None
    names = feature_names(model, info) or [f"x{j}" for j in range(model.n_features_in_)]
    keyed_by_name = hasattr(model, "feature_names_in_")
    given = {}
    for item in items:
        name, equals, text = item.partition("=")
        if not equals or not name:
            raise UserError(f"--given takes COLUMN=VALUE; got {item!r}.")
        if name not in names:
            raise UserError(
                f"--given {item}: the model has no column {name!r}; its columns are "
                f"{', '.join(names)}."
            )
        position = names.index(name)
        key = model.feature_names_in_[position] if keyed_by_name else position
        given[key] = _given_value(model, position, name, text)
    return given


@click.command()
@click.argument("model_path", metavar="MODEL", type=click.Path(dir_okay=False))
@click.option("-n", "n_rows", required=True, type=click.IntRange(1), help="Rows to draw.")
@click.option("--class", "class_", help="Draw every row from this class (default: y ~ prior).")
@click.option(
    "--given",
    "given_items",
    multiple=True,
    metavar="COLUMN=VALUE",
    help="Draw from the exact conditional law given this column value (repeatable); every "
    "row holds it, however rare.",
)
@click.option("--seed", default=0, show_default=True, type=int, help="Random seed.")
@click.option("--out", type=click.Path(dir_okay=False), help="Output table (default: stdout, CSV).")
def sample(model_path, n_rows, class_, given_items, seed, out):
    """Draw N synthetic rows from the model in MODEL: a class, then the features given it.

    With --given, the class and the other columns are drawn given the named values."""
    check_output_suffix(out)
    check_output(out, {"MODEL": model_path})
    model, info = open_model(model_path)
    label = None if class_ is None else class_named(model, class_)
    given = given_columns(model, info, given_items)
    with user_errors("sample: "):
        X, y = model.sample(n_rows, y=label, given=given, random_state=seed)
    names = feature_names(model, info) or [f"x{j}" for j in range(X.shape[1])]
    table = X.copy() if isinstance(X, pd.DataFrame) else pd.DataFrame(X, columns=names)
    metadata = metadata_of(info)
    if "target" not in metadata or metadata["target"] is not None:  # a table without one
        table[metadata.get("target", "class")] = y
    write_table(table, out)
