"""Estimators with the scikit-learn API.

Every module of this package is imported here, so that each public class registers itself
(`bayesgen.estimators.registration.Registered`); the classes are then exported by
name from `bayesgen.registry`, with no list to keep by hand.
"""

import importlib as _importlib
import pkgutil as _pkgutil

from bayesgen import registry as _registry

for _module in _pkgutil.iter_modules(__path__, __name__ + "."):
    _importlib.import_module(_module.name)

globals().update(_registry.estimators())
__all__ = sorted(_registry.estimators())
