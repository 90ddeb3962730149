"""The data passes of the count families, for dense arrays and SciPy sparse matrices alike.

Fitting a count family needs one product ``R^T X`` and prediction one product ``X W^T``.
SciPy's sparse products are the fastest here (measured in ``NOTES.md``: JAX's BCOO is
several times slower), so these passes stay in NumPy/SciPy and X is never densified.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from scipy.special import gammaln

from bayesgen.families.linear import LinearLogLikelihood


def class_sums(responsibilities, X) -> np.ndarray:
    """``R^T X``: per-class weighted sums of every feature, shape (n_classes, n_features)."""
    responsibilities = np.asarray(responsibilities, dtype=X.dtype)
    if sp.issparse(X):
        return np.asarray((X.T @ responsibilities).T)
    return responsibilities.T @ X


def evaluate(form: LinearLogLikelihood, X, row_term: np.ndarray | None = None) -> np.ndarray:
    """``X W^T + b (+ row term)``, with ``-inf`` for the classes a row cannot come from.

    Parameters
    ----------
    form : LinearLogLikelihood
    X : ndarray or sparse matrix of shape (n_samples, n_features)
    row_term : ndarray of shape (n_samples,), optional
        A per-row term such as a multinomial coefficient.

    Returns
    -------
    ndarray of shape (n_samples, n_classes)
    """
    weights, bias, zero_weights, zero_bias = (np.asarray(a, dtype=X.dtype) for a in form)
    # A C-ordered (n_features, n_classes) right operand: SciPy's sparse product is several
    # times slower on the transposed view.
    log_likelihood = np.asarray(X @ np.ascontiguousarray(weights.T)) + bias
    if np.any(zero_weights) or np.any(zero_bias):
        impossible = np.asarray(X @ np.ascontiguousarray(zero_weights.T)) + zero_bias > 0
        log_likelihood = np.where(impossible, -np.inf, log_likelihood)
    if row_term is not None:
        log_likelihood = log_likelihood + row_term[:, None]
    return log_likelihood


def _elementwise_row_sum(X, function) -> np.ndarray:
    if sp.issparse(X):
        csr = X.tocsr()
        transformed = sp.csr_matrix((function(csr.data), csr.indices, csr.indptr), shape=csr.shape)
        return np.asarray(transformed.sum(axis=1)).ravel()
    return function(X).sum(axis=1)


def row_totals(X) -> np.ndarray:
    """Row sums (document lengths), shape (n_samples,)."""
    return np.asarray(X.sum(axis=1)).ravel()


def log_factorial_sums(X) -> np.ndarray:
    """:math:`\\sum_j \\log x_{ij}!` per row (``gammaln(x + 1)``, zero for zero counts)."""
    return _elementwise_row_sum(X, lambda values: gammaln(values + 1))


def multinomial_coefficients(X) -> np.ndarray:
    """:math:`\\log L_i! - \\sum_j \\log x_{ij}!` per row, with :math:`L_i` the row total."""
    return gammaln(row_totals(X) + 1) - log_factorial_sums(X)
