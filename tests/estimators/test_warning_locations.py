"""Every warning names the user's call (`bayesgen.validation.caller_stacklevel`), not a line
inside the package, however deep the fit or the use that raises it."""

import warnings

import numpy as np
import pytest
from sklearn.datasets import load_iris

import bayesgen
from bayesgen.families.component_mixture import MixtureFamily
from bayesgen.families.poisson import PoissonFamily

X, Y = load_iris(return_X_y=True)
GAPPY = np.where(np.random.default_rng(0).random(X.shape) < 0.2, np.nan, X)
FEW = np.r_[0:3, 50:53, 100:103]  # three rows per class, four features
COUNTS = np.array([[3, 0], [2, 0], [0, 3], [0, 2]])
IMPOSSIBLE = bayesgen.MultinomialNB(estimate="mle").fit(COUNTS, [0, 0, 1, 1])
SEMI = np.where(np.arange(150) % 3 == 0, -1, Y)

CALLS = {
    "predict, a row no class explains": lambda: IMPOSSIBLE.predict([[1, 1]]),
    "predict_proba, a row no class explains": lambda: IMPOSSIBLE.predict_proba([[1, 1]]),
    "MixtureDA's EM": lambda: bayesgen.MixtureDA(max_iter=2, random_state=0).fit(X, Y),
    "MixtureDA's EM over unlabelled rows": lambda: bayesgen.MixtureDA(
        max_iter=2, random_state=0
    ).fit(X, SEMI),
    "a mixture family's EM": lambda: bayesgen.FamilyClassifier(
        family=MixtureFamily(PoissonFamily(), 2), max_iter=2, random_state=0
    ).fit(np.rint(X), Y),
    "fit: EM over missing entries": lambda: bayesgen.QDA(max_iter=2).fit(GAPPY, Y),
    "partial_fit: EM over missing entries": lambda: bayesgen.QDA(max_iter=2).partial_fit(
        GAPPY, Y, classes=[0, 1, 2]
    ),
    "fit: fewer rows than features": lambda: bayesgen.QDA().fit(X[FEW], Y[FEW]),
    "partial_fit: fewer rows than features": lambda: bayesgen.QDA().partial_fit(
        X[FEW], Y[FEW], classes=[0, 1, 2]
    ),
    "adapt_class_prior": lambda: bayesgen.LDA().fit(X, Y).adapt_class_prior(X[:60], max_iter=1),
}


@pytest.mark.parametrize("call", list(CALLS.values()), ids=list(CALLS))
def test_the_warning_names_the_callers_line(call):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        call()
    assert caught, "the call warns"
    assert {warning.filename for warning in caught} == {__file__}


def test_a_gappy_row_whose_observed_words_a_class_cannot_emit_is_impossible_there():
    """Class 1 puts all its mass on word 1: a row with word 0 observed and word 1 missing is
    impossible under it (log p = -inf, not NaN), and class 0 explains it."""
    row = np.array([[1.0, np.nan]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no NumPy warning of an inf - inf either
        joint = IMPOSSIBLE.predict_joint_log_proba(row)
        np.testing.assert_array_equal(joint, [[np.log(0.5), -np.inf]])
        np.testing.assert_array_equal(IMPOSSIBLE.predict_proba(row), [[1.0, 0.0]])
        np.testing.assert_array_equal(IMPOSSIBLE.score_samples(row), [np.log(0.5)])
        np.testing.assert_array_equal(IMPOSSIBLE.impute(row), [[1.0, 0.0]])


MORE_CALLS = {
    "QDA: -1 looks like a class": lambda: bayesgen.QDA().fit(X, np.where(Y == 0, -1, Y)),
    "MixedNB: -1 looks like a class": lambda: bayesgen.MixedNB().fit(X, np.where(Y == 0, -1, Y)),
    "score, through scikit-learn's score": lambda: IMPOSSIBLE.score(np.array([[1, 1]]), [0]),
}


@pytest.mark.parametrize("call", list(MORE_CALLS.values()), ids=list(MORE_CALLS))
def test_the_warning_names_the_callers_line_through_any_path(call):
    test_the_warning_names_the_callers_line(call)
