"""EM over unlabelled rows with every E- and M-step computed on the workers.

The same iteration as ``bayesgen.estimators.semi_supervised``, one pass over the blocks per
iteration: each block scores its rows under the current parameters (shipped to the
workers), which gives its share of the objective of those parameters and its soft
responsibilities, and returns the statistics of the next M-step. The driver adds the
shares and the log prior, merges the statistics and installs them.
"""

from __future__ import annotations

import copy
import warnings

import numpy as np
from sklearn.utils import check_random_state

from bayesgen._precision import precision
from bayesgen.dask import _blocks, _family
from bayesgen.dask._input import RowBlocks
from bayesgen.dask._passes import run_pass
from bayesgen.inference import em, semi_supervised
from bayesgen.validation import check_labels


def em_classes(estimator, labels: np.ndarray) -> np.ndarray:
    """The classes of a semi-supervised fit, as ``semi_supervised.fit`` chooses them."""
    if labels.size:
        classes = np.unique(check_labels(np.asarray(labels, dtype=object).tolist()))
        semi_supervised.check_n_classes(estimator, classes)
    else:
        if estimator.n_classes is None:
            raise ValueError(
                "y has no labelled rows: pass n_classes to cluster the rows into that many "
                "classes, or label some rows."
            )
        warnings.warn(
            f"y has no labelled rows: fitting is clustering into n_classes="
            f"{estimator.n_classes} classes 0..{estimator.n_classes - 1}, which are unnamed "
            "and arbitrary in order.",
            UserWarning,
            stacklevel=4,
        )
        classes = np.arange(estimator.n_classes)
    if classes.shape[0] < 2:
        raise ValueError(
            f"The labelled rows have {classes.shape[0]} class ({classes.tolist()}); a "
            "classifier needs at least two (or no labels and n_classes)."
        )
    return classes


def fit(estimator, blocks: RowBlocks, labels: np.ndarray, n_unlabeled: list, dtype):
    """Fit ``estimator`` by EM over the blocks; ``n_unlabeled`` counts each block's -1 rows."""
    semi_supervised._check_em_parameters(estimator)
    classes = em_classes(estimator, labels)
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
        if best is None or history[-1] > best[0]:
            best = (history[-1], copy.deepcopy(estimator.__dict__), history, converged)
    return semi_supervised.keep_best_run(estimator, best)


def _run(estimator, blocks, classes, dtype, random):
    """One EM run from the labelled rows (or a random start): (history, converged)."""
    weight = estimator.unlabeled_weight
    spread = _family.starts_with_frozen_prior(estimator)
    per_block = None if random is None else {"random": random}
    start = run_pass(
        _blocks.em_start, estimator, blocks, dtype, classes, weight, spread, per_block=per_block
    )
    if spread:
        _family.install(estimator, *start.stats[1], dtype)
        frozen = (estimator.ridge_, estimator.prior_)
        _family.install(estimator, *start.stats[0], dtype, frozen_prior=frozen)
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
