"""What every figure needs: a fitted model, its features by index or name, axes, colours."""

from __future__ import annotations

import numbers

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.colors import to_rgba
from sklearn.exceptions import NotFittedError
from sklearn.utils.validation import check_is_fitted

from bayesgen.validation import unknown_labels


def check_fitted(model) -> None:
    """Raise ``NotFittedError`` (a ``ValueError``) naming ``model`` when it is not fitted."""
    try:
        check_is_fitted(model)
    except NotFittedError:
        raise NotFittedError(
            f"model must be a fitted classifier; this {type(model).__name__} is not fitted "
            "yet: call fit first."
        ) from None


def new_axes(ax):
    """``ax``, or the Axes of a new figure when it is None."""
    if ax is None:
        _, ax = plt.subplots()
    return ax


def feature_names(model) -> list[str]:
    """The model's column names (``feature_names_in_``), or ``x0, x1, ...``."""
    if hasattr(model, "feature_names_in_"):
        return [str(name) for name in model.feature_names_in_]
    return [f"x{j}" for j in range(model.n_features_in_)]


def feature_index(model, feature, argument: str) -> int:
    """The column index of ``feature``: an index in range, or one of ``feature_names_in_``."""
    names = feature_names(model)
    if isinstance(feature, str):
        if hasattr(model, "feature_names_in_") and feature in names:
            return names.index(feature)
        raise ValueError(f"{argument} names the feature {feature!r}, which is not in {names}.")
    if isinstance(feature, bool) or not isinstance(feature, numbers.Integral):
        raise ValueError(
            f"{argument} must hold feature indices or names; got {feature!r} "
            f"({type(feature).__name__})."
        )
    if not 0 <= feature < len(names):
        raise ValueError(
            f"{argument} holds the feature index {feature}, out of range for a model of "
            f"{len(names)} features (0 to {len(names) - 1})."
        )
    return int(feature)


def model_input(model, rows: np.ndarray):
    """``rows`` as the model expects them: a DataFrame when it was fitted on named columns."""
    if hasattr(model, "feature_names_in_"):
        return pd.DataFrame(rows, columns=model.feature_names_in_)
    return rows


def model_rows(model, X):
    """``X`` given to the model as it is, but named when the model has names and ``X`` not."""
    if hasattr(model, "feature_names_in_") and not isinstance(X, pd.DataFrame):
        return model_input(model, np.asarray(X))
    return X


def as_numeric(X, argument: str) -> np.ndarray:
    """``X`` (array or DataFrame) as a 2-D float array, with an error naming ``argument``."""
    try:
        values = np.asarray(X, dtype=float)
    except (TypeError, ValueError) as error:
        raise ValueError(f"{argument} must be numeric; converting it failed: {error}") from None
    if values.ndim != 2:
        raise ValueError(
            f"{argument} must be 2-D, of shape (n_samples, n_features); got shape {values.shape}."
        )
    return values


def class_colors(n_classes: int) -> np.ndarray:
    """One RGBA colour per class, shape (n_classes, 4): ``tab10`` (``tab20`` beyond ten)."""
    palette = plt.get_cmap("tab10" if n_classes <= 10 else "tab20")
    return np.array([to_rgba(palette(k % palette.N)) for k in range(n_classes)])


def class_positions(model, y, argument: str = "y") -> np.ndarray:
    """The position of each label of ``y`` in ``model.classes_``."""
    y = np.asarray(y)
    unknown = unknown_labels(y, model.classes_)
    if unknown:
        raise ValueError(
            f"{argument} has labels {unknown} that are not in the model's classes_ "
            f"{model.classes_.tolist()}."
        )
    return np.searchsorted(model.classes_, y)
