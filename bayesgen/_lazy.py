"""Heavy modules imported on first use, so that the plain NumPy path never imports them.

A fit or prediction on NumPy data runs in NumPy (`bayesgen.families.namespace`), yet the
modules it passes through also hold the JAX kernels, the stories' helpers and the posterior
uses. Importing JAX and NumPyro costs about two seconds, so those modules bind them through
the stand-ins here: ``jnp = lazy_module("jax.numpy")`` imports ``jax.numpy`` at the first
``jnp.<name>`` (a plain ``importlib.util.LazyLoader`` would not do: finding the spec of a
submodule imports its parent), and ``lazy_jit`` builds ``jax.jit`` at the first call, for
functions jitted at module level. Each use also enters the JAX precision scopes that were
pending until JAX arrived (`bayesgen._precision.apply_pending`).
"""

from __future__ import annotations

import functools
import importlib

from bayesgen._precision import apply_pending


class LazyModule:
    """A stand-in for the module ``name``, imported at the first attribute access.

    Parameters
    ----------
    name : str
        The module's full name (``"jax.numpy"``, ``"numpyro.distributions"``).
    """

    __slots__ = ("_name", "_module")

    def __init__(self, name: str):
        self._name = name
        self._module = None

    def __getattr__(self, attribute: str):
        module = self._module
        if module is None:
            module = self._module = importlib.import_module(self._name)
        apply_pending()
        return getattr(module, attribute)

    def __repr__(self) -> str:
        state = "imported" if self._module is not None else "not imported yet"
        return f"<lazy module {self._name!r} ({state})>"


def lazy_module(name: str) -> LazyModule:
    """A `LazyModule` for ``name``: ``jax = lazy_module("jax")`` in place of ``import jax``.

    Returns
    -------
    LazyModule
    """
    return LazyModule(name)


def lazy_attribute(module: str, name: str):
    """The callable ``module.name`` (a function or class), imported at its first call.

    ``solve_triangular = lazy_attribute("jax.scipy.linalg", "solve_triangular")`` in place
    of ``from jax.scipy.linalg import solve_triangular``.

    Returns
    -------
    callable
        Calls ``module.name`` with the same arguments.
    """
    found = []

    def call(*args, **kwargs):
        if not found:
            found.append(getattr(importlib.import_module(module), name))
        apply_pending()
        return found[0](*args, **kwargs)

    call.__name__ = call.__qualname__ = name
    call.__doc__ = f"``{module}.{name}``, imported at the first call."
    return call


def lazy_jit(function=None, **options):
    """``jax.jit(function, **options)``, built at the first call.

    Used as ``@lazy_jit`` or ``@lazy_jit(static_argnames=...)`` in place of ``@jax.jit``:
    the function is always jitted, only the import and the wrapping wait for the first call.

    Returns
    -------
    callable
        The jitted function's stand-in (the undecorated function as ``__wrapped__``).
    """
    if function is None:
        return functools.partial(lazy_jit, **options)
    jitted = []

    @functools.wraps(function)
    def call(*args, **kwargs):
        if not jitted:
            import jax

            jitted.append(jax.jit(function, **options))
        apply_pending()
        return jitted[0](*args, **kwargs)

    return call
