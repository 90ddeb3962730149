"""Opt-in reuse of JAX's compiled kernels across processes (JAX's persistent cache)."""

from __future__ import annotations

import os
import sys
from pathlib import Path


def default_cache_directory() -> Path:
    """``$XDG_CACHE_HOME/bayesgen/jax`` (``~/.cache/bayesgen/jax`` when unset)."""
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "bayesgen" / "jax"


def enable_compilation_cache(directory: str | os.PathLike | None = None) -> Path:
    """Keep JAX's compiled kernels on disk so that later processes skip compiling them.

    The first call of a model in a fresh process compiles its kernels (about a second on
    2 cores); with the cache, a second process loads them instead (see
    ``docs/benchmarks.md`` for measured times). This sets JAX's global options
    ``jax_compilation_cache_dir`` and, so that bayesgen's small kernels are kept too,
    ``jax_persistent_cache_min_compile_time_secs = 0`` and
    ``jax_persistent_cache_min_entry_size_bytes = 0``. The same can be had without code
    through the environment variables ``JAX_COMPILATION_CACHE_DIR``,
    ``JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS=0`` and
    ``JAX_PERSISTENT_CACHE_MIN_ENTRY_SIZE_BYTES=0``, which is what this function sets when
    JAX is not imported yet (JAX reads them when imported), so that a run that never needs
    JAX (a plain fit or prediction) does not import it. Call it before the first fit.

    Parameters
    ----------
    directory : path-like, optional
        Where to keep the kernels; default `default_cache_directory`. Created if
        missing.

    Returns
    -------
    pathlib.Path
        The cache directory.
    """
    path = Path(directory) if directory is not None else default_cache_directory()
    path.mkdir(parents=True, exist_ok=True)
    if "jax" not in sys.modules:
        os.environ["JAX_COMPILATION_CACHE_DIR"] = str(path)
        os.environ["JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS"] = "0"
        os.environ["JAX_PERSISTENT_CACHE_MIN_ENTRY_SIZE_BYTES"] = "0"
        return path
    import jax

    jax.config.update("jax_compilation_cache_dir", str(path))
    jax.config.update("jax_persistent_cache_min_compile_time_secs", 0.0)
    jax.config.update("jax_persistent_cache_min_entry_size_bytes", 0)
    return path
