"""Where ``LatentClassNB``'s EM starts: each row's memberships of its class's components."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
from sklearn.cluster import KMeans
from sklearn.exceptions import ConvergenceWarning

INIT_PARAMS = ("kmeans", "random")


def initial_memberships(
    frame: pd.DataFrame, responsibilities: np.ndarray, n_components, init: str, rng
) -> np.ndarray:
    """Starting memberships $\\gamma_{ikm}$, shape (n_samples, n_classes, M).

    Within each class's rows of positive responsibility: hard memberships from k-means
    (``"kmeans"``, on `kmeans_design`, rows weighted by their responsibilities) or
    Dirichlet(1) draws (``"random"``), over the class's components. ``n_components`` is
    one count $M$ for every class, or a ``(n_classes, M)`` boolean array of the components
    each class has (a mixture's ``active``: a class with fewer keeps the rest at
    membership 0). ``rng`` is a ``numpy.random.RandomState``.
    """
    n_rows, n_classes = responsibilities.shape
    active = np.asarray(n_components)
    if active.ndim == 0:
        active = np.ones((n_classes, int(n_components)), dtype=bool)
    counts = active.sum(axis=1)
    memberships = np.repeat((active / counts[:, None])[None], n_rows, axis=0)
    if np.all(counts == 1):
        return memberships
    design = kmeans_design(frame) if init == "kmeans" else None
    for k, count in enumerate(counts):
        if count == 1:
            continue
        rows = np.flatnonzero(responsibilities[:, k] > 0)
        if design is None:
            memberships[rows, k, :count] = rng.dirichlet(np.ones(count), size=rows.size)
            continue
        with warnings.catch_warnings():
            # Fewer distinct rows than components: k-means says so; EM copes.
            warnings.simplefilter("ignore", ConvergenceWarning)
            kmeans = KMeans(count, n_init=1, random_state=rng.randint(2**31 - 1))
            labels = kmeans.fit(design[rows], sample_weight=responsibilities[rows, k]).labels_
        memberships[rows, k, :count] = np.eye(count)[labels]
    return memberships


def kmeans_design(frame: pd.DataFrame) -> np.ndarray:
    """The rows as numbers for k-means: numbers standardised (missing at 0), other columns
    (booleans, categories, text) one-hot."""
    parts = []
    for column in frame.columns:
        values = frame[column]
        if pd.api.types.is_numeric_dtype(values) and not pd.api.types.is_bool_dtype(values):
            numbers = values.to_numpy(dtype=float, na_value=np.nan)
            spread = np.nanstd(numbers)
            centred = (numbers - np.nanmean(numbers)) / (spread if spread > 0 else 1.0)
            parts.append(np.nan_to_num(centred)[:, None])
        else:
            parts.append(pd.get_dummies(values.astype(str), dtype=float).to_numpy())
    return np.hstack(parts)
