r"""The credible band of $p(y \mid x)$ along a path of inputs."""

from __future__ import annotations

import numbers

import numpy as np
from matplotlib.lines import Line2D
from matplotlib.patches import Patch

from bayesgen.plot._common import check_fitted, class_colors, model_rows, new_axes


def _check_level(level) -> float:
    if isinstance(level, bool) or not isinstance(level, numbers.Real) or not 0 < level < 1:
        raise ValueError(f"level must be a probability strictly between 0 and 1; got {level!r}.")
    return float(level)


def _check_n_draws(n_draws) -> int:
    if isinstance(n_draws, bool) or not isinstance(n_draws, numbers.Integral) or n_draws < 2:
        raise ValueError(f"n_draws must be an integer >= 2; got {n_draws!r}.")
    return int(n_draws)


def _chosen_classes(model, class_) -> list[int]:
    if class_ is None:
        return list(range(model.classes_.shape[0]))
    labels = list(class_) if isinstance(class_, list | tuple | np.ndarray) else [class_]
    chosen = []
    for label in labels:
        matches = np.flatnonzero(model.classes_ == label)
        if matches.size != 1:
            raise ValueError(
                f"class_ must be one of the model's classes_ {model.classes_.tolist()} (or a "
                f"list of them); got {label!r}."
            )
        chosen.append(int(matches[0]))
    return chosen


def credible_band(
    model,
    X_path,
    *,
    class_=None,
    level: float = 0.9,
    n_draws: int = 200,
    t=None,
    ax=None,
    random_state=None,
    xlabel=None,
):
    r"""The plug-in $p(y \mid x)$, its posterior mean and credible band along a path.

    Each row of ``X_path`` is one point of the path. For every chosen class the figure
    shows the plug-in probability ``model.predict_proba`` (solid), the mean of
    $p(y = k \mid x, \theta_s)$ over ``n_draws`` exact posterior draws
    $\theta_s$ (``model.predict_proba_draws``, dashed), and the equal-tailed band
    between their $(1 - \mathrm{level})/2$ and $(1 + \mathrm{level})/2$
    quantiles (``numpy.quantile``'s default linear interpolation).

    Parameters
    ----------
    model : fitted classifier
        A bayesgen classifier with an exact posterior (``predict_proba_draws``).
    X_path : array-like of shape (n_points, n_features)
        The inputs along the path; NaN entries are missing and integrated out.
    class_ : label or list of labels, optional
        The class (or classes) whose probability is drawn, from ``model.classes_``; default
        every class.
    level : float, default=0.9
        Posterior probability inside the band, strictly between 0 and 1.
    n_draws : int, default=200
        Posterior draws (at least 2).
    t : array-like of shape (n_points,), optional
        Horizontal coordinate of each point (a path parameter); default ``0, 1, ...``.
    ax : matplotlib Axes, optional
        Where to draw; a new figure when None.
    random_state : None, int or numpy.random.RandomState
        Seeds the posterior draws.
    xlabel : str, optional
        What the horizontal axis is: say how the path runs through input space (for
        example "0 = a class_0 wine, 1 = a class_1 wine, straight line between").
        Default ``"t"``, or ``"row of X_path"`` without ``t``.

    Returns
    -------
    matplotlib.axes.Axes
        Per chosen class, in this order: the plug-in line, the posterior-mean line
        (``ax.lines``) and the band (a ``PolyCollection`` from ``fill_between``). The
        legend has one entry per class (its colour) and one per kind of mark (plug-in,
        posterior mean, band).

    Raises
    ------
    ValueError
        For an unfitted ``model``, ``level`` outside (0, 1), ``n_draws`` < 2, an unknown
        ``class_``, or ``t`` whose length differs from the rows of ``X_path``.
    """
    check_fitted(model)
    level = _check_level(level)
    n_draws = _check_n_draws(n_draws)
    chosen = _chosen_classes(model, class_)
    n_points = np.shape(X_path)[0] if np.ndim(X_path) == 2 else None
    if n_points is None:
        raise ValueError(
            f"X_path must be 2-D, of shape (n_points, n_features); got shape {np.shape(X_path)}."
        )
    if xlabel is None:
        xlabel = "row of X_path" if t is None else "t"
    t = np.arange(n_points) if t is None else np.asarray(t, dtype=float)
    if t.shape != (n_points,):
        raise ValueError(
            f"t must hold one value per row of X_path ({n_points}); got shape {t.shape}."
        )
    rows = model_rows(model, X_path)
    plugin = model.predict_proba(rows)
    draws = model.predict_proba_draws(rows, n_draws, random_state=random_state)
    tail = (1 - level) / 2
    lower, upper = np.quantile(draws, [tail, 1 - tail], axis=0)
    mean = draws.mean(axis=0)

    ax = new_axes(ax)
    colors = class_colors(model.classes_.shape[0])
    for k in chosen:
        ax.plot(t, plugin[:, k], color=colors[k])
        ax.plot(t, mean[:, k], color=colors[k], linestyle="--")
        ax.fill_between(t, lower[:, k], upper[:, k], color=colors[k], alpha=0.25, linewidth=0)
    # One entry per thing: a colour per class, then what each kind of mark means.
    handles = [Patch(color=colors[k], label=f"y = {model.classes_[k]}") for k in chosen]
    handles += [
        Line2D([], [], color="0.2", label="plug-in p(y | x)"),
        Line2D([], [], color="0.2", linestyle="--", label="posterior mean"),
        Patch(color="0.2", alpha=0.25, linewidth=0, label=f"{level:.0%} credible band"),
    ]
    ax.set_ylim(-0.02, 1.02)
    ax.set_xlabel(xlabel)
    ax.set_ylabel("class probability")
    ax.legend(handles=handles, loc="best", fontsize="small")
    return ax
