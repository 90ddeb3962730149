"""Choosing and scoping the floating-point precision of a computation.

JAX computes in float32 unless its global ``jax_enable_x64`` flag is on. bayesgen never
changes that flag: it honours the precision of the *input* by entering JAX's scoped x64
context around each computation, so float64 data are fitted and scored in float64 and
float32 data in float32, whatever the user's global configuration.

JAX is imported only when a computation needs it (`bayesgen._lazy`), so a block may be
entered before JAX is: its scope is then held *pending* and entered, in that thread, as
soon as JAX arrives — when the thread imports JAX (an import watcher), touches a lazy JAX
stand-in or enters another block. A NumPy-only block never imports JAX at all.
"""

from __future__ import annotations

import importlib.abc
import importlib.util
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np

_local = threading.local()  # .pending: [x64, entered scope or None] per block, outermost first
_watcher_lock = threading.Lock()


def compute_dtype(*dtypes: np.dtype | type) -> np.dtype:
    """The floating dtype a computation over arrays of ``dtypes`` runs in.

    Parameters
    ----------
    *dtypes : numpy dtypes
        Dtypes of the arrays taking part.

    Returns
    -------
    numpy.dtype
        ``float64`` if any of them is float64 (or a non-float type, which NumPy would
        promote to float64), otherwise ``float32``.
    """
    for dtype in dtypes:
        dtype = np.dtype(dtype)
        if dtype != np.float32 and dtype != np.float16:
            return np.dtype(np.float64)
    return np.dtype(np.float32)


@contextmanager
def precision(dtype: np.dtype | type) -> Iterator[None]:
    """Run the enclosed JAX code in the precision of ``dtype``.

    Parameters
    ----------
    dtype : numpy dtype
        ``float64`` enables JAX's x64 mode inside the block (scoped, thread-local);
        anything else disables it inside the block.
    """
    x64 = np.dtype(dtype) == np.float64
    jax = _imported_jax()
    if jax is not None:
        apply_pending()
        with jax.enable_x64(x64):
            yield
        return
    entry = [x64, None]
    pending = _pending()
    pending.append(entry)
    _watch_jax_import()
    try:
        yield
    finally:
        pending.pop()
        if entry[1] is not None:
            entry[1].__exit__(None, None, None)


def apply_pending() -> None:
    """Enter, in this thread, the scopes of the blocks entered before JAX was imported.

    Called once JAX is imported (cheap when nothing is pending). Blocks entered before the
    import are the outermost ones of the thread, so their scopes are entered outermost
    first and each is left when its block ends, in order.
    """
    _enter_pending(_imported_jax())


def _enter_pending(jax) -> None:
    pending = getattr(_local, "pending", None)
    if jax is None or not pending or pending[-1][1] is not None:
        return
    for entry in pending:
        if entry[1] is None:
            scope = jax.enable_x64(entry[0])
            scope.__enter__()
            entry[1] = scope


def _pending() -> list:
    pending = getattr(_local, "pending", None)
    if pending is None:
        pending = _local.pending = []
    return pending


def _imported_jax():
    """The ``jax`` module once fully imported (by any thread), else None."""
    jax = sys.modules.get("jax")
    if jax is None or getattr(getattr(jax, "__spec__", None), "_initializing", False):
        return None
    return jax


class _JaxImportWatcher(importlib.abc.MetaPathFinder):
    """Finds nothing itself: wraps the loading of ``jax`` to call `apply_pending` after it."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname != "jax":
            return None
        _unwatch()
        spec = importlib.util.find_spec("jax")
        if spec is None or spec.loader is None:
            return spec
        loader, exec_module = spec.loader, spec.loader.exec_module

        def exec_then_scope(module):
            try:
                exec_module(module)
            finally:
                del loader.exec_module
            _enter_pending(module)  # still marked as initialising: `apply_pending` would wait

        loader.exec_module = exec_then_scope
        return spec


_WATCHER = _JaxImportWatcher()


def _watch_jax_import() -> None:
    with _watcher_lock:
        if "jax" not in sys.modules and _WATCHER not in sys.meta_path:
            sys.meta_path.insert(0, _WATCHER)


def _unwatch() -> None:
    with _watcher_lock:
        if _WATCHER in sys.meta_path:
            sys.meta_path.remove(_WATCHER)
