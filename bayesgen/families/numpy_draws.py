r"""Conjugate parameter draws in NumPy, for a ``numpy.random.Generator`` instead of a JAX key.

Every family's ``sample_params`` accepts either. A JAX key draws in JAX (inside jitted
kernels); a generator draws here, with no compilation, which is what ``posterior``,
``predict_proba_draws`` and data augmentation use. The laws are the same; the streams are
not. Draws are made in float64 and returned in the dtype of the posterior's parameters,
so that a float32 model gets float32 draws, as from JAX.
"""

from __future__ import annotations

import numpy as np


def is_generator(key) -> bool:
    """Whether ``key`` is a NumPy generator (draw here) rather than a JAX key."""
    return isinstance(key, np.random.Generator)


def _dtype(*parameters) -> np.dtype:
    return np.result_type(*[np.asarray(p).dtype for p in parameters], np.float32)


def _float64_and_size(num_samples: int, *parameters):
    """The parameters in float64, and the draws' shape: ``num_samples`` by their broadcast."""
    arrays = [np.asarray(p, np.float64) for p in parameters]
    return arrays, (num_samples, *np.broadcast_shapes(*(a.shape for a in arrays)))


def gamma(rng: np.random.Generator, shape, rate, num_samples: int) -> np.ndarray:
    """``(num_samples, *shape.shape)`` draws of $\\mathrm{Gamma}(a, b)$ (shape, rate).

    Parameters
    ----------
    rng : numpy.random.Generator
    shape : array-like
        Shape parameters $a$.
    rate : array-like broadcastable to ``shape``
        Rate parameters $b$.
    num_samples : int

    Returns
    -------
    ndarray
    """
    (a, b), size = _float64_and_size(num_samples, shape, rate)
    return (rng.standard_gamma(a, size=size) / b).astype(_dtype(shape, rate))


def beta(rng: np.random.Generator, concentration1, concentration0, num_samples: int):
    """``(num_samples, ...)`` draws of $\\mathrm{Beta}(a, b)$, broadcasting ``a`` and ``b``.

    Parameters
    ----------
    rng : numpy.random.Generator
    concentration1, concentration0 : array-like
        $a$ (the pseudo-count of ones) and $b$ (of zeros).
    num_samples : int

    Returns
    -------
    ndarray
    """
    (a, b), size = _float64_and_size(num_samples, concentration1, concentration0)
    return rng.beta(a, b, size=size).astype(_dtype(concentration1, concentration0))


def dirichlet(rng: np.random.Generator, concentration, num_samples: int, segment_ids=None):
    """``(num_samples, *concentration.shape)`` Dirichlet draws along the last axis.

    Normalised Gamma variates, in log space: $G_a = G_{a+1} U^{1/a}$ keeps a tiny
    concentration's variate from underflowing to 0 (which would leave a vector of zeros to
    normalise). With ``segment_ids`` (one integer per entry of the last axis, contiguous
    blocks), each block is its own probability vector, as for the categories of several
    features laid side by side.

    Parameters
    ----------
    rng : numpy.random.Generator
    concentration : array-like of shape (..., n_entries)
    num_samples : int
    segment_ids : array-like of int of shape (n_entries,), optional

    Returns
    -------
    ndarray
    """
    alpha = np.asarray(concentration, np.float64)
    size = (num_samples, *alpha.shape)
    log_gammas = np.log(rng.standard_gamma(alpha + 1.0, size=size))
    log_gammas += np.log(rng.random(size)) / alpha
    if segment_ids is None:
        starts, segment_ids = np.array([0]), np.zeros(alpha.shape[-1], dtype=np.int64)
    else:
        segment_ids = np.asarray(segment_ids)
        starts = np.flatnonzero(np.r_[True, segment_ids[1:] != segment_ids[:-1]])
    top = np.maximum.reduceat(log_gammas, starts, axis=-1)[..., segment_ids]
    scaled = np.exp(log_gammas - top)
    totals = np.add.reduceat(scaled, starts, axis=-1)[..., segment_ids]
    return (scaled / totals).astype(_dtype(concentration))
