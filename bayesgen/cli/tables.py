"""Reading and writing the command line's tables: CSV, TSV and Parquet, by file suffix."""

from __future__ import annotations

import sys
from pathlib import Path

import pandas as pd

from bayesgen.cli.errors import UserError, one_line

READERS = {".csv": "CSV", ".tsv": "TSV", ".parquet": "Parquet", ".pq": "Parquet"}


def _format(path: Path, argument: str) -> str:
    kind = READERS.get(path.suffix.lower())
    if kind is None:
        raise UserError(
            f"{argument} '{path}' has suffix '{path.suffix}'; expected one of {', '.join(READERS)}."
        )
    return kind


def read_table(path: str, argument: str = "DATA") -> pd.DataFrame:
    """The table in ``path``; blank cells are NaN (missing features, unlabelled rows).

    Raises
    ------
    UserError
        If the file is missing, has an unknown suffix, cannot be parsed, or has no rows.
    """
    path = Path(path)
    kind = _format(path, argument)
    if not path.is_file():
        raise UserError(f"{argument} '{path}' does not exist or is not a file.")
    try:
        if kind == "Parquet":
            table = pd.read_parquet(path)
        else:
            table = pd.read_csv(path, sep="\t" if kind == "TSV" else ",")
    except Exception as error:  # pandas and pyarrow raise many kinds for a malformed file
        raise UserError(
            f"{argument} '{path}' could not be read as {kind}: {one_line(error)}"
        ) from error
    if table.shape[0] == 0 or table.shape[1] == 0:
        raise UserError(f"{argument} '{path}' has no rows or no columns.")
    table.columns = [str(column) for column in table.columns]
    return table


def write_table(table: pd.DataFrame, path: str | None, argument: str = "--out") -> None:
    """Write ``table`` to ``path`` (format by suffix), or as CSV to stdout when ``path`` is None."""
    if path is None:
        table.to_csv(sys.stdout, index=False)
        return
    path = Path(path)
    kind = _format(path, argument)
    if not path.parent.is_dir():
        raise UserError(f"{argument} '{path}': folder '{path.parent}' does not exist.")
    try:
        if kind == "Parquet":
            table.to_parquet(path, index=False)
        else:
            table.to_csv(path, sep="\t" if kind == "TSV" else ",", index=False)
    except OSError as error:
        raise UserError(f"{argument} '{path}' could not be written: {one_line(error)}") from error


def select_columns(table: pd.DataFrame, columns, argument: str) -> pd.DataFrame:
    """``table[columns]``, or a :class:`UserError` naming the columns it lacks."""
    missing = [column for column in columns if column not in table.columns]
    if missing:
        raise UserError(
            f"unknown column(s) {', '.join(map(repr, missing))} for {argument}; the table has "
            f"{', '.join(map(repr, table.columns))}."
        )
    return table[list(columns)]
