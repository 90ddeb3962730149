"""``bayesgen.dask.fit``: the closed-form fit as a map over row blocks and a tree reduction."""

from __future__ import annotations

import dask
import numpy as np
from dask import delayed

from bayesgen import joint
from bayesgen._precision import compute_dtype, precision
from bayesgen.dask import _blocks, _em, _family
from bayesgen.dask._input import row_blocks
from bayesgen.dask._passes import run_pass
from bayesgen.inference import semi_supervised
from bayesgen.validation import check_class_list


def fit(estimator, X, y, sample_weight=None):
    """Fit ``estimator`` on data held in Dask collections, computing on the Dask workers.

    The result equals ``estimator.fit(X, y, sample_weight)`` on the same rows in memory,
    up to rounding: every fitted attribute, and for unlabelled rows (y = -1) the EM
    iterations and ``log_likelihood_history_``. The work runs on Dask's current scheduler
    (a ``dask.distributed.Client`` when one is active): one pass over y for the classes,
    then one pass over X for the statistics, or one per EM iteration.

    Parameters
    ----------
    estimator : GaussianDA, QDA, LDA, GaussianNB, BernoulliNB, MultinomialNB, PoissonNB,
        ExponentialNB, ComplementNB (labelled rows only), or FamilyClassifier over such a family
        Fitted in place. Not supported (a ``ValueError`` says why): ``CategoricalNB``,
        ``MixedNB``, ``MixtureDA``, ``KernelDensityDA`` and ``shrinkage="ledoit-wolf"``,
        whose fits need more than merged statistics.
    X : dask.array.Array or dask.dataframe.DataFrame of shape (n_samples, n_features)
        Blocks of rows are fitted independently; column chunks are joined into one. NumPy
        arrays and pandas frames are accepted too (one block, or y's blocks). For a
        ``GaussianDA`` X must not hold NaN (missing values need EM over every row's
        missing entries; impute first or fit in memory); the count models accept it.
    y : dask.array.Array, dask.dataframe.Series, array-like of shape (n_samples,), or str
        Class labels; -1 (or NaN/None) marks an unlabelled row. A string names a column of
        a DataFrame ``X``, which is then not a feature. Rechunked to X's rows if needed.
    sample_weight : dask.array.Array, dask.dataframe.Series or array-like of shape \
(n_samples,), optional
        Non-negative row weights, rechunked to X's rows if needed.

    Returns
    -------
    estimator
        The fitted estimator.

    Raises
    ------
    ValueError
        For an unsupported estimator, lengths of X, y or sample_weight that differ, or
        invalid values, which the block holding them names by its rows.

    Examples
    --------
    >>> import dask.array as da
    >>> import numpy as np
    >>> import bayesgen.dask
    >>> from bayesgen import GaussianDA
    >>> rng = np.random.default_rng(0)
    >>> X = da.from_array(rng.normal(size=(1000, 3)), chunks=(250, 3))
    >>> y = da.from_array(np.repeat([0, 1], 500), chunks=250)
    >>> model = bayesgen.dask.fit(GaussianDA(), X, y)
    >>> model.class_count_.tolist()
    [500.0, 500.0]
    """
    _family.check_supported(estimator)
    estimator._check_hyperparameters()
    blocks = row_blocks(X, y, sample_weight)
    head = estimator._check_X(blocks.head, reset=True)  # n_features_in_, feature_names_in_
    dtype = compute_dtype(head.dtype)
    label_task = delayed(_blocks.block_labels, pure=True)
    marker = semi_supervised.check_unlabeled_marker(estimator.unlabeled_marker)
    found = dask.compute(
        *[label_task(y, s, marker) for y, s in zip(blocks.y, blocks.starts, strict=True)]
    )
    labels = [block for block, _ in found if block.size]
    labels = np.concatenate(labels) if labels else np.empty(0)
    n_unlabeled = [count for _, count in found]
    if sum(n_unlabeled):
        if not estimator._base_family().is_density:
            raise ValueError(
                f"y has {sum(n_unlabeled)} unlabelled rows, and {type(estimator).__name__}'s "
                "scores are no likelihood, so EM cannot fit them; drop them, or pass "
                "unlabeled_marker=None if that label is a class."
            )
        semi_supervised.warn_if_marker_is_a_class(marker, labels, sum(n_unlabeled))
        return _em.fit(estimator, blocks, labels, n_unlabeled, dtype)
    classes = np.unique(check_class_list(labels))  # each block's distinct labels
    if classes.shape[0] < 2:
        raise ValueError(
            f"y has {classes.shape[0]} class ({classes.tolist()}); a classifier needs at "
            "least two classes."
        )
    semi_supervised.check_n_classes(estimator.n_classes, classes)
    result = run_pass(_blocks.labelled_stats, estimator, blocks, dtype, classes)
    class_stats, feature_stats = result.stats[0]
    if np.count_nonzero(class_stats.counts > 0) < 2:
        raise ValueError(
            "sample_weight leaves fewer than two classes with positive total weight; a "
            "classifier needs at least two classes."
        )
    estimator.classes_ = classes
    estimator.fitted_with_unlabeled_ = False
    estimator.n_iter_, estimator.converged_ = 1, True  # the closed-form fit: one pass
    estimator.log_likelihood_history_ = np.empty(0)
    with precision(dtype):
        value = joint.from_stats(
            estimator._base_family(),
            classes,
            class_stats,
            feature_stats,
            estimator._fit_settings(),
        )
    estimator._keep_value(value._replace(record=result.ranges), None, None)
    return estimator
