"""Issue 30: inference takes and returns values, never an estimator object.

Every function of ``bayesgen.inference`` is read (its source, as a syntax tree): no
parameter names an estimator or a model, no private member of an argument is touched
(a NamedTuple's own ``_replace``, ``_asdict``, ``_fields`` and ``_make`` excepted) and no
object's ``__dict__`` is read or restored.
"""

import ast
import importlib.util
import pkgutil
from pathlib import Path

import pytest

import bayesgen.inference

NAMED_TUPLE_METHODS = {"_replace", "_asdict", "_fields", "_make"}
ESTIMATOR_NAMES = {"estimator", "model", "classifier"}


def _sources() -> dict[str, Path]:
    found = {}
    for info in pkgutil.walk_packages(bayesgen.inference.__path__, "bayesgen.inference."):
        found[info.name] = Path(importlib.util.find_spec(info.name).origin)
    return found


def _problems(tree: ast.AST) -> list[str]:
    problems = []
    for function in ast.walk(tree):
        if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        arguments = function.args
        names = [a.arg for a in arguments.posonlyargs + arguments.args + arguments.kwonlyargs]
        problems += [
            f"{function.name}({name})" for name in names if name.lower() in ESTIMATOR_NAMES
        ]
        own = set(names) - {"self", "cls"}
        for node in ast.walk(function):
            if not isinstance(node, ast.Attribute):
                continue
            if node.attr == "__dict__":
                problems.append(f"{function.name}: .__dict__")
            private = node.attr.startswith("_") and node.attr not in NAMED_TUPLE_METHODS
            on_argument = isinstance(node.value, ast.Name) and node.value.id in own
            if private and on_argument and not node.attr.startswith("__"):
                problems.append(f"{function.name}: {node.value.id}.{node.attr}")
    return problems


@pytest.mark.parametrize("module", sorted(_sources()))
def test_no_function_takes_an_estimator_or_touches_its_private_members(module):
    tree = ast.parse(_sources()[module].read_text())
    assert _problems(tree) == []


def test_the_check_sees_what_it_forbids():
    source = """
def fit(estimator, X):
    estimator._add_rows(X)
    state = dict(estimator.__dict__)
    return X._replace(rows=1)
"""
    assert _problems(ast.parse(source)) == [
        "fit(estimator)",
        "fit: estimator._add_rows",
        "fit: .__dict__",
    ]
