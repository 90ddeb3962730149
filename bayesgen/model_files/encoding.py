"""Values to tagged JSON: the grammar of a model file's header (read back in `decoding`).

Plain JSON stands for itself: ``null``, ``true``/``false``, integers, finite floats,
strings, and arrays (Python lists). Every JSON object is a tag, ``{"$type": ..., ...}``:

==================  =====================================================================
``float``           ``{"value": "nan" | "inf" | "-inf"}``: a non-finite Python float
``tuple``           ``{"items": [...]}``
``dict``            ``{"items": [[key, value], ...]}`` (keys of any storable type)
``numpy_scalar``    ``{"dtype": "<f8", "value": ...}``: kinds bool, int, uint, float, str
``ndarray``         ``{"member": "arrays/0.npy", "dtype": "<f8", "shape": [3, 4]}``
``object_array``    ``{"shape": [...], "items": [...]}``: an object array of the scalars
                    above, in C order
``namedtuple``      ``{"name": "GaussianStats", "fields": {field: value}}``
``estimator``       ``{"class": "GaussianDA", "params": {...}, "state": {...}}``
==================  =====================================================================

``namedtuple`` and ``estimator`` names are looked up in `registry` only. Numeric
arrays live in ``.npy`` members of the zip, one per distinct array object (two attributes
holding the same array share one member, and share one array again when read).
"""

from __future__ import annotations

import inspect
import math
import re

import numpy as np

from bayesgen.families.namespace import is_jax_array
from bayesgen.model_files import registry
from bayesgen.model_files.errors import ModelFileError

TAG = "$type"
ARRAY_KINDS = "biufcUS"  # plain data; object, void (structured) and datetime refused
SCALAR_KINDS = "biufU"
MAX_DEPTH = 64
NON_FINITE = {"nan": math.nan, "inf": math.inf, "-inf": -math.inf}
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


def is_attribute_name(name) -> bool:
    """A plain identifier that is not a dunder: what a stored attribute may be called."""
    return isinstance(name, str) and bool(_NAME.match(name)) and not name.startswith("__")


def is_fitted_state(state: dict) -> bool:
    """scikit-learn's test: some attribute ends in ``_`` (and is not private-dunder)."""
    return any(name.endswith("_") and not name.startswith("__") for name in state)


def family_arguments(cls) -> list[str]:
    """The names of a feature family's constructor arguments (each kept as an attribute)."""
    return [
        name
        for name, parameter in inspect.signature(cls.__init__).parameters.items()
        if name != "self" and parameter.kind is not parameter.VAR_KEYWORD
    ]


def estimator_parts(estimator) -> tuple[dict, dict]:
    """``(params, state)``: ``get_params(deep=False)`` and every other instance attribute."""
    params = estimator.get_params(deep=False)
    state = {name: value for name, value in vars(estimator).items() if name not in params}
    return params, state


class Encoder:
    """Turns values into tagged JSON, collecting the numeric arrays as zip members.

    Parameters
    ----------
    source : str
        The file being written, for error messages.
    """

    def __init__(self, source: str):
        self.source = source
        self.arrays: dict[str, np.ndarray] = {}
        self._members: dict[int, str] = {}  # id(array) -> member, for shared arrays

    def fail(self, where: str, problem: str):
        raise ModelFileError(self.source, f"cannot store {where}: {problem}")

    def encode(self, value, where: str):
        """The tagged JSON of ``value``; ``where`` names it in error messages."""
        if value is None or isinstance(value, bool):
            return value
        if isinstance(value, np.generic):
            return self._numpy_scalar(value, where)
        if isinstance(value, int | str):
            return value
        if isinstance(value, float):
            return value if math.isfinite(value) else {TAG: "float", "value": repr(value)}
        if is_jax_array(value):
            value = np.asarray(value)
        if isinstance(value, np.ndarray):
            return self._array(value, where)
        if isinstance(value, tuple) and hasattr(value, "_fields"):
            if not registry.is_registered_named_tuple(value):
                self.fail(where, f"{type(value).__qualname__} is not a bayesgen state type")
            fields = {f: self.encode(getattr(value, f), f"{where}.{f}") for f in value._fields}
            return {TAG: "namedtuple", "name": type(value).__name__, "fields": fields}
        if isinstance(value, tuple):
            return {TAG: "tuple", "items": self._items(value, where)}
        if isinstance(value, list):
            return self._items(value, where)
        if isinstance(value, dict):
            items = [
                [self.encode(k, f"{where} key {k!r}"), self.encode(v, f"{where}[{k!r}]")]
                for k, v in value.items()
            ]
            return {TAG: "dict", "items": items}
        if registry.is_registered_estimator(value):
            return self.estimator(value, where)
        if registry.is_registered_family(value):
            return self.family(value, where)
        self.fail(
            where,
            f"a {type(value).__module__}.{type(value).__qualname__}, which a model file cannot "
            "hold (it stores numbers, strings, arrays, lists, tuples, dicts, bayesgen "
            "statistics and bayesgen estimators)",
        )

    def estimator(self, estimator, where: str) -> dict:
        """The ``estimator`` tag: class name, constructor parameters, every other attribute."""
        params, state = estimator_parts(estimator)
        for name in state:
            if not is_attribute_name(name):
                self.fail(f"{where}.{name}", "not a plain attribute name")
        return {
            TAG: "estimator",
            "class": type(estimator).__name__,
            "params": {k: self.encode(v, f"{where} parameter {k}") for k, v in params.items()},
            "state": {k: self.encode(v, f"{where}.{k}") for k, v in state.items()},
        }

    def family(self, family, where: str) -> dict:
        """The ``family`` tag: the registered name and the constructor's arguments, read off
        the family's attributes of the same names."""
        arguments = {}
        for name in family_arguments(type(family)):
            if not hasattr(family, name):
                self.fail(f"{where}.{name}", f"the {family.name} family keeps no attribute {name}")
            arguments[name] = self.encode(getattr(family, name), f"{where}.{name}")
        return {TAG: "family", "name": family.name, "arguments": arguments}

    def _items(self, values, where: str) -> list:
        return [self.encode(v, f"{where}[{i}]") for i, v in enumerate(values)]

    def _numpy_scalar(self, value: np.generic, where: str) -> dict:
        dtype = value.dtype
        if dtype.kind not in SCALAR_KINDS or (dtype.kind == "f" and dtype.itemsize > 8):
            self.fail(where, f"a NumPy scalar of dtype {dtype}")
        return {TAG: "numpy_scalar", "dtype": dtype.str, "value": self.encode(value.item(), where)}

    def _array(self, array: np.ndarray, where: str) -> dict:
        if type(array) is not np.ndarray:
            self.fail(where, f"an array subclass {type(array).__qualname__}")
        if array.dtype.kind == "O":
            items = [self._object_item(item, where) for item in array.ravel(order="C")]
            return {TAG: "object_array", "shape": list(array.shape), "items": items}
        if array.dtype.kind not in ARRAY_KINDS or array.dtype.fields is not None:
            self.fail(where, f"an array of dtype {array.dtype}")
        member = self._members.get(id(array))
        if member is None:
            member = f"arrays/{len(self.arrays)}.npy"
            self._members[id(array)] = member
            self.arrays[member] = array
        return {
            TAG: "ndarray",
            "member": member,
            "dtype": array.dtype.str,
            "shape": list(array.shape),
        }

    def _object_item(self, item, where: str):
        plain = item is None or isinstance(item, bool | int | float | str | np.generic)
        if not plain:
            self.fail(where, f"an object array holding a {type(item).__qualname__}")
        return self.encode(item, where)
