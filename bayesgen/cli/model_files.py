"""Opening a model file for a command, and finding its feature columns in a table."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

import bayesgen
from bayesgen.cli.errors import UserError, one_line
from bayesgen.cli.fit import check_numeric
from bayesgen.cli.tables import select_columns


def open_model(path: str):
    """The estimator in the model file ``path`` and the file's metadata.

    Raises
    ------
    UserError
        If the file is missing or is not a valid bayesgen model file.
    """
    if not Path(path).is_file():
        raise UserError(f"MODEL '{path}' does not exist or is not a file.")
    try:
        model = bayesgen.load(path)
        info = bayesgen.model_file_info(path)
    except (ValueError, OSError) as error:
        raise UserError(f"MODEL '{path}' is not a usable model file: {one_line(error)}") from error
    return model, info


def metadata_of(info: dict) -> dict:
    """The metadata ``bayesgen fit`` stored in the file (empty for a model saved elsewhere)."""
    metadata = info.get("metadata") or {}
    return metadata if isinstance(metadata, dict) else {}


def feature_names(model, info: dict) -> list[str] | None:
    """The model's feature columns: stored by ``bayesgen fit``, or ``feature_names_in_``."""
    names = metadata_of(info).get("features")
    if names is None and hasattr(model, "feature_names_in_"):
        names = [str(name) for name in model.feature_names_in_]
    return names


def features_of(table: pd.DataFrame, model, info: dict) -> pd.DataFrame:
    """The model's feature columns of ``table``, checked like ``bayesgen fit`` checks them."""
    names = feature_names(model, info)
    if names is None:
        n_features = model.n_features_in_
        if table.shape[1] != n_features:
            raise UserError(
                f"DATA has {table.shape[1]} columns, but the model (saved without column names) "
                f"expects {n_features}."
            )
        features = table
    else:
        features = select_columns(table, names, "the model's features")
    return check_numeric(features, metadata_of(info).get("model", type(model).__name__))


def model_input(model, rows: pd.DataFrame):
    """``rows`` as the model was fitted: a DataFrame if it knows column names, else an array.

    A model fitted on NumPy arrays has no ``feature_names_in_``; handing it a DataFrame makes
    scikit-learn warn "X has feature names" on every call.
    """
    if hasattr(model, "feature_names_in_"):
        return rows
    return rows.to_numpy()
