"""Fitted attributes read off the value ``joint_``."""

from __future__ import annotations


def _restored(reader, writer, doc, place):
    """A pickled `fitted_attribute` made again, where it was defined (`copy`, `pickle`)."""
    attribute = fitted_attribute(reader, writer, doc)
    if place is not None:
        attribute._place(*place)
    return attribute


class fitted_attribute(property):  # noqa: N801 - used like ``property``
    """A fitted attribute computed from ``joint_``: ``reader(estimator, joint)``.

    Read before ``fit`` it raises ``AttributeError`` (so ``hasattr`` is False, as
    scikit-learn expects); it can be set only when a ``writer(estimator, value)`` is given,
    and never deleted. A ``property`` to every tool that looks (``help``, the API pages: a
    fitted attribute, not a class attribute holding a descriptor).
    """

    def __init__(self, reader, writer=None, doc: str | None = None):
        def read(instance):
            return self.__get__(instance, type(instance))

        def write(instance, value):
            self.__set__(instance, value)

        read.__doc__ = doc
        super().__init__(read, None if writer is None else write)
        self.reader, self.writer, self.name = reader, writer, None
        self.__doc__ = doc  # on the instance: the class's own docstring would shadow it

    def __set_name__(self, owner, name):
        self._place(name, owner.__module__, owner.__qualname__)

    def _place(self, name: str, module: str, owner: str) -> None:
        """Name the attribute, and say where it is defined for tools that locate a
        property by its getter."""
        self.name = name
        self.__module__ = self.fget.__module__ = module
        self.fget.__name__ = name
        self.fget.__qualname__ = f"{owner}.{name}"

    def __reduce__(self):
        owner = self.fget.__qualname__.rpartition(".")[0]
        place = None if self.name is None else (self.name, self.__module__, owner)
        return _restored, (self.reader, self.writer, self.__doc__, place)

    def __get__(self, instance, owner=None):
        if instance is None:
            return self
        value = instance.__dict__.get("joint_")
        if value is None:
            raise AttributeError(f"This {type(instance).__name__} is not fitted: no {self.name}.")
        return self.reader(instance, value)

    def __set__(self, instance, value):
        if self.writer is None:
            raise AttributeError(
                f"{self.name} is read off the fitted value joint_ and cannot be set; use "
                "bayesgen.joint.with_params for other parameters."
            )
        self.writer(instance, value)

    def __delete__(self, instance):
        raise AttributeError(
            f"{self.name} is read off the fitted value joint_ and cannot be deleted."
        )
