"""The package's layers: no import cycle, and every import points down.

The layers, lowest first (``docs/architecture.md``): the shared utilities, ``families``,
``stories``, ``inference``, ``estimators``, then the uses of estimators (``model_files``,
``cli``, ``plot``, ``dask``, ``metrics``). A module may import its own layer or one below.
Imports inside functions are the way a lower layer reaches an optional heavy dependency
(``arviz``) or a higher layer on demand (``save`` writing a model file); only module-level
imports are the layering.
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
}


def _modules() -> dict[str, Path]:
    found = {"bayesgen": Path(bayesgen.__file__)}
    for info in pkgutil.walk_packages(bayesgen.__path__, "bayesgen."):
        found[info.name] = Path(importlib.util.find_spec(info.name).origin)
    return found


def _module_level_imports(name: str, path: Path, known: set[str]) -> set[str]:
    """The bayesgen modules ``name`` imports at module level (not inside functions)."""
    tree = ast.parse(path.read_text())
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    imported = set()
    for node in tree.body:
        statements = [node]
        if isinstance(node, ast.If | ast.Try):
            statements = list(ast.walk(node))
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
    return {module for module in imported if module in known and module != name}


def _graph() -> dict[str, set[str]]:
    modules = _modules()
    return {name: _module_level_imports(name, path, set(modules)) for name, path in modules.items()}


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
    upward = sorted(
        f"{module} -> {target}"
        for module, targets in _graph().items()
        for target in targets
        if _layer(target) > _layer(module)
    )
    assert upward == []


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
