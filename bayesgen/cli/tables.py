"""Reading and writing the command line's tables: CSV, TSV and Parquet, by file suffix."""

from __future__ import annotations

import csv
import difflib
import sys
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

import click
import pandas as pd

from bayesgen.cli.errors import UserError, one_line
from bayesgen.cli.outputs import atomic_output

READERS = {".csv": "CSV", ".tsv": "TSV", ".parquet": "Parquet", ".pq": "Parquet"}


def _format(path: Path, argument: str) -> str:
    kind = READERS.get(path.suffix.lower())
    if kind is None:
        raise UserError(
            f"{argument} '{path}' has suffix '{path.suffix}'; expected one of {', '.join(READERS)}."
        )
    return kind


def na_values_option(command):
    """The ``--na-values`` option: listed strings are read as blank (missing) cells."""
    return click.option(
        "--na-values",
        "na_values",
        metavar="TEXT[,TEXT...]",
        help="Comma-separated cell values to read as missing (e.g. 'NA,?,n/a'), besides blanks.",
    )(command)


def _listed(na_values: str | None) -> list[str]:
    return [] if not na_values else [text.strip() for text in na_values.split(",")]


def read_table(
    path: str,
    argument: str = "DATA",
    na_values: str | None = None,
    literal_columns: Sequence[str] = (),
) -> pd.DataFrame:
    """The table in ``path``; blank cells are NaN (missing features, unlabelled rows).

    Parameters
    ----------
    path : str
    argument : str, default="DATA"
        The argument's name, for messages.
    na_values : str, optional
        Comma-separated cell values read as missing too (``--na-values``).
    literal_columns : sequence of str, default=()
        Columns of a CSV/TSV whose text is kept as written: only blank cells and
        ``na_values`` are missing there, so class names such as ``NA``, ``None`` or
        ``null``, which pandas reads as missing by default, stay names.

    Raises
    ------
    UserError
        If the file is missing, has an unknown suffix, cannot be parsed, has no rows, names
        a column twice, or (Parquet) has list, struct or map columns.
    """
    path = Path(path)
    kind = _format(path, argument)
    if not path.is_file():
        raise UserError(f"{argument} '{path}' does not exist or is not a file.")
    listed = _listed(na_values)
    try:
        if kind == "Parquet":
            _check_parquet_schema(path, argument)
            table = pd.read_parquet(path)
            if listed:
                table = table.mask(table.isin(listed))
        else:
            separator = "\t" if kind == "TSV" else ","
            _check_header(path, separator, argument)
            table = pd.read_csv(path, sep=separator, na_values=listed or None)
            for column in literal_columns:
                if column in table.columns:
                    table[column] = _literal(path, separator, column, table[column], listed)
    except UserError:
        raise
    except Exception as error:  # pandas and pyarrow raise many kinds for a malformed file
        raise UserError(
            f"{argument} '{path}' could not be read as {kind}: {one_line(error)}"
        ) from error
    if table.shape[0] == 0 or table.shape[1] == 0:
        raise UserError(f"{argument} '{path}' has no rows or no columns.")
    table.columns = [str(column) for column in table.columns]
    _check_unique(list(table.columns), path, argument)
    return table


def as_written(path: str, table: pd.DataFrame, columns: Sequence[str]) -> pd.DataFrame:
    """``table`` with each of ``columns`` that reading changed put back as the CSV/TSV file
    writes it: text pandas took for missing (``NA``, ``n/a``, ``null``) and whole numbers
    whose digits it lost (``007``). What a command copies through without modelling; a column
    read faithfully, and every Parquet column, keeps its type.

    Parameters
    ----------
    path : str
        The file ``table`` was read from (`read_table`).
    table : pandas.DataFrame
    columns : sequence of str
    """
    path = Path(path)
    if not columns or _format(path, "DATA") == "Parquet":
        return table
    separator = "\t" if _format(path, "DATA") == "TSV" else ","
    text = pd.read_csv(
        path, sep=separator, usecols=list(columns), dtype=str, keep_default_na=False, na_values=[]
    )
    table = table.copy()
    for column in columns:
        written, parsed = text[column], table[column]
        changed = bool((parsed.isna() & (written != "")).any())
        if not changed and pd.api.types.is_integer_dtype(parsed):
            changed = bool((parsed.astype(str) != written.str.strip()).any())
        if changed:
            table[column] = written.astype(object).where(written != "", None)
    return table


def _literal(path: Path, separator: str, column: str, parsed: pd.Series, listed) -> pd.Series:
    """``column`` as written when pandas' default missing-value words hid some of its text."""
    text = pd.read_csv(
        path,
        sep=separator,
        usecols=[column],
        dtype=str,
        keep_default_na=False,
        na_values=["", *listed],
    )[column]
    if not (parsed.isna() & text.notna()).any():
        return parsed
    return text.astype(object).where(text.notna(), None)


def _check_header(path: Path, separator: str, argument: str) -> None:
    # pandas renames a repeated column ("sl", "sl.1"), hiding the mistake: read the names.
    with open(path, newline="", encoding="utf-8", errors="replace") as stream:
        names = next(csv.reader(stream, delimiter=separator), [])
    _check_unique([name.strip() for name in names], path, argument)


def _check_parquet_schema(path: Path, argument: str) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    schema = pq.read_schema(path)
    _check_unique([str(name) for name in schema.names], path, argument)
    for field in schema:
        if pa.types.is_nested(field.type):
            raise UserError(
                f"{argument} '{path}': column {field.name!r} holds {field.type} values (lists, "
                "structs or maps); every column must hold numbers, text or booleans."
            )


def _check_unique(names: list[str], path: Path, argument: str) -> None:
    repeated = [name for name, count in Counter(names).items() if count > 1]
    if repeated:
        raise UserError(
            f"{argument} '{path}' names column(s) {', '.join(map(repr, repeated))} more than "
            "once; give every column its own name."
        )


def write_table(table: pd.DataFrame, path: str | None, argument: str = "--out") -> None:
    """Write ``table`` to ``path`` (format by suffix), or as CSV to stdout when ``path`` is None.

    A file is written atomically (`bayesgen.cli.outputs.atomic_output`): interrupted,
    it leaves an existing file of that name as it was.
    """
    if path is None:
        table.to_csv(sys.stdout, index=False)
        return
    path = Path(path)
    kind = _format(path, argument)
    if not path.parent.is_dir():
        raise UserError(f"{argument} '{path}': folder '{path.parent}' does not exist.")
    try:
        with atomic_output(str(path)) as temporary:
            if kind == "Parquet":
                table.to_parquet(temporary, index=False)
            else:
                table.to_csv(temporary, sep="\t" if kind == "TSV" else ",", index=False)
    except OSError as error:
        raise UserError(f"{argument} '{path}' could not be written: {one_line(error)}") from error


def check_output_suffix(path: str | None, argument: str = "--out") -> None:
    """Refuse an output table whose suffix names no format, before any work."""
    if path is not None:
        _format(Path(path), argument)


def select_columns(table: pd.DataFrame, columns, argument: str) -> pd.DataFrame:
    """``table[columns]``, or a `UserError` naming the columns it lacks (and the nearest
    names it has)."""
    missing = [column for column in columns if column not in table.columns]
    if missing:
        names = [str(name) for name in table.columns]
        near = {
            column: difflib.get_close_matches(str(column), names, n=1, cutoff=0.6)
            for column in missing
        }
        hints = [f"{match[0]!r} for {column!r}" for column, match in near.items() if match]
        hint = f" (did you mean {', '.join(hints)}?)" if hints else ""
        raise UserError(
            f"unknown column(s) {', '.join(map(repr, missing))} for {argument}: the table has "
            f"no such column{hint}; its columns are {', '.join(map(repr, table.columns))}."
        )
    repeated = [name for name, count in Counter(columns).items() if count > 1]
    if repeated:
        raise UserError(f"{argument} names column(s) {', '.join(map(repr, repeated))} twice.")
    return table[list(columns)]
