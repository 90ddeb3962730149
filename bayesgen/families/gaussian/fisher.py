r"""Fisher's discriminant coordinates and reduced-rank class means.

With class means $\mu_k$, class weights $n_k$, their weighted mean $\bar\mu$
and the shared within-class covariance $\Sigma$, the between-class scatter is
$S_B = \sum_k \frac{n_k}{n}(\mu_k - \bar\mu)(\mu_k - \bar\mu)^\top$ and the
discriminant directions solve $S_B w = \lambda \Sigma w$, normalised so that
$W^\top \Sigma W = I$ (unit within-class variance; ``004_dce6e695048eec0f.txt``,
"Several classes and reduced-rank LDA"). At most $\min(K-1, d)$ eigenvalues are
positive.

Keeping the first $q$ coordinates, the class means constrained to the
$q$-dimensional discriminant subspace are
$\mu_k^{(q)} = \bar\mu + \Sigma W_q W_q^\top(\mu_k - \bar\mu)$. A Gaussian model with
these means and covariance $\Sigma$ has
$(x-\mu_k^{(q)})^\top\Sigma^{-1}(x-\mu_k^{(q)}) = \lVert W_q^\top(x - \bar\mu) -
W_q^\top(\mu_k - \bar\mu)\rVert^2 + r(x)$ with $r(x)$ the same for every class, so it
classifies by the nearest class mean in the first $q$ coordinates (with the
$\log\pi_k$ terms): reduced-rank LDA as a generative model.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import scipy.linalg


class DiscriminantCoordinates(NamedTuple):
    """The solution of $S_B w = \\lambda \\Sigma w$.

    Attributes
    ----------
    center : ndarray of shape (n_features,)
        $\\bar\\mu$, the weighted mean of the class means.
    scalings : ndarray of shape (n_features, n_directions)
        The directions $W$, by decreasing eigenvalue, with $W^\\top\\Sigma W =
        I$; each column's largest-magnitude entry is positive (a deterministic sign).
    eigenvalues : ndarray of shape (n_directions,)
        The between- to within-class variance ratio along each direction.
    """

    center: np.ndarray
    scalings: np.ndarray
    eigenvalues: np.ndarray


def discriminant_coordinates(
    means: np.ndarray, weights: np.ndarray, covariance: np.ndarray
) -> DiscriminantCoordinates:
    """Fisher's discriminant directions of classes sharing ``covariance``.

    Parameters
    ----------
    means : ndarray of shape (n_classes, n_features)
    weights : ndarray of shape (n_classes,)
        Class weights (counts or probabilities), normalised here.
    covariance : ndarray of shape (n_features, n_features)
        Positive definite.

    Returns
    -------
    DiscriminantCoordinates
        With $\\min(K - 1, d)$ directions.
    """
    weights = np.asarray(weights, dtype=float) / np.sum(weights)
    center = weights @ means
    deviations = means - center
    between = (deviations * weights[:, None]).T @ deviations
    eigenvalues, vectors = scipy.linalg.eigh(between, covariance)
    order = np.argsort(eigenvalues)[::-1][: min(means.shape[0] - 1, means.shape[1])]
    scalings = vectors[:, order]
    largest = np.argmax(np.abs(scalings), axis=0)
    scalings = scalings * np.sign(scalings[largest, np.arange(scalings.shape[1])])
    return DiscriminantCoordinates(center, scalings, np.maximum(eigenvalues[order], 0.0))


def reduced_rank_means(
    means: np.ndarray, covariance: np.ndarray, coordinates: DiscriminantCoordinates, rank: int
) -> np.ndarray:
    """Class means projected onto the first ``rank`` discriminant directions (see module)."""
    directions = coordinates.scalings[:, :rank]
    deviations = means - coordinates.center
    return coordinates.center + (deviations @ directions) @ (covariance @ directions).T
