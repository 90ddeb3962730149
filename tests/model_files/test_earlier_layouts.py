"""The one translator of earlier model-file layouts (`bayesgen.model_files.earlier_layouts`):
today's state passes through it unchanged, and no estimator class knows an earlier layout.
(`test_legacy_model_files.py` reads files the earlier layouts wrote.)"""

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import load_iris

from bayesgen import (
    LDA,
    KernelDensityDA,
    LatentClassNB,
    MixedNB,
    MixtureDA,
    MultinomialNB,
    registry,
)
from bayesgen.model_files import earlier_layouts

X, y = load_iris(return_X_y=True)
FRAME = pd.DataFrame({"a": X[:, 0], "b": (X[:, 1] > 3).astype(int), "c": X[:, 2]})


@pytest.mark.parametrize(
    "model, rows",
    [
        (LDA(), X),
        (MixtureDA(n_components=2, random_state=0), X),
        (KernelDensityDA(), X),
        (MultinomialNB(), np.rint(X).astype(int)),
        (MixedNB(), FRAME),
        (LatentClassNB(n_components=2, random_state=0), FRAME),
    ],
    ids=lambda case: type(case).__name__ if hasattr(case, "fit") else "",
)
def test_todays_state_passes_through(model, rows):
    model.fit(rows, y)
    state = dict(vars(model))
    upgraded = earlier_layouts.upgraded(model, state)
    assert upgraded is not state
    assert upgraded.keys() == state.keys()
    assert all(upgraded[key] is state[key] for key in state)


def test_no_estimator_class_translates_files():
    """The earlier layouts live in the translator only."""
    for cls in registry.estimators().values():
        for name in ("_upgrade_saved_state", "_saved_value"):
            assert not hasattr(cls, name), (cls.__name__, name)
