"""Filling missing discrete entries: the mixture's most probable value, or a class-wise draw.

``conditional`` of the count families: given the class weights $p(k \\mid x_o)$ of a
row, ``"mean"`` fills an entry with the most probable value under the mixture
$\\sum_k w_k\\, p(x_j \\mid k)$ (the mean of a count is rarely a count), and
``"sample"`` draws one class per row from its weights, then the entry given that class.
Features are independent given the class, so each missing entry only needs its own
per-class parameter.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from bayesgen.families.class_prior import draw_classes


def poisson_mixture_mode(weights: np.ndarray, rates: np.ndarray) -> np.ndarray:
    """Most probable count under $\\sum_k w_k \\mathrm{Poisson}(\\lambda_k)$, per row.

    Parameters
    ----------
    weights, rates : ndarray of shape (n_entries, n_classes)
    """
    if rates.size == 0:
        return np.zeros(rates.shape[0])
    from scipy import stats  # scipy.stats costs seconds to import: only when imputing

    largest = float(np.max(rates))
    counts = np.arange(int(np.ceil(largest + 10 * np.sqrt(largest) + 10)) + 1)
    pmf = stats.poisson.pmf(counts, rates[..., None])
    return np.argmax(np.einsum("ek,ekc->ec", weights, pmf), axis=1).astype(float)


def poisson_draw(rates: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Poisson draws of the given rates, as floats."""
    return rng.poisson(rates).astype(float)


def bernoulli_mixture_mode(weights: np.ndarray, probabilities: np.ndarray) -> np.ndarray:
    """1 where the mixture's probability of a one exceeds a half, else 0."""
    return (np.sum(weights * probabilities, axis=1) > 0.5).astype(float)


def bernoulli_draw(probabilities: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Bernoulli draws of the given probabilities, as floats."""
    return (rng.random(probabilities.shape) < probabilities).astype(float)


def fill_missing(
    X: np.ndarray,
    entry_parameters: np.ndarray,
    class_weights: np.ndarray,
    method: str,
    rng: np.random.Generator,
    mixture_mode: Callable = poisson_mixture_mode,
    draw: Callable = poisson_draw,
) -> np.ndarray:
    """``X`` (dense) with every NaN filled from its per-class distribution.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
    entry_parameters : ndarray of shape (n_samples, n_classes, n_features)
        The parameter of each entry's distribution under each class.
    class_weights : ndarray of shape (n_samples, n_classes)
    method : {"mean", "sample"}
    rng : numpy.random.Generator
    mixture_mode, draw : callable
        ``mixture_mode(weights, parameters)`` over (n_entries, n_classes) arrays, and
        ``draw(parameters, rng)`` over (n_entries,).

    Returns
    -------
    ndarray of shape (n_samples, n_features)
    """
    rows, columns = np.nonzero(np.isnan(X))
    parameters = entry_parameters[rows, :, columns]  # (n_entries, n_classes)
    filled = X.copy()
    if method == "mean":
        filled[rows, columns] = mixture_mode(class_weights[rows], parameters)
    else:
        chosen = draw_classes(class_weights, rng)[rows]
        filled[rows, columns] = draw(parameters[np.arange(len(rows)), chosen], rng)
    return filled
