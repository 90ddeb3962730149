"""User mistakes on the command line: one line on stderr and exit status 2, no traceback."""

from __future__ import annotations

import os
import sys
import warnings
from contextlib import contextmanager

import click

EXIT_USER_ERROR = 2


class UserError(click.ClickException):
    """A mistake in the command's input (file, column, option, model file)."""

    exit_code = EXIT_USER_ERROR


def one_line(message: str) -> str:
    """``message`` with its lines joined, so that the error stays one line."""
    return " ".join(part.strip() for part in str(message).splitlines() if part.strip())


@contextmanager
def user_errors(context: str = "", *, parameters: bool = False):
    """Turn the errors that bad input raises into a `UserError`.

    ``ValueError``, ``TypeError`` (a wrong kind of value, e.g. a ``--param`` given as a JSON
    object), ``OSError``, ``KeyError``, ``MemoryError`` (a request too large for this machine)
    and NumPy's ``RuntimeWarning`` (an overflow, raised as an error here so that it is named
    once instead of printed as a warning with a source line) all become one line.
    ``context`` prefixes the message (e.g. the file being read); with ``parameters`` a
    ``TypeError`` adds a hint about ``--param``. Set ``BAYESGEN_TRACEBACK=1`` to see the
    traceback instead.
    """
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", RuntimeWarning)
            yield
    except click.ClickException:
        raise
    except (ValueError, TypeError, OSError, KeyError, MemoryError, RuntimeWarning) as error:
        if os.environ.get("BAYESGEN_TRACEBACK"):
            raise
        detail = error.args[0] if isinstance(error, KeyError) and error.args else error
        if isinstance(error, RuntimeWarning) and "overflow" in str(error):
            detail = (
                f"numerical overflow ({error}); some values are too large to compute with: "
                "rescale the columns (e.g. to other units)"
            )
        elif isinstance(error, RuntimeWarning):
            detail = f"a computation on the data failed ({error})"
        elif isinstance(error, TypeError) and parameters:
            detail = f"{error} (check the types of the --param values)"
        elif isinstance(error, MemoryError) and not str(error):
            detail = "out of memory; ask for less (fewer rows, a smaller --batch-size)"
        message = one_line(f"{context}{detail}" if context else str(detail))
        raise UserError(message or type(error).__name__) from error


class OneLineErrorGroup(click.Group):
    """A ``click.Group`` whose errors, its own usage errors included, are one line."""

    def main(self, args=None, prog_name=None, complete_var=None, standalone_mode=True, **extra):
        """Run the command line; see ``click.Group.main``."""
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        try:
            result = super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        except click.ClickException as error:
            hint = ""
            if isinstance(error, click.UsageError) and error.ctx is not None:
                hint = f" (see '{error.ctx.command_path} --help')"
            click.echo(f"Error: {one_line(error.format_message())}{hint}", err=True)
            sys.exit(EXIT_USER_ERROR)
        except click.Abort:
            click.echo("Aborted.", err=True)
            sys.exit(1)
        sys.exit(result if isinstance(result, int) else 0)
