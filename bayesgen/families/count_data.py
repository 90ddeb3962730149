"""The data passes of the count families, for dense arrays and SciPy sparse matrices alike.

Fitting a count family needs one product ``R^T X`` and prediction one product ``X W^T``.
SciPy's sparse products are the fastest here (measured in ``NOTES.md``: JAX's BCOO is
several times slower), so these passes stay in NumPy/SciPy and X is never densified.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from scipy.special import gammaln

from bayesgen import sparse_rows
from bayesgen.families import in_place
from bayesgen.families.linear import LinearLogLikelihood
from bayesgen.families.namespace import namespace


def class_sums(responsibilities, X) -> np.ndarray:
    """``R^T X``: per-class weighted sums of every feature, shape (n_classes, n_features).

    ``R`` may be a SciPy sparse matrix (labelled rows: one entry per row,
    `bayesgen.joint.sparse_responsibilities`): the product then costs one pass over ``X``'s
    entries whatever the number of classes, where a dense ``R`` costs one per class.
    """
    if sp.issparse(responsibilities):
        if sp.issparse(X):
            return sparse_rows.weighted_sums(responsibilities, X)
        return np.asarray(responsibilities.T.astype(X.dtype) @ X)
    responsibilities = np.asarray(responsibilities, dtype=X.dtype)
    if sp.issparse(X):
        return np.asarray((X.T @ responsibilities).T)
    return responsibilities.T @ X


def class_totals(responsibilities):
    """``R^T 1``, each class's total weight, for a dense array (NumPy or JAX) or a SciPy
    sparse matrix of class weights."""
    if sp.issparse(responsibilities):
        return np.asarray(responsibilities.sum(axis=0)).ravel()
    return namespace(responsibilities).sum(responsibilities, axis=0)


def class_statistics(X, responsibilities, dtype):
    """``(N_k, R^T X, missing counts)`` of a batch, the statistics every count family keeps.

    Missing entries (NaN) are skipped: their factor leaves the likelihood, so the sums run
    over observed entries and each feature keeps its own weighted count of missing rows.

    Parameters
    ----------
    X : ndarray or sparse matrix of shape (n_samples, n_features)
    responsibilities : Array or sparse matrix of shape (n_samples, n_classes)
    dtype : numpy dtype
        Precision of the returned statistics.

    Returns
    -------
    tuple of Array
        Shapes (n_classes,), (n_classes, n_features), (n_classes, n_features); NumPy
        arrays for NumPy responsibilities, JAX arrays otherwise.
    """
    xp = np if sp.issparse(responsibilities) else namespace(responsibilities)
    filled, missing = split_missing(X)
    sums = class_sums(responsibilities, filled)
    missing_counts = (
        np.zeros_like(sums) if missing is None else class_sums(responsibilities, missing)
    )
    return (
        class_totals(responsibilities),
        xp.asarray(sums, dtype),
        xp.asarray(missing_counts, dtype),
    )


def row_products(X, matrix: np.ndarray) -> np.ndarray:
    """``X @ matrix.T`` for a (n_classes, n_features) matrix: shape (n_samples, n_classes)."""
    return _times(X, np.asarray(matrix, dtype=X.dtype))


def split_missing(X):
    """``(X with NaN as 0, missing indicator or None)``; sparse input stays sparse.

    The indicator is a float matrix of X's kind (dense or CSR/CSC) with 1 where X is NaN,
    or ``None`` when nothing is missing.
    """
    if sp.issparse(X):
        is_nan = np.isnan(X.data)
        if not is_nan.any():
            return X, None
        filled, missing = X.copy(), X.copy()
        filled.data = np.where(is_nan, 0.0, X.data)
        filled.eliminate_zeros()
        missing.data = is_nan.astype(X.dtype)
        missing.eliminate_zeros()
        return filled, missing
    is_nan = np.isnan(X)
    if not is_nan.any():
        return X, None
    return np.where(is_nan, 0.0, X).astype(X.dtype), is_nan.astype(X.dtype)


def _times(X, matrix: np.ndarray) -> np.ndarray:
    if sp.issparse(X):
        return sparse_rows.times(X, matrix.T)
    return np.asarray(X @ np.ascontiguousarray(matrix.T))


def evaluate(form: LinearLogLikelihood, X, row_term=None, missing=None) -> np.ndarray:
    """``X W^T + b (+ row term)``, with ``-inf`` for the classes a row cannot come from.

    Parameters
    ----------
    form : LinearLogLikelihood
    X : ndarray or sparse matrix of shape (n_samples, n_features)
        Without NaN (see `split_missing`).
    row_term : ndarray of shape (n_samples,), optional
        A per-row term such as a multinomial coefficient.
    missing : ndarray or sparse matrix of shape (n_samples, n_features), optional
        1 where a feature is missing: its share of the bias is taken out (its factor is
        integrated out).

    Returns
    -------
    ndarray of shape (n_samples, n_classes)
    """
    as_array = [None if a is None else np.asarray(a, dtype=X.dtype) for a in form]
    weights, bias, zero_weights, zero_bias, feature_bias, feature_zero_bias = as_array
    log_likelihood = in_place.add_in_place(_times(X, weights), bias)
    impossible_count = None
    if np.any(zero_weights) or np.any(zero_bias):
        impossible_count = in_place.add_in_place(_times(X, zero_weights), zero_bias)
    if missing is not None and feature_bias is not None:
        log_likelihood = in_place.add_in_place(
            log_likelihood, _times(missing, feature_bias), np.subtract
        )
        if impossible_count is not None:
            impossible_count = in_place.add_in_place(
                impossible_count, _times(missing, feature_zero_bias), np.subtract
            )
    if impossible_count is not None and log_likelihood.dtype.kind == "f":
        log_likelihood[impossible_count > 0] = -np.inf
    elif impossible_count is not None:  # whole numbers: -inf makes the array float
        log_likelihood = np.where(impossible_count > 0, -np.inf, log_likelihood)
    if row_term is not None:
        log_likelihood = in_place.add_in_place(log_likelihood, row_term[:, None])
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
    """$\\sum_j \\log x_{ij}!$ per row (``gammaln(x + 1)``, zero for zero counts)."""
    return _elementwise_row_sum(X, lambda values: gammaln(values + 1))


def multinomial_coefficients(X) -> np.ndarray:
    """$\\log L_i! - \\sum_j \\log x_{ij}!$ per row, with $L_i$ the row total."""
    return gammaln(row_totals(X) + 1) - log_factorial_sums(X)


def _nonzero_entries(X):
    """``(rows, columns, values)`` of the non-zero entries of a NaN-free ``X``."""
    if sp.issparse(X):
        coo = X.tocoo()
        keep = coo.data != 0
        return coo.row[keep], coo.col[keep], coo.data[keep]
    rows, columns = np.nonzero(X)
    return rows, columns, X[rows, columns]


def rising_factorial_sums(X, concentration: np.ndarray) -> np.ndarray:
    """$\\sum_j [\\log\\Gamma(a_{kj} + x_{ij}) - \\log\\Gamma(a_{kj})]$ per row and class.

    The log rising factorials $\\log a^{(x)}$ of the Dirichlet–multinomial and
    negative-binomial densities; zero counts contribute nothing, so only the non-zero
    entries of ``X`` (dense or sparse, without NaN) are visited.

    Parameters
    ----------
    X : ndarray or sparse matrix of shape (n_samples, n_features)
    concentration : ndarray of shape (n_classes, n_features)

    Returns
    -------
    ndarray of shape (n_samples, n_classes)
    """
    rows, columns, values = _nonzero_entries(X)
    result = np.empty((X.shape[0], concentration.shape[0]))
    for k, alpha in enumerate(np.asarray(concentration, dtype=np.float64)):
        terms = gammaln(alpha[columns] + values) - gammaln(alpha[columns])
        result[:, k] = np.bincount(rows, weights=terms, minlength=X.shape[0])
    return result
