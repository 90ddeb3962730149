"""Test configuration: set before JAX starts."""

import os

# A measured CPU deadlock of XLA's concurrency-optimised scheduler (see docs/architecture.md).
os.environ.setdefault("XLA_FLAGS", "--xla_cpu_enable_concurrency_optimized_scheduler=false")
# The command line keeps JAX's persistent cache by default; in-process CLI tests must not
# switch the whole test session onto it (tests/cli/test_compilation_cache_default.py
# checks the default in child processes).
os.environ.setdefault("BAYESGEN_COMPILATION_CACHE", "0")


import pytest  # noqa: E402


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
