r"""Fitting the joint value from rows and their class weights, and updating it.

Every fit goes through one $n \times K$ matrix $R$ of per-row class weights (one-hot
times the sample weight for a labelled row, $p(k \mid x_i)$ for an unlabelled one in an
E-step). The statistics are sums over rows, so

``update(family, fit(family, X1, R1, ...), X2, R2, ...) == fit(family, [X1; X2], [R1; R2], ...)``

up to rounding, and `merge` combines fits made anywhere (Dask workers, chunks).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from bayesgen import training_range
from bayesgen._precision import compute_dtype, precision
from bayesgen.families import class_prior
from bayesgen.families.namespace import as_numpy, tree_leaves
from bayesgen.joint.value import (
    FitSettings,
    FittedJoint,
    KeptRows,
    check_settings,
    class_probabilities,
)

#: Posterior-mean feature parameters, maximum-likelihood class probabilities.
DEFAULT_SETTINGS = FitSettings()


def responsibilities(class_index: np.ndarray, weights: np.ndarray, n_classes: int) -> np.ndarray:
    """One-hot rows times sample weights, shape (n_samples, n_classes), in ``weights``' dtype.

    NumPy, so a fit compiles nothing per row count.
    """
    matrix = np.zeros((class_index.shape[0], n_classes), dtype=weights.dtype)
    matrix[np.arange(class_index.shape[0]), class_index] = weights
    return matrix


def sparse_responsibilities(class_index: np.ndarray, weights: np.ndarray, n_classes: int):
    """`responsibilities` as a SciPy CSR matrix, one entry per row: what a family that
    declares ``sparse_class_weights`` sums in one pass over the rows, with no rows x classes
    array (50,000 classes of 100 rows each would make 2 x 10^10 entries)."""
    n_rows = class_index.shape[0]
    return sp.csr_matrix(
        (np.asarray(weights), np.asarray(class_index), np.arange(n_rows + 1)),
        shape=(n_rows, n_classes),
    )


#: A fit adds rows in chunks when one-hot responsibilities for all rows would hold more
#: (row, class) entries than this (256 MiB in float64); below it, one pass as always.
RESPONSIBILITY_ENTRIES = 2**25


def row_chunks(n_rows: int, n_classes: int) -> list[slice]:
    """Row slices whose (rows x classes) responsibilities stay within
    `RESPONSIBILITY_ENTRIES`.

    Without them, 50,000 classes of one row each made a 50,000 x 50,000 matrix (18.6 GiB).
    """
    rows = max(1, RESPONSIBILITY_ENTRIES // max(1, n_classes))
    return [slice(start, min(start + rows, n_rows)) for start in range(0, n_rows, rows)]


def rows_to_learn_from(family, X, R: np.ndarray):
    """The rows of ``X`` that ``family`` learns its columns from: those of positive total
    weight (a row of weight 0 is no row at all, so it brings no category of its own). A
    family that learns nothing from the rows (``learned()`` empty) gets ``X`` as it is."""
    if not family.learned():
        return X
    totals = R.sum(axis=1)  # a sparse R gives a (n, 1) matrix
    weighted = np.asarray(totals).ravel() > 0
    if weighted.all():
        return X
    if isinstance(X, dict):
        return {name: X[name][weighted] for name in X}
    return X[weighted]


def family_of(family, joint: FittedJoint):
    """``family`` with what ``joint`` learned about the columns put back (its categories)."""
    return family.with_learned(**joint.learned) if joint.learned else family


def _stats_dtype(joint: FittedJoint) -> np.dtype:
    return np.asarray(joint.class_stats.counts).dtype


def from_stats(
    family,
    classes,
    class_stats: class_prior.ClassCounts,
    feature_stats,
    settings: FitSettings = DEFAULT_SETTINGS,
    *,
    learned: dict | None = None,
    frozen=None,
) -> FittedJoint:
    """The joint whose statistics are these: prior resolved, parameters estimated.

    Parameters
    ----------
    family : FeatureFamily
        Hyperparameters only; ``learned`` is what it learned about the columns.
    classes : array-like of shape (n_classes,)
    class_stats : ClassCounts
    feature_stats : pytree
        The family's statistics, NumPy or JAX arrays (stored as NumPy).
    settings : FitSettings
    learned : dict, optional
    frozen : optional
        What an EM keeps fixed instead of resolving it from the statistics (the family's
        ``estimate(stats, kind, frozen)``): a kernel density's kernels, a Gaussian's prior.

    Returns
    -------
    FittedJoint
    """
    check_settings(settings, family)
    learned = dict(learned or {})
    family = family.with_learned(**learned) if learned else family
    class_stats = as_numpy(class_stats)
    feature_stats = as_numpy(feature_stats)
    with precision(np.asarray(class_stats.counts).dtype):
        prior, params = family.estimate(feature_stats, settings.estimate, frozen)
    return FittedJoint(
        classes=np.asarray(classes),
        class_stats=class_stats,
        class_probabilities=class_probabilities(settings.class_prior, class_stats),
        feature_stats=feature_stats,
        feature_prior=as_numpy(prior),
        params=as_numpy(params),
        learned=learned,
        frozen=None if frozen is None else as_numpy(frozen),
    )


def batch_stats(family, X, R: np.ndarray) -> tuple:
    """``(class counts, feature statistics)`` of one batch, in ``R``'s precision.

    ``family`` must already know the batch's columns (`family_of`, ``family.learn``);
    ``X`` is a ``family.check_columns`` result, encoded here.
    """
    dtype = compute_dtype(R.dtype)
    R = R.astype(dtype, copy=False)
    with precision(dtype):
        return class_prior.suff_stats(R), family.suff_stats(family.encode(X), R, dtype)


def fit(family, X, R: np.ndarray, classes, settings: FitSettings = DEFAULT_SETTINGS) -> FittedJoint:
    """The joint fitted to rows ``X`` with class weights ``R``, in closed form.

    Parameters
    ----------
    family : FeatureFamily
        Fresh: whatever it learns about the columns is learned here.
    X : array-like of shape (n_samples, n_features)
        The rows as the family reads them (``family.check_columns``); NaN is missing.
    R : ndarray of shape (n_samples, n_classes)
        Responsibilities; their dtype is the computation's precision.
    classes : array-like of shape (n_classes,)
    settings : FitSettings

    Returns
    -------
    FittedJoint
    """
    family, _ = family.learn(rows_to_learn_from(family, X, R))
    class_stats, feature_stats = batch_stats(family, X, R)
    return from_stats(
        family, classes, class_stats, feature_stats, settings, learned=family.learned()
    )


def merge(family, a: FittedJoint, b: FittedJoint, settings: FitSettings = DEFAULT_SETTINGS):
    """The joint of the union of the rows behind two fits over the same classes and columns
    (their records merged, and their kept rows joined, where both have them).

    Raises
    ------
    ValueError
        If the classes differ.
    """
    if not np.array_equal(a.classes, b.classes):
        raise ValueError(
            f"cannot merge fits over different classes: {a.classes.tolist()} and "
            f"{b.classes.tolist()}."
        )
    merged = _merged(family_of(family, a), a, b.class_stats, b.feature_stats, settings)
    rows = None
    if a.rows is not None and b.rows is not None:
        rows = KeptRows(*(np.concatenate(pair) for pair in zip(a.rows, b.rows, strict=True)))
    record = None
    if a.record is not None and b.record is not None:
        record = training_range.merged(a.record, b.record)
    return merged._replace(record=record, rows=rows)


def merge_batch_stats(family, a: tuple, b: tuple) -> tuple:
    """The statistics of the union of two disjoint batches, each a `batch_stats` pair
    ``(class counts, feature statistics)``, as NumPy arrays in the finer of their two
    precisions (the family's exact merge)."""
    dtype = compute_dtype(tree_leaves(a[0])[0].dtype, tree_leaves(b[0])[0].dtype)
    a, b = as_numpy(a, dtype), as_numpy(b, dtype)
    with precision(dtype):
        return class_prior.merge(a[0], b[0]), family.merge(a[1], b[1])


def _merged(family, joint: FittedJoint, class_stats, feature_stats, settings) -> FittedJoint:
    counts, stats = merge_batch_stats(
        family, (joint.class_stats, joint.feature_stats), (class_stats, feature_stats)
    )
    merged = from_stats(
        family,
        joint.classes,
        counts,
        stats,
        settings,
        learned=family.learned(),
        frozen=joint.frozen,
    )
    return merged._replace(record=joint.record, rows=joint.rows)


def update(
    family,
    joint: FittedJoint,
    X,
    R: np.ndarray,
    settings: FitSettings = DEFAULT_SETTINGS,
    *,
    check_batch=None,
) -> FittedJoint:
    """``joint`` with the rows ``X`` (class weights ``R``) added: ``partial_fit`` as a value.

    New categories in ``X`` widen the family and re-lay the stored statistics for them.
    ``check_batch(family, feature_stats)``, when given, sees the batch's statistics before
    they are merged and raises to refuse them (rows with missing entries where the family
    fits those by EM, which needs every row at once).

    Returns
    -------
    FittedJoint
    """
    family, previous = family_of(family, joint).learn(
        rows_to_learn_from(family, X, R), joint.feature_stats
    )
    class_stats, feature_stats = batch_stats(family, X, R)
    if check_batch is not None:
        check_batch(family, feature_stats)
    return _merged(
        family, joint._replace(feature_stats=previous), class_stats, feature_stats, settings
    )
