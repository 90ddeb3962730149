"""The package's layers: no import cycle, and every import points down.

The layers, lowest first (``docs/architecture.md``): the shared utilities (the registry
among them), ``families``, ``stories`` and ``joint``, ``inference``, ``estimators``, then the
uses of estimators (``model_files``, ``cli``, ``plot``, ``dask``, ``metrics``,
``synthesizer``). A module may
import its own layer or one below, at module level, inside a function, or by name
(``importlib.import_module``, ``__import__``): a registry that imports what it registers is
an import upward too. Imports inside functions are the way to reach an optional heavy
dependency (``arviz``) lazily; the one import upward on demand is ``save`` writing a model
file (`ON_DEMAND_UPWARD`).
"""

import ast
import importlib.util
import pkgutil
from pathlib import Path

import bayesgen

LAYERS = {
    "families": 1,
    "stories": 2,
    "joint": 2,
    "inference": 3,
    "estimators": 4,
    "model_files": 5,
    "cli": 5,
    "plot": 5,
    "dask": 5,
    "metrics": 5,
    "synthesizer": 5,
    "class_strata": 5,
}


def _modules() -> dict[str, Path]:
    found = {"bayesgen": Path(bayesgen.__file__)}
    for info in pkgutil.walk_packages(bayesgen.__path__, "bayesgen."):
        found[info.name] = Path(importlib.util.find_spec(info.name).origin)
    return found


def _imported(statements, package: str, known: set[str]) -> set[str]:
    """The modules that import statements among ``statements`` name (submodules resolved)."""
    imported = set()
    for statement in statements:
        if isinstance(statement, ast.Import):
            imported.update(alias.name for alias in statement.names)
        elif isinstance(statement, ast.ImportFrom):
            base = statement.module or ""
            if statement.level:
                parent = package.rsplit(".", statement.level - 1)[0]
                base = f"{parent}.{base}" if base else parent
            submodules = {f"{base}.{alias.name}" for alias in statement.names}
            imported.update(submodules & known or {base})
    return imported


def _package(name: str, path: Path) -> str:
    return name if path.name == "__init__.py" else name.rpartition(".")[0]


def _module_level_imports(name: str, path: Path, known: set[str]) -> set[str]:
    """The bayesgen modules ``name`` imports at module level (not inside functions)."""
    tree = ast.parse(path.read_text())
    statements = []
    for node in tree.body:
        statements += list(ast.walk(node)) if isinstance(node, ast.If | ast.Try) else [node]
    imported = _imported(statements, _package(name, path), known)
    return {module for module in imported if module in known and module != name}


def _import_calls(tree) -> list[ast.Call]:
    calls = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            function = node.func
            called = function.attr if isinstance(function, ast.Attribute) else None
            called = called or (function.id if isinstance(function, ast.Name) else None)
            if called in ("import_module", "__import__") and node.args:
                calls.append(node)
    return calls


def _constant_strings(tree) -> set[str]:
    """The strings in the module-level constants (tuples, lists, dicts of names)."""
    found = set()
    for node in tree.body:
        if isinstance(node, ast.Assign | ast.AnnAssign) and node.value is not None:
            for leaf in ast.walk(node.value):
                if isinstance(leaf, ast.Constant) and isinstance(leaf.value, str):
                    found.add(leaf.value)
    return found


def _dynamic_imports(name: str, path: Path, known: set[str]) -> set[str]:
    """The bayesgen modules ``name`` imports by name: literal targets, the package of an
    f-string's literal prefix, and, for a target computed at run time, every module named in
    its module-level constants (where such names are kept, as a registry's packages)."""
    tree = ast.parse(path.read_text())
    targets = set()
    for call in _import_calls(tree):
        argument = call.args[0]
        if isinstance(argument, ast.Constant) and isinstance(argument.value, str):
            targets.add(argument.value)
        elif isinstance(argument, ast.JoinedStr) and isinstance(argument.values[0], ast.Constant):
            targets.add(argument.values[0].value.rstrip("."))
        else:
            targets |= _constant_strings(tree)
    return {target for target in targets if target in known and target != name}


def _function_level_imports(name: str, path: Path, known: set[str]) -> set[str]:
    """The bayesgen modules ``name`` imports inside functions (static import statements)."""
    tree = ast.parse(path.read_text())
    statements = [
        statement
        for function in ast.walk(tree)
        if isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef)
        for statement in ast.walk(function)
    ]
    imported = _imported(statements, _package(name, path), known)
    return {module for module in imported if module in known and module != name}


#: ``save`` is the estimators' door to the file format one layer up, imported when called.
ON_DEMAND_UPWARD = {"bayesgen.estimators.saving -> bayesgen.model_files.writing"}


def _graph(*, dynamic: bool = True) -> dict[str, set[str]]:
    modules = _modules()
    known = set(modules)
    return {
        name: _module_level_imports(name, path, known)
        | (_dynamic_imports(name, path, known) if dynamic else set())
        for name, path in modules.items()
    }


def _upward(graph: dict[str, set[str]]) -> list[str]:
    return sorted(
        f"{module} -> {target}"
        for module, targets in graph.items()
        for target in targets
        if _layer(target) > _layer(module) and not target.startswith(module + ".")
    )


def _layer(module: str) -> int:
    parts = module.split(".")
    return LAYERS.get(parts[1], 0) if len(parts) > 1 else 5


def test_no_import_cycle():
    graph = _graph()
    visiting, done, cycles = [], set(), []

    def visit(module):
        if module in done:
            return
        if module in visiting:
            cycles.append(visiting[visiting.index(module) :] + [module])
            return
        visiting.append(module)
        for target in sorted(graph[module]):
            # A package's __init__ importing its own submodules is how it exports them.
            if not target.startswith(module + "."):
                visit(target)
        visiting.pop()
        done.add(module)

    for module in sorted(graph):
        visit(module)
    assert cycles == []


def test_imports_point_down():
    assert _upward(_graph(dynamic=False)) == []


def test_imports_by_name_point_down():
    modules = _modules()
    known = set(modules)
    graph = {name: _dynamic_imports(name, path, known) for name, path in modules.items()}
    assert _upward(graph) == []


def test_imports_inside_functions_point_down_but_for_save():
    modules = _modules()
    known = set(modules)
    graph = {name: _function_level_imports(name, path, known) for name, path in modules.items()}
    assert set(_upward(graph)) == ON_DEMAND_UPWARD


def test_the_dynamic_import_finder_sees_a_registry_that_imports_upward(tmp_path):
    module = tmp_path / "registry.py"
    module.write_text(
        "import importlib\n_PACKAGES = ('bayesgen.estimators',)\n"
        "def populate():\n    for name in _PACKAGES:\n        importlib.import_module(name)\n"
    )
    found = _dynamic_imports("bayesgen.registry", module, set(_modules()))
    assert found == {"bayesgen.estimators"}
    assert _upward({"bayesgen.registry": found}) == ["bayesgen.registry -> bayesgen.estimators"]


def test_families_import_neither_scikit_learn_nor_estimators():
    offenders = []
    for name, path in _modules().items():
        if not name.startswith("bayesgen.families"):
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                names = [node.module or ""]
            offenders += [
                f"{name}: {n}"
                for n in names
                if n.split(".")[0] == "sklearn" or n.startswith("bayesgen.estimators")
            ]
    assert offenders == []
