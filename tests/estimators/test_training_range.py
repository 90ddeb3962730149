"""The training range: recorded by every fit, reported when draws leave it, kept to on request.

References: NumPy's ``nanmin``/``nanmax`` of the training rows, the sum property of
``partial_fit``, and the truncated normal law (SciPy's ``truncnorm``) for
``sample(support="training")`` on a one-feature Gaussian model.
"""

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from scipy import stats
from sklearn.datasets import load_breast_cancer

import bayesgen
from bayesgen import training_range
from bayesgen.training_range import OutsideTrainingRangeWarning

N_DRAWS = 20_000


def test_a_fit_records_each_numeric_column_range_and_partial_fit_merges_it():
    rng = np.random.default_rng(0)
    X = rng.exponential(size=(60, 3))
    X[5, 1] = np.nan
    X[:30, 2] = np.nan  # half the column missing
    y = np.repeat([0, 1], 30)
    model = bayesgen.ExponentialNB().fit(X, y)
    np.testing.assert_array_equal(model.data_min_, np.nanmin(X, axis=0))
    np.testing.assert_array_equal(model.data_max_, np.nanmax(X, axis=0))
    batches = bayesgen.ExponentialNB()
    batches.partial_fit(X[::2], y[::2], classes=[0, 1]).partial_fit(X[1::2], y[1::2])
    np.testing.assert_array_equal(batches.data_min_, model.data_min_)
    np.testing.assert_array_equal(batches.data_max_, model.data_max_)
    gaussian = bayesgen.GaussianDA().fit(np.nan_to_num(X), y)  # a fit without NaN, too
    np.testing.assert_array_equal(gaussian.data_max_, np.nan_to_num(X).max(axis=0))


@pytest.mark.parametrize("block_rows", [3, 7, 100])
def test_ranges_taken_a_block_at_a_time_equal_nanmin_and_nanmax(monkeypatch, block_rows):
    """Blocks of rows (in threads) give each column's least and greatest value and missing
    cells exactly, wherever the gaps and the extremes fall."""
    monkeypatch.setattr(training_range, "RANGE_BLOCK_ROWS", block_rows)
    monkeypatch.setattr(training_range, "PARALLEL_RANGE_VALUES", 1)  # blocks in threads
    rng = np.random.default_rng(1)
    X = rng.normal(size=(50, 4))
    X[[0, 13, 49], 1] = np.nan
    X[:, 3] = np.nan  # a column never observed
    X[22, 0], X[48, 2] = -1e300, 1e300
    with np.errstate(all="ignore"), pytest.warns(RuntimeWarning):
        low, high = np.nanmin(X, axis=0), np.nanmax(X, axis=0)
    record = training_range.column_ranges(X)
    np.testing.assert_array_equal(record.low, low)
    np.testing.assert_array_equal(record.high, high)
    np.testing.assert_array_equal(record.n_missing, [0, 3, 0, 50])


def test_sparse_input_records_no_range_and_a_table_keeps_its_non_numeric_columns_out():
    counts = sp.random(40, 6, density=0.3, format="csr", random_state=1)
    model = bayesgen.MultinomialNB().fit(counts, np.arange(40) % 2)
    assert np.isnan(model.data_min_).all() and np.isnan(model.data_max_).all()
    drawn, _ = model.sample(5, support="training", random_state=0)  # nothing to keep to
    assert drawn.shape == (5, 6)
    frame = pd.DataFrame(
        {
            "size": [1.5, 2.0, 7.0, 3.0],
            "colour": pd.Categorical(["a", "b", "a", "b"]),
            "flag": [True, False, True, True],
            "count": [3, 0, 5, 2],
        }
    )
    model = bayesgen.MixedNB().fit(frame, [0, 1, 0, 1])
    np.testing.assert_array_equal(model.data_min_, [1.5, np.nan, np.nan, 0])
    np.testing.assert_array_equal(model.data_max_, [7.0, np.nan, np.nan, 5])


def test_draws_below_zero_where_training_never_was_are_reported():
    X, y = load_breast_cancer(return_X_y=True)
    model = bayesgen.QDA().fit(X, y)
    with pytest.warns(OutsideTrainingRangeWarning, match=r"negative in \d+ column") as caught:
        drawn, _ = model.sample(1000, random_state=0)
    negative = int(np.sum((drawn < 0) & (X.min(axis=0) >= 0)))
    assert negative > 0 and f"{negative} of the 30000 drawn cells" in str(caught[0].message)
    assert caught[0].filename == __file__  # the caller's line, not the package's
    truncated, _ = model.sample(1000, support="training", random_state=0)
    assert np.all(truncated >= X.min(axis=0)) and np.all(truncated <= X.max(axis=0))


def _one_feature(seed=2):
    rng = np.random.default_rng(seed)
    y = np.repeat([0, 1], [150, 50])
    X = np.concatenate([rng.normal(0.0, 1.0, 150), rng.normal(1.5, 0.5, 50)])[:, None]
    return bayesgen.GaussianNB().fit(X, y), X


def test_truncation_to_the_training_range_is_the_truncated_normal_given_the_class():
    model, X = _one_feature()
    low, high = X.min(), X.max()
    drawn, labels = model.sample(N_DRAWS, y=1, support="training", random_state=3)
    assert np.all(labels == 1)
    mean, sd = model.theta_[1, 0], np.sqrt(model.var_[1, 0])
    law = stats.truncnorm((low - mean) / sd, (high - mean) / sd, loc=mean, scale=sd)
    assert stats.kstest(drawn[:, 0], law.cdf).pvalue > 1e-3


def test_with_labels_drawn_the_class_shares_stay_the_models_and_each_class_is_truncated():
    """A wide class of few rows sets the range and has more of its mass outside it; its
    share of the rows is still its class probability, and its rows the truncated law."""
    rng = np.random.default_rng(9)
    y = np.repeat([0, 1], [12, 188])
    X = np.concatenate([rng.normal(0.0, 4.0, 12), rng.normal(1.0, 0.4, 188)])[:, None]
    model = bayesgen.GaussianNB().fit(X, y)
    n_draws = 100_000
    drawn, labels = model.sample(n_draws, support="training", random_state=4)
    sd = np.sqrt(model.var_[:, 0])
    inside = np.diff(stats.norm.cdf([[X.min()], [X.max()]], model.theta_[:, 0], sd), axis=0)[0]
    assert inside[0] < 0.95  # truncation matters for class 0
    prior = model.class_prior_[0]
    assert abs(np.mean(labels == 0) - prior) <= 4.5 * np.sqrt(prior * (1 - prior) / n_draws)
    bounds = (X.min() - model.theta_[0, 0]) / sd[0], (X.max() - model.theta_[0, 0]) / sd[0]
    law = stats.truncnorm(*bounds, loc=model.theta_[0, 0], scale=sd[0])
    assert stats.kstest(drawn[labels == 0, 0], law.cdf).pvalue > 1e-3


def test_the_same_seed_gives_the_same_truncated_rows():
    model, _ = _one_feature()
    first = model.sample(300, support="training", random_state=5)
    second = model.sample(300, support="training", random_state=5)
    np.testing.assert_array_equal(first[0], second[0])
    np.testing.assert_array_equal(first[1], second[1])


def test_too_little_mass_inside_the_range_is_an_error_naming_the_share(monkeypatch):
    rng = np.random.default_rng(6)
    X = rng.normal(size=(6, 60))
    model = bayesgen.GaussianNB().fit(X, [0, 1, 0, 1, 0, 1])
    monkeypatch.setattr(training_range, "DRAW_BUDGET", 20)
    with pytest.raises(ValueError, match=r"10 of the 10 rows were drawn 20 times each without"):
        model.sample(10, support="training", random_state=0)


def test_a_given_value_outside_the_range_and_a_model_without_one_are_refused():
    model, X = _one_feature()
    drawn, _ = model.sample(5, given={0: 0.5}, support="training", random_state=0)
    assert np.all(drawn[:, 0] == 0.5)
    with pytest.raises(ValueError, match=r"given\[0\] lies outside that column's training range"):
        model.sample(5, given={0: X.max() + 1}, support="training")
    with pytest.raises(ValueError, match="support must be one of"):
        model.sample(5, support="data")
    model.joint_ = model.joint_._replace(record=None)  # a model file from before ranges were kept
    with pytest.raises(ValueError, match="did not record"):
        model.sample(5, support="training")
    with warnings_as_errors():
        model.sample(5, random_state=0)  # and no warning to give without a range


class warnings_as_errors:  # noqa: N801 - a context manager named for what it does
    def __enter__(self):
        import warnings

        self.context = warnings.catch_warnings()
        self.context.__enter__()
        warnings.simplefilter("error")

    def __exit__(self, *exc):
        return self.context.__exit__(*exc)


def test_a_table_truncated_keeps_its_columns_and_dtypes():
    rng = np.random.default_rng(7)
    n = 300
    y = rng.integers(0, 2, n)
    frame = pd.DataFrame(
        {
            "price": rng.gamma(2.0, 3.0 + 3 * y),
            "kind": pd.Categorical(np.where(y == 1, "b", "a")),
            "items": rng.poisson(1 + 2 * y),
        }
    )
    model = bayesgen.MixedNB(features={"price": "gaussian"}).fit(frame, y)
    drawn, labels = model.sample(400, support="training", random_state=8)
    assert list(drawn.columns) == ["price", "kind", "items"]
    assert drawn["items"].dtype == frame["items"].dtype
    assert isinstance(drawn["kind"].dtype, pd.CategoricalDtype)
    assert drawn["price"].between(frame["price"].min(), frame["price"].max()).all()
    assert labels.shape == (400,)


def test_drawn_objects_are_compared_where_a_range_was_recorded():
    drawn = np.array([[1.5, "a", -3], [0.5, "b", 2]], dtype=object)  # a mixed table's draws
    low, high = np.array([1.0, np.nan, 0.0]), np.array([2.0, np.nan, 5.0])
    outside = training_range.cells_outside(drawn, low, high)
    np.testing.assert_array_equal(outside, [[False, False, True], [True, False, False]])


def test_a_refused_batch_leaves_the_range_as_it_was():
    X, y = _correlated_two()
    model = bayesgen.GaussianNB().partial_fit(X, y, classes=[0, 1])
    before = model.data_max_.copy()
    bad = X[:10] * 100
    bad[0, 0] = np.nan
    with pytest.raises(ValueError, match="partial_fit cannot add rows with missing values"):
        model.partial_fit(bad, y[:10])
    np.testing.assert_array_equal(model.data_max_, before)


def _correlated_two(seed=13):
    rng = np.random.default_rng(seed)
    return rng.normal(size=(80, 2)), np.arange(80) % 2


def test_number_column_names_are_named_and_given_columns_are_not_counted_as_draws():
    X, y = _correlated_two()
    model = bayesgen.GaussianNB().fit(pd.DataFrame(X, columns=[10, 20]), y)
    with pytest.raises(ValueError, match=r"given\[20\] lies outside"):
        model.sample(3, given={20: 99.0}, support="training")
    positive = np.column_stack([X[:, 0], 50 + X[:, 1]])  # column 1 far from 0, never negative
    model = bayesgen.GaussianNB().fit(pd.DataFrame(positive, columns=[10, 20]), y)
    with warnings_as_errors():  # the given -1 is the caller's, not a draw
        model.sample(20, given={20: -1.0}, random_state=0)


def test_dense_ranges_equal_nanmin_and_nanmax_across_the_16_row_lines():
    rng = np.random.default_rng(14)
    for n_rows in (1, 15, 16, 17, 1001):
        values = rng.normal(size=(n_rows, 7))
        values[rng.uniform(size=values.shape) < 0.1] = np.nan
        values[:, 3] = np.nan
        for layout in (values, np.asfortranarray(values)):
            low, high, missing, rows, _, _ = training_range.column_ranges(layout)
            np.testing.assert_array_equal(low, np.fmin.reduce(values, axis=0))
            np.testing.assert_array_equal(high, np.fmax.reduce(values, axis=0))
            np.testing.assert_array_equal(missing, np.isnan(values).sum(axis=0))
            assert rows == n_rows


def test_partial_fit_after_a_failed_fit_records_its_own_rows():
    """A fit that failed half-way (its classes set, no value) leaves the next batch the
    first: it is fitted, and recorded, alone."""
    X, y = load_breast_cancer(return_X_y=True)
    X = X[:, :3]
    model = bayesgen.QDA(reg_covar=0.0)
    lonely = y.copy()
    lonely[0] = 2  # one row: a singular covariance without a ridge
    with pytest.raises(ValueError, match="singular"):
        model.fit(X, lonely)
    batch = y[100:].copy()
    batch[:20] = 2  # the classes of the failed fit (its classes_) all have rows now
    model.partial_fit(X[100:], batch)
    assert model.n_samples_seen_ == X.shape[0] - 100
    np.testing.assert_array_equal(model.data_min_, X[100:].min(axis=0))


def test_statistics_made_elsewhere_keep_the_record_they_are_given():
    """``from_statistics`` takes the record as the fitted attributes it names, as a model
    file of the earlier layout gives them, and shows it before and after saving."""
    X, y = load_breast_cancer(return_X_y=True)
    fitted = bayesgen.GaussianNB().fit(X[:, :3], y)
    names = ("data_min_", "data_max_", "n_missing_", "n_samples_seen_")
    attributes = {"n_features_in_": 3, **{name: getattr(fitted, name) for name in names}}
    value = fitted.joint_
    made = bayesgen.GaussianNB.from_statistics(
        fitted.get_params(),
        value.classes,
        value.class_stats,
        value.feature_stats,
        attributes=attributes,
    )
    for name in names:
        np.testing.assert_array_equal(getattr(made, name), getattr(fitted, name))
    assert not hasattr(made, "data_step_")  # not given: no grid
    drawn, _ = made.sample(50, support="training", random_state=0)
    assert np.all((drawn >= made.data_min_) & (drawn <= made.data_max_))
    with pytest.raises(ValueError, match="rounding='training' needs the grid"):
        made.sample(5, rounding="training")


@pytest.mark.parametrize(
    ("names", "problem"),
    [
        (("data_min_",), "data_min_ and data_max_ are recorded together; got only data_min_"),
        (("n_missing_", "n_samples_seen_"), "holds their ranges, data_min_ and data_max_"),
    ],
)
def test_statistics_made_elsewhere_refuse_half_a_record(names, problem):
    X, y = load_breast_cancer(return_X_y=True)
    fitted = bayesgen.GaussianNB().fit(X[:, :3], y)
    value = fitted.joint_
    attributes = {"n_features_in_": 3, **{name: getattr(fitted, name) for name in names}}
    with pytest.raises(ValueError, match=problem):
        bayesgen.GaussianNB.from_statistics(
            fitted.get_params(),
            value.classes,
            value.class_stats,
            value.feature_stats,
            attributes=attributes,
        )
