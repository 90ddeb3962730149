"""One pass over the row blocks: a task per block, then a tree reduction of the results."""

from __future__ import annotations

import uuid

import dask
from dask import delayed

from bayesgen.dask._blocks import BlockResult, merge_results
from bayesgen.dask._input import RowBlocks
from bayesgen.joint import FittedJoint

#: Results merged per task of the reduction tree.
SPLIT_EVERY = 2


def shipped(item):
    """An estimator or a fitted value as one graph key, sent to the workers once for all
    their tasks."""
    return delayed(item, name=f"bayesgen-shipped-{uuid.uuid4().hex}", traverse=False)


def run_pass(function, estimator, blocks: RowBlocks, dtype, *args, per_block=None) -> BlockResult:
    """``function(estimator, X_b, y_b, w_b, start_b, dtype, *args)`` on every block, merged.

    ``per_block``: keyword arguments with one value per block (a block's random start), or
    None. The
    merge is a tree (depth log2 of the number of blocks), so no single task receives every
    block's statistics at once; each merge is the family's own (Chan et al. for the
    Gaussian scatter, sums for the counts), exact up to rounding in any order.
    """
    estimator = shipped(estimator)
    # A fitted value (a tuple of arrays) as one key too, not a collection to traverse.
    args = tuple(shipped(arg) if isinstance(arg, FittedJoint) else arg for arg in args)
    weights = blocks.weights or [None] * len(blocks.X)
    task = delayed(function, pure=True)
    results = []
    for b, (X, y, w, start) in enumerate(
        zip(blocks.X, blocks.y, weights, blocks.starts, strict=True)
    ):
        extra = {name: values[b] for name, values in (per_block or {}).items()}
        results.append(task(estimator, X, y, w, start, dtype, *args, **extra))
    merge = delayed(merge_results, pure=True)
    while len(results) > 1:
        groups = [results[i : i + SPLIT_EVERY] for i in range(0, len(results), SPLIT_EVERY)]
        results = [_merge_group(merge, estimator, group, dtype) for group in groups]
    (result,) = dask.compute(results[0])
    return result


def _merge_group(merge, estimator, group, dtype):
    merged = group[0]
    for other in group[1:]:
        merged = merge(estimator, merged, other, dtype)
    return merged
