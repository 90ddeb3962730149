"""A griffe extension for the API reference: constants documented by their own words.

Inspected at run time (``force_inspection`` in ``mkdocs.yml``), a class or module
attribute such as ``min_classes = 2`` or ``model_name = "qda"`` has no docstring of its
own, so griffe gives it its value's: the page would explain ``int`` ("int([x]) ->
integer ...") or ``str`` under ``min_classes``. This extension puts the attribute's own
description there instead, the first of:

1. the ``#:`` comment lines just above its assignment (the Sphinx convention), in the
   class itself, then in the classes it inherits from (an override keeps the meaning of
   what it overrides), or for a package's constant in the module that assigns it;
2. its entry in the ``Attributes`` (then ``Parameters``) section of the docstring of the
   class or of a class it inherits from (`bayesgen.families.protocol.FeatureFamily`
   describes every family's constants there).

An attribute described nowhere gets no docstring (mkdocstrings then leaves it out, as
every member without one).
"""

import inspect
import re
import sys
from typing import Any

import griffe

# Values whose type's docstring an inspected attribute would otherwise show.
_PLAIN_VALUES = (bool, int, float, complex, str, bytes, tuple, frozenset, type(None))


def _source_lines(runtime) -> list[str]:
    try:
        return inspect.getsourcelines(runtime)[0]
    except (OSError, TypeError):
        return []


def _comment_above(source: list[str], name: str, indent: str) -> str | None:
    """The ``#:`` lines right above the assignment (or annotation) of ``name`` at
    indentation ``indent`` in ``source``, joined, or None."""
    assignment = re.compile(rf"^{indent}{re.escape(name)}\s*(:[^=]*)?(=|$)")
    for index, line in enumerate(source):
        if assignment.match(line.rstrip("\n")):
            comments = []
            for above in reversed(source[:index]):
                if not above.strip().startswith("#:"):
                    break
                comments.insert(0, above.strip()[2:].strip())
            return " ".join(comments) or None
    return None


def _class_indent(source: list[str]) -> str:
    """The indentation of a class body: that of its first line after the header, plus
    four spaces over the ``class`` line."""
    header = source[0] if source else ""
    return header[: len(header) - len(header.lstrip())] + "    "


def _docstring_entry(docstring: str | None, name: str) -> str | None:
    """The description of ``name`` in a numpydoc ``Attributes`` or ``Parameters``
    section of ``docstring``, or None."""
    lines = inspect.cleandoc(docstring or "").splitlines()
    for section in ("Attributes", "Parameters"):
        try:
            start = lines.index(section) + 2  # the title and its underline
        except ValueError:
            continue
        entry = re.compile(rf"^{re.escape(name)}(\s*:.*)?$")
        for index in range(start, len(lines)):
            line = lines[index]
            if index + 1 < len(lines) and re.fullmatch(r"-{3,}", lines[index + 1]):
                break  # the next section's title
            if entry.match(line):
                description = []
                for following in lines[index + 1 :]:
                    if following and not following[0].isspace():
                        break
                    description.append(following.strip())
                return " ".join(part for part in description if part) or None
    return None


def _class_description(runtime: type, name: str) -> str | None:
    for klass in runtime.__mro__:
        source = _source_lines(klass)
        comment = source and _comment_above(source, name, _class_indent(source))
        if comment:
            return comment
    for klass in runtime.__mro__:
        entry = _docstring_entry(vars(klass).get("__doc__"), name)
        if entry:
            return entry
    return None


def _module_description(runtime, name: str) -> str | None:
    value = vars(runtime)[name]
    modules = [runtime] + [
        module
        for module_name, module in sorted(sys.modules.items())
        if module_name.startswith(runtime.__name__ + ".")
        and module is not None
        and vars(module).get(name) is value
    ]
    for module in modules:
        comment = _comment_above(_source_lines(module), name, "")
        if comment:
            return comment
    return None


def _replace_borrowed(runtime, owner: griffe.Object, describe) -> None:
    """Give each plain constant of ``runtime`` (a class or module) documented by ``owner``
    its description (``describe(runtime, name)``) in place of its type's docstring."""
    for name, member in list(owner.members.items()):
        value = vars(runtime).get(name)
        if member.is_alias or not isinstance(value, _PLAIN_VALUES):
            continue
        borrowed = inspect.cleandoc(type(value).__doc__ or "")
        if member.docstring is None or member.docstring.value.strip() != borrowed:
            continue
        text = describe(runtime, name)
        member.docstring = None if text is None else griffe.Docstring(text, parent=member)


class AttributeComments(griffe.Extension):
    """Document plain constants by their own descriptions, not by their type's.

    griffe calls each hook with the inspected object (``node.obj``, only when inspecting)
    and the class or module whose members it has just loaded.
    """

    def on_class_members(self, *, node: Any, cls: griffe.Class, **kwargs: Any) -> None:
        """Replace the borrowed docstrings of an inspected class's constants."""
        runtime = getattr(node, "obj", None)
        if isinstance(runtime, type):
            _replace_borrowed(runtime, cls, _class_description)

    def on_module_members(self, *, node: Any, mod: griffe.Module, **kwargs: Any) -> None:
        """Replace the borrowed docstrings of an inspected module's constants."""
        runtime = getattr(node, "obj", None)
        if inspect.ismodule(runtime):
            _replace_borrowed(runtime, mod, _module_description)
