"""The fitted joint as a value, and the pure functions that make, update and score it.

The layer between the feature families (pure math per family) and inference: a
`FittedJoint` holds everything a fit learned, and every function takes the family
(hyperparameters only) beside the value, never an estimator.
"""

from bayesgen.joint.fitting import (
    RESPONSIBILITY_ENTRIES,
    batch_stats,
    family_of,
    fit,
    from_stats,
    merge,
    merge_batch_stats,
    responsibilities,
    row_chunks,
    rows_to_learn_from,
    sparse_responsibilities,
    update,
)
from bayesgen.joint.scoring import (
    log_class_probabilities,
    log_joint,
    log_likelihood,
    score_blocks,
    with_params,
)
from bayesgen.joint.value import (
    ClassPriorRule,
    FitSettings,
    FittedJoint,
    KeptRows,
    class_probabilities,
)

__all__ = [
    "RESPONSIBILITY_ENTRIES",
    "ClassPriorRule",
    "FitSettings",
    "FittedJoint",
    "KeptRows",
    "batch_stats",
    "class_probabilities",
    "family_of",
    "fit",
    "from_stats",
    "log_class_probabilities",
    "log_joint",
    "log_likelihood",
    "merge",
    "merge_batch_stats",
    "responsibilities",
    "row_chunks",
    "rows_to_learn_from",
    "score_blocks",
    "sparse_responsibilities",
    "update",
    "with_params",
]
