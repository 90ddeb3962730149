"""Where a Gaussian mixture per class starts its EM: memberships and the held prior.

``MixtureDA``'s EM (`bayesgen.inference.mixture_family_em`) starts from each row's
memberships of its class's components, k-means on the class's rows or random
(`initial_memberships`), with the components' ridge and Normal–Inverse-Wishart prior
resolved once from the rows' statistics by class and held through the iterations
(`held_ridge_and_prior`). Functions of arrays and families; ``LatentClassNB``'s starts,
over a table's columns, are `bayesgen.inference.latent_class_start`.
"""

from __future__ import annotations

import warnings

import numpy as np
from sklearn.cluster import KMeans
from sklearn.exceptions import ConvergenceWarning

from bayesgen.families.namespace import tree_map
from bayesgen.missing import at_column_means


def initial_memberships(X, R: np.ndarray, active: np.ndarray, init: str, rng) -> np.ndarray:
    """Starting memberships $\\gamma_{ikm}$, shape (n_samples, n_classes, M), in ``R``'s
    precision: within each class's rows of positive weight, hard memberships from k-means
    (``"kmeans"``, rows weighted by their responsibilities) or uniform draws normalised
    (``"random"``), over the class's ``active`` components.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        Complete rows (missing entries filled, `bayesgen.missing.at_column_means`).
    R : ndarray of shape (n_samples, n_classes)
    active : ndarray of bool, shape (n_classes, M)
        The components each class has.
    init : {"kmeans", "random"}
    rng : numpy.random.RandomState
    """
    gamma = np.where(active, 1.0, 0.0) / active.sum(axis=1, keepdims=True)
    gamma = np.repeat(gamma[None], X.shape[0], axis=0).astype(R.dtype)
    for k, count in enumerate(active.sum(axis=1)):
        rows = np.flatnonzero(R[:, k] > 0)
        if count == 1:
            continue
        if init == "kmeans":
            with warnings.catch_warnings():
                # Fewer distinct rows than components: k-means says so; EM copes.
                warnings.simplefilter("ignore", ConvergenceWarning)
                kmeans = KMeans(count, n_init=1, random_state=rng.randint(2**31 - 1))
                labels = kmeans.fit(X[rows], sample_weight=R[rows, k]).labels_
            membership = np.eye(count)[labels]
        else:
            membership = rng.uniform(size=(rows.size, count))
            membership /= membership.sum(axis=1, keepdims=True)
        gamma[rows, k, :count] = membership
    return gamma


def held_ridge_and_prior(gaussian, X, R: np.ndarray) -> tuple:
    """The components' ridge and prior, resolved by ``gaussian`` (a `GaussianFamily` of the
    model's prior settings) from the rows' statistics by class, missing entries at their
    column means, as ``GaussianDA`` resolves them. They depend on the rows' total weights
    only, which EM over unlabelled rows keeps, so every iteration climbs one objective."""
    filled = at_column_means(X)
    stats = gaussian.suff_stats(np.ascontiguousarray(filled, dtype=R.dtype), R, R.dtype)
    ridge = gaussian.ridge(stats)
    return np.asarray(ridge), tree_map(np.asarray, gaussian.prior(stats, ridge))
