"""Machine-learning utility: train on synthetic, test on real (TSTR) against train on real.

The same fixed classifier (`bayesgen.synthetic.encoding.gradient_boosting`) is trained once
on the real training rows (TRTR) and once on the synthetic rows (TSTR), and both predict
the target of the same real test rows. TSTR close to TRTR means a model built from the
synthetic table serves as well as one built from the real table.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import pandas as pd
from sklearn.metrics import accuracy_score, log_loss

from bayesgen.synthetic.encoding import gradient_boosting, trees_threads
from bayesgen.synthetic.tables import Columns


class Utility(NamedTuple):
    """Test accuracy and log loss of the classifier trained on each table.

    Attributes
    ----------
    real_accuracy, real_log_loss : float
        Trained on the real training rows (TRTR).
    synthetic_accuracy, synthetic_log_loss : float
        Trained on the synthetic rows (TSTR).
    n_test : int
        Real test rows with a target.
    """

    real_accuracy: float
    real_log_loss: float
    synthetic_accuracy: float
    synthetic_log_loss: float
    n_test: int


def _scores(train: pd.DataFrame, test: pd.DataFrame, columns: Columns, labels, name, seed):
    target = columns.target
    train = train[train[target].notna()]
    if train[target].nunique() < 2:
        raise ValueError(
            f"the target column {target!r} of the {name} table has fewer than 2 classes; a "
            "classifier trained on it cannot be compared."
        )
    features = [column for column in columns.kinds if column != target]
    numeric = [column for column in columns.numeric if column in features]
    categorical = [column for column in columns.categorical if column in features]
    with trees_threads(len(train) + len(test)):
        model = gradient_boosting(numeric, categorical, seed).fit(train[features], train[target])
        found = model.predict_proba(test[features])
        predicted = model.predict(test[features])
    probabilities = np.zeros((len(test), len(labels)))
    # A class the training table lacks gets probability 0: its rows cost the clipped log loss.
    probabilities[:, np.searchsorted(labels, model.classes_)] = found
    truth = test[target].to_numpy()
    accuracy = accuracy_score(truth, predicted)
    return float(accuracy), float(log_loss(truth, probabilities, labels=labels))


def utility(real_train, synthetic, test, columns: Columns, random_state=None) -> Utility:
    """TRTR and TSTR accuracy and log loss on the real test rows.

    Parameters
    ----------
    real_train, synthetic, test : pandas.DataFrame
        Real training rows, synthetic rows and real test rows, in the form
        `bayesgen.synthetic.tables.check_tables` returns.
    columns : Columns
        The columns' kinds and the target (not None).
    random_state : int, numpy.random.RandomState or None
        Seeds the classifiers.

    Returns
    -------
    Utility

    Raises
    ------
    ValueError
        If a training table's target has fewer than 2 classes, or no test row has one.
    """
    test = test[test[columns.target].notna()]
    if len(test) == 0:
        raise ValueError(f"no real test row has a value in the target {columns.target!r}.")
    labels = np.array(
        sorted(
            set(real_train[columns.target].dropna())
            | set(synthetic[columns.target].dropna())
            | set(test[columns.target])
        )
    )
    real = _scores(real_train, test, columns, labels, "real training", random_state)
    fake = _scores(synthetic, test, columns, labels, "synthetic", random_state)
    return Utility(*real, *fake, len(test))
