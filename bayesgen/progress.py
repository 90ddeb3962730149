"""Progress bars for long work: EM iterations, NUTS, batched prediction.

Off by default in library calls; the command line turns them on. A bar is drawn only where
a person can see it: while [`show_progress`][bayesgen.show_progress] is in force, on a terminal,
and never when
the ``CI`` environment variable is set (CI logs stay clean). Bars are ``tqdm``'s, as in
NumPyro, which draws the NUTS bar.

Jitted loops (EM as one ``lax.while_loop``) report each iteration through
``jax.debug.callback`` only when a bar is shown: `reporting` says whether to compile
that variant, so the silent variant pays nothing.
"""

from __future__ import annotations

import os
import sys
from contextlib import contextmanager
from contextvars import ContextVar

from tqdm.auto import tqdm

_SETTING: ContextVar[tuple[bool, object] | None] = ContextVar("bayesgen_progress", default=None)
_ACTIVE_BARS: list = []


@contextmanager
def show_progress(enabled: bool = True, *, file=None):
    """Show progress bars for long work inside the ``with`` block.

    Parameters
    ----------
    enabled : bool, default=True
        ``False`` silences bars inside the block (e.g. within an outer block that shows them).
    file : writable text stream, optional
        Where bars are drawn; ``sys.stderr`` by default. Bars are drawn only if it is a
        terminal (``file.isatty()``) and ``CI`` is not set in the environment.

    Examples
    --------
    >>> import bayesgen
    >>> from sklearn.datasets import load_iris
    >>> X, y = load_iris(return_X_y=True)
    >>> y[::2] = -1  # unlabelled rows: fitting runs EM
    >>> with bayesgen.show_progress():
    ...     model = bayesgen.QDA().fit(X, y)
    """
    token = _SETTING.set((bool(enabled), file))
    try:
        yield
    finally:
        _SETTING.reset(token)


def _stream():
    setting = _SETTING.get()
    if setting is None or not setting[0] or os.environ.get("CI"):
        return None
    stream = setting[1] if setting[1] is not None else sys.stderr
    isatty = getattr(stream, "isatty", None)
    return stream if isatty is not None and isatty() else None


def reporting() -> bool:
    """Whether bars are shown here and now (a jitted loop then compiles its reporting variant)."""
    return _stream() is not None


@contextmanager
def progress_bar(total: int | None, description: str, *, unit: str = "it"):
    """A ``tqdm`` bar while bars are shown, else a bar that draws nothing.

    Parameters
    ----------
    total : int or None
        Expected number of steps (``None`` when unknown).
    description : str
        Shown left of the bar.
    unit : str, default="it"

    Yields
    ------
    tqdm.tqdm
        Call ``update(n)`` and ``set_postfix(...)`` on it; a disabled bar ignores both.
    """
    stream = _stream()
    bar = tqdm(
        total=total,
        desc=description,
        unit=unit,
        file=stream,
        disable=stream is None,
        leave=False,
        dynamic_ncols=True,
    )
    _ACTIVE_BARS.append(bar)
    try:
        yield bar
    finally:
        _ACTIVE_BARS.remove(bar)
        bar.close()


def tick(iteration, objective) -> None:
    """Advance the innermost bar by one step: the host side of ``jax.debug.callback``."""
    if _ACTIVE_BARS:
        bar = _ACTIVE_BARS[-1]
        bar.update(1)
        bar.set_postfix(iteration=int(iteration) + 1, objective=f"{float(objective):.6g}")


def progress_shown(explicit: bool | None) -> bool:
    """An explicit ``progress=`` argument, else whether bars are shown here and now."""
    return reporting() if explicit is None else bool(explicit)
