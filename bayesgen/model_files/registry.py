"""The whitelist: the only types a model file may name, looked up by name.

A file names an estimator class (``"GaussianDA"``) or a statistics ``NamedTuple``
(``"GaussianStats"``) by a bare name, which is looked up in the dictionaries below and
nowhere else: reading a file never imports a module or resolves a dotted path, so a name
like ``"os.system"`` is simply unknown.
"""

from __future__ import annotations

import functools
import importlib

# The modules whose NamedTuples are fitted state: statistics, priors, parameters.
_STATE_MODULES = (
    "bayesgen.families.class_prior",
    "bayesgen.families.bernoulli",
    "bayesgen.families.categorical",
    "bayesgen.families.multinomial",
    "bayesgen.families.poisson",
    "bayesgen.families.linear",
    "bayesgen.families.kernel_density",
    "bayesgen.families.gaussian.stats",
    "bayesgen.families.gaussian.posterior",
    "bayesgen.families.gaussian.predictive",
    "bayesgen.families.gaussian.shrinkage",
    "bayesgen.families.gaussian.fisher",
    "bayesgen.estimators.decisions",
    "bayesgen.estimators.mixture_em",
)


def _is_named_tuple(value) -> bool:
    return isinstance(value, type) and issubclass(value, tuple) and hasattr(value, "_fields")


@functools.cache
def estimator_classes() -> dict[str, type]:
    """Every estimator class a model file may hold, by class name.

    Returns
    -------
    dict of str to type
        The public estimators of ``bayesgen.estimators`` (``GaussianDA``, its presets,
        the naive-Bayes classes, ``MixedNB``, ``MixtureDA``, ``KernelDensityDA``,
        ``RDACV``).
    """
    from sklearn.base import BaseEstimator

    estimators = importlib.import_module("bayesgen.estimators")
    classes = (getattr(estimators, name) for name in estimators.__all__)
    return {cls.__name__: cls for cls in classes if issubclass(cls, BaseEstimator)}


@functools.cache
def named_tuple_types() -> dict[str, type]:
    """Every NamedTuple type a model file may hold, by class name.

    Returns
    -------
    dict of str to type
        The NamedTuples defined in the families (statistics, priors, parameters) and the
        estimators' result records (``PriorAdaptation``, ``MixtureParams``).
    """
    types: dict[str, type] = {}
    for module_name in _STATE_MODULES:
        module = importlib.import_module(module_name)
        for value in vars(module).values():
            if _is_named_tuple(value) and value.__module__ == module_name:
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
