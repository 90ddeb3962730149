r"""Gaussian sufficient statistics in NumPy, a block of rows at a time.

The NumPy kernel of `bayesgen.families.gaussian.suff_stats` (means around a pilot
row, scatter around each class mean: two passes, never
$\sum xx^\top - N\bar x\bar x^\top$), for fitting from a NumPy array: NumPy reads it in
place, where handing it to JAX copies it, and the temporaries are a block of rows, never
$n \times K \times d$. Sums are accumulated in float64 and returned in ``X``'s dtype.

Labelled rows have one-hot responsibilities (one class per row, times its weight). They
take one pass: each block of a few thousand rows (small enough to stay in cache) is grouped
by class, each group is centred at its own mean and its scatter is one product, and the
groups are merged into the running statistics exactly (Chan, Golub and LeVeque's pairwise
update, $S = S_a + S_b + \frac{n_a n_b}{n_a + n_b}\delta\delta^\top$): $n d^2$
work in all, where soft responsibilities (EM) need every row for every class,
$K n d^2$. ``"tied"`` sums the per-class scatters. A row is labelled when its largest
responsibility equals their sum (BLAS's product with ones, as before blocks: so a row whose
other classes are below its rounding counts as labelled). Each block finds its rows'
classes and weights in its own responsibilities (`_labels_of`), in its thread, where they
were found in serial passes over all of them first; a block with a row in two classes
stops the ranges and sends the statistics to the soft kernel.

The products in the blocks are `numpy.dot`, not ``@``: NumPy's ``matmul`` keeps the GIL
for a result of 500 values or fewer however long BLAS takes (its threshold for letting go
of it), which a block's class sums ($K \times d$) are, so two ranges of blocks in threads
ran one after the other. GaussianNB's statistics of 1,000,000 x 50 rows and 5 classes, 2
cores: each half alone 0.09 s, both in two threads 0.18 s with ``@``; 0.08 s and 0.12 s
with `numpy.dot`.
"""

from __future__ import annotations

import threading

import numpy as np

from bayesgen._parallel import blas_on_one_thread_where, run_pieces, thread_count

#: Rows per block of the soft (EM) statistics: a block's centred copy stays in cache (on
#: 1,000,000 x 50 rows and 5 classes, blocks of 32,768 with BLAS's own threads took 2.4 s
#: for the full scatter, two ranges of these blocks in threads 0.53 s).
SOFT_BLOCK_ROWS = 4_096
#: Rows per block of the one-pass labelled statistics: a block and its grouped copy stay in
#: cache (measured fastest here among 2,048 to 32,768 for 50 features).
ONE_HOT_BLOCK_ROWS = 4_096
#: Fewest rows whose statistics are taken in ranges side by side in threads.
PARALLEL_ROWS = 4 * ONE_HOT_BLOCK_ROWS
#: Rows, evenly spread, whose classes are checked before the one-pass statistics start: an
#: E-step's responsibilities, or labelled rows followed by unlabelled ones, go to the soft
#: kernel without a wasted partial pass (a few soft rows the screen misses are found by the
#: blocks, which check every row).
SCREENED_ROWS = 4_096


def suff_stats(X: np.ndarray, responsibilities: np.ndarray, covariance_type: str):
    """Statistics of the rows of ``X`` weighted by ``responsibilities`` (NumPy arrays).

    Call `bayesgen.families.gaussian.suff_stats`, which picks this kernel for NumPy
    input.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        Complete rows.
    responsibilities : ndarray of shape (n_samples, n_classes)
    covariance_type : {"full", "tied", "diag", "spherical"}

    Returns
    -------
    counts, means, scatter : ndarray
        The fields of ``GaussianStats``, in ``X``'s dtype.
    """
    dtype = X.dtype
    R = np.asarray(responsibilities, dtype=np.float64)
    one_hot = None
    # Rows spread through R screen out an E-step's at once; the blocks check every row. On
    # one BLAS thread where blocks follow in threads (`_labels_of`).
    with blas_on_one_thread_where(R.shape[0] >= PARALLEL_ROWS):
        screened = _labels_of(R[:: max(1, R.shape[0] // SCREENED_ROWS)]) is not None
    if screened:
        if covariance_type in ("diag", "spherical"):
            one_hot = _in_row_ranges(
                lambda rows, stop: _one_hot_diagonal_stats(X[rows], R[rows], stop),
                X,
                2 * R.shape[1] * X.shape[1],
            )
        else:
            one_hot = _in_row_ranges(
                lambda rows, stop: _one_hot_stats(X[rows], R[rows], stop),
                X,
                R.shape[1] * X.shape[1] * (X.shape[1] + 1),
            )
    if one_hot is None:  # soft responsibilities (EM)
        counts, means, scatter = _soft_stats(X, R, covariance_type)
    else:
        counts, means, scatter = one_hot
    if covariance_type == "tied":
        # Summed exactly as pooled_scatter does, so that RDA's pooled covariance from "full"
        # statistics equals LDA's bit for bit.
        scatter = pooled_scatter(scatter)
    return counts.astype(dtype), means.astype(dtype), scatter.astype(dtype)


def _merge(running, block):
    """Chan et al.'s exact merge of (counts, means, scatter) of disjoint rows, per class.

    ``scatter`` is per-feature (diagonal, ``(K, d)``) or a matrix (``(K, d, d)``).
    """
    counts, means, scatter = running
    block_counts, block_means, block_scatter = block
    merged = counts + block_counts
    safe = np.where(merged > 0, merged, 1.0)
    delta = block_means - means
    factor = counts * block_counts / safe
    if scatter.ndim == 2:
        correction = np.square(delta) * factor[:, None]
    else:
        correction = delta[:, :, None] * delta[:, None, :] * factor[:, None, None]
    return (
        merged,
        means + delta * (block_counts / safe)[:, None],
        scatter + block_scatter + correction,
    )


def _row_ranges(n_rows: int, block_rows: int, partial_values: int, n_values: int) -> list[slice]:
    """One range of whole blocks of ``block_rows`` per thread: one range for few rows, and
    no more ranges than keep their partial results (``partial_values`` values each) within
    the ``n_values`` of the rows themselves (a scatter per class of many features)."""
    n_blocks = -(-n_rows // block_rows)
    n_ranges = 1
    if n_rows >= PARALLEL_ROWS:
        n_ranges = max(1, min(thread_count(), n_blocks, n_values // max(1, partial_values)))
    cuts = [block_rows * (n_blocks * i // n_ranges) for i in range(n_ranges)]
    return [slice(a, b) for a, b in zip(cuts, [*cuts[1:], n_rows], strict=True)]


def _in_row_ranges(statistics, X, partial_values: int):
    """``statistics(rows, stop)`` of one range of whole blocks per thread, side by side,
    merged exactly (`_merge`); None when a range's statistics are None (a row in two
    classes). ``stop`` is a `threading.Event` the ranges share: the range that finds such a
    row sets it, and the others stop at their next block.

    The blocks are those of one pass over all rows, so only the order of the merges
    changes. In threads, BLAS runs on one thread in each (`bayesgen._parallel`): left to
    its own threads, the small products of every block woke them per call, and GaussianNB's
    statistics took 0.35 s where two ranges take about half (1,000,000 x 50, 5 classes,
    2 cores).
    """
    ranges = _row_ranges(X.shape[0], ONE_HOT_BLOCK_ROWS, partial_values, X.size)
    stop = threading.Event()
    parts = run_pieces(lambda rows: statistics(rows, stop), ranges, in_threads=len(ranges) > 1)
    if any(part is None for part in parts):
        return None
    merged = parts[0]
    for part in parts[1:]:
        merged = _merge(merged, part)
    return merged


def _summed_over_ranges(partial_sum, X, partial_values: int):
    """``partial_sum(rows)`` (an array of ``partial_values`` values) of one range of whole
    blocks of `SOFT_BLOCK_ROWS` per thread, side by side, added up."""
    ranges = _row_ranges(X.shape[0], SOFT_BLOCK_ROWS, partial_values, X.size)
    parts = run_pieces(partial_sum, ranges, in_threads=len(ranges) > 1)
    total = parts[0]
    for part in parts[1:]:
        total += part
    return total


def _labels_of(block_R: np.ndarray):
    """``(labels, weights)``: each row's class and weight in one-hot ``block_R``, or None
    when some row has weight in two classes (its largest entry is not its sum).

    The row sums are BLAS's product with ones, as the check over all rows was: NumPy's
    ``sum(axis=1)`` adds a row in another order and judged otherwise 7-24 % of softmax rows
    of 4-13 classes whose largest logit leads by about 38. The product gives the same bits
    in blocks as over all rows. Call it on one BLAS thread where blocks follow in threads: a
    product on BLAS's threads just before them leaves its pool spinning beside them
    (GaussianDA's full statistics of 1,000,000 x 50 rows took 0.20-0.21 s after such a
    product over all rows, 0.15-0.19 s without).
    """
    labels = np.argmax(block_R, axis=1)
    weights = block_R[np.arange(block_R.shape[0]), labels]
    if not np.array_equal(weights, np.dot(block_R, np.ones(block_R.shape[1]))):
        return None
    return labels, weights


def _one_hot_diagonal_stats(X, R, stop: threading.Event):
    """Counts, means and per-feature scatter of labelled rows in one pass, or None when a
    row of ``R`` is in two classes (setting ``stop``) or ``stop`` is set.

    Per block, the class means are one product with the block's one-hot rows and the
    squared deviations another; blocks are merged with `_merge`.
    """
    n_classes, n_features = R.shape[1], X.shape[1]
    running = (
        np.zeros(n_classes),
        np.zeros((n_classes, n_features)),
        np.zeros((n_classes, n_features)),
    )
    for start in range(0, X.shape[0], ONE_HOT_BLOCK_ROWS):
        rows = slice(start, start + ONE_HOT_BLOCK_ROWS)
        block_R = R[rows]
        labelled = None if stop.is_set() else _labels_of(block_R)
        if labelled is None:
            stop.set()
            return None
        labels, _ = labelled
        # Summed from R, not from the labels' weights: entries below a row's rounding count
        # in the class sums below, so they count here too.
        block_counts = block_R.sum(axis=0)
        safe = np.where(block_counts > 0, block_counts, 1.0)[:, None]
        block_means = np.dot(block_R.T, X[rows]) / safe
        deviations = X[rows] - block_means[labels]
        np.square(deviations, out=deviations)
        running = _merge(running, (block_counts, block_means, np.dot(block_R.T, deviations)))
    return running


def _one_hot_stats(X, R, stop: threading.Event):
    """Counts, means and full per-class scatter of labelled rows in one pass, or None when a
    row of ``R`` is in two classes (setting ``stop``) or ``stop`` is set. Where every row
    has weight 1, each group's scatter is one symmetric product of its centred rows.

    Blocks small enough to stay in cache are split by class (`numpy.take`: a third faster
    than indexing with the members); each group is centred in place at its own mean and its
    scatter is one product.
    """
    n_classes, n_features = R.shape[1], X.shape[1]
    counts = np.zeros(n_classes)
    means = np.zeros((n_classes, n_features))
    scatter = np.zeros((n_classes, n_features, n_features))
    # Once every row is found labelled (weights are not negative), weight 1 in every row is
    # an entry 1.0 in each. Judged over this range's rows, as the ranges always were.
    unit = np.count_nonzero(R == 1.0) == R.shape[0]
    for start in range(0, X.shape[0], ONE_HOT_BLOCK_ROWS):
        rows = slice(start, start + ONE_HOT_BLOCK_ROWS)
        labelled = None if stop.is_set() else _labels_of(R[rows])
        if labelled is None:
            stop.set()
            return None
        block_labels, block_weights = labelled
        block = X[rows]
        for k in range(n_classes):
            members = np.flatnonzero(block_labels == k)
            if members.size == 0:
                continue
            group = np.take(block, members, axis=0).astype(np.float64, copy=False)
            group_weights = block_weights[members]
            total = members.size if unit else float(np.sum(group_weights))
            if total == 0:
                continue  # rows of weight zero add nothing
            mean = (group.sum(axis=0) if unit else np.dot(group_weights, group)) / total
            group -= mean
            own = np.dot(group.T, group if unit else group * group_weights[:, None])
            merged = counts[k] + total
            delta = mean - means[k]
            scatter[k] += own + np.outer(delta, delta) * (counts[k] * total / merged)
            means[k] += delta * (total / merged)
            counts[k] = merged
    return counts, means, scatter


def _soft_stats(X, R, covariance_type):
    """Counts, means (around a pilot row) and scatter for soft responsibilities: two passes,
    each over ranges of rows side by side in threads."""
    counts = R.sum(axis=0)
    pilot = X[0].astype(np.float64)

    def sums_of(rows: slice) -> np.ndarray:
        sums = np.zeros((R.shape[1], X.shape[1]))
        for block in _blocks_of(rows):
            sums += np.dot(R[block].T, X[block] - pilot)
        return sums

    sums = _summed_over_ranges(sums_of, X, R.shape[1] * X.shape[1])
    safe = np.where(counts > 0, counts, 1.0)[:, None]
    means = np.where(counts[:, None] > 0, pilot + sums / safe, 0.0)
    return counts, means, _soft_scatter(X, R, means, covariance_type)


def _blocks_of(rows: slice):
    """Blocks of `SOFT_BLOCK_ROWS` rows of the range ``rows``."""
    for start in range(rows.start, rows.stop, SOFT_BLOCK_ROWS):
        yield slice(start, min(start + SOFT_BLOCK_ROWS, rows.stop))


def _soft_scatter(X, R, means, covariance_type):
    n_classes, n_features = means.shape
    diagonal = covariance_type in ("diag", "spherical")
    shape = (n_classes, n_features) if diagonal else (n_classes, n_features, n_features)

    def scatter_of(rows: slice) -> np.ndarray:
        scatter = np.zeros(shape)
        for block in _blocks_of(rows):
            for k in range(n_classes):
                centred = X[block] - means[k]
                if diagonal:
                    scatter[k] += np.dot(R[block, k], np.square(centred, out=centred))
                else:
                    scatter[k] += np.dot((centred * R[block, k, None]).T, centred)
        return scatter

    return _summed_over_ranges(scatter_of, X, int(np.prod(shape)))


def pooled_scatter(class_scatter) -> np.ndarray:
    """The within-class scatter summed over classes, ``(K, d, d) -> (d, d)``."""
    return np.sum(np.asarray(class_scatter), axis=0)
