"""EM over unlabelled rows with every E- and M-step computed on the workers.

The same iteration as `bayesgen.inference.unlabelled_em`, one pass over the blocks per
iteration, over values: each block scores its rows under the current fitted value (shipped
to the workers), which gives its share of the objective of that value and its soft
responsibilities, and returns the statistics of the next M-step. The driver adds the
shares and the log prior, merges the statistics and makes the next value from them
(`bayesgen.joint.from_stats`). Of the restarts the value with the highest final objective
goes into the estimator.
"""

from __future__ import annotations

import numpy as np
from sklearn.utils import check_random_state

from bayesgen import joint
from bayesgen._precision import precision
from bayesgen.dask import _blocks, _family
from bayesgen.dask._input import RowBlocks
from bayesgen.dask._passes import run_pass
from bayesgen.estimators import semi_supervised_fit
from bayesgen.inference import em, fit_rows, semi_supervised


def fit(estimator, blocks: RowBlocks, labels: np.ndarray, n_unlabeled: list, dtype):
    """Fit ``estimator`` by EM over the blocks; ``n_unlabeled`` counts each block's -1 rows."""
    settings = semi_supervised_fit.em_settings(estimator)
    classes = semi_supervised.em_classes(labels, settings.n_classes, settings.marker)
    estimator.classes_ = classes
    rng = check_random_state(estimator.random_state)
    best = None
    for start in range(estimator.n_init):
        random = None
        if start > 0 or not labels.size:
            # Block by block in row order: the same stream as one draw for all rows.
            ones = np.ones(classes.shape[0])
            random = [rng.dirichlet(ones, size=count) for count in n_unlabeled]
        run = _run(estimator, blocks, classes, dtype, random)
        if best is None or run[1][-1] > best[1][-1]:
            best = run
    value, history, converged = best
    estimator._keep_value(value, None, None)
    return semi_supervised_fit.record_run(estimator, history, converged)


def _run(estimator, blocks, classes, dtype, random):
    """One EM run from the labelled rows (or a random start): (value, history, converged),
    the value with the record of the blocks' columns."""
    weight = estimator.unlabeled_weight
    spread = _family.starts_with_frozen_prior(estimator)
    per_block = None if random is None else {"random": random}
    start = run_pass(
        _blocks.em_start, estimator, blocks, dtype, classes, weight, spread, per_block=per_block
    )
    family, settings = estimator._base_family(), estimator._fit_settings()

    def value_of(stats, frozen=None):
        class_stats, feature_stats = stats
        with precision(dtype):
            return joint.from_stats(
                family, classes, class_stats, feature_stats, settings, frozen=frozen
            )

    def scored(value):
        """The pass over the blocks under ``value``, and its objective with the log prior."""
        following = run_pass(_blocks.em_step, estimator, blocks, dtype, classes, weight, value)
        with precision(dtype):
            learned = joint.family_of(family, value)
            log_prior = fit_rows.objective_log_prior(learned, value, settings)
        return following, following.objective + log_prior

    frozen = None
    if spread:  # the prior and ridge resolved once from EM's row totals, as in memory
        resolved = value_of(start.stats[1])
        ridge = joint.family_of(family, resolved).ridge(resolved.feature_stats)
        frozen = (np.asarray(ridge), resolved.feature_prior)
    value = value_of(start.stats[0], frozen)
    last = [value]

    def step(previous):
        last[0] = value_of(previous.stats[0])
        return scored(last[0])

    first, _ = scored(value)
    state = em.run(first, step, tol=estimator.tol, max_iter=estimator.max_iter)
    return last[0]._replace(record=start.ranges), state.history, state.converged
