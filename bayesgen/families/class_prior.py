r"""The class prior: a Dirichlet–Categorical conjugate pair.

$$
\pi \sim \mathrm{Dirichlet}(\alpha), \qquad y_i \mid \pi \sim \mathrm{Categorical}(\pi).
$$

The sufficient statistic is the vector of (soft, weighted) class counts
$N_k = \sum_i R_{ik}$; the posterior is $\mathrm{Dirichlet}(\alpha + N)$.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

import numpy as np
import scipy.sparse as sp

from bayesgen.families import dirichlet, numpy_draws
from bayesgen.families.namespace import namespace

if TYPE_CHECKING:
    from jax import Array


class ClassCounts(NamedTuple):
    """Sufficient statistics of the class labels.

    Attributes
    ----------
    counts : Array of shape (n_classes,)
        Summed responsibilities $N_k = \\sum_i R_{ik}$ (weighted class counts).
    """

    counts: Array


class Dirichlet(NamedTuple):
    """Dirichlet distribution over the class probabilities, prior or posterior.

    Attributes
    ----------
    concentration : Array of shape (n_classes,)
        Concentration $\\alpha_k \\geq 0$. A zero entry is only valid in a
        posterior whose count for that class is positive.
    """

    concentration: Array


def suff_stats(responsibilities: Array) -> ClassCounts:
    """Class counts from a responsibilities matrix.

    Parameters
    ----------
    responsibilities : Array or sparse matrix of shape (n_samples, n_classes)
        Per-row class weights: one-hot times sample weight for labelled rows.

    Returns
    -------
    ClassCounts
    """
    if sp.issparse(responsibilities):  # labelled rows over many classes
        return ClassCounts(np.asarray(responsibilities.sum(axis=0)).ravel())
    return ClassCounts(namespace(responsibilities).sum(responsibilities, axis=0))


def merge(a: ClassCounts, b: ClassCounts) -> ClassCounts:
    """Statistics of the union of two disjoint batches of rows."""
    return ClassCounts(a.counts + b.counts)


def posterior(prior: Dirichlet, stats: ClassCounts) -> Dirichlet:
    """Conjugate update: $\\mathrm{Dirichlet}(\\alpha + N)$."""
    return Dirichlet(prior.concentration + stats.counts)


def point_estimate(prior: Dirichlet, stats: ClassCounts, kind: str) -> Array:
    """A point estimate of the class probabilities.

    Parameters
    ----------
    prior : Dirichlet
        Prior over the class probabilities (ignored for ``kind="mle"``).
    stats : ClassCounts
        Class counts.
    kind : {"mle", "map", "mean"}
        ``"mle"``: $N_k / N$; ``"map"``: the posterior mode; ``"mean"``:
        $(\\alpha_k + N_k) / \\sum_j (\\alpha_j + N_j)$, i.e. additive smoothing.
        See `bayesgen.families.dirichlet.point_estimate` for the boundary cases.

    Returns
    -------
    Array of shape (n_classes,)
        Class probabilities summing to one.
    """
    return dirichlet.point_estimate(prior.concentration, stats.counts, kind)


def sample_params(key: Array, dirichlet: Dirichlet, num_samples: int) -> Array:
    """Independent draws of the class probabilities.

    Parameters
    ----------
    key : jax.random key or numpy.random.Generator
        A generator draws in NumPy (`bayesgen.families.numpy_draws`).
    dirichlet : Dirichlet
        Usually the posterior.
    num_samples : int

    Returns
    -------
    Array of shape (num_samples, n_classes)
    """
    if numpy_draws.is_generator(key):
        return numpy_draws.dirichlet(key, dirichlet.concentration, num_samples)
    import jax

    return jax.random.dirichlet(key, dirichlet.concentration, shape=(num_samples,))


def draw_classes(class_weights, rng):
    """One class index per row, drawn with the row's probabilities (one uniform per row).

    Parameters
    ----------
    class_weights : ndarray of shape (n_samples, n_classes)
        Rows summing to one, such as $p(k \\mid x_o)$.
    rng : numpy.random.Generator

    Returns
    -------
    ndarray of shape (n_samples,)
    """
    cumulative = np.cumsum(class_weights, axis=1)
    cumulative[:, -1] = 1.0
    return (rng.random((class_weights.shape[0], 1)) > cumulative).sum(axis=1)
