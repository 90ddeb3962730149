"""``bayesgen sample``: synthetic rows drawn from a fitted model's generative story."""

from __future__ import annotations

import click
import numpy as np
import pandas as pd

from bayesgen import conditioning
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


def _category_named(categories, name: str, text: str):
    for category in categories:
        if str(category) == text:
            return category
    for category in categories:  # true, false, 1 and 0 for a boolean category
        if isinstance(category, bool | np.bool_) and text.lower() in _BOOLEAN_TEXT[category]:
            return category
    raise UserError(
        f"--given {name}={text}: {text!r} is not a category of {name}; its categories are "
        f"{', '.join(map(str, categories))}."
    )


_BOOLEAN_TEXT = {True: ("true", "1"), False: ("false", "0")}


def _given_value(model, position: int, name: str, text: str):
    """``text`` as the column's values are: the category whose text it is for a column of
    categories, True/False for a boolean column, a number for a numeric one, else the
    text itself."""
    schema = getattr(model, "_training_columns", None)
    column = None if schema is None else schema[position]
    if column is not None and column["categories"] is not None:
        return _category_named(column["categories"], name, text)
    family = getattr(model, "family_", None)
    learned = {} if family is None else conditioning.known_categories(family)
    if position in learned and not all(isinstance(c, str) for c in learned[position]):
        return _category_named(learned[position], name, text)
    if position in learned:  # text categories: the text itself (an unseen one included)
        return text
    dtype = None if column is None else pd.api.types.pandas_dtype(column["dtype"])
    if dtype is not None and pd.api.types.is_bool_dtype(dtype):
        for value, texts in _BOOLEAN_TEXT.items():
            if text.lower() in texts:
                return value
        raise UserError(f"--given {name}={text}: {name} takes true or false; got {text!r}.")
    numeric = dtype is None or pd.api.types.is_numeric_dtype(dtype)
    if not numeric:
        return text
    try:
        return float(text)
    except ValueError:
        if column is not None:
            raise UserError(f"--given {name}={text}: {name} takes numbers; got {text!r}.") from None
        return text


def given_columns(model, info: dict, items) -> dict | None:
    """``--given col=value`` options as ``sample``'s ``given``: column names (or positions,
    for a model saved without names, whose columns are ``x0, x1, ...``) to values."""
    if not items:
        return None
    names = feature_names(model, info) or [f"x{j}" for j in range(model.n_features_in_)]
    schema = getattr(model, "_training_columns", None)
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
        key = position
        if keyed_by_name:
            key = model.feature_names_in_[position]
        elif schema is not None:
            key = schema[position]["name"]
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
@click.option(
    "--support",
    type=click.Choice(["model", "training"]),
    default="model",
    show_default=True,
    help="model: the model's own law; training: that law truncated to each numeric "
    "column's training range.",
)
@click.option(
    "--missing",
    type=click.Choice(["none", "training"]),
    default="none",
    show_default=True,
    help="none: complete rows; training: each column's cells left blank at its training "
    "missing rate.",
)
@click.option(
    "--rounding",
    type=click.Choice(["none", "training"]),
    default="none",
    show_default=True,
    help="none: the model's values; training: each numeric column rounded to the grid its "
    "training values were recorded on (whole numbers, 2 decimals, steps of 25, ...).",
)
@click.option("--seed", default=0, show_default=True, type=int, help="Random seed.")
@click.option("--out", type=click.Path(dir_okay=False), help="Output table (default: stdout, CSV).")
def sample(model_path, n_rows, class_, given_items, support, missing, rounding, seed, out):
    """Draw N synthetic rows from the model in MODEL: a class, then the features given it.

    With --given, the class and the other columns are drawn given the named values."""
    check_output_suffix(out)
    check_output(out, {"MODEL": model_path})
    model, info = open_model(model_path)
    label = None if class_ is None else class_named(model, class_)
    given = given_columns(model, info, given_items)
    with user_errors("sample: "):
        X, y = model.sample(
            n_rows,
            y=label,
            given=given,
            support=support,
            missing=None if missing == "none" else missing,
            rounding=None if rounding == "none" else rounding,
            random_state=seed,
        )
    names = feature_names(model, info) or [f"x{j}" for j in range(X.shape[1])]
    table = X.copy() if isinstance(X, pd.DataFrame) else pd.DataFrame(X, columns=names)
    metadata = metadata_of(info)
    if "target" not in metadata or metadata["target"] is not None:  # a table without one
        table[metadata.get("target", "class")] = y
    write_table(table, out)
