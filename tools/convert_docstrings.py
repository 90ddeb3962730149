"""Rewrite reST roles and math directives in numpydoc docstrings as mkdocstrings Markdown.

mkdocstrings renders docstrings as Markdown, so reStructuredText shows raw on the site. This
script rewrites, in place and only inside docstring text:

- ``:math:`x``` -> ``$x$`` (``pymdownx.arithmatex`` typesets it);
- a ``.. math::`` block -> ``$$ ... $$`` (one block per paragraph of the directive);
- ``:func:``, ``:class:``, ``:meth:``, ``:attr:``, ``:mod:``, ``:data:``, ``:obj:``,
  ``:exc:`` -> a mkdocstrings cross-reference ``[`name`][anchor]`` when the object is
  documented on the site (``anchor`` is an id of a built page, so ``mkdocs build --strict``
  resolves it), else plain code ```name```.

Docstring text is a module's, class's or function's docstring, a bare string statement in a
module or class body (an attribute's docstring, for griffe), and the string literals that
assemble docstrings at import time: the value of an assignment to ``__doc__`` or to a name
ending in ``_DOC``, the arguments of a call to a function whose name ends in ``_doc``, and
the strings inside such a function.
Nothing else in a file changes; doctest examples (``>>>`` lines and the output they expect)
are left as they are.
Running it twice changes nothing the second time.

Usage (from the repository root)::

    python tools/convert_docstrings.py bayesgen            # builds the site to find anchors
    python tools/convert_docstrings.py bayesgen --site site  # anchors of an existing build
    python tools/convert_docstrings.py bayesgen --check      # count only, change nothing
"""

from __future__ import annotations

import argparse
import ast
import importlib
import inspect
import io
import os
import re
import subprocess
import sys
import tempfile
import tokenize
import types
from collections.abc import Callable, Iterable
from pathlib import Path

ROLE = re.compile(r":(?P<role>func|class|meth|attr|mod|data|obj|exc|math):`(?P<text>[^`]*)`")
MATH_DIRECTIVE = re.compile(r"^(?P<indent>[ \t]*)\.\. math::[ \t]*(?P<rest>.*)$")
TITLED = re.compile(r"^(?P<title>.*?)\s*<(?P<target>[^<>]+)>$")
ANCHOR = re.compile(r'id="(bayesgen(?:\.\w+)*)"')
DOCTEST = re.compile(r"^\s*(>>>|\.\.\.)(\s|$)")
STRING_PREFIX = re.compile(r"^(?P<prefix>[rRuUfF]*)(?P<quote>'''|\"\"\"|'|\")")

# A function that takes a role's target and the docstring's context (module, class) and
# returns the anchor of a documented object, or None.
Resolver = Callable[[str, str, str | None], str | None]


# --- text of one docstring ---------------------------------------------------------------


def convert_text(text: str, resolve: Resolver, module: str, owner: str | None) -> tuple[str, int]:
    """Return a docstring's text with its roles and math directives in Markdown.

    Parameters
    ----------
    text : str
        The text as written in the source, between the quotes (escapes untouched).
    resolve : callable
        ``resolve(target, module, owner)`` -> anchor or None.
    module : str
        The dotted name of the module the text is written in.
    owner : str or None
        The qualified name of the class the text documents or is written in, if any.

    Returns
    -------
    text : str
        The converted text.
    count : int
        The number of roles and math directives converted.
    """
    original = text.split("\n")
    lines = _convert_math_blocks(original)
    count = sum(1 for line in original if MATH_DIRECTIVE.match(line))
    # Roles may run across line breaks, as reST allows; doctest lines are left alone.
    chunks: list[tuple[bool, list[str]]] = []
    doctest = False
    for line in lines:
        # An example runs from its ">>>" line through its expected output, to a blank line.
        doctest = bool(DOCTEST.match(line)) or (doctest and bool(line.strip()))
        if chunks and chunks[-1][0] == doctest:
            chunks[-1][1].append(line)
        else:
            chunks.append((doctest, [line]))
    converted = []
    for doctest, chunk in chunks:
        joined = "\n".join(chunk)
        if not doctest:
            joined, found = ROLE.subn(lambda m: _role(m, resolve, module, owner), joined)
            count += found
        converted.append(joined)
    return "\n".join(converted), count


def _role(match: re.Match, resolve: Resolver, module: str, owner: str | None) -> str:
    role, text = match.group("role"), match.group("text")
    if role == "math":
        return f"${text.strip()}$"
    text = " ".join(text.split())
    titled = TITLED.match(text)
    title, target = (titled["title"], titled["target"]) if titled else (None, text)
    target = target.lstrip("!")
    short = target.startswith("~")
    target = target.lstrip("~")
    shown = title or (target.rsplit(".", 1)[-1] if short else target.lstrip("."))
    anchor = resolve(target, module, owner)
    return f"[`{shown}`][{anchor}]" if anchor else f"`{shown}`"


def _convert_math_blocks(lines: list[str]) -> list[str]:
    """``.. math::`` directives as ``$$`` blocks at the directive's own indentation."""
    out: list[str] = []
    i = 0
    while i < len(lines):
        directive = MATH_DIRECTIVE.match(lines[i])
        if not directive:
            out.append(lines[i])
            i += 1
            continue
        indent = directive["indent"]
        body = [directive["rest"]] if directive["rest"].strip() else []
        i += 1
        # The directive's content: blank lines and lines indented deeper than the directive.
        while i < len(lines) and (not lines[i].strip() or _depth(lines[i]) > len(indent)):
            body.append(lines[i])
            i += 1
        trailing_blanks = 0
        while body and not body[-1].strip():
            body.pop()
            trailing_blanks += 1
        body = [line for line in body if not re.match(r"^\s*:\w+:", line)]  # :label: etc.
        out.extend(_display_math(body, indent))
        out.extend([""] * trailing_blanks if i < len(lines) else [])
    return out


def _display_math(body: list[str], indent: str) -> list[str]:
    """``$$`` blocks, one per paragraph: arithmatex ends a block at a blank line."""
    paragraphs: list[list[str]] = [[]]
    for line in body:
        if line.strip():
            paragraphs[-1].append(line.strip())
        elif paragraphs[-1]:
            paragraphs.append([])
    blocks: list[str] = []
    for paragraph in (p for p in paragraphs if p):
        if blocks:
            blocks.append("")
        blocks.extend([f"{indent}$$", *(f"{indent}{line}" for line in paragraph), f"{indent}$$"])
    return blocks


def _depth(line: str) -> int:
    return len(line) - len(line.lstrip())


# --- where docstring text is in a source file ----------------------------------------------


def docstring_spans(source: str) -> list[tuple[tuple[int, int], tuple[int, int], str | None]]:
    """The source spans of docstring text, with the class each is written in.

    Parameters
    ----------
    source : str
        A Python module's source.

    Returns
    -------
    list of ((start_line, start_col), (end_line, end_col), owner)
        Spans of expressions whose string literals are docstring text (lines from 1,
        columns as ``ast`` counts them); ``owner`` is the enclosing class's qualified name.
    """
    spans = []

    def visit(node: ast.AST, owner: str | None) -> None:
        body = getattr(node, "body", None)
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            # The docstring, and in a module or class every bare string statement: griffe
            # reads one after an assignment as the attribute's docstring.
            bare = body if isinstance(node, (ast.Module, ast.ClassDef)) else body[:1]
            for statement in bare:
                if (
                    isinstance(statement, ast.Expr)
                    and isinstance(statement.value, ast.Constant)
                    and isinstance(statement.value.value, str)
                ):
                    spans.append((_start(statement.value), _end(statement.value), owner))
        if isinstance(node, ast.FunctionDef) and node.name.endswith("_doc"):
            # A function that assembles a docstring: every string in it is docstring text.
            spans.append((_start(node), _end(node), owner))
            return
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names = [t.id for t in targets if isinstance(t, ast.Name)]
            if any(n == "__doc__" or n.endswith("_DOC") for n in names):
                spans.append((_start(node.value), _end(node.value), owner))
                return
        if isinstance(node, ast.Call):
            function = node.func
            name = getattr(function, "id", None) or getattr(function, "attr", "")
            if name.endswith("_doc"):
                for argument in [*node.args, *(k.value for k in node.keywords)]:
                    spans.append((_start(argument), _end(argument), owner))
                return
        for child in ast.iter_child_nodes(node):
            if isinstance(node, ast.ClassDef):
                inner = f"{owner}.{node.name}" if owner else node.name
            else:
                inner = owner
            visit(child, inner)

    visit(ast.parse(source), None)
    return spans


def _start(node: ast.AST) -> tuple[int, int]:
    return node.lineno, node.col_offset


def _end(node: ast.AST) -> tuple[int, int]:
    return node.end_lineno, node.end_col_offset


def convert_source(source: str, resolve: Resolver, module: str) -> tuple[str, int]:
    """Convert the docstring text of one module's source.

    Parameters
    ----------
    source : str
        The module's source.
    resolve : callable
        ``resolve(target, module, owner)`` -> anchor or None.
    module : str
        The module's dotted name.

    Returns
    -------
    source : str
        The converted source (unchanged outside string literals of docstring text).
    count : int
        The number of roles and math directives converted.
    """
    spans = docstring_spans(source)
    line_starts = [0]
    for line in source.splitlines(keepends=True):
        line_starts.append(line_starts[-1] + len(line))

    def offset(position: tuple[int, int]) -> int:
        line, column = position
        # ast counts columns in UTF-8 bytes; tokenize and str slicing count characters.
        text = source[line_starts[line - 1] : line_starts[line]]
        return line_starts[line - 1] + len(text.encode()[:column].decode(errors="ignore"))

    regions = [(offset(a), offset(b), owner) for a, b, owner in spans]
    edits = []
    count = 0
    tokens = tokenize.generate_tokens(io.StringIO(source).readline)
    for token in tokens:
        if token.type != tokenize.STRING:
            continue
        start = line_starts[token.start[0] - 1] + token.start[1]
        end = line_starts[token.end[0] - 1] + token.end[1]
        owner = next((o for a, b, o in regions if a <= start and end <= b), False)
        if owner is False:
            continue
        prefix = STRING_PREFIX.match(token.string)
        if prefix is None or "b" in prefix["prefix"].lower():
            continue
        quote = prefix["quote"]
        head = len(prefix["prefix"]) + len(quote)
        inner = token.string[head : len(token.string) - len(quote)]
        converted, found = convert_text(inner, resolve, module, owner or None)
        if found:
            edits.append((start, end, token.string[:head] + converted + quote))
            count += found
    for start, end, text in reversed(edits):
        source = source[:start] + text + source[end:]
    return source, count


# --- which names resolve on the site ---------------------------------------------------------


def site_anchors(site: Path) -> set[str]:
    """The ids of the documented objects on a built site (``bayesgen...`` headings)."""
    anchors: set[str] = set()
    for page in site.rglob("*.html"):
        anchors.update(ANCHOR.findall(page.read_text(encoding="utf-8")))
    return anchors


def build_site(root: Path) -> Path:
    """Build the documentation site (not strict: raw reST is what is being fixed)."""
    site = Path(tempfile.mkdtemp(prefix="convert-docstrings-")) / "site"
    environment = dict(
        os.environ, XLA_FLAGS="--xla_cpu_enable_concurrency_optimized_scheduler=false"
    )
    command = [sys.executable, "-m", "mkdocs", "build", "--site-dir", str(site)]
    subprocess.run(command, cwd=root, env=environment, check=True, capture_output=True)
    return site


class SiteResolver:
    """Resolve a role's target to the anchor of the object the site documents.

    The target is looked up as Python would see it from the docstring (the class it is
    written in, its module, the packages above, then as written); the object found is then
    matched to an anchor by identity, so ``bayesgen.estimators.gaussian.GaussianDA`` and
    ``GaussianDA`` both link to the anchor ``bayesgen.GaussianDA`` of the API page. A method
    inherited by several documented classes (the base class's ``predict_proba``) has no one
    right anchor and stays plain code.

    Parameters
    ----------
    anchors : iterable of str
        The ids of the documented objects (see `site_anchors`).
    """

    def __init__(self, anchors: Iterable[str]):
        self.anchors = set(anchors)
        self._by_object: dict[int, list[str]] = {}
        for anchor in sorted(self.anchors):
            found = _import_path(anchor)
            if found is not None and _has_identity(found[0]):
                self._by_object.setdefault(id(found[0]), []).append(anchor)

    def __call__(self, target: str, module: str, owner: str | None) -> str | None:
        """Return the anchor of ``target`` seen from ``module`` (and class ``owner``)."""
        for candidate in _candidates(target, module, owner):
            if candidate in self.anchors:
                return candidate
            found = _import_path(candidate)
            if found is None:
                continue
            obj, parent, name = found
            if inspect.isclass(parent):
                for documented in self._by_object.get(id(parent), []):
                    if f"{documented}.{name}" in self.anchors:
                        return f"{documented}.{name}"
            # An inherited method is documented once per subclass: no one anchor is right.
            shown = self._by_object.get(id(obj), []) if _has_identity(obj) else []
            return shown[0] if len(shown) == 1 else None
        return None


def _candidates(target: str, module: str, owner: str | None) -> list[str]:
    if target.startswith("."):
        dots = len(target) - len(target.lstrip("."))
        package = module.split(".")
        if not _is_package(module):
            package = package[:-1]
        base = package[: len(package) - (dots - 1)]
        return [".".join([*base, target.lstrip(".")])]
    candidates = []
    if owner:
        parts = owner.split(".")
        candidates += [f"{module}.{'.'.join(parts[:k])}.{target}" for k in range(len(parts), 0, -1)]
    parts = module.split(".")
    candidates += [f"{'.'.join(parts[:k])}.{target}" for k in range(len(parts), 0, -1)]
    candidates.append(target)
    return candidates


def _is_package(module: str) -> bool:
    try:
        return hasattr(importlib.import_module(module), "__path__")
    except ImportError:
        return False


def _import_path(path: str) -> tuple[object, object, str] | None:
    """``(object, its parent, its name)`` for a dotted path, or None if nothing is there."""
    parts = path.split(".")
    for k in range(len(parts), 0, -1):
        try:
            obj: object = importlib.import_module(".".join(parts[:k]))
        except ImportError:
            continue
        parent, name = None, parts[k - 1]
        try:
            for part in parts[k:]:
                parent, name, obj = obj, part, getattr(obj, part)
        except AttributeError:
            return None
        return obj, parent, name
    return None


def _has_identity(obj: object) -> bool:
    return isinstance(obj, (type, types.ModuleType, types.FunctionType, types.BuiltinFunctionType))


# --- the command ---------------------------------------------------------------------------


def module_name(path: Path, root: Path) -> str:
    """The dotted module name of a file under the directory that holds its top package."""
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def main(argv: list[str] | None = None) -> int:
    """Convert every ``.py`` file under the given packages; print the counts per file."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("packages", nargs="+", type=Path, help="package folders to convert")
    parser.add_argument("--site", type=Path, help="a built site (default: build one)")
    parser.add_argument("--check", action="store_true", help="count only, write nothing")
    arguments = parser.parse_args(argv)
    root = Path.cwd()
    sys.path.insert(0, str(root))
    site = arguments.site or build_site(root)
    resolve = SiteResolver(site_anchors(site))
    total = 0
    for package in arguments.packages:
        for path in sorted(package.resolve().rglob("*.py")):
            source = path.read_text(encoding="utf-8")
            module = module_name(path, package.resolve().parent)
            converted, count = convert_source(source, resolve, module)
            if count:
                print(f"{path.relative_to(root) if path.is_relative_to(root) else path}: {count}")
                total += count
                if not arguments.check:
                    path.write_text(converted, encoding="utf-8")
    print(f"{total} roles and math directives {'found' if arguments.check else 'converted'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
