"""The whitelist: the only types a model file may name, looked up by name.

A file names an estimator class (``"GaussianDA"``) or a statistics ``NamedTuple``
(``"GaussianStats"``) by a bare name, which is looked up in the dictionaries below and
nowhere else (both are filled from what the package defines: the registered estimators,
and the NamedTuples of the families, joint, inference and estimators packages and of the
training record): reading a file never imports a module or resolves a dotted path, so a
name like ``"os.system"`` is simply unknown.
"""

from __future__ import annotations

import functools
import importlib
import pkgutil

from bayesgen import registry

# The packages (and modules) whose NamedTuples are fitted state: statistics, priors,
# parameters, records.
_STATE_PACKAGES = (
    "bayesgen.families",
    "bayesgen.joint",
    "bayesgen.inference",
    "bayesgen.estimators",
    "bayesgen.training_range",
)


def _is_named_tuple(value) -> bool:
    return isinstance(value, type) and issubclass(value, tuple) and hasattr(value, "_fields")


def _state_modules():
    for package_name in _STATE_PACKAGES:
        try:
            package = importlib.import_module(package_name)
        except ModuleNotFoundError:
            continue
        yield package
        for module in pkgutil.walk_packages(getattr(package, "__path__", ()), package_name + "."):
            yield importlib.import_module(module.name)


@functools.cache
def estimator_classes() -> dict[str, type]:
    """Every estimator class a model file may hold, by class name.

    Returns
    -------
    dict of str to type
        The estimators registered in `bayesgen.registry` (each public class that
        declares a ``model_name``).
    """
    importlib.import_module("bayesgen.estimators")  # defines (and so registers) every one
    return registry.estimators()


@functools.cache
def named_tuple_types() -> dict[str, type]:
    """Every NamedTuple type a model file may hold, by class name.

    Returns
    -------
    dict of str to type
        The NamedTuples defined in the families, the joint and inference layers, the
        estimators and `bayesgen.training_range` (statistics, priors, parameters, result
        records such as ``PriorAdaptation``, the record of the training columns).
    """
    types: dict[str, type] = {}
    for module in _state_modules():
        for value in vars(module).values():
            if _is_named_tuple(value) and value.__module__ == module.__name__:
                if types.get(value.__name__, value) is not value:
                    raise RuntimeError(f"two state NamedTuples are named {value.__name__!r}")
                types[value.__name__] = value
    return types


def is_registered_estimator(value) -> bool:
    """Whether ``value``'s exact type is a whitelisted estimator class."""
    return estimator_classes().get(type(value).__name__) is type(value)


def is_registered_named_tuple(value) -> bool:
    """Whether ``value``'s exact type is a whitelisted NamedTuple."""
    return named_tuple_types().get(type(value).__name__) is type(value)


def is_registered_family(value) -> bool:
    """Whether ``value`` is a feature family whose exact type is registered under its name."""
    name = getattr(type(value), "name", None)
    return isinstance(name, str) and registry.families().get(name) is type(value)


def family_class(name: str) -> type | None:
    """The feature family registered as ``name``, or None."""
    importlib.import_module("bayesgen.families")  # defines (and so registers) every one
    return registry.families().get(name)
