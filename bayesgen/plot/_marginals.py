"""Synthetic rows against real ones: the marginal histogram of each feature, overlaid."""

from __future__ import annotations

import numbers

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from bayesgen.plot._common import check_fitted, feature_index, feature_names


def _column(X, j: int, argument: str, name: str) -> np.ndarray:
    """Observed (finite) values of column ``j`` of an array or DataFrame, as floats."""
    column = X.iloc[:, j] if isinstance(X, pd.DataFrame) else np.asarray(X)[:, j]
    try:
        values = np.asarray(column, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(
            f"{argument} has a non-numeric feature {name!r}; histograms need numbers (leave "
            "it out of features)."
        ) from None
    return values[np.isfinite(values)]


def synthetic_vs_real(
    model,
    X_real,
    *,
    n_samples=None,
    features=None,
    bins=30,
    axes=None,
    random_state=None,
    ncols=None,
):
    """Density histograms of real rows and of rows the model generates, feature by feature.

    The synthetic rows are ``model.sample(n_samples, random_state=random_state)``: the
    fitted story run forward, labels drawn from the class prior. Both histograms of a
    feature share one set of bin edges, ``numpy.histogram_bin_edges`` of the real and
    synthetic values together; missing (NaN) real values are left out.

    Parameters
    ----------
    model : fitted classifier
        Any bayesgen classifier with ``sample``.
    X_real : array-like or DataFrame of shape (n_samples, n_features)
        The real rows, with the model's features.
    n_samples : int, optional
        Synthetic rows to draw; default as many as ``X_real`` has.
    features : sequence of int or str, optional
        Which features (indices or names from ``feature_names_in_``); default all.
    bins : int or str, default=30
        Passed to ``numpy.histogram_bin_edges``.
    axes : array-like of matplotlib Axes, optional
        At least one Axes per feature; a new figure when None.
    random_state : None, int or numpy.random.RandomState
        Seeds the synthetic rows.
    ncols : int, optional
        Columns of the new figure (default ``min(n_features_shown, 4)``); ignored with
        ``axes``.

    Returns
    -------
    ndarray of matplotlib Axes, shape (n_features_shown,)
        Axes ``f`` holds two ``BarContainer``s (``.containers``): the real histogram, then
        the synthetic one, both with ``density=True``. Every panel has the legend and the
        feature's name as title and x label; the first column says what the y axis is; a
        new figure gets a title naming the model.

    Raises
    ------
    ValueError
        For an unfitted ``model``, ``X_real`` without the model's features, unknown
        ``features``, a non-numeric feature, or too few ``axes``.
    """
    check_fitted(model)
    if np.ndim(X_real) != 2 or np.shape(X_real)[1] != model.n_features_in_:
        raise ValueError(
            f"X_real must be 2-D with the model's {model.n_features_in_} features; got shape "
            f"{np.shape(X_real)}."
        )
    if features is None:
        chosen = list(range(model.n_features_in_))
    else:
        features = [features] if isinstance(features, str | numbers.Integral) else features
        chosen = [feature_index(model, feature, "features") for feature in features]
        if not chosen:
            raise ValueError("features must name at least one feature; got an empty sequence.")
    if n_samples is None:
        n_samples = np.shape(X_real)[0]
    synthetic, _ = model.sample(n_samples, random_state=random_state)

    if axes is None:
        ncols = min(len(chosen), 4) if ncols is None else int(ncols)
        nrows = -(-len(chosen) // ncols)
        _, grid = plt.subplots(nrows, ncols, figsize=(3.2 * ncols, 2.6 * nrows), squeeze=False)
        flat = grid.ravel()
        for surplus in flat[len(chosen) :]:
            surplus.set_axis_off()
    else:
        flat = np.asarray(axes, dtype=object).ravel()
        if flat.size < len(chosen):
            raise ValueError(
                f"axes must hold at least one Axes per feature ({len(chosen)}); got {flat.size}."
            )
    names = feature_names(model)
    for ax, j in zip(flat, chosen, strict=False):
        real = _column(X_real, j, "X_real", names[j])
        drawn = _column(synthetic, j, "model.sample", names[j])
        edges = np.histogram_bin_edges(np.concatenate([real, drawn]), bins=bins)
        ax.hist(real, bins=edges, density=True, alpha=0.5, color="C0", label="real")
        ax.hist(drawn, bins=edges, density=True, alpha=0.5, color="C1", label="synthetic")
        ax.set_title(names[j])
        ax.set_xlabel(names[j])
        # Every panel carries the legend: a panel read alone still says which bars are which.
        ax.legend(fontsize="x-small")
    shown = flat[: len(chosen)]
    columns = {ax.get_subplotspec().colspan.start for ax in shown if ax.get_subplotspec()}
    for ax in shown:
        spec = ax.get_subplotspec()
        if spec is None or spec.colspan.start == min(columns, default=0):
            ax.set_ylabel("density (share of rows per unit)")
    if axes is None:
        shown[0].figure.suptitle(
            f"{type(model).__name__}: real rows vs {n_samples} rows sampled from the fitted "
            "model\n(all classes, labels drawn from the class prior)",
            fontsize="medium",
        )
    return shown
