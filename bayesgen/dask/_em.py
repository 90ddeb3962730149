"""EM over unlabelled rows with every E- and M-step computed on the workers.

The same iteration as `bayesgen.estimators.semi_supervised_fit`, one pass over the blocks per
iteration: each block scores its rows under the current parameters (shipped to the
workers), which gives its share of the objective of those parameters and its soft
responsibilities, and returns the statistics of the next M-step. The driver adds the
shares and the log prior, merges the statistics and installs them. Of the restarts the
value with the highest final objective is kept.
"""

from __future__ import annotations

import numpy as np
from sklearn.utils import check_random_state

from bayesgen._precision import precision
from bayesgen.dask import _blocks, _family
from bayesgen.dask._input import RowBlocks
from bayesgen.dask._passes import run_pass
from bayesgen.estimators import semi_supervised_fit
from bayesgen.inference import em, semi_supervised


def fit(estimator, blocks: RowBlocks, labels: np.ndarray, n_unlabeled: list, dtype):
    """Fit ``estimator`` by EM over the blocks; ``n_unlabeled`` counts each block's -1 rows."""
    settings = semi_supervised_fit.em_settings(estimator)
    classes = semi_supervised.em_classes(labels, settings.n_classes, settings.marker, stacklevel=4)
    estimator.classes_ = classes
    rng = check_random_state(estimator.random_state)
    best = None
    for start in range(estimator.n_init):
        random = None
        if start > 0 or not labels.size:
            # Block by block in row order: the same stream as one draw for all rows.
            ones = np.ones(classes.shape[0])
            random = [rng.dirichlet(ones, size=count) for count in n_unlabeled]
        history, converged = _run(estimator, blocks, classes, dtype, random)
        if best is None or history[-1] > best[1][-1]:
            best = (estimator.joint_, history, converged)
    value, history, converged = best
    estimator._keep_value(value, None, None)
    return semi_supervised_fit.record_run(estimator, history, converged)


def _run(estimator, blocks, classes, dtype, random):
    """One EM run from the labelled rows (or a random start): (history, converged)."""
    weight = estimator.unlabeled_weight
    spread = _family.starts_with_frozen_prior(estimator)
    per_block = None if random is None else {"random": random}
    start = run_pass(
        _blocks.em_start, estimator, blocks, dtype, classes, weight, spread, per_block=per_block
    )
    estimator._record_training_range(start.ranges)
    if spread:
        _family.install(estimator, *start.stats[1], dtype)
        frozen = (estimator.ridge_, estimator.prior_)
        _family.install(estimator, *start.stats[0], dtype, frozen=frozen)
    else:
        _family.install(estimator, *start.stats[0], dtype)

    def step(previous):
        _family.install(estimator, *previous.stats[0], dtype)
        following = run_pass(_blocks.em_step, estimator, blocks, dtype, classes, weight)
        with precision(dtype):
            log_prior = estimator._em_log_prior()
        return following, following.objective + log_prior

    first = run_pass(_blocks.em_step, estimator, blocks, dtype, classes, weight)
    state = em.run(first, step, tol=estimator.tol, max_iter=estimator.max_iter)
    return state.history, state.converged
