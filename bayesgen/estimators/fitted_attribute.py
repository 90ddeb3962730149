"""Fitted attributes read off the value ``joint_``."""

from __future__ import annotations


class fitted_attribute(property):  # noqa: N801 - used like ``property``
    """A fitted attribute computed from ``joint_``: ``reader(estimator, joint)``.

    Read before ``fit`` it raises ``AttributeError`` (so ``hasattr`` is False, as
    scikit-learn expects); it can be set only when a ``writer(estimator, value)`` is given.
    A ``property`` to every tool that looks (``help``, the API pages: a fitted attribute,
    not a class attribute holding a descriptor).
    """

    def __init__(self, reader, writer=None, doc: str | None = None):
        def read(instance):
            return self.__get__(instance, type(instance))

        read.__doc__ = doc
        super().__init__(read)
        self.reader, self.writer = reader, writer
        self.__doc__ = doc  # on the instance: the class's own docstring would shadow it

    def __set_name__(self, owner, name):
        self.name = name
        # Where the attribute is defined, for tools that locate a property by its getter.
        self.__module__ = self.fget.__module__ = owner.__module__
        self.fget.__name__ = name
        self.fget.__qualname__ = f"{owner.__qualname__}.{name}"

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
