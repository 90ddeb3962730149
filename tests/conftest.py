"""Test configuration: set before JAX starts."""

import ctypes
import gc
import os

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


import pytest  # noqa: E402
from threadpoolctl import threadpool_limits  # noqa: E402

_BLAS_THREADS = threadpool_limits(int(os.environ["OPENBLAS_NUM_THREADS"]), user_api="blas")


@pytest.fixture(autouse=True, scope="module")
def _release_compiled_kernels():
    """Drop JAX's compiled kernels after each test module.

    One process compiles thousands of kernels over the suite (every model, shape and
    precision). Measured: with all of them kept alive, XLA's CPU compiler segfaulted in
    tests/test_estimator_checks.py after ~800 tests, reproducibly, while every module passes
    on its own; releasing them between modules keeps the process small.
    """
    yield
    import jax

    jax.clear_caches()
    gc.collect()
    _return_freed_memory()


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
