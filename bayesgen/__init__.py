"""bayesgen: generative classifiers written as NumPyro probabilistic programs.

Every classifier is a generative story ``y ~ Categorical(pi)``, ``x | y ~ p(x | y)`` with
conjugate priors, fitted in closed form from sufficient statistics and used through the
scikit-learn API. The estimator classes (``bayesgen.QDA``, ``bayesgen.PoissonNB``, ...) are
those registered in `bayesgen.registry`.

Importing the package imports nothing heavy (no JAX, NumPyro, ArviZ, matplotlib, pyarrow or
Dask): the public names below are looked up on first use (PEP 562), so a command line that
only prints its help starts at once.
"""

import importlib
import pkgutil

from bayesgen._version import __version__ as __version__

# Public names defined by one module each, imported on first use.
_HELPERS = {
    "ModelFileError": "bayesgen.model_files",
    "load": "bayesgen.model_files",
    "model_file_info": "bayesgen.model_files",
    "enable_compilation_cache": "bayesgen.compilation_cache",
    "show_progress": "bayesgen.progress",
    "pool": "bayesgen.pooling",
    "rubin_pool": "bayesgen.pooling",
    "TableSynthesizer": "bayesgen.synthesizer",
}


def _estimators() -> dict:
    from bayesgen import registry

    importlib.import_module("bayesgen.estimators")  # defines (and so registers) every one
    return registry.estimators()


def __getattr__(name: str):
    if name in _HELPERS:
        return getattr(importlib.import_module(_HELPERS[name]), name)
    if name == "__all__":
        return sorted({"__version__", *_HELPERS, *_estimators()})
    submodules = {module.name for module in pkgutil.iter_modules(__path__)}
    if not name.startswith("_") and name not in submodules:
        estimators = _estimators()
        if name in estimators:
            # Kept as a module attribute: the lookup scans the package (about 1 ms), and
            # ``bayesgen.QDA()`` in a loop would pay it on every call.
            globals()[name] = estimators[name]
            return estimators[name]
    raise AttributeError(f"module 'bayesgen' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__getattr__("__all__")))
