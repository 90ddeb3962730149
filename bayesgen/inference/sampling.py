"""Synthetic rows: the fitted model's own story run forward.

A family that can draw its features in NumPy (`FeatureFamily.draw_features`) draws them
there: the label from the class probabilities, then the features given it, with the
story's law and no compilation. Any other model runs its NumPyro story with ``Predictive``
(`story_sample`), which gives the same law with JAX's random stream.
"""

from __future__ import annotations

import numbers

import numpy as np
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from bayesgen._lazy import lazy_attribute, lazy_module
from bayesgen._memory import check_fits
from bayesgen._precision import precision
from bayesgen._threads import STORY_LOCK
from bayesgen.families.protocol import NoClosedForm
from bayesgen.frames import as_training_frame

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


def _labels_to_draw(estimator, n_samples, y):
    """(number of rows, observed labels or None), with the argument errors of ``sample``."""
    if y is None:
        if isinstance(n_samples, bool) or not isinstance(n_samples, numbers.Integral):
            raise ValueError(f"n_samples must be an integer >= 1; got {n_samples!r}.")
        if n_samples < 1:
            raise ValueError(f"n_samples must be >= 1; got {n_samples}.")
        return int(n_samples), None
    labels = np.asarray(y)
    if labels.ndim == 0:
        count, _ = _labels_to_draw(estimator, n_samples, None)
        _check_size(estimator, count)
        labels = np.repeat(labels, count)
    if labels.ndim != 1 or labels.shape[0] == 0:
        raise ValueError(
            f"y must be one label or a non-empty 1-D list of labels; got shape {labels.shape}."
        )
    unknown = np.setdiff1d(labels, estimator.classes_)
    if unknown.size:
        raise ValueError(
            f"y contains labels {unknown.tolist()} that are not in classes_ "
            f"{estimator.classes_.tolist()}."
        )
    return labels.shape[0], labels


def _check_size(estimator, rows: int) -> None:
    """Refuse, before drawing, a request whose rows would not fit in memory (MemoryError)."""
    values = rows * (getattr(estimator, "n_features_in_", 1) + 1)
    check_fits(
        values * _BYTES_PER_VALUE,
        f"sample(n_samples={rows})",
        alternative="draw fewer rows, or draw them in several calls.",
    )


def sample(estimator, n_samples=1, *, y=None, random_state=None, **story_kwargs):
    """Draw ``(X, y)`` from a fitted estimator's story with its fitted parameters.

    Parameters
    ----------
    estimator : GenerativeClassifier
        Fitted; supplies ``story``, ``_sampling_sites`` and ``_features_from_draws``.
    n_samples : int, default=1
        Rows to draw (ignored when ``y`` is an array of labels).
    y : label or array-like of labels, optional
        Draw the features given these classes; ``None`` draws the labels from the class
        prior too.
    random_state : None, int or numpy RandomState
        The same value gives the same rows.
    **story_kwargs
        Passed to the story (``lengths`` for the multinomial).

    Returns
    -------
    X : ndarray or DataFrame of shape (n_samples, n_features)
        A DataFrame with the training columns' names and dtypes when the model was fitted
        on one (`bayesgen.frames.as_training_frame`).
    y : ndarray of shape (n_samples,)
        Labels from ``classes_``.

    Raises
    ------
    ValueError
        For ``n_samples`` < 1, an empty or multi-dimensional ``y``, or unknown labels.
    MemoryError
        Before drawing, if the rows would not fit in the memory available, naming the size.

    Notes
    -----
    Where the estimator draws in NumPy (its ``_draw_features``, by default its family's
    `FeatureFamily.draw_features`), the label is drawn from ``class_prior_`` and the
    features given it; otherwise `story_sample` runs the story. Safe to call from many
    threads.
    """
    check_is_fitted(estimator)
    rows, labels = _labels_to_draw(estimator, n_samples, y)
    _check_size(estimator, rows)
    draws = _numpy_draws(estimator, rows, labels, numpy_generator(random_state), story_kwargs)
    if draws is None:
        return story_sample(estimator, n_samples, y=y, random_state=random_state, **story_kwargs)
    return _as_returned(estimator, draws, labels)


def _numpy_draws(estimator, rows: int, labels, rng, options: dict) -> dict | None:
    """The story's draws ``{"y": class indices, site: features}`` made in NumPy, or None
    when the estimator has no NumPy draws."""
    if labels is None:
        classes = rng.choice(estimator.classes_.shape[0], size=rows, p=_probabilities(estimator))
    else:
        classes = np.searchsorted(estimator.classes_, labels)
    try:
        return {"y": classes, **estimator._draw_features(classes, rng, **options)}
    except NoClosedForm:
        return None


def _probabilities(estimator) -> np.ndarray:
    """``class_prior_`` in float64, renormalised (``rng.choice`` checks the sum to 1e-8)."""
    prior = np.asarray(estimator.class_prior_, dtype=np.float64)
    return prior / prior.sum()


def story_sample(estimator, n_samples=1, *, y=None, random_state=None, **story_kwargs):
    """`sample` by running the estimator's NumPyro story with ``Predictive``.

    The same law as `sample`, drawn with JAX's random stream from
    ``random_key(random_state)``; any model with a story can use it, and it is what
    `sample` does for a family without NumPy draws.

    Notes
    -----
    Safe to call from many threads: the story runs under NumPyro's handlers, whose stack
    NumPyro shares between threads, so runs hold `bayesgen._threads.STORY_LOCK`.
    """
    check_is_fitted(estimator)
    rows, labels = _labels_to_draw(estimator, n_samples, y)
    _check_size(estimator, rows)
    sites = estimator._sampling_sites()
    if estimator._story_class_prior()["fixed_class_prior"] is None:
        sites = {"class_prior": estimator.class_prior_, **sites}
    dtype = np.result_type(*[np.asarray(value).dtype for value in sites.values()])
    with STORY_LOCK, precision(dtype):  # NumPyro's handler stack is one for all threads
        story = handlers.substitute(estimator.story, data=sites)
        draws = Predictive(story, num_samples=1)(
            random_key(random_state), y=labels, n_samples=rows, **story_kwargs
        )
        draws = {name: np.array(value[0]) for name, value in draws.items()}  # writable
    return _as_returned(estimator, draws, labels)


def _as_returned(estimator, draws: dict, labels):
    """``(X, y)`` as `sample` returns them, from the story's draws ``{site: values}``."""
    X = estimator._features_from_draws(draws)
    schema = getattr(estimator, "_training_columns", None)
    if schema is not None and isinstance(X, np.ndarray):  # fitted on a DataFrame
        X = as_training_frame(X, schema)
    drawn = labels if labels is not None else estimator.classes_[draws["y"]]
    return X, np.asarray(drawn)
