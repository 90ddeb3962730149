"""The models ``bayesgen fit --model`` can fit, and how options become their parameters."""

from __future__ import annotations

import json

import bayesgen.estimators  # noqa: F401 - defines (and so registers) every estimator
from bayesgen import registry
from bayesgen.cli.errors import UserError

#: ``--model`` name -> estimator class: every registered class that declares ``model_name``.
MODELS = registry.model_names()


def _takes_text(cls) -> bool:
    tags = cls().__sklearn_tags__().input_tags
    return tags.categorical or tags.string


#: Models whose every feature is a real number (a non-numeric column is a mistake).
NUMERIC_MODELS = {name for name, cls in MODELS.items() if not _takes_text(cls)}
NUMERIC_CLASSES = {MODELS[name].__name__ for name in NUMERIC_MODELS}


def parse_param(text: str) -> tuple[str, object]:
    """``NAME=VALUE`` to ``(name, value)``; the value is read as JSON when it parses, else text.

    >>> parse_param("reg_alpha=0.5")
    ('reg_alpha', 0.5)
    >>> parse_param("covariance_type=diag")
    ('covariance_type', 'diag')
    """
    name, separator, raw = text.partition("=")
    if not separator or not name.strip():
        raise UserError(f"--param expects NAME=VALUE; got {text!r}.")
    try:
        value = json.loads(raw)
    except json.JSONDecodeError:
        value = raw
    return name.strip(), value


def build_model(name: str, *, estimate=None, alpha=None, params=()):
    """A new, unfitted estimator of the model ``name`` with the options applied.

    Raises
    ------
    UserError
        If an option does not apply to the model, or a parameter is unknown.
    """
    model = MODELS[name]()
    settings = dict(parse_param(text) for text in params)
    for option, value in (("estimate", estimate), ("alpha", alpha)):
        if value is not None:
            if option not in model.get_params():
                raise UserError(f"--{option} does not apply to model '{name}'.")
            settings[option] = value
    known = model.get_params()
    unknown = sorted(set(settings) - set(known))
    if unknown:
        raise UserError(
            f"model '{name}' has no parameter(s) {', '.join(unknown)}; it has "
            f"{', '.join(sorted(known))}."
        )
    return model.set_params(**settings)
