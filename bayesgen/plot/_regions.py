r"""Decision regions of a fitted classifier in the plane of two features, with class densities.

For a model of more than two features, the other features of every grid point are missing
(NaN), and the model integrates them out exactly: the regions are the decisions given
$(x_i, x_j)$ alone, and the contours are the marginal class densities
$p(x_i, x_j \mid k) = p(x_i, x_j, k) / \pi_k$.
"""

from __future__ import annotations

import numbers

import numpy as np
from matplotlib.colors import ListedColormap
from matplotlib.lines import Line2D

from bayesgen.plot._common import (
    as_numeric,
    check_fitted,
    class_colors,
    class_positions,
    feature_index,
    feature_names,
    model_input,
    new_axes,
)


def _check_pair(model, features) -> tuple[int, int]:
    if isinstance(features, str) or np.ndim(features) != 1 or len(features) != 2:
        raise ValueError(f"features must be a pair (i, j) of two features; got {features!r}.")
    first, second = (feature_index(model, feature, "features") for feature in features)
    if first == second:
        raise ValueError(
            f"features must name two different features; both are feature {first} "
            f"({feature_names(model)[first]!r})."
        )
    return first, second


def _check_resolution(resolution) -> int:
    if isinstance(resolution, bool) or not isinstance(resolution, numbers.Integral):
        raise ValueError(f"resolution must be an integer >= 2; got {resolution!r}.")
    if resolution < 2:
        raise ValueError(f"resolution must be an integer >= 2; got {resolution}.")
    return int(resolution)


def _check_levels(contour_levels) -> np.ndarray:
    levels = np.atleast_1d(np.asarray(contour_levels, dtype=float))
    if levels.ndim != 1 or levels.size == 0 or not np.all(np.isfinite(levels) & (levels > 0)):
        raise ValueError(f"contour_levels must be positive finite numbers; got {contour_levels!r}.")
    return levels


def _limits(values: np.ndarray, limits, argument: str) -> tuple[float, float]:
    """(low, high) of one axis: given, or the data's range widened by 10% on each side."""
    if limits is not None:
        low, high = (float(v) for v in limits)
        if not (np.isfinite(low) and np.isfinite(high) and low < high):
            raise ValueError(f"{argument} must be finite with low < high; got {limits!r}.")
        return low, high
    finite = values[np.isfinite(values)]
    if finite.size == 0:
        raise ValueError(f"X has no observed value of the feature on the {argument[-1]} axis.")
    low, high = finite.min(), finite.max()
    margin = 0.1 * (high - low) if high > low else 1.0
    return float(low - margin), float(high + margin)


def decision_regions(
    model,
    X,
    y=None,
    *,
    features=(0, 1),
    ax=None,
    resolution: int = 200,
    density_contours: bool = True,
    contour_levels=(1.0, 2.0, 3.0),
    shade_confidence: bool = True,
    region_alpha: float = 0.35,
    limits=None,
):
    r"""Predicted-class regions in the plane of two features, class density contours, the data.

    Parameters
    ----------
    model : fitted classifier
        Any bayesgen classifier (anything with ``predict_proba``,
        ``predict_joint_log_proba``, ``class_prior_`` and ``classes_``).
    X : array-like of shape (n_samples, n_features)
        Rows to scatter; they also set the plotted range unless ``limits`` is given.
    y : array-like of shape (n_samples,), optional
        Their labels (from ``model.classes_``): the points get their class's colour.
    features : pair of int or str, default=(0, 1)
        The features on the horizontal and vertical axes: indices, or names from
        ``model.feature_names_in_``. The other features are integrated out.
    ax : matplotlib Axes, optional
        Where to draw; a new figure when None.
    resolution : int, default=200
        Grid points per axis.
    density_contours : bool, default=True
        Draw the contours of each class density $p(x_i, x_j \mid k)$.
    contour_levels : sequence of float, default=(1, 2, 3)
        Each value $c$ draws the contour where the log density is $c^2 / 2$
        below the class's highest value on the grid; for a Gaussian class these are the
        ellipses at Mahalanobis distance $c$.
    shade_confidence : bool, default=True
        Fade each region where the model is unsure: the opacity grows from a quarter of
        ``region_alpha`` where the top class probability is $1/K$ to
        ``region_alpha`` where it is 1. False draws every region at ``region_alpha``.
    region_alpha : float, default=0.35
        Opacity of the regions.
    limits : ((float, float), (float, float)), optional
        The horizontal and vertical ranges of the grid; default the range of ``X`` widened
        by 10% on each side.

    Returns
    -------
    matplotlib.axes.Axes
        Holding one image of the predicted class index per grid point
        (``ax.images[0].get_array()``, origin lower left), one ``ContourSet`` per class in
        the order of ``classes_`` (when ``density_contours``), and the scatter of ``X``.

    Raises
    ------
    ValueError
        For an unfitted ``model``; ``features`` that are not two different features of the
        model; ``X`` or ``y`` of the wrong shape; labels not in ``classes_``; a bad
        ``resolution``, ``contour_levels``, ``region_alpha`` or ``limits``.
    """
    check_fitted(model)
    first, second = _check_pair(model, features)
    resolution = _check_resolution(resolution)
    levels = _check_levels(contour_levels)
    if not 0 < region_alpha <= 1:
        raise ValueError(f"region_alpha must be in (0, 1]; got {region_alpha!r}.")
    X = as_numeric(X, "X")
    if X.shape[1] != model.n_features_in_:
        raise ValueError(
            f"X must have the model's {model.n_features_in_} features; got {X.shape[1]}."
        )
    if limits is not None and np.shape(limits) != (2, 2):
        raise ValueError(f"limits must be ((x_low, x_high), (y_low, y_high)); got {limits!r}.")
    x_range = _limits(X[:, first], None if limits is None else limits[0], "limits of x")
    y_range = _limits(X[:, second], None if limits is None else limits[1], "limits of y")

    grid_x, grid_y = np.meshgrid(
        np.linspace(*x_range, resolution), np.linspace(*y_range, resolution)
    )
    rows = np.full((grid_x.size, model.n_features_in_), np.nan)
    rows[:, first], rows[:, second] = grid_x.ravel(), grid_y.ravel()
    rows = model_input(model, rows)

    n_classes = model.classes_.shape[0]
    colors = class_colors(n_classes)
    ax = new_axes(ax)
    proba = model.predict_proba(rows)
    winner = np.argmax(proba, axis=1).reshape(grid_x.shape)
    if shade_confidence:
        sureness = (proba.max(axis=1) - 1 / n_classes) / (1 - 1 / n_classes)
        alpha = region_alpha * (0.25 + 0.75 * sureness.reshape(grid_x.shape))
    else:
        alpha = region_alpha
    half_x = (x_range[1] - x_range[0]) / (2 * (resolution - 1))
    half_y = (y_range[1] - y_range[0]) / (2 * (resolution - 1))
    ax.imshow(
        winner,
        origin="lower",
        extent=(x_range[0] - half_x, x_range[1] + half_x, y_range[0] - half_y, y_range[1] + half_y),
        cmap=ListedColormap(colors[:, :3]),
        vmin=-0.5,
        vmax=n_classes - 0.5,
        alpha=alpha,
        interpolation="nearest",
        aspect="auto",
    )
    if density_contours:
        _draw_density_contours(ax, model, rows, grid_x, grid_y, levels, colors)

    if y is None:
        point_colors = "0.3"
    else:
        positions = class_positions(model, y)
        if positions.shape != (X.shape[0],):
            raise ValueError(
                f"y must hold one label per row of X ({X.shape[0]}); got shape {positions.shape}."
            )
        point_colors = colors[positions]
    ax.scatter(X[:, first], X[:, second], c=point_colors, s=14, edgecolors="white", linewidths=0.4)
    ax.set_xlim(x_range)
    ax.set_ylim(y_range)
    names = feature_names(model)
    ax.set_xlabel(names[first])
    ax.set_ylabel(names[second])
    handles = [
        Line2D([], [], marker="o", linestyle="", color=colors[k], label=str(label))
        for k, label in enumerate(model.classes_)
    ]
    ax.legend(handles=handles, title="class", loc="best", fontsize="small")
    return ax


def _draw_density_contours(ax, model, rows, grid_x, grid_y, levels, colors) -> None:
    """One ContourSet per class of $\\log p(x_i, x_j \\mid k)$ on the grid."""
    with np.errstate(divide="ignore", invalid="ignore"):  # a class of probability 0
        log_density = model.predict_joint_log_proba(rows) - np.log(model.class_prior_)
    for k in range(log_density.shape[1]):
        values = log_density[:, k].reshape(grid_x.shape)
        finite = np.isfinite(values)
        if not finite.any():
            continue
        peak = values[finite].max()
        class_levels = np.sort(peak - levels**2 / 2)
        # -inf (zero density) cannot be contoured; anything under the lowest level draws alike
        floor = min(class_levels[0], values[finite].min()) - 1.0
        values = np.where(finite, values, floor)
        class_levels = class_levels[class_levels > values.min()]
        if class_levels.size:
            ax.contour(
                grid_x,
                grid_y,
                values,
                levels=class_levels,
                colors=[colors[k]],
                linewidths=1.0,
                linestyles="solid",
            )
