"""``bayesgen fit``: fit a model to a table and save it as a model file."""

from __future__ import annotations

import numbers
from pathlib import Path

import click
import numpy as np
import pandas as pd

from bayesgen.cli.errors import UserError, user_errors
from bayesgen.cli.model_choice import MODELS, NUMERIC_CLASSES, NUMERIC_MODELS, build_model
from bayesgen.cli.outputs import atomic_output, check_output
from bayesgen.cli.tables import na_values_option, read_table, select_columns
from bayesgen.progress import show_progress


def labels_of(column: pd.Series) -> np.ndarray:
    """The target column as labels: blank cells become ``None`` (an unlabelled row).

    Whole-number floats (a numeric column that pandas widened to hold blanks) become ints, so
    that ``1.0`` and ``1`` are one class.
    """
    present = column.notna().to_numpy()
    if present.all():
        return column.to_numpy()
    values = column.to_numpy(dtype=object, copy=True)
    if pd.api.types.is_float_dtype(column) and np.all(np.mod(column[present], 1) == 0):
        values[present] = column[present].astype(np.int64).to_numpy()
    values[~present] = None
    return values


def marker_for(text: str, y: np.ndarray):
    """The ``--unlabeled-marker`` TEXT as a label of ``y``'s kind: ``None`` for ``''``, a
    number when every present label is a number and TEXT reads as one, else TEXT."""
    if text == "":
        return None
    present = [label for label in y if label is not None]
    numeric = all(
        isinstance(label, numbers.Real) and not isinstance(label, (bool, np.bool_))
        for label in present
    )
    if numeric:
        try:
            number = float(text)
        except ValueError:
            return text
        return int(number) if number.is_integer() else number
    return text


def check_numeric(features: pd.DataFrame, model: str) -> pd.DataFrame:
    """The feature columns as a model of numbers reads them; text in them is refused, naming
    the column and row.

    ``model`` is a ``--model`` name, or an estimator's class name for a model file saved from
    Python; the categorical and mixed models take any column, but for ``mixed-nb`` a column
    of numbers with a few stray words (under 5% of its cells) is taken for a mistake too. A
    column whose every value is a number held as an object (an integer beyond 64 bits, a
    Parquet decimal) is returned as floats; dates and times are refused.

    Returns
    -------
    pandas.DataFrame
        ``features``, or a copy with such columns converted.
    """
    numeric_model = model in NUMERIC_MODELS or model in NUMERIC_CLASSES
    if not numeric_model and model != "mixed-nb":
        return features
    converted = {}
    for column in features.columns:
        values = features[column]
        if pd.api.types.is_bool_dtype(values):
            continue
        if pd.api.types.is_datetime64_any_dtype(values) or pd.api.types.is_timedelta64_dtype(
            values
        ):
            raise UserError(
                f"column {column!r} holds dates or times ({values.dtype}), which model "
                f"'{model}' does not read; convert them to numbers (such as days since a date) "
                "or leave the column out with --features."
            )
        if pd.api.types.is_numeric_dtype(values):
            continue
        present = values.notna().to_numpy()
        as_numbers = pd.to_numeric(values, errors="coerce")
        numbers = as_numbers.notna().to_numpy()
        text = present & ~numbers
        if not text.any() and numbers.any():
            converted[column] = as_numbers.astype(float)  # numbers held as objects
            continue
        if not numeric_model and (numbers.sum() < 0.95 * present.sum() or not numbers.any()):
            continue  # a categorical column of mixed-nb
        row = int(np.flatnonzero(text)[0])
        if numbers.any():
            raise UserError(
                f"column {column!r} holds numbers but also the text {values.iloc[row]!r} (first "
                f"at data row {row}, counting from 0); fix the cell, or pass --na-values "
                f"{values.iloc[row]!s} to read it as missing."
            )
        raise UserError(
            f"model '{model}' needs numeric features, but column(s) {column!r} are not numeric "
            f"(e.g. {values.iloc[row]!r} at data row {row}); use --model mixed-nb or "
            "categorical-nb, or leave them out with --features."
        )
    if not converted:
        return features
    features = features.copy()
    for column, values in converted.items():
        features[column] = values
    return features


@click.command()
@click.argument("data", type=click.Path(dir_okay=False))
@click.option(
    "--target",
    help="Column of class labels, read as written (NA, None are class names); blank cells "
    "and --unlabeled-marker cells are unlabelled. Without it the whole table is one class "
    "(for impute, sample and scores; --model defaults to gaussian-da then).",
)
@click.option(
    "--unlabeled-marker",
    "unlabeled_marker",
    metavar="TEXT",
    help="The --target value of an unlabelled row besides blank cells (default: the model's "
    "unlabeled_marker, -1); '' for blank cells only.",
)
@click.option(
    "--model",
    "model_name",
    type=click.Choice(sorted(MODELS)),
    help="Which generative classifier (default: qda; gaussian-da without --target).",
)
@click.option(
    "--estimate",
    type=click.Choice(["mle", "map", "mean", "unbiased"]),
    help="Point estimate (unbiased: the Gaussian models only, as R's MASS and e1071).",
)
@click.option("--alpha", type=float, help="Additive smoothing (Dirichlet/Beta concentration).")
@click.option(
    "--param",
    "params",
    multiple=True,
    metavar="NAME=VALUE",
    help="Any other parameter of the model (repeatable); VALUE is read as JSON if it parses.",
)
@click.option(
    "--features",
    help="Comma-separated feature columns (default: every column but the target).",
)
@click.option("--out", required=True, type=click.Path(dir_okay=False), help="Model file to write.")
@na_values_option
def fit(  # noqa: PLR0913 -- one argument per command-line option
    data, target, unlabeled_marker, model_name, estimate, alpha, params, features, out, na_values
):
    """Fit a model to the table DATA (.csv, .tsv or .parquet) and save it to --out.

    Rows whose --target cell is blank or the unlabelled marker (-1 unless
    --unlabeled-marker says otherwise) are unlabelled: they are fitted by EM through their
    mixture likelihood. Blank feature cells are missing values, integrated out exactly.
    """
    check_output(out, {"DATA": data})
    model_name = model_name or ("qda" if target is not None else "gaussian-da")
    if target is None:
        _check_takes_one_class(model_name)
        if unlabeled_marker is not None:
            raise UserError("--unlabeled-marker needs --target (a column of labels).")
    targets = [] if target is None else [target]
    table = read_table(data, na_values=na_values, literal_columns=targets)
    select_columns(table, targets, "--target")
    names = (
        [name.strip() for name in features.split(",") if name.strip()]
        if features
        else [column for column in table.columns if column != target]
    )
    if target in names:
        raise UserError(f"--features includes the target column {target!r}.")
    if not names:
        raise UserError("there are no feature columns besides the target.")
    X = select_columns(table, names, "--features")
    blank = [column for column in X.columns if X[column].isna().all()]
    if blank:
        raise UserError(
            f"column(s) {', '.join(map(repr, blank))} have no value (every cell is blank), so "
            "no model can learn from them; leave them out with --features."
        )
    X = check_numeric(X, model_name)
    y = labels_of(table[target]) if target is not None else _one_class(table.shape[0])
    model = build_model(model_name, estimate=estimate, alpha=alpha, params=params)
    if unlabeled_marker is not None:
        if "unlabeled_marker" not in model.get_params():
            raise UserError(f"--unlabeled-marker does not apply to model '{model_name}'.")
        model.set_params(unlabeled_marker=marker_for(unlabeled_marker, y))
    with user_errors("fit: ", parameters=True), show_progress():
        model.fit(X, y)
    from bayesgen.inference.semi_supervised import unlabeled_rows

    unlabelled = int(unlabeled_rows(y, getattr(model, "unlabeled_marker", None)).sum())
    metadata = {
        "model": model_name,
        "target": target,
        "features": names,
        "data": Path(data).name,
        "n_rows": int(table.shape[0]),
        "n_unlabelled": unlabelled,
    }
    with user_errors(f"--out '{out}': "), atomic_output(out) as temporary:
        model.save(temporary, metadata=metadata)
    if target is None:
        click.echo(
            f"Fitted {model_name} on {table.shape[0]} rows as one class (no --target), "
            f"{len(names)} features; saved to {out}."
        )
        return
    click.echo(
        f"Fitted {model_name} on {table.shape[0]} rows ({unlabelled} unlabelled), "
        f"{len(names)} features, classes {', '.join(map(str, model.classes_))}; "
        f"saved to {out}."
    )


def _one_class(n_rows: int) -> np.ndarray:
    """Labels of a table without --target: every row in the one class ``TABLE_CLASS``."""
    from bayesgen.estimators.imputer import TABLE_CLASS

    return np.full(n_rows, TABLE_CLASS, dtype=object)


def _check_takes_one_class(model_name: str) -> None:
    """Refuse, before reading the data, a model that needs two classes when there is no
    --target, naming those that take one."""
    if getattr(MODELS[model_name], "min_classes", 2) <= 1:
        return
    takes_one = sorted(name for name, cls in MODELS.items() if getattr(cls, "min_classes", 2) <= 1)
    raise UserError(
        f"model '{model_name}' needs at least two classes, so it needs --target; without a "
        f"class column use one of: {', '.join(takes_one)}."
    )
