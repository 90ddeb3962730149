"""bayesgen.held_check: a fit's finite check settled by its range pass.

A fit whose ranges show nothing wrong skips the sum of squares the check would make; every
table the check refuses is still refused, with the same error as before.
"""

import numpy as np
import pandas as pd
import pytest
from sklearn.base import BaseEstimator

from bayesgen import LDA, QDA, GaussianNB, held_check, training_range, validation
from bayesgen.validation import InputRows, check_features, check_rows


def _rows(n=300, d=4, seed=0):
    rng = np.random.default_rng(seed)
    return rng.normal(size=(n, d)), np.arange(n) % 3


def _message_of_the_check(X, allow_nan=True) -> str:
    """The error `check_features` raises for ``X`` without any holder."""
    with pytest.raises(ValueError) as raised:
        check_features(BaseEstimator(), X, reset=True, allow_nan=allow_nan)
    return str(raised.value)


@pytest.fixture
def checks_run(monkeypatch):
    """The tables `validation._check_finite` was called on during a test."""
    seen = []
    original = validation._check_finite

    def counting(X, estimator, *, allow_nan=False):
        seen.append(X)
        return original(X, estimator, allow_nan=allow_nan)

    monkeypatch.setattr(validation, "_check_finite", counting)
    return seen


@pytest.mark.parametrize("model", [GaussianNB, LDA, QDA])
@pytest.mark.parametrize("bad", [np.inf, -np.inf, 1e300])
def test_a_fit_refuses_what_the_check_refuses_with_its_message(model, bad):
    X, y = _rows()
    X[17, 2] = bad
    with pytest.raises(ValueError) as raised:
        model().fit(X, y)
    assert str(raised.value) == _message_of_the_check(X)
    with pytest.raises(ValueError) as raised:
        model().partial_fit(X, y, classes=[0, 1, 2])
    assert str(raised.value) == _message_of_the_check(X)


def test_a_clean_fit_runs_no_finite_check_where_check_features_runs_one(checks_run):
    X, y = _rows()
    model = LDA().partial_fit(X, y, classes=[0, 1, 2])
    model.partial_fit(X, y)  # a later batch
    X[5, 1] = np.nan  # missing: allowed, and the ranges count it
    GaussianNB().fit(X, y)
    assert checks_run == []
    check_features(BaseEstimator(), X, reset=True, allow_nan=True)
    assert len(checks_run) == 1  # the check itself still runs where nothing holds it


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_later_batches_unlabelled_rows_and_float32_are_refused_alike(dtype):
    X, y = _rows()
    X = X.astype(dtype)
    bad = X.copy()
    bad[11, 3] = -np.inf
    expected = _message_of_the_check(bad)
    model = QDA().partial_fit(X, y, classes=[0, 1, 2])
    with pytest.raises(ValueError) as raised:
        model.partial_fit(bad, y)  # a later batch
    assert str(raised.value) == expected
    partly = y.copy()
    partly[::4] = -1  # semi-supervised: EM over the unlabelled rows
    with pytest.raises(ValueError) as raised:
        GaussianNB().fit(bad, partly)
    assert str(raised.value) == expected


def test_a_refused_refit_keeps_the_columns_sample_returns():
    X, y = _rows()
    model = GaussianNB().fit(pd.DataFrame(X, columns=list("abcd")), y)
    other = pd.DataFrame(X, columns=list("wxyz")).astype("float32")
    other.iloc[3, 1] = np.inf
    with pytest.raises(ValueError, match="X contains inf"):
        model.fit(other, y)
    assert list(model.sample(2, random_state=0)[0].columns) == list("abcd")


def test_a_data_frame_s_rows_are_settled_too(checks_run):
    X, y = _rows()
    frame = pd.DataFrame(X, columns=list("abcd"))
    model = LDA().fit(frame, y)
    assert checks_run == []
    frame.loc[3, "c"] = np.inf
    with pytest.raises(ValueError, match=r"X contains inf \(first at row 3, column 2 \('c'\)\)"):
        model.fit(frame, y)


def test_a_row_of_weight_zero_is_still_checked(checks_run):
    X, y = _rows()
    X[7, 0] = np.inf
    weights = np.ones(X.shape[0])
    weights[7] = 0.0  # left out of the ranges, so they cannot settle the check
    with pytest.raises(ValueError, match=r"X contains inf \(first at row 7, column 0\)"):
        QDA().fit(X, y, sample_weight=weights)
    assert len(checks_run) == 1


def test_weights_run_the_check_only_where_a_row_has_weight_zero(checks_run):
    X, y = _rows()
    GaussianNB().fit(X, y, sample_weight=np.ones(X.shape[0]))
    GaussianNB().fit(X, y, sample_weight=np.linspace(0.5, 2.0, X.shape[0]))
    assert checks_run == []  # every row is in the ranges
    weights = np.ones(X.shape[0])
    weights[0] = 0.0
    GaussianNB().fit(X, y, sample_weight=weights)
    assert len(checks_run) == 1


def test_settle_runs_the_check_of_another_table_or_of_doubtful_ranges():
    X, _ = _rows()
    other = X.copy()
    other[0, 0] = -np.inf
    owner = BaseEstimator()
    rows = InputRows()
    with held_check.held_finite_check() as held:
        checked = check_rows(owner, other, reset=True, rows=rows)
    assert checked is not None  # held, not raised
    record = training_range.column_ranges(X)
    with pytest.raises(ValueError, match="X contains -inf"):
        held.settle(X, record)  # the ranges are another table's: the check runs
    with held_check.held_finite_check() as held:
        checked = check_rows(owner, X, reset=True, rows=rows)
    held.settle(checked, training_range.column_ranges(checked))  # nothing to refuse
    assert held_check.current() is None


def test_nan_where_none_is_allowed_is_refused_by_the_check():
    X, _ = _rows()
    X[4, 3] = np.nan
    rows = InputRows(missing=False)
    with held_check.held_finite_check() as held:
        checked = check_rows(BaseEstimator(), X, reset=True, rows=rows)
    with pytest.raises(ValueError) as raised:
        held.settle(checked, training_range.column_ranges(checked))
    assert str(raised.value) == _message_of_the_check(X, allow_nan=False)
    assert "does not accept missing values" in str(raised.value)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_the_ranges_pass_up_to_the_overflow_limit_and_not_beyond(dtype):
    X = np.zeros((1000, 2), dtype=dtype)
    limit = np.sqrt(np.finfo(dtype).max / X.shape[0])
    X[3, 1] = limit
    assert held_check.ranges_pass(training_range.column_ranges(X), X, allow_nan=False)
    X[3, 1] = np.nextafter(limit, np.inf, dtype=dtype)
    assert not held_check.ranges_pass(training_range.column_ranges(X), X, allow_nan=False)
    # Beyond it the check decides: one such value leaves the sum of squares finite, and
    # the check accepts it; a column of them overflows it, and both refuse it alike.
    labels = np.arange(1000) % 2
    GaussianNB().fit(X, labels)
    X[:, 1] = 2 * limit
    with pytest.raises(ValueError, match="overflow") as raised:
        GaussianNB().fit(X, labels)
    assert str(raised.value) == _message_of_the_check(X)


def test_a_column_with_no_observed_value_says_nothing_against_the_table():
    X, _ = _rows()
    X[:, 1] = np.nan
    record = training_range.column_ranges(X)
    assert np.isnan(record.low[1]) and np.isnan(record.high[1])
    assert held_check.ranges_pass(record, X, allow_nan=True)
    assert not held_check.ranges_pass(record, X, allow_nan=False)
    assert not held_check.ranges_pass(record._replace(n_missing=None), X, allow_nan=True)
