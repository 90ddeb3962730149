r"""The fitted joint under posterior draws of its parameters.

Draws of the family's parameter sites, each shaped (n_draws, n_classes, ...), are scored
side by side: the family lays them out as one model over ``n_draws * n_classes`` classes
(``family.side_by_side``), so one ``log_likelihood`` call scores a whole chunk of draws.
"""

from __future__ import annotations

import numpy as np

from bayesgen._precision import precision
from bayesgen.joint import FittedJoint, family_of, log_likelihood

#: Draws are scored in chunks of about this many (row, class) values.
CHUNK_ENTRIES = 2**22


def log_joint_draws(family, joint: FittedJoint, X, draws: dict, dtype):
    """Yield $\\log p(x, k \\mid \\theta_s)$ for chunks of draws.

    Parameters
    ----------
    family : FeatureFamily
    joint : FittedJoint
        The fit the draws are of (its class probabilities stand in for undrawn ones).
    X : array-like of shape (n_samples, n_features)
        Rows as the family reads them (``family.check_columns``).
    draws : dict
        The family's sites, each (n_draws, ...), and optionally ``"class_prior"``
        (n_draws, n_classes).
    dtype : numpy dtype
        The computation's precision.

    Yields
    ------
    log_joint : ndarray of shape (chunk, n_samples, n_classes)
    log_class_prior : ndarray of shape (chunk, 1, n_classes) or (1, 1, n_classes)
    """
    family = family_of(family, joint)
    n_draws = next(iter(draws.values())).shape[0]
    n_rows, n_classes = X.shape[0], len(joint.classes)
    chunk = max(1, min(n_draws, CHUNK_ENTRIES // max(1, n_rows * n_classes)))
    drawn_prior = "class_prior" in draws
    with np.errstate(divide="ignore"):  # a class probability may be 0 (or underflow)
        if drawn_prior:
            log_prior = np.log(draws["class_prior"])[:, None, :]
        else:
            log_prior = np.log(joint.class_probabilities)[None, None, :]
    with precision(dtype):
        for start in range(0, n_draws, chunk):
            stop = min(start + chunk, n_draws)
            sites = {name: value[start:stop] for name, value in draws.items()}
            sites.pop("class_prior", None)
            wide_family, params = family.side_by_side(sites)
            wide = np.asarray(log_likelihood(wide_family, params, X, dtype))
            scores = wide.reshape(n_rows, stop - start, n_classes).transpose(1, 0, 2)
            chunk_prior = (log_prior[start:stop] if drawn_prior else log_prior).astype(scores.dtype)
            yield scores + chunk_prior, chunk_prior
