"""Moved to :mod:`bayesgen.inference.semi_supervised`.

These names stay importable from here for the modules that still import them from
``bayesgen.estimators`` (``count_nb``, ``uncertainty``, ``rda_cv``).
"""

from bayesgen.inference.semi_supervised import (
    EM_ITERATION_DOC,
    EM_PARAMETERS_DOC,
    check_n_classes,
    unlabeled_rows,
)

__all__ = ["EM_ITERATION_DOC", "EM_PARAMETERS_DOC", "check_n_classes", "unlabeled_rows"]
