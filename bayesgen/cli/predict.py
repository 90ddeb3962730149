"""``bayesgen predict``: classes, probabilities and credible intervals for a table's rows."""

from __future__ import annotations

import math

import click
import numpy as np
import pandas as pd

from bayesgen.cli.errors import UserError, user_errors
from bayesgen.cli.model_files import features_of, model_input, open_model
from bayesgen.cli.outputs import check_output
from bayesgen.cli.tables import (
    as_written,
    check_output_suffix,
    na_values_option,
    read_table,
    select_columns,
    write_table,
)
from bayesgen.progress import progress_bar, show_progress

_BATCH_ENTRIES = 2**24  # (draw, row, class) values held per batch at most


def _batches(n_rows: int, batch_size: int):
    return [slice(start, min(start + batch_size, n_rows)) for start in range(0, n_rows, batch_size)]


def _decision(model, reject, abstain_label) -> dict:
    """``predict``'s keywords for ``--reject``: with ``--abstain-label`` the column is text,
    so the label must differ from every class as text too."""
    if reject is None:
        return {}
    if abstain_label is not None and abstain_label in {str(c) for c in model.classes_}:
        raise UserError(
            f"--abstain-label {abstain_label!r} is a class of the model "
            f"({', '.join(map(str, model.classes_))}); choose another label."
        )
    return {"reject": reject, "abstain_label": abstain_label}


def predictions(
    model,
    X: pd.DataFrame,
    *,
    proba,
    uncertainty,
    n_draws,
    seed,
    batch_size,
    decision=None,
    novelty=False,
):
    """The output table: ``predicted``, and ``p(...)``/credible bounds/novelty when asked for.

    ``decision`` holds ``predict``'s keywords (``reject``, ``abstain_label``): an abstained
    row's ``predicted`` is the abstain label (text, when one is given).

    ``p(c)`` is the plug-in probability (``predict_proba``, what ``predicted`` decides
    with); with ``uncertainty``, ``p(c) mean`` is the mean of the posterior draws of
    p(c | x, θ), the point that belongs with the interval ``p(c) lower`` … ``p(c) upper``.

    Rows are predicted in batches of ``batch_size`` (a progress bar counts them), fewer when
    there are many classes (at most 2**24 values of p(class | x) and its draws per batch);
    the draws of the credible intervals use one seed for the whole table. With ``novelty``,
    ``log p(x)`` is ``score_samples`` and ``tail probability`` is ``tail_probability``
    (one set of reference rows, drawn with ``seed``, for the whole table), which means the
    same whatever cells of a row are blank.
    """
    names = [str(label) for label in model.classes_]
    # Many classes: fewer rows per batch, so that (draws x) rows x classes stays bounded.
    per_row = len(names) * (n_draws if uncertainty is not None else 1)
    batch_size = max(1, min(batch_size, _BATCH_ENTRIES // per_row))
    parts = []
    with progress_bar(X.shape[0], "predicting", unit="row") as bar:
        for batch in _batches(X.shape[0], batch_size):
            rows = model_input(model, X.iloc[batch])
            predicted = model.predict(rows, **(decision or {}))
            if (decision or {}).get("abstain_label") is not None:
                predicted = predicted.astype(str)
            part = {"predicted": predicted}
            if proba or uncertainty is not None:
                probabilities = model.predict_proba(rows)
                for k, name in enumerate(names):
                    part[f"p({name})"] = probabilities[:, k]
            if uncertainty is not None:
                draws = model.predict_proba_draws(rows, n_draws, random_state=seed)
                tail = (1.0 - uncertainty) / 2.0
                lower, upper = np.quantile(draws, [tail, 1.0 - tail], axis=0)
                mean = draws.mean(axis=0)
                for k, name in enumerate(names):
                    part[f"p({name}) mean"] = mean[:, k]
                    part[f"p({name}) lower"] = lower[:, k]
                    part[f"p({name}) upper"] = upper[:, k]
            parts.append(pd.DataFrame(part))
            bar.update(batch.stop - batch.start)
    table = pd.concat(parts, ignore_index=True)
    if novelty:
        rows = model_input(model, X)
        table["log p(x)"] = model.score_samples(rows)
        table["tail probability"] = model.tail_probability(rows, random_state=seed)
    return table


def _output_names(model, proba, uncertainty, novelty) -> set[str]:
    """The columns `predictions` writes for these options."""
    names = {"predicted"}
    for label in map(str, model.classes_):
        if proba or uncertainty is not None:
            names.add(f"p({label})")
        if uncertainty is not None:
            names.update(f"p({label}) {bound}" for bound in ("mean", "lower", "upper"))
    if novelty:
        names.update({"log p(x)", "tail probability"})
    return names


def _a_number(context, parameter, value):
    """``value`` unless it is NaN, which passes every range check (each comparison is False)."""
    if value is not None and math.isnan(value):
        raise click.BadParameter(
            "nan is not a number between 0 and 1 (e.g. 0.9).", context, parameter
        )
    return value


@click.command()
@click.argument("model_path", metavar="MODEL", type=click.Path(dir_okay=False))
@click.argument("data", type=click.Path(dir_okay=False))
@click.option("--proba", is_flag=True, help="Add p(class | x) for every class.")
@click.option(
    "--uncertainty",
    type=click.FloatRange(0, 1, min_open=True, max_open=True),
    callback=_a_number,
    metavar="LEVEL",
    help="Add equal-tailed credible intervals of p(class | x) at LEVEL (e.g. 0.9), from "
    "draws of the parameters' posterior, and their mean 'p(CLASS) mean'. 'p(CLASS)' stays the "
    "plug-in probability (the fitted parameters put in), which can lie outside the interval.",
)
@click.option(
    "--draws",
    "n_draws",
    default=400,
    show_default=True,
    type=click.IntRange(2),
    help="Posterior draws behind --uncertainty.",
)
@click.option(
    "--novelty",
    is_flag=True,
    help="Add 'log p(x)' and 'tail probability': the probability that a row from the model, "
    "with the same cells blank, is at least as unusual (uniform under the model for every "
    "pattern of blank cells, so one threshold such as 0.01 serves all rows).",
)
@click.option("--seed", default=0, show_default=True, type=int, help="Seed of the draws.")
@click.option(
    "--batch-size",
    default=100_000,
    show_default=True,
    type=click.IntRange(1),
    help="Rows predicted at a time.",
)
@click.option(
    "--reject",
    type=click.FloatRange(0, 1, min_open=True, max_open=True),
    metavar="C",
    help="Abstain where the most probable class has p(class | x) < 1 - C (Chow's rule: the "
    "decision of least expected cost when abstaining costs C and an error 1). An abstained "
    "row's 'predicted' is -1 for numeric classes, blank for others, or --abstain-label.",
)
@click.option(
    "--abstain-label",
    metavar="TEXT",
    help="The 'predicted' of an abstained row under --reject (the column is then text).",
)
@click.option(
    "--keep",
    "kept",
    multiple=True,
    metavar="COLUMN",
    help="Copy this column of DATA into the output, before the predictions, as written (an "
    "identifier, say); repeat for several. It may be a feature column too.",
)
@click.option("--out", type=click.Path(dir_okay=False), help="Output table (default: stdout, CSV).")
@na_values_option
def predict(
    model_path,
    data,
    proba,
    uncertainty,
    novelty,
    n_draws,
    seed,
    batch_size,
    reject,
    abstain_label,
    kept,
    out,
    na_values,
):
    """Predict the class of every row of DATA with the model in MODEL.

    Columns the model was not fitted on are ignored; blank feature cells are missing values,
    integrated out exactly.
    """
    check_output_suffix(out)
    check_output(out, {"MODEL": model_path, "DATA": data})
    model, info = open_model(model_path)
    table = read_table(data, na_values=na_values)
    kept_columns = select_columns(table, list(kept), "--keep")  # before any work
    X = features_of(table, model, info)
    if uncertainty is not None and not hasattr(model, "predict_proba_draws"):
        raise UserError(f"--uncertainty: a {type(model).__name__} has no posterior draws.")
    if abstain_label is not None and reject is None:
        raise UserError("--abstain-label labels the rows --reject abstains on; give --reject.")
    decision = _decision(model, reject, abstain_label)
    produced = _output_names(model, proba, uncertainty, novelty)
    clash = [name for name in kept if name in produced]
    if clash:
        raise UserError(
            f"--keep {', '.join(map(repr, clash))}: the output has a column of that name "
            "already (a prediction); rename that column of DATA."
        )
    if novelty and not hasattr(model, "tail_probability"):
        raise UserError(f"--novelty: a {type(model).__name__} has no density p(x).")
    with user_errors("predict: "), show_progress():
        table = predictions(
            model,
            X,
            proba=proba,
            uncertainty=uncertainty,
            n_draws=n_draws,
            seed=seed,
            batch_size=batch_size,
            decision=decision,
            novelty=novelty,
        )
    if kept:
        kept_columns = as_written(data, kept_columns, list(kept)).reset_index(drop=True)
        table = pd.concat([kept_columns, table], axis=1)
    write_table(table, out)
