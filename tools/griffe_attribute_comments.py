"""A griffe extension for the API reference: constants documented by their comments.

Inspected at run time (``force_inspection`` in ``mkdocs.yml``), a class or module
attribute such as ``min_classes = 2`` or ``model_name = "qda"`` has no docstring of its
own, so griffe gives it its value's: the page would explain ``int`` ("int([x]) ->
integer ...") or ``str`` under ``min_classes``. The source documents such an attribute
with ``#:`` comment lines just above it (the Sphinx convention); this extension puts
those lines in place of the value's docstring, and drops the docstring where there are
none (mkdocstrings then leaves the attribute out, as every member without a docstring)."""

import inspect
import re
from typing import Any

import griffe

# Values whose type's docstring an inspected attribute would otherwise show.
_PLAIN_VALUES = (bool, int, float, complex, str, bytes, tuple, frozenset, type(None))


def _comment_above(source: list[str], name: str) -> str | None:
    """The ``#:`` lines right above the first assignment of ``name`` in ``source`` (a
    class's or module's lines), joined, or None."""
    assignment = re.compile(rf"^\s*{re.escape(name)}\s*(:[^=]*)?=")
    for index, line in enumerate(source):
        if assignment.match(line):
            comments = []
            for above in reversed(source[:index]):
                if not above.strip().startswith("#:"):
                    break
                comments.insert(0, above.strip()[2:].strip())
            return " ".join(comments) or None
    return None


def _replace_borrowed(runtime, owner: griffe.Object) -> None:
    """Give each plain constant of ``runtime`` (a class or module) documented by ``owner``
    its ``#:`` comment in place of its type's docstring, or no docstring."""
    try:
        source = inspect.getsourcelines(runtime)[0]
    except (OSError, TypeError):
        source = []
    for name, member in list(owner.members.items()):
        value = vars(runtime).get(name)
        if member.is_alias or not isinstance(value, _PLAIN_VALUES):
            continue
        borrowed = inspect.cleandoc(type(value).__doc__ or "")
        if member.docstring is None or member.docstring.value.strip() != borrowed:
            continue
        comment = _comment_above(source, name)
        member.docstring = None if comment is None else griffe.Docstring(comment, parent=member)


class AttributeComments(griffe.Extension):
    """Document plain constants by their ``#:`` comments, not by their type."""

    def on_class_members(self, *, node: Any, cls: griffe.Class, **kwargs: Any) -> None:
        """Replace the borrowed docstrings of an inspected class's constants.

        Parameters
        ----------
        node : griffe.ObjectNode or ast.AST
            The inspected object (only inspection carries the run-time class).
        cls : griffe.Class
            The class whose members were just loaded.
        **kwargs
            The rest of griffe's hook arguments, unused.
        """
        runtime = getattr(node, "obj", None)
        if isinstance(runtime, type):
            _replace_borrowed(runtime, cls)

    def on_module_members(self, *, node: Any, mod: griffe.Module, **kwargs: Any) -> None:
        """Replace the borrowed docstrings of an inspected module's constants.

        Parameters
        ----------
        node : griffe.ObjectNode or ast.AST
            The inspected object (only inspection carries the run-time module).
        mod : griffe.Module
            The module whose members were just loaded.
        **kwargs
            The rest of griffe's hook arguments, unused.
        """
        runtime = getattr(node, "obj", None)
        if inspect.ismodule(runtime):
            _replace_borrowed(runtime, mod)
