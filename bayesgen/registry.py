"""One registry of feature families, story parts and estimator classes, filled by registration.

A family registers itself when its class is defined (`bayesgen.families.protocol.FeatureFamily`
with a ``name``), a story part when its module is imported (`register_story_part`), an
estimator when its class is defined (a public subclass of the base estimator, with an
optional ``model_name`` for the command line). Everything that needs to know "all families"
or "all estimators" — ``MixedNB``'s column families, the command line's ``--model`` names,
the model-file whitelist, the Dask driver — asks here, so adding a family or an estimator
edits no list anywhere else.

Nothing here imports the rest of the package (this module sits below every layer): each
package imports all of its own modules when it is imported (``bayesgen.families``,
``bayesgen.stories``, ``bayesgen.estimators``), so a caller imports the package whose
members it asks about, which is always a layer at or below its own.
"""

from __future__ import annotations

_FAMILIES: dict[str, type] = {}
_ESTIMATORS: dict[str, type] = {}
_STORY_PARTS: dict[str, object] = {}


def register_family(name: str, cls: type) -> None:
    """Record the feature family ``cls`` under ``name``.

    Raises
    ------
    ValueError
        If another class already holds ``name``.
    """
    _register(_FAMILIES, name, cls, "feature family")


def register_story_part(name: str):
    """Decorator: record ``part(family, prior, n_classes) -> StoryPart`` for family ``name``.

    Returns
    -------
    callable
        The decorator, which returns the function unchanged.
    """

    def record(part):
        _register(_STORY_PARTS, name, part, "story part")
        return part

    return record


def story_part(name: str):
    """The story-part function registered for family ``name``.

    Raises
    ------
    ValueError
        If the family has no registered story part (import ``bayesgen.stories`` first:
        `bayesgen.stories.part` does).
    """
    if name not in _STORY_PARTS:
        raise ValueError(f"the {name!r} family has no registered story part.")
    return _STORY_PARTS[name]


def register_estimator(cls: type) -> None:
    """Record the estimator class ``cls`` under its class name."""
    _register(_ESTIMATORS, cls.__name__, cls, "estimator class")


def _register(table: dict, name: str, cls: type, what: str) -> None:
    held = table.get(name)
    if held is not None and held.__qualname__ != cls.__qualname__:
        raise ValueError(f"two {what}s are named {name!r}: {held!r} and {cls!r}")
    table[name] = cls  # a module reloaded re-registers its own class


def families() -> dict[str, type]:
    """Every registered feature family, by name (``"gaussian"``, ``"poisson"``, ...).

    Returns
    -------
    dict of str to type
        Those defined so far: importing ``bayesgen.families`` defines every built-in one.
    """
    return dict(_FAMILIES)


def family(name: str) -> type:
    """The feature family registered as ``name``.

    Raises
    ------
    ValueError
        If no family has that name; the message lists those that do.
    """
    known = families()
    if name not in known:
        raise ValueError(f"unknown feature family {name!r}; known: {sorted(known)}.")
    return known[name]


def estimators() -> dict[str, type]:
    """Every registered public estimator class, by class name.

    Returns
    -------
    dict of str to type
        Those defined so far: importing ``bayesgen.estimators`` defines every built-in one.
    """
    return dict(_ESTIMATORS)


def model_names() -> dict[str, type]:
    """The command line's ``--model`` names: each estimator that declares ``model_name``.

    Returns
    -------
    dict of str to type
        In the order the classes were registered.
    """
    return {
        cls.model_name: cls
        for cls in estimators().values()
        if isinstance(vars(cls).get("model_name"), str)
    }
