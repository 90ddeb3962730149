"""Independent pieces of one NumPy computation, run side by side in threads.

NumPy lets go of the GIL inside its loops over arrays, so the pieces of one computation
that write disjoint parts of its result (blocks of rows) run in parallel in threads of one
process. They get as many threads as BLAS may use at the time of the call (threadpoolctl:
all the cores by default, fewer where the user or a joblib worker limited BLAS), and BLAS
one thread inside them, so the two never ask for more than those cores together. While
one caller's pieces run, BLAS is on one thread for the whole process, so another thread's
call runs its pieces one after the other.
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor

import numpy as np

_lock = threading.Lock()
_pool: ThreadPoolExecutor | None = None
_pool_size = 0
_controller = None
_limited = 0  # callers whose pieces are running
_limiter = None


def thread_count() -> int:
    """How many threads BLAS may use now (1 when no BLAS library reports a count)."""
    libraries = _blas_controller().lib_controllers
    counts = [library.num_threads for library in libraries if library.user_api == "blas"]
    return max(1, max(counts, default=1))


def _blas_controller():
    """threadpoolctl's controller of the libraries loaded (made once: finding them costs
    about 10 ms, reading or limiting them microseconds)."""
    global _controller
    with _lock:
        if _controller is None:
            from threadpoolctl import ThreadpoolController

            _controller = ThreadpoolController()
        return _controller


def run_pieces(function: Callable, pieces: Iterable, *, in_threads: bool = True) -> list:
    """``[function(piece) for piece in pieces]``, the pieces spread over `thread_count`
    threads when there are two or more of each and ``in_threads``.

    Parameters
    ----------
    function : callable
        Must be safe to run on two pieces at once: each piece reads shared inputs and
        writes only its own part of the output.
    pieces : iterable
    in_threads : bool, default=True
        False runs the pieces one after the other here: for work too small to pay for
        handing it to threads (about 0.1 ms a call).

    Returns
    -------
    list
        The results in the order of ``pieces``.
    """
    pieces = list(pieces)
    threads = min(thread_count(), len(pieces)) if in_threads else 1
    if threads < 2:
        return [function(piece) for piece in pieces]

    floating_point = np.geterr()  # the caller's errstate: NumPy keeps one per thread

    def run_share(share: int) -> list:  # every threads-th piece: similar pieces spread out
        with np.errstate(**floating_point):
            return [function(piece) for piece in pieces[share::threads]]

    with blas_on_one_thread():
        shares = list(_executor(threads).map(run_share, range(threads)))
    results = [None] * len(pieces)
    for share, done in enumerate(shares):
        results[share::threads] = done
    return results


def blas_on_one_thread_where(needed: bool):
    """`blas_on_one_thread` where ``needed``, else a context that does nothing: the first
    limit in a process sets up threadpoolctl's controller (about 10 ms), which only work
    large enough to run in threads, or many small LAPACK calls, pays for."""
    return blas_on_one_thread() if needed else contextlib.nullcontext()


@contextlib.contextmanager
def blas_on_one_thread():
    """BLAS on one thread while any caller's pieces run, and around small LAPACK calls
    (the Gaussian's factors, `bayesgen.families.gaussian.scores`). The limit is the
    process's (set or read through threadpoolctl's controller made once: about 15
    microseconds), so
    the first caller in sets it and the last one out restores what was there before
    (nested limits, each restoring its own, could leave BLAS on one thread for good)."""
    global _limited, _limiter
    controller = _blas_controller()
    with _lock:
        if _limited == 0:
            free = _blas_control_free()
            _limiter = controller.limit(limits=1, user_api="blas")
            if free:
                _release_blas_control()
        _limited += 1
    try:
        yield
    finally:
        with _lock:
            _limited -= 1
            if _limited == 0:
                free = _blas_control_free()
                _limiter.restore_original_limits()
                _limiter = None
                if free:
                    _release_blas_control()


def _openblas_controller_class():
    """threadpoolctl's ``OpenBLASController``, or None for a threadpoolctl without it."""
    try:
        from threadpoolctl import OpenBLASController
    except ImportError:
        return None
    return OpenBLASController


def _blas_control_free() -> bool:
    """Whether no live thread holds OpenBLAS's limit (threadpoolctl 3.8's controlling
    thread; always, before 3.8). When one does (the user's ``with threadpool_limits``),
    a limit set from that thread must not let go of it (`_release_blas_control`), and one
    set from another thread does nothing, so the user's limit stands."""
    state = getattr(_openblas_controller_class(), "_SHARED_STATE", None)
    holder = getattr(state, "controlling_thread", None)
    return holder is None or not holder.is_alive()


def _release_blas_control() -> None:
    """Let any thread set OpenBLAS's limit next, where this thread took control by setting
    one. From threadpoolctl 3.8 only the thread that last set the limit of OpenBLAS's own
    (pthreads) pool may change it until it lets go, which its context managers do and a
    bare limit does not: without this, the last caller out (another thread) could not
    restore the limit, nor the user's ``threadpool_limits`` in another thread set one.
    Called only where control was free before (`_blas_control_free`)."""
    release = getattr(_openblas_controller_class(), "clear_controlling_thread", None)
    if release is not None:  # threadpoolctl before 3.8 has no controlling thread
        release()


def _executor(threads: int) -> ThreadPoolExecutor:
    """The process's pool, with at least ``threads`` workers (a pool outgrown is left to
    finish what it holds, never shut down under a caller)."""
    global _pool, _pool_size
    with _lock:
        if _pool_size < threads:
            _pool = ThreadPoolExecutor(threads, thread_name_prefix="bayesgen")
            _pool_size = threads
        return _pool


def _forget_pool_in_child() -> None:
    """A forked child has none of its parent's threads: it makes its own pool."""
    global _lock, _pool, _pool_size, _limited, _limiter
    _lock, _pool, _pool_size, _limited, _limiter = threading.Lock(), None, 0, 0, None


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_pool_in_child)
