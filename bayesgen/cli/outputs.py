"""Output files of the command line: never over an input, always whole or not at all.

Every ``--out`` is checked before any work (its folder exists and is writable, it is not one
of the command's input files, by path, hard link or symbolic link) and written atomically:
into a temporary file in the same folder, flushed to disk, then renamed over the target. On
any error, Ctrl-C (SIGINT) or SIGTERM the temporary file is removed and an existing file of
that name keeps its old contents.
"""

from __future__ import annotations

import os
import signal
import stat
import threading
import uuid
from contextlib import contextmanager
from pathlib import Path

from bayesgen.cli.errors import UserError


def check_output(out: str | None, inputs: dict[str, str], argument: str = "--out") -> None:
    """Refuse ``out`` before any work if it cannot be written or would replace an input.

    Parameters
    ----------
    out : str or None
        The output path (None: standard output, nothing to check).
    inputs : dict of str to str
        The command's input files by argument name (``{"DATA": "iris.csv"}``).
    argument : str, default="--out"
        The option's name, for the message.

    Raises
    ------
    UserError
        If the output's folder is missing or not writable, if ``out`` is a folder, or if it
        is the same file as an input (the same path, a hard link or a symbolic link to it),
        naming both.
    """
    if out is None:
        return
    path = Path(out)
    folder = path.parent
    if not folder.is_dir():
        raise UserError(f"{argument} '{path}': folder '{folder}' does not exist.")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise UserError(f"{argument} '{path}': folder '{folder}' is not writable.")
    if path.is_dir():
        raise UserError(f"{argument} '{path}' is a folder; give a file name.")
    for name, given in inputs.items():
        if given is not None and _same_file(path, Path(given)):
            raise UserError(
                f"{argument} '{path}' is the input {name} '{given}' (the same file); writing "
                "it would destroy the input. Choose another output file."
            )


def _same_file(a: Path, b: Path) -> bool:
    # samefile follows symbolic links and compares device and inode, so hard links match.
    try:
        return os.path.samefile(a, b)
    except OSError:  # one of them does not exist (yet): no clash
        return os.path.abspath(a) == os.path.abspath(b)


class Terminated(SystemExit):
    """SIGTERM arrived while an output was being written (exit status 128 + 15)."""


@contextmanager
def _terminate_by_exception():
    """While active, SIGTERM raises `Terminated` so that ``finally`` blocks run.

    Python's default SIGTERM ends the process at once, leaving a temporary file behind;
    SIGINT already raises ``KeyboardInterrupt``. Signal handlers can only be set from the
    main thread; elsewhere this does nothing.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def terminate(signum, frame):
        raise Terminated(128 + signum)

    previous = signal.signal(signal.SIGTERM, terminate)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


@contextmanager
def atomic_output(out: str):
    """Yield a temporary path beside ``out``; on success it replaces ``out`` in one rename.

    The caller writes the whole output to the yielded path. If that raises, or SIGINT or
    SIGTERM arrives, the temporary file is removed and ``out`` is left as it was. A file
    that is replaced keeps its permission bits.

    Parameters
    ----------
    out : str
        The final path.

    Yields
    ------
    str
        The temporary path (a hidden file in the same folder, so the rename stays on one
        file system and is atomic).
    """
    folder, name = os.path.split(os.path.abspath(out))
    temporary = os.path.join(folder, f".{name}.{uuid.uuid4().hex}.tmp")
    with _terminate_by_exception():
        try:
            yield temporary
            _flush_to_disk(temporary)
            if os.path.isfile(out):  # a replaced output keeps its permissions (0600 stays)
                os.chmod(temporary, stat.S_IMODE(os.stat(out).st_mode))
            os.replace(temporary, out)
        except BaseException:
            if os.path.lexists(temporary):
                os.unlink(temporary)
            raise


def _flush_to_disk(path: str) -> None:
    with open(path, "rb+") as stream:
        os.fsync(stream.fileno())
