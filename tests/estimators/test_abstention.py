"""predict(X, reject=c): Chow's rule and the least-expected-cost decision with an abstain
action, checked against predict_proba and a brute-force loop over actions; held-out real
data for what abstaining buys; the abstain label and bad input."""

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import load_breast_cancer
from sklearn.model_selection import train_test_split

import bayesgen as bg
from bayesgen.inference.semi_supervised import unlabeled_rows

RNG = np.random.default_rng(7)
N_ROWS = 120
LABELS = RNG.integers(0, 3, N_ROWS)
# Overlapping classes, so that some rows are uncertain.
GAUSSIAN = RNG.normal(LABELS[:, None] * np.array([0.8, -0.5, 0.3]), 1.0, (N_ROWS, 3))
BINARY = (RNG.random((N_ROWS, 6)) < np.array([0.3, 0.5, 0.7])[LABELS][:, None]).astype(float)
COUNTS = RNG.poisson(1.0 + LABELS[:, None] * np.array([1, 0, 1, 0]), (N_ROWS, 4)).astype(float)
CATEGORIES = np.array(["a", "b", "c", "d"], dtype=object)[
    (LABELS[:, None] + RNG.integers(0, 3, (N_ROWS, 3))) % 4
]
MIXED = pd.DataFrame(
    {"size": GAUSSIAN[:, 0], "count": COUNTS[:, 0].astype(int), "colour": CATEGORIES[:, 0]}
)

MODELS = {
    "QDA": (bg.QDA, GAUSSIAN),
    "LDA": (bg.LDA, GAUSSIAN),
    "GaussianNB": (bg.GaussianNB, GAUSSIAN),
    "BernoulliNB": (bg.BernoulliNB, BINARY),
    "MultinomialNB": (bg.MultinomialNB, COUNTS),
    "PoissonNB": (bg.PoissonNB, COUNTS),
    "CategoricalNB": (bg.CategoricalNB, CATEGORIES),
    "MixedNB": (bg.MixedNB, MIXED),
    "KernelDensityDA": (bg.KernelDensityDA, GAUSSIAN),
}
REJECTS = [0.6, 0.3, 0.1, 0.01]


def _fitted(name, labels=LABELS):
    factory, X = MODELS[name]
    return factory().fit(X, labels), X


@pytest.mark.parametrize("name", MODELS)
def test_chow_rule_is_the_argmax_where_the_top_probability_reaches_one_minus_c(name):
    model, X = _fitted(name)
    proba = model.predict_proba(X)
    top = proba.max(axis=1)
    mixed = 0
    for reject in REJECTS:
        decided = model.predict(X, reject=reject)
        accepted = top >= 1 - reject
        mixed += 0 < accepted.sum() < len(X)
        np.testing.assert_array_equal(
            decided[accepted], model.classes_[proba.argmax(axis=1)][accepted]
        )
        assert np.all(decided[~accepted] == -1)
        assert decided.dtype == model.classes_.dtype
    assert mixed  # some c of the grid both accepts and abstains
    # Without reject, predict is what it was.
    np.testing.assert_array_equal(model.predict(X, reject=None), model.predict(X))


def test_chow_rule_with_the_predictive_probabilities():
    model, X = _fitted("QDA")
    proba = model.predict_proba(X, method="predictive")
    decided = model.predict(X, reject=0.2, method="predictive")
    accepted = proba.max(axis=1) >= 0.8
    expected = np.where(accepted, model.classes_[proba.argmax(axis=1)], -1)
    np.testing.assert_array_equal(decided, expected)
    assert not np.array_equal(decided, model.predict(X, reject=0.2))  # few rows: they differ


@pytest.mark.parametrize("name", ["QDA", "MultinomialNB", "MixedNB"])
def test_cost_decisions_with_abstaining_minimise_the_brute_force_expected_cost(name):
    """Actions 0..K-1 cost sum_k C[k, j] p(k | x); abstaining costs c; ties go to a class."""
    model, X = _fitted(name)
    rng = np.random.default_rng(1)
    cost = rng.uniform(0, 5, (3, 3))
    np.fill_diagonal(cost, 0.0)
    proba = model.predict_proba(X)
    for reject in [0.3, 1.0, 2.5]:
        expected = []
        for p in proba:
            risks = [sum(cost[k, j] * p[k] for k in range(3)) for j in range(3)] + [reject]
            best = min(range(4), key=lambda action: (risks[action], action))
            expected.append(model.classes_[best] if best < 3 else -1)
        decided = model.predict(X, cost=cost, reject=reject)
        np.testing.assert_array_equal(decided, expected)
    assert np.any(model.predict(X, cost=cost, reject=0.3) == -1)
    # 0-1 loss as a matrix is Chow's rule with the same c.
    np.testing.assert_array_equal(
        model.predict(X, cost=1 - np.eye(3), reject=0.3), model.predict(X, reject=0.3)
    )


@pytest.fixture(scope="module")
def breast_cancer():
    X, y = load_breast_cancer(return_X_y=True)
    return train_test_split(X, y, test_size=0.5, stratify=y, random_state=0)


@pytest.mark.parametrize("factory", [bg.GaussianNB, bg.QDA])
def test_on_held_out_rows_the_error_rate_falls_with_c(breast_cancer, factory):
    """Breast cancer, half held out: over c = 0.5, 0.1, ..., 1e-4 coverage and the error rate
    on the accepted rows both fall, strictly (measured: GaussianNB 7.4% -> 4.2% error at
    93% coverage, QDA 4.6% -> 2.3% at 91%). A rate over fewer rows can rise when a correct
    row is abstained on; the model's own estimate of it, mean(1 - max p), cannot."""
    X_train, X_test, y_train, y_test = breast_cancer
    model = factory().fit(X_train, y_train)
    top = model.predict_proba(X_test).max(axis=1)
    coverage, error, estimated = [], [], []
    for reject in [0.5, 0.1, 0.01, 1e-3, 1e-4]:
        decided = model.predict(X_test, reject=reject)
        accepted = decided != -1
        coverage.append(accepted.mean())
        error.append(np.mean(decided[accepted] != y_test[accepted]))
        estimated.append(np.mean(1 - top[accepted]))
    assert np.all(np.diff(coverage) < 0) and coverage[-1] > 0.85
    assert np.all(np.diff(error) < 0)
    assert np.all(np.diff(estimated) <= 0)


def test_default_abstain_labels_are_what_fit_reads_as_unlabelled():
    """-1 for integer and float classes (their dtype kept), None for strings."""
    model, X = _fitted("GaussianNB")
    decided = model.predict(X, reject=0.1)
    assert decided.dtype == LABELS.dtype
    np.testing.assert_array_equal(unlabeled_rows(decided), decided == -1)

    floats, _ = _fitted("GaussianNB", LABELS.astype(np.float32))
    assert floats.predict(X, reject=0.1).dtype == np.float32

    names = np.array(["setosa", "versicolor", "virginica"])[LABELS]
    strings, _ = _fitted("GaussianNB", names)
    decided = strings.predict(X, reject=0.1)
    abstained = np.array([label is None for label in decided])
    assert decided.dtype == object and 0 < abstained.sum() < len(X)
    np.testing.assert_array_equal(unlabeled_rows(decided), abstained)
    np.testing.assert_array_equal(decided[~abstained], strings.predict(X)[~abstained])


def test_a_chosen_abstain_label():
    names = np.array(["a", "b", "c"])[LABELS]
    model, X = _fitted("GaussianNB", names)
    decided = model.predict(X, reject=0.1, abstain_label="unsure")
    assert decided.dtype.kind == "U"
    np.testing.assert_array_equal(
        decided == "unsure", np.array([label is None for label in model.predict(X, reject=0.1)])
    )
    numbers, _ = _fitted("GaussianNB")
    decided = numbers.predict(X, reject=0.1, abstain_label=99)
    assert decided.dtype == LABELS.dtype and 99 in decided and set(decided) <= {0, 1, 2, 99}
    assert numbers.predict(X, reject=0.1, abstain_label="?").dtype == object


@pytest.mark.parametrize(
    ("labels", "abstain_label", "message"),
    [
        (LABELS, 2, r"abstain_label=2 equals the class 2 of classes_ \[0, 1, 2\]"),
        (LABELS, 1.0, r"abstain_label=1.0 equals the class 1 "),
        (np.array(["a", "b", "c"])[LABELS], "b", r"abstain_label='b' equals the class 'b'"),
        (LABELS - 1, None, r"the default abstain_label -1 equals the class -1"),
    ],
)
def test_an_abstain_label_equal_to_a_class_is_an_error(labels, abstain_label, message):
    factory, X = MODELS["GaussianNB"]
    model = factory().partial_fit(X, labels, classes=np.unique(labels))
    with pytest.raises(ValueError, match=message):
        model.predict(X, reject=0.1, abstain_label=abstain_label)


@pytest.mark.parametrize("reject", [0, 1, -0.2, 1.5, np.nan, np.inf, "0.1", True, [0.1]])
def test_reject_outside_the_unit_interval_is_an_error_naming_it(reject):
    model, X = _fitted("GaussianNB")
    with pytest.raises(ValueError, match=r"reject must be a number in \(0, 1\)"):
        model.predict(X, reject=reject)


@pytest.mark.parametrize("reject", [0, -1.0, np.nan, np.inf, "1"])
def test_reject_with_a_cost_matrix_must_be_positive_and_finite(reject):
    model, X = _fitted("GaussianNB")
    with pytest.raises(ValueError, match="reject must be a positive finite number with cost="):
        model.predict(X, cost=1 - np.eye(3), reject=reject)


def test_reject_novelty_abstains_where_the_tail_probability_is_below_the_level():
    """The rule, with a stand-in for tail_probability (another part of the package)."""
    model, X = _fitted("QDA")
    with pytest.raises(TypeError, match="a QDA has no tail_probability"):
        model.predict(X, reject_novelty=0.05)
    tail = np.linspace(0, 1, len(X))
    model.tail_probability = lambda rows: tail[: len(rows)]
    decided = model.predict(X, reject_novelty=0.05)
    np.testing.assert_array_equal(decided == -1, tail < 0.05)
    np.testing.assert_array_equal(decided[tail >= 0.05], model.predict(X)[tail >= 0.05])
    both = model.predict(X, reject=0.1, reject_novelty=0.05)
    np.testing.assert_array_equal(both == -1, (tail < 0.05) | (model.predict(X, reject=0.1) == -1))
    for level in [0, 1, np.nan, "0.05"]:
        with pytest.raises(ValueError, match=r"reject_novelty must be a number in \(0, 1\)"):
            model.predict(X, reject_novelty=level)
