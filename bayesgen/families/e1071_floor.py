r"""R's e1071 floor: ``threshold`` and ``eps`` of ``predict.naiveBayes``.

e1071 (version 1.7) scores a row of a naive-Bayes model as $\log \pi_k + \sum_j \log
f_{kj}(x_j)$, where each factor is floored: a class's standard deviation at most ``eps``
becomes ``threshold``, and a factor $f_{kj}(x_j)$ (a normal density, or a category's
probability) at most ``eps`` becomes ``threshold``; a missing entry's factor is 1. With its
defaults (``threshold=0.001``, ``eps=0``) only a zero standard deviation and a factor that is
exactly 0 in floating point (a probability estimated as 0, a density that underflows) are
replaced. GaussianNB and CategoricalNB apply the same floor when given ``threshold``, so
they reproduce e1071 where a class has a constant feature or an unseen category.
"""

from __future__ import annotations

import math
import numbers

import numpy as np

THRESHOLD_DOC = """
    threshold : float, optional
        R's e1071 floor (``predict.naiveBayes(threshold=, eps=)``; its default is 0.001):
        a per-feature likelihood factor (a category's probability, a normal density) at
        most ``eps`` counts as ``threshold``, and a Gaussian feature's class standard
        deviation at most ``eps`` is ``threshold``. It applies to the point estimate's
        densities (``predict``, ``predict_proba``, ``score_samples``, ...). None (default):
        no floor, the model's own densities.
    eps : float, default=0.0
        The floor's cut-off (used only with ``threshold``).
"""


def check(threshold, eps) -> None:
    """Raise a ``ValueError`` naming ``threshold`` or ``eps`` when it is not a usable value."""
    if threshold is not None and (
        isinstance(threshold, bool)
        or not isinstance(threshold, numbers.Real)
        or not math.isfinite(threshold)
        or threshold <= 0
    ):
        raise ValueError(f"threshold must be None or a positive number; got {threshold!r}.")
    if (
        isinstance(eps, bool)
        or not isinstance(eps, numbers.Real)
        or not math.isfinite(eps)
        or eps < 0
    ):
        raise ValueError(f"eps must be a number >= 0; got {eps!r}.")


def floor_variances(variances: np.ndarray, threshold: float, eps: float) -> np.ndarray:
    """Variances whose standard deviation is at most ``eps`` set to ``threshold**2``."""
    variances = np.asarray(variances)
    return np.where(np.sqrt(variances) <= eps, threshold**2, variances).astype(variances.dtype)


def floor_probabilities(probabilities: np.ndarray, threshold: float, eps: float) -> np.ndarray:
    """Probabilities at most ``eps`` set to ``threshold`` (not renormalised, as in e1071)."""
    probabilities = np.asarray(probabilities)
    floored = np.where(probabilities <= eps, threshold, probabilities)
    return floored.astype(probabilities.dtype)


def gaussian_log_likelihood(
    means: np.ndarray, variances: np.ndarray, X: np.ndarray, threshold: float, eps: float
) -> np.ndarray:
    """``(n_samples, n_classes)`` $\\sum_j \\log f_{kj}(x_j)$ of independent normals, each
    factor floored; NaN entries are missing (factor 1). ``variances`` are floored already
    (`floor_variances`)."""
    X = np.asarray(X)
    dtype = X.dtype
    means, sd = np.asarray(means, dtype), np.sqrt(np.asarray(variances, dtype))
    floor = dtype.type(math.log(threshold))
    result = np.zeros((X.shape[0], means.shape[0]), dtype=dtype)
    for k in range(means.shape[0]):
        z = (X - means[k]) / sd[k]
        log_density = -0.5 * z * z - np.log(sd[k]) - dtype.type(0.5 * math.log(2 * math.pi))
        with np.errstate(under="ignore"):  # R's doubles: a float32 density would underflow
            density = np.exp(log_density.astype(np.float64))
        factor = np.where(density <= eps, floor, log_density)
        result[:, k] = np.sum(np.where(np.isnan(X), 0, factor), axis=1)
    return result
