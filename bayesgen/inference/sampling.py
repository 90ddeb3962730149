"""Synthetic rows: a fitted model's own story run forward, from values.

A family that can draw its features in NumPy (`FeatureFamily.draw_features`) draws them
there (`numpy_draws`): the label from the class probabilities, then the features given it,
with the story's law and no compilation. Any model can instead run its NumPyro story with
its parameters substituted (`story_draws`), which gives the same law with JAX's random
stream. Every function takes the classes, the class probabilities and the draws or story
the model supplies; none takes an estimator.
"""

from __future__ import annotations

import numbers

import numpy as np
from sklearn.utils import check_random_state

from bayesgen._lazy import lazy_attribute, lazy_module
from bayesgen._memory import check_fits
from bayesgen._precision import precision
from bayesgen._threads import STORY_LOCK
from bayesgen.validation import unknown_labels

jax = lazy_module("jax")
handlers = lazy_module("numpyro.handlers")
Predictive = lazy_attribute("numpyro.infer", "Predictive")

# Bytes per drawn value the story's run holds at its peak: JAX's draws, their NumPy copy
# and the returned table, with room for a family's per-row intermediates.
_BYTES_PER_VALUE = 32


def random_key(random_state) -> jax.Array:
    """A JAX key from a scikit-learn ``random_state`` (None, int or ``RandomState``)."""
    return jax.random.key(check_random_state(random_state).randint(2**31 - 1))


def numpy_generator(random_state) -> np.random.Generator:
    """A NumPy generator from a scikit-learn ``random_state`` (None, int or ``RandomState``).

    Seeded like `random_key` (one integer drawn from ``check_random_state``), so a
    ``RandomState`` passed in advances by one draw either way.
    """
    return np.random.default_rng(check_random_state(random_state).randint(2**31 - 1))


def labels_to_draw(classes, n_samples, y, n_features: int) -> tuple[int, np.ndarray | None]:
    """``(number of rows, observed labels or None)``, with the argument errors of ``sample``.

    Parameters
    ----------
    classes : ndarray of shape (n_classes,)
    n_samples : int
        Rows to draw when ``y`` is None or one label.
    y : label or array-like of labels, optional
    n_features : int
        For the memory check (`check_size`).

    Raises
    ------
    ValueError
        For ``n_samples`` < 1, an empty or multi-dimensional ``y``, or labels not in
        ``classes``.
    MemoryError
        If the rows would not fit in memory.
    """
    if y is None:
        if isinstance(n_samples, bool) or not isinstance(n_samples, numbers.Integral):
            raise ValueError(f"n_samples must be an integer >= 1; got {n_samples!r}.")
        if n_samples < 1:
            raise ValueError(f"n_samples must be >= 1; got {n_samples}.")
        rows, labels = int(n_samples), None
    else:
        labels = np.asarray(y)
        if labels.ndim == 0:
            count, _ = labels_to_draw(classes, n_samples, None, n_features)
            labels = np.repeat(labels, count)
        if labels.ndim != 1 or labels.shape[0] == 0:
            raise ValueError(
                f"y must be one label or a non-empty 1-D list of labels; got shape {labels.shape}."
            )
        unknown = unknown_labels(labels, classes)
        if unknown:
            raise ValueError(
                f"y contains labels {unknown} that are not in classes_ "
                f"{np.asarray(classes).tolist()}."
            )
        rows = labels.shape[0]
    check_size(rows, n_features)
    return rows, labels


def check_size(rows: int, n_features: int) -> None:
    """Refuse, before drawing, a request whose rows would not fit in memory (MemoryError)."""
    values = rows * (n_features + 1)
    check_fits(
        values * _BYTES_PER_VALUE,
        f"sample(n_samples={rows})",
        alternative="draw fewer rows, or draw them in several calls.",
    )


def numpy_draws(classes, class_probabilities, draw_features, rows: int, labels, rng, options):
    """The story's draws ``{"y": class indices, site: features}`` made in NumPy.

    Parameters
    ----------
    classes : ndarray of shape (n_classes,)
    class_probabilities : ndarray of shape (n_classes,)
    draw_features : callable
        ``draw_features(class_indices, rng, **options) -> {site: features}``: a family's
        `FeatureFamily.draw_features` with the fitted parameters bound.
    rows : int
    labels : ndarray or None
        The given labels (`labels_to_draw`); None draws them from ``class_probabilities``.
    rng : numpy.random.Generator
    options : dict
        Passed to ``draw_features`` (``lengths`` for the multinomial).

    Raises
    ------
    NoClosedForm
        From ``draw_features``, for a model without NumPy draws.
    """
    if labels is None:
        probabilities = np.asarray(class_probabilities, dtype=np.float64)
        # Renormalised in float64: rng.choice checks the sum to 1e-8.
        indices = rng.choice(len(classes), size=rows, p=probabilities / probabilities.sum())
    else:
        indices = np.searchsorted(classes, labels)
    return {"y": indices, **draw_features(indices, rng, **options)}


def story_draws(story, sites: dict, rows: int, labels, key, **story_kwargs) -> dict:
    """The story's draws ``{site: values}`` from ``Predictive`` with ``sites`` substituted.

    Parameters
    ----------
    story : callable
        The model's NumPyro story, ``story(X=None, y=None, n_samples=None, **story_kwargs)``.
    sites : dict
        The fitted values of its parameter sites (``"class_prior"`` among them unless the
        class probabilities are fixed).
    rows : int
    labels : ndarray or None
        The given labels; None draws them.
    key : jax.random key
    **story_kwargs
        Passed to the story (``lengths`` for the multinomial).

    Notes
    -----
    Safe to call from many threads: the story runs under NumPyro's handlers, whose stack
    NumPyro shares between threads, so runs hold `bayesgen._threads.STORY_LOCK`.
    """
    dtype = np.result_type(*[np.asarray(value).dtype for value in sites.values()])
    with STORY_LOCK, precision(dtype):  # NumPyro's handler stack is one for all threads
        substituted = handlers.substitute(story, data=sites)
        draws = Predictive(substituted, num_samples=1)(
            key, y=labels, n_samples=rows, **story_kwargs
        )
        return {name: np.array(value[0]) for name, value in draws.items()}  # writable
