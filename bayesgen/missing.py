"""Which entries of the features are missing: one rule for every part of the package.

NaN (and, in text or category columns, None and ``pd.NA``) means *missing*, never an error:
it is integrated out of densities and filled by imputation.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from bayesgen.device_arrays import is_device_array


def missing_entries(X) -> np.ndarray:
    """``(n_samples, n_features)`` boolean mask of the missing entries of ``X``.

    ``X`` is a NumPy array (numbers: NaN; objects: None, NaN, ``pd.NA``; booleans and
    integers: none), a SciPy sparse matrix (its stored NaN; it is densified), a DataFrame, or
    a table wrapper holding one as ``frame``.
    """
    import pandas as pd

    X = underlying_table(X)
    if sp.issparse(X):
        X = X.toarray()
    if isinstance(X, pd.DataFrame):
        return X.isna().to_numpy()
    X = np.asarray(X)
    if X.dtype.kind in "fc":
        return np.isnan(X)
    if X.dtype.kind in "biu":  # booleans and integers have no missing value
        return np.zeros(X.shape, dtype=bool)
    return pd.isna(pd.DataFrame(X)).to_numpy()


def is_missing_value(value) -> bool:
    """Whether one value is missing (None, NaN, ``pd.NA``, ``NaT``); a container is not."""
    import pandas as pd

    try:
        return bool(pd.isna(value))
    except (TypeError, ValueError):  # an array or another container
        return False


def underlying_table(X):
    """The DataFrame of a table wrapper (MixedNB's columns, which keep it as ``frame``);
    anything else, a DataFrame included (whatever its columns are called), as it is."""
    import pandas as pd

    if isinstance(X, pd.DataFrame):
        return X
    return getattr(X, "frame", X)


def has_missing(X) -> bool:
    """Whether any entry of ``X`` is missing; a floating ``jax.Array`` is checked on its own
    device (nothing is copied to the host)."""
    if is_device_array(X):
        return bool(X.__array_namespace__().isnan(X).any())
    return bool(missing_entries(X).any())


def at_column_means(X: np.ndarray) -> np.ndarray:
    """A float ``X`` with each missing entry at its column's mean over the observed ones
    (0 for a column with none): where EM over missing entries starts. ``X`` itself when
    nothing is missing."""
    missing = np.isnan(X)
    if not missing.any():
        return X
    counts = np.maximum(np.sum(~missing, axis=0), 1)
    column_means = np.sum(np.where(missing, 0.0, X), axis=0) / counts
    return np.where(missing, column_means, X).astype(X.dtype, copy=False)


def with_missing_cells(X, rates: np.ndarray, rng: np.random.Generator, kept=()):
    """``X`` with each cell of column ``j`` missing, independently, with probability
    ``rates[j]`` (the columns in ``kept`` never): missing completely at random, column by
    column.

    A NumPy array of numbers comes back as floats with NaN, one of objects with None; a
    DataFrame keeps its index and columns, a missing cell being what its dtype holds for
    one (NaN, or ``pd.NA`` in the nullable dtypes; an integer column becomes float). Where
    every rate is 0, ``X`` comes back as it is.
    """
    import pandas as pd

    rates = np.array(rates, dtype=np.float64)
    rates[list(kept)] = 0.0
    if not np.any(rates > 0):  # nothing to leave missing: the rows as they are
        return X
    mask = rng.random(np.shape(X)) < rates
    if isinstance(X, pd.DataFrame):
        return X.mask(pd.DataFrame(mask, index=X.index, columns=X.columns))
    X = np.asarray(X)
    if X.dtype.kind in "iufb":
        return np.where(mask, np.nan, X.astype(np.float64))
    return np.where(mask, None, X)
