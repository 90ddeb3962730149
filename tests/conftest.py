"""Test configuration: set before JAX starts."""

import ctypes
import gc
import os
import shutil
import sys
import tempfile
from contextlib import contextmanager

try:
    import fcntl
except ImportError:  # not POSIX: memory-heavy tests are not kept apart
    fcntl = None

# A measured CPU deadlock of XLA's concurrency-optimised scheduler (see docs/architecture.md).
os.environ.setdefault("XLA_FLAGS", "--xla_cpu_enable_concurrency_optimized_scheduler=false")
# The command line keeps JAX's persistent cache by default; in-process CLI tests must not
# switch the whole test session onto it (tests/cli/test_compilation_cache_default.py
# checks the default in child processes).
os.environ.setdefault("BAYESGEN_COMPILATION_CACHE", "0")
# One BLAS thread. Next to XLA's thread pool, OpenBLAS's own threads make every small LAPACK
# call slow: measured on 2 cores, a 3x3 scipy.linalg.solve_triangular cost 2.3 ms of CPU
# with 2 OpenBLAS threads and 33 us with one, and the per-class loops over 40,000 drawn
# covariances (tests/estimators/test_predictive.py) spent minutes there. The variable reaches
# subprocesses too; threadpoolctl covers a BLAS already loaded before this file.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
# One OpenMP thread per test process: the two pytest-xdist workers each running
# scikit-learn's HistGradientBoosting (the synthetic-data detector) with 2 OpenMP threads
# on 2 cores spin against each other. Measured: tests/test_grouped_columns.py with -n 2
# took 216 s so, 10.6 s with one thread each (14 s in one process).
os.environ.setdefault("OMP_NUM_THREADS", "1")


import pytest  # noqa: E402
from threadpoolctl import threadpool_limits  # noqa: E402

_BLAS_THREADS = threadpool_limits(int(os.environ["OPENBLAS_NUM_THREADS"]), user_api="blas")
_OPENMP_THREADS = threadpool_limits(int(os.environ["OMP_NUM_THREADS"]), user_api="openmp")

#: Names the folder under which each test process keeps its compiled kernels. The
#: controlling process creates it before pytest-xdist starts the workers, which inherit the
#: variable; bayesgen itself never reads it, so processes that tests start are unaffected.
KERNEL_CACHE_VARIABLE = "BAYESGEN_TEST_KERNEL_CACHE"
_KERNEL_CACHE_OWNER = KERNEL_CACHE_VARIABLE not in os.environ
if _KERNEL_CACHE_OWNER:
    os.environ[KERNEL_CACHE_VARIABLE] = tempfile.mkdtemp(prefix="bayesgen-test-kernels-")


def pytest_configure(config):
    """Keep each test process's compiled kernels on disk for the session.

    Measured over the suite (2 workers, 14.8 minutes): XLA compilation took 853 of the
    1,733 seconds that the tests ran, in 8,939 compilations. Many repeat, because the
    fixtures below drop every compiled kernel after each module (and when memory runs
    high). JAX's persistent cache turns a repeat into a read from disk; it keeps every
    kernel, however short its compilation (min compile time and size 0). One folder per
    process: JAX writes an entry in place, and without a size limit (which would make it
    lock every read and write with filelock, measured ~20 s of waiting per worker on three
    modules) a worker could read a kernel the other is still writing. Counting tests are
    unchanged: JAX's compile event (tests/test_first_call.py) also fires for a kernel read
    from the cache.
    """
    if getattr(config, "workerinput", None) is None and config.getoption("numprocesses", 0):
        return  # the controller of the workers runs no test
    # The options of `bayesgen.enable_compilation_cache`, set on JAX directly: importing
    # bayesgen here, before pytest applies its warning filters (one names a bayesgen
    # class), once made a worker fail at start-up.
    import jax

    folder = os.path.join(
        os.environ[KERNEL_CACHE_VARIABLE], os.environ.get("PYTEST_XDIST_WORKER", "main")
    )
    jax.config.update("jax_compilation_cache_dir", folder)
    jax.config.update("jax_persistent_cache_min_compile_time_secs", 0.0)
    jax.config.update("jax_persistent_cache_min_entry_size_bytes", 0)


def pytest_unconfigure(config):
    """The process that created the kernel folder removes it."""
    if _KERNEL_CACHE_OWNER and getattr(config, "workerinput", None) is None:
        shutil.rmtree(os.environ.pop(KERNEL_CACHE_VARIABLE), ignore_errors=True)


@pytest.fixture(autouse=True, scope="module")
def _release_compiled_kernels():
    """Drop JAX's compiled kernels after each test module.

    One process compiles thousands of kernels over the suite (every model, shape and
    precision). Measured: with all of them kept alive, XLA's CPU compiler segfaulted in
    tests/test_estimator_checks.py after ~800 tests, reproducibly, while every module passes
    on its own; releasing them between modules keeps the process small.
    """
    yield
    _release_compiled_kernels_now()


#: Resident memory above which a test process drops its compiled kernels after a test.
RSS_BUDGET_BYTES = 1000 * 2**20

#: Resident memory above which a test process drops its compiled kernels before a
#: memory-heavy test (marked nuts, or using the `exclusive_memory` fixture): one NUTS
#: compilation raises a process by 0.4-0.9 GB at its peak, so it should start from a
#: released process.
HEAVY_TEST_START_BYTES = 600 * 2**20


@pytest.fixture(autouse=True)
def _bounded_memory(request):
    """Drop JAX's compiled kernels around tests, so that a test process stays near a budget.

    Measured with a per-test RSS log over the suite (2 workers): NUTS tests add 100-450 MB
    of compiled programs each, kept until their module ends, and the workers peaked at 2.6
    and 2.2 GB. Releasing them after any test that leaves the process above
    `RSS_BUDGET_BYTES`, and before a NUTS test above `HEAVY_TEST_START_BYTES`, bounds a
    worker near the budget plus one test's own peak. A release is cheap: each process keeps
    its compiled kernels on disk (`pytest_configure`), so a later test reads them back. A
    NUTS test also waits for the other worker's memory-heavy test (`_one_heavy_at_a_time`).
    """
    if request.node.get_closest_marker("nuts") is None:
        yield
    else:
        with _one_heavy_at_a_time():
            yield
    # Hysteresis: memory a release cannot give back (data a module holds) must not make
    # every later test release, and recompile, again. A module holding the memory-heavy
    # slot (`exclusive_memory`) keeps to the lower bound after each of its tests.
    limit = max(RSS_BUDGET_BYTES, _after_release[0] + 2**28)
    if _heavy_slot["depth"]:
        limit = HEAVY_TEST_START_BYTES
    if "jax" in sys.modules and _resident_bytes() > limit:
        _release_compiled_kernels_now()


@pytest.fixture(scope="module")
def exclusive_memory():
    """Hold the memory-heavy slot for a whole module (one that starts worker processes).

    Measured over the suite (tree RSS sampled each second, 2 workers): every moment above
    2.9 GB was tests/test_dask.py's two worker processes (about 550 MB each) with its own
    test process, next to a NUTS test or another large one on the other worker. Such a
    module releases this process's kernels first and keeps the other worker's NUTS tests
    waiting until it is done.
    """
    with _one_heavy_at_a_time():
        yield


_heavy_slot = {"depth": 0, "handle": None}


def _heavy_slot_path() -> str:
    return os.path.join(os.environ[KERNEL_CACHE_VARIABLE], "memory-heavy.lock")


@contextmanager
def _one_heavy_at_a_time():
    """One memory-heavy test (or module) at a time across the test processes, each
    starting with this process below `HEAVY_TEST_START_BYTES` where a release can do it.

    An exclusive `fcntl.flock` on a file in the folder the controlling process made for
    the session (`KERNEL_CACHE_VARIABLE`); re-entrant within a process.
    """
    if fcntl is not None and _heavy_slot["depth"] == 0:
        handle = open(_heavy_slot_path(), "a")  # noqa: SIM115 - held across the yield
        fcntl.flock(handle, fcntl.LOCK_EX)
        _heavy_slot["handle"] = handle
    if _resident_bytes() > HEAVY_TEST_START_BYTES:
        _release_compiled_kernels_now()
    _heavy_slot["depth"] += 1
    try:
        yield
    finally:
        _heavy_slot["depth"] -= 1
        if _heavy_slot["handle"] is not None and _heavy_slot["depth"] == 0:
            fcntl.flock(_heavy_slot["handle"], fcntl.LOCK_UN)
            _heavy_slot["handle"].close()
            _heavy_slot["handle"] = None


def _release_compiled_kernels_now():
    """Drop JAX's compiled kernels and give the freed memory back."""
    if "jax" not in sys.modules:
        return
    sys.modules["jax"].clear_caches()
    gc.collect()
    _return_freed_memory()
    _after_release[0] = _resident_bytes()


_after_release = [0]


def _resident_bytes() -> int:
    """This process's resident memory (0 where /proc is not available)."""
    try:
        with open("/proc/self/statm", encoding="ascii") as statm:
            return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0


def _return_freed_memory():
    """Give the heap's free pages back to the system (glibc keeps them by default).

    Measured over the suite in file order: after the modules up to
    tests/estimators/test_mixture_da.py the process held 1.7 GB without it and 0.8 GB with
    it (and grew to 3 GB by tests/estimators/test_predictive.py without it).
    """
    try:
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):  # not glibc
        pass
