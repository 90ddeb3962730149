"""EM restarts over unlabelled rows keep the best start's fitted value: every attribute a
fit sets is the value ``joint_``, an attribute declared beside it, or a fact of the input
set once before the restarts; so nothing of a worse start can be left behind."""

import warnings

import numpy as np
import pytest
from sklearn.datasets import load_iris

import bayesgen as bg

# Set once from the input, before the first start, the same for every start.
INPUT_FACTS = {
    "classes_",
    "n_features_in_",
    "feature_names_in_",
    "_training_columns",
}
# Set by the restart loop itself from the kept run.
RUN_RECORD = {"n_iter_", "converged_", "log_likelihood_history_", "fitted_with_unlabeled_"}


def _data(gappy: bool):
    X, y = load_iris(return_X_y=True)
    y = y.copy()
    y[np.random.default_rng(0).random(y.size) < 0.5] = -1
    if gappy:
        X = X.copy()
        X[np.random.default_rng(1).random(X.shape) < 0.1] = np.nan
    return X, y


MODELS = [
    (bg.LDA(n_init=3, random_state=0), True),
    (bg.QDA(n_init=3, random_state=0), True),
    (bg.GaussianNB(n_init=3, random_state=0), True),
    (bg.GaussianDA(n_init=3, shrinkage="ledoit-wolf", random_state=0), False),
    (bg.MixtureDA(n_init=3, max_iter=20, random_state=0), True),
    (bg.KernelDensityDA(n_init=3, random_state=0), False),
    (bg.PoissonNB(n_init=3, random_state=0), True),
    (bg.MixedNB(n_init=3, random_state=0), True),
    (bg.LatentClassNB(n_init=3, random_state=0), True),
]


@pytest.mark.parametrize(("model", "gappy"), MODELS, ids=lambda m: type(m).__name__)
def test_every_fitted_attribute_is_kept_with_the_value(model, gappy):
    X, y = _data(gappy)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model.fit(X, y)
    fitted = set(vars(model)) - set(model.get_params()) - INPUT_FACTS - RUN_RECORD
    fitted.discard("_fitted_on_frame")  # MixedNB: whether the input was a DataFrame
    declared = {"joint_", *type(model)._state_beside_value} & set(vars(model))
    assert fitted == declared, sorted(fitted ^ declared)


def test_the_best_start_is_kept_whole():
    """The kept state is the best start's: refitting from it alone gives its objective."""
    X, y = _data(gappy=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        several = bg.QDA(n_init=4, random_state=3).fit(X, y)
    best = several.log_likelihood_history_[-1]
    # The objective of the kept parameters, computed afresh from the model's own scores.
    labelled = y >= 0
    joint = several.predict_joint_log_proba(X)
    index = np.searchsorted(several.classes_, y[labelled])
    objective = joint[labelled, index].sum() + np.logaddexp.reduce(joint[~labelled], axis=1).sum()
    objective += several._em_log_prior()
    np.testing.assert_allclose(objective, best, rtol=1e-8)
