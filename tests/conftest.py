"""Test configuration: set before JAX starts."""

import os

# A measured CPU deadlock of XLA's concurrency-optimised scheduler (see docs/architecture.md).
os.environ.setdefault("XLA_FLAGS", "--xla_cpu_enable_concurrency_optimized_scheduler=false")
