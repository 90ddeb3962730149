"""Fitted attributes read off the value ``joint_``."""

from __future__ import annotations


class fitted_attribute:  # noqa: N801 - used like ``property``
    """A fitted attribute computed from ``joint_``: ``reader(estimator, joint)``.

    Read before ``fit`` it raises ``AttributeError`` (so ``hasattr`` is False, as
    scikit-learn expects); it can be set only when a ``writer(estimator, value)`` is given.
    """

    def __init__(self, reader, writer=None, doc: str | None = None):
        self.reader, self.writer = reader, writer
        self.__doc__ = doc

    def __set_name__(self, owner, name):
        self.name = name

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
