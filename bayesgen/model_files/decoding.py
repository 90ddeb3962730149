"""Tagged JSON back to values: the reader's half of `encoding`'s grammar.

Every node is checked against the grammar (exact tag keys, JSON types, allowed dtypes,
names in `registry`) before anything is built from it.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable

import numpy as np

from bayesgen.model_files import earlier_layouts, invariants, registry
from bayesgen.model_files.encoding import (
    ARRAY_KINDS,
    MAX_DEPTH,
    NON_FINITE,
    SCALAR_KINDS,
    TAG,
    family_arguments,
    is_attribute_name,
    is_fitted_state,
)
from bayesgen.model_files.errors import ModelFileError

_MEMBER = re.compile(r"arrays/[0-9]+\.npy\Z")


class Decoder:
    """Rebuilds values from tagged JSON, refusing anything outside the grammar.

    Parameters
    ----------
    source : str
        The file being read, for error messages.
    read_array : callable
        ``read_array(member) -> ndarray``: a validated numeric array member of the file.
    """

    def __init__(self, source: str, read_array: Callable[[str], np.ndarray]):
        self.source = source
        self._read_array = read_array
        self._arrays: dict[str, np.ndarray] = {}

    @property
    def members(self) -> set[str]:
        """The array members read so far."""
        return set(self._arrays)

    def fail(self, where: str, problem: str):
        raise ModelFileError(self.source, f"{where}: {problem}")

    def decode(self, node, where: str, depth: int = 0):
        """The value ``node`` stands for."""
        if depth > MAX_DEPTH:
            self.fail(where, f"nested deeper than {MAX_DEPTH} levels")
        if node is None or isinstance(node, bool | int | float | str):
            return node
        if isinstance(node, list):
            return [self.decode(v, f"{where}[{i}]", depth + 1) for i, v in enumerate(node)]
        if not isinstance(node, dict) or not isinstance(node.get(TAG), str):
            self.fail(where, f"expected a value or a {TAG!r} tag, found {_describe(node)}")
        tag = node[TAG]
        decode = {
            "float": self._float,
            "tuple": self._tuple,
            "dict": self._dict,
            "numpy_scalar": self._numpy_scalar,
            "ndarray": self._array,
            "object_array": self._object_array,
            "namedtuple": self._named_tuple,
            "estimator": self._estimator,
            "family": self._family,
        }.get(tag)
        if decode is None:
            self.fail(where, f"unknown {TAG} {tag!r}")
        return decode(node, where, depth + 1)

    def _fields(self, node: dict, where: str, **expected: type) -> list:
        keys = set(node) - {TAG}
        if keys != set(expected):
            self.fail(
                where, f"a {node[TAG]!r} tag needs keys {sorted(expected)}, has {sorted(keys)}"
            )
        for key, kind in expected.items():
            if kind is not object and not isinstance(node[key], kind):
                self.fail(where, f"{node[TAG]!r}.{key} must be a JSON {kind.__name__}")
        return [node[key] for key in expected]

    def _float(self, node, where, depth):
        (text,) = self._fields(node, where, value=str)
        if text not in NON_FINITE:
            self.fail(where, f"float value must be one of {sorted(NON_FINITE)}, not {text!r}")
        return NON_FINITE[text]

    def _tuple(self, node, where, depth):
        (items,) = self._fields(node, where, items=list)
        return tuple(self.decode(v, f"{where}[{i}]", depth) for i, v in enumerate(items))

    def _dict(self, node, where, depth):
        (items,) = self._fields(node, where, items=list)
        result = {}
        for item in items:
            if not isinstance(item, list) or len(item) != 2:
                self.fail(where, "dict items must be [key, value] pairs")
            key = self.decode(item[0], f"{where} key", depth)
            value = self.decode(item[1], f"{where}[{key!r}]", depth)
            try:
                result[key] = value
            except TypeError:
                self.fail(where, f"dict key {key!r} is not hashable")
        return result

    def _numpy_scalar(self, node, where, depth):
        dtype_text, value = self._fields(node, where, dtype=str, value=object)
        dtype = self._dtype(dtype_text, SCALAR_KINDS, where)
        value = self.decode(value, where, depth)
        expected = {"b": bool, "i": int, "u": int, "f": float, "U": str}[dtype.kind]
        if not isinstance(value, expected) or (expected is int and isinstance(value, bool)):
            self.fail(where, f"a {dtype} scalar cannot hold {value!r}")
        try:
            return dtype.type(value)
        except (OverflowError, ValueError) as error:
            self.fail(where, f"a {dtype} scalar cannot hold {value!r} ({error})")

    def _array(self, node, where, depth):
        member, dtype_text, shape = self._fields(node, where, member=str, dtype=str, shape=list)
        if not _MEMBER.match(member):
            self.fail(where, f"array member name {member!r} is not of the form arrays/<n>.npy")
        dtype = self._dtype(dtype_text, ARRAY_KINDS, where)
        shape = self._shape(shape, where)
        if member not in self._arrays:
            self._arrays[member] = self._read_array(member)
        array = self._arrays[member]
        if array.dtype != dtype or array.shape != shape:
            self.fail(
                where,
                f"member {member} holds a {array.dtype.str} array of shape {array.shape}; the "
                f"header says {dtype.str} of shape {shape}",
            )
        return array

    def _object_array(self, node, where, depth):
        shape, items = self._fields(node, where, shape=list, items=list)
        shape = self._shape(shape, where)
        if len(items) != math.prod(shape):
            self.fail(where, f"{len(items)} items do not fill shape {shape}")
        array = np.empty(len(items), dtype=object)
        for i, item in enumerate(items):
            if isinstance(item, list) or (
                isinstance(item, dict) and item.get(TAG) not in ("float", "numpy_scalar")
            ):
                self.fail(where, "object array items must be numbers, strings or null")
            array[i] = self.decode(item, f"{where}[{i}]", depth)
        return array.reshape(shape)

    def _named_tuple(self, node, where, depth):
        name, fields = self._fields(node, where, name=str, fields=dict)
        cls = registry.named_tuple_types().get(name)
        if cls is None:
            self.fail(where, f"unknown state type {name!r} (not a bayesgen statistics type)")
        # A field added later with a default may be absent from files written before it.
        required = set(cls._fields) - set(cls._field_defaults)
        if not required <= set(fields) <= set(cls._fields):
            self.fail(where, f"{name} has fields {list(cls._fields)}, the file has {list(fields)}")
        return cls(**{f: self.decode(v, f"{where}.{f}", depth) for f, v in fields.items()})

    def _family(self, node, where, depth):
        name, arguments = self._fields(node, where, name=str, arguments=dict)
        cls = registry.family_class(name)
        if cls is None:
            self.fail(where, f"unknown feature family {name!r} (not a registered family)")
        unknown = set(arguments) - set(family_arguments(cls))
        if unknown:
            self.fail(where, f"the {name} family has no arguments {sorted(unknown)}")
        values = {k: self.decode(v, f"{where}.{k}", depth) for k, v in arguments.items()}
        try:
            return cls(**values).check()
        except (AttributeError, TypeError, ValueError) as error:
            self.fail(where, f"the {name} family refuses its arguments ({error})")

    def _estimator(self, node, where, depth):
        name, params, state = self._fields(
            node, where, **{"class": str, "params": dict, "state": dict}
        )
        cls = registry.estimator_classes().get(name)
        if cls is None:
            self.fail(where, f"unknown estimator class {name!r} (not a bayesgen estimator)")
        unknown = set(params) - set(cls._get_param_names())
        if unknown:
            self.fail(where, f"{name} has no parameters {sorted(unknown)}")
        bad = [key for key in state if not is_attribute_name(key) or key in params]
        if bad:
            self.fail(where, f"attribute names {bad} are not allowed")
        arguments = {k: self.decode(v, f"{where} parameter {k}", depth) for k, v in params.items()}
        estimator = cls(**arguments)
        state = {k: self.decode(v, f"{where}.{k}", depth) for k, v in state.items()}
        # A file written by an earlier layout names state this one keeps differently.
        try:
            state = earlier_layouts.upgraded(estimator, state)
        except (ArithmeticError, AttributeError, LookupError, TypeError, ValueError) as error:
            self.fail(
                where,
                f"the fitted {name} of an earlier layout cannot be read "
                f"({type(error).__name__}: {error})",
            )
        if is_fitted_state(state):
            broken = invariants.problems(state)
            if broken:
                self.fail(where, f"the fitted {name} is inconsistent: {'; '.join(broken)}")
        # Straight into __dict__: no property setter or __setattr__ sees the values.
        vars(estimator).update(state)
        if "joint_" in state:
            broken = invariants.view_problems(estimator, state)
            if broken:
                self.fail(where, f"the fitted {name} is inconsistent: {'; '.join(broken)}")
        return estimator

    def _dtype(self, text: str, kinds: str, where: str) -> np.dtype:
        try:
            dtype = np.dtype(text)
        except (TypeError, ValueError, SyntaxError):
            self.fail(where, f"{text!r} is not a NumPy dtype")
        if dtype.kind not in kinds or dtype.fields is not None:
            self.fail(where, f"dtype {dtype} is not allowed (allowed kinds: {kinds!r})")
        return dtype

    def _shape(self, shape: list, where: str) -> tuple:
        if not all(isinstance(n, int) and not isinstance(n, bool) and n >= 0 for n in shape):
            self.fail(where, f"shape {shape!r} must be a list of non-negative integers")
        return tuple(shape)


def _describe(node) -> str:
    return f"a JSON {type(node).__name__}" if not isinstance(node, dict) else "an untagged object"
