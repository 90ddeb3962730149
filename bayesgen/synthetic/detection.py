"""Can a classifier tell the synthetic rows from the real ones?

A detector (`bayesgen.synthetic.encoding.gradient_boosting`) is trained to separate the real
rows (label 0) from the synthetic ones (label 1) and scored by ROC AUC under stratified
5-fold cross-validation. 0.5 means it cannot tell them apart (ideal); 1 means every synthetic
row is recognisable. The AUC does not depend on the two tables' sizes.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from sklearn.model_selection import StratifiedKFold, cross_val_score

from bayesgen.synthetic.encoding import gradient_boosting, trees_threads
from bayesgen.synthetic.tables import Columns

FOLDS = 5


def detector_auc(real: pd.DataFrame, synthetic: pd.DataFrame, columns: Columns, random_state=None):
    """The detector's cross-validated ROC AUC.

    Parameters
    ----------
    real, synthetic : pandas.DataFrame
        The tables in the form `bayesgen.synthetic.tables.check_tables` returns.
    columns : Columns
        Their columns' kinds.
    random_state : int, numpy.random.RandomState or None
        Seeds the folds and the detector.

    Returns
    -------
    mean, std : float
        The mean and standard deviation of the AUC over the folds (at most 5, at least 2).
    """
    rows = pd.concat([real, synthetic], ignore_index=True)
    is_synthetic = np.r_[np.zeros(len(real), int), np.ones(len(synthetic), int)]
    folds = StratifiedKFold(
        min(FOLDS, len(real), len(synthetic)), shuffle=True, random_state=random_state
    )
    detector = gradient_boosting(columns.numeric, columns.categorical, random_state)
    with trees_threads(len(rows)):
        scores = cross_val_score(detector, rows, is_synthetic, scoring="roc_auc", cv=folds)
    return float(scores.mean()), float(scores.std())
