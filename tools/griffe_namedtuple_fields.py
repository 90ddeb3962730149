"""A griffe extension for the API reference: NamedTuple fields are documented once.

Inspected at run time (``force_inspection`` in ``mkdocs.yml``), each field of a
``typing.NamedTuple`` is a class attribute whose value is CPython's ``_tuplegetter``
descriptor, so mkdocstrings would render ``features = _tuplegetter(1, 'Alias for field
number 1')`` beneath the class. The class docstring's ``Attributes`` section already
describes every field; this extension drops the descriptor entries.
"""

from typing import Any

import griffe


class NamedTupleFields(griffe.Extension):
    """Remove the ``_tuplegetter`` members of inspected ``NamedTuple`` classes."""

    def on_class_members(self, *, node: Any, cls: griffe.Class, **kwargs: Any) -> None:
        """Delete the members named in the inspected class's ``_fields``.

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
        if not (isinstance(runtime, type) and issubclass(runtime, tuple)):
            return
        for name in getattr(runtime, "_fields", ()):
            if name in cls.members:
                cls.del_member(name)
