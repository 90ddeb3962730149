"""``Registered``: a public estimator class enters the registry by declaring ``model_name``."""

from __future__ import annotations

from typing import ClassVar

from bayesgen import registry


class Registered:
    """Registers every subclass that declares ``model_name`` in `bayesgen.registry`.

    Once registered, a class is exported as ``bayesgen.<ClassName>``, offered by the
    command line as ``bayesgen fit --model <model_name>``, and whitelisted for model files;
    nothing else has to list it.

    Attributes
    ----------
    model_name : str
        The class's name on the command line, such as ``"qda"``. Base classes leave it
        unset and are not registered.
    """

    model_name: ClassVar[str]

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if "model_name" in vars(cls):
            registry.register_estimator(cls)
