"""Hyperparameters declared once: an estimator's ``__init__`` is made from its table.

scikit-learn reads an estimator's hyperparameters off the signature of its ``__init__``,
which must store each argument under its own name and do nothing else. Written by hand,
that ``__init__`` names every hyperparameter three times (signature, store, and again in
a subclass that adds one), and the keywords many estimators share, EM's and the priors',
once in every class. Here a class declares ``hyperparameters``, an ordered
``{name: default}`` table made of the shared groups (`EM_KEYWORDS`,
`NAIVE_BAYES_KEYWORDS`) and its own entries, and `DeclaredHyperparameters` makes the
keyword-only ``__init__`` that stores them, with the signature that scikit-learn
(``get_params``, ``clone``), ``help`` and the API pages read. A shared hyperparameter is
checked the same way in every estimator that declares it (`SHARED_CHECKS`).
"""

from __future__ import annotations

import keyword
import unicodedata
from collections.abc import Mapping
from types import MappingProxyType
from typing import ClassVar

import numpy as np

from bayesgen.validation import check_count, check_positive

#: EM over unlabelled rows and restarts (`bayesgen.inference.semi_supervised.EM_PARAMETERS_DOC`).
EM_KEYWORDS = MappingProxyType(
    {
        "max_iter": 100,
        "tol": 1e-6,
        "n_init": 1,
        "unlabeled_weight": 1.0,
        "n_classes": None,
        "unlabeled_marker": -1,
        "random_state": None,
    }
)

#: The naive-Bayes estimate and class probabilities
#: (`bayesgen.estimators.naive_bayes_prior.NaiveBayesClassPrior`).
NAIVE_BAYES_KEYWORDS = MappingProxyType(
    {"estimate": "mean", "fit_prior": True, "class_prior": None}
)


def _non_negative(value, name: str) -> float:
    return check_positive(value, name, allow_zero=True)


def check_flag(value, name: str) -> bool:
    """``value`` when it is True or False (a NumPy bool too), else a ValueError naming
    ``name``."""
    if not isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{name} must be True or False; got {value!r}.")
    return bool(value)


#: How a hyperparameter that several estimators share is checked, wherever a table declares
#: it: ``{name: check(value, name)}`` (`DeclaredHyperparameters.check_shared`).
SHARED_CHECKS = MappingProxyType(
    {
        "max_iter": check_count,
        "tol": _non_negative,
        "n_init": check_count,
        "n_init_components": check_count,
        "reg_covar": _non_negative,
        "class_concentration_prior": check_positive,
        "weight_concentration_prior": check_positive,
        "mean_precision_prior": check_positive,
        "fit_prior": check_flag,
    }
)


def _is_argument_name(name) -> bool:
    """A name the compiled ``__init__`` takes as it is written: an identifier that is no
    keyword, not ``self`` or ``__debug__``, and that Python does not normalise (NFKC)."""
    return (
        isinstance(name, str)
        and name.isidentifier()
        and not keyword.iskeyword(name)
        and name not in ("self", "__debug__")
        and unicodedata.normalize("NFKC", name) == name
    )


def _storing_init(owner: type, defaults: Mapping[str, object]):
    """A keyword-only ``__init__`` for ``owner`` that stores each of ``defaults``' names,
    the argument given or its default.

    It is compiled from source, as `dataclasses` makes its ``__init__``, so that it is an
    ordinary function: its signature is the table, and Python itself refuses an unknown
    or positional argument, with its own message.
    """
    for name in defaults:
        if not _is_argument_name(name):
            raise TypeError(f"{owner.__qualname__}.hyperparameters: {name!r} is not a name.")
    parameters = ", ".join(["self", "*"] + [f"{name}=_defaults[{name!r}]" for name in defaults])
    stores = "".join(f"\n    self.{name} = {name}" for name in defaults)
    source = f"def __init__({parameters if defaults else 'self'}):{stores or ' pass'}\n"
    namespace = {}
    exec(source, {"_defaults": dict(defaults)}, namespace)  # noqa: S102 - our own names only
    init = namespace["__init__"]
    init.__qualname__ = f"{owner.__qualname__}.__init__"
    init.__module__ = owner.__module__
    return init


class DeclaredHyperparameters:
    """Makes the ``__init__`` of every subclass that declares a ``hyperparameters`` table.

    The table is a mapping (a ``dict``); a subclass that declares none keeps its parent's
    ``__init__``, as does one whose ``hyperparameters`` is not a mapping (a subclass of a
    user's own with an attribute of that name). A class that declares a table does not
    write ``__init__`` itself (a class doing both is refused when it is defined, so the
    two cannot disagree).

    Attributes
    ----------
    hyperparameters : Mapping[str, object]
        Each hyperparameter's name and default, in the order of the signature.
    """

    hyperparameters: ClassVar[Mapping[str, object]] = MappingProxyType({})

    def check_shared(self) -> None:
        """Check each hyperparameter of the table that `SHARED_CHECKS` names.

        Raises
        ------
        ValueError
            Naming the first hyperparameter whose value is refused, and the value.
        """
        for name, check in SHARED_CHECKS.items():
            if name in self.hyperparameters:
                check(getattr(self, name), name)

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if not isinstance(vars(cls).get("hyperparameters"), Mapping):
            return
        if "__init__" in vars(cls):
            raise TypeError(
                f"{cls.__qualname__} declares hyperparameters and writes __init__; declare "
                "the table only (its __init__ is made from it)."
            )
        cls.hyperparameters = MappingProxyType(dict(cls.hyperparameters))
        cls.__init__ = _storing_init(cls, cls.hyperparameters)
