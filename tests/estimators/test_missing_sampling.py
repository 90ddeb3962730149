"""``sample(missing="training")``: synthetic rows with the training table's gaps, column by
column, on top of the complete rows drawn with the same seed."""

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import bayesgen
from bayesgen import QDA, GaussianNB, MixedNB, MultinomialNB, PoissonNB
from bayesgen.training_range import column_ranges


def _gappy(n=3000, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    X = rng.normal(y[:, None], 1.0, size=(n, 4))
    X[rng.random(n) < 0.25, 0] = np.nan
    X[rng.random(n) < 0.02, 2] = np.nan
    return X, y


@pytest.mark.parametrize("order", ["C", "F"])
def test_the_counts_are_the_training_table_s_missing_cells(order):
    """Counted in the range pass: a column read again only where it has a gap; ranges
    are those of the observed values, whatever the layout (16-row lines and their tail)."""
    X, _ = _gappy(n=1003)
    X[:, 3] = np.nan  # never observed
    X = np.asarray(X, order=order)
    record = column_ranges(X)
    np.testing.assert_array_equal(record.n_missing, np.isnan(X).sum(axis=0))
    assert record.n_rows == 1003
    with np.errstate(all="ignore"), pytest.warns(RuntimeWarning, match="All-NaN"):
        np.testing.assert_array_equal(record.low, np.nanmin(X, axis=0))
        np.testing.assert_array_equal(record.high, np.nanmax(X, axis=0))


def test_every_column_is_missing_at_its_training_rate_on_the_complete_rows():
    X, y = _gappy()
    model = GaussianNB().fit(X, y)
    np.testing.assert_array_equal(model.n_missing_, np.isnan(X).sum(axis=0))
    assert model.n_samples_seen_ == X.shape[0]
    complete, labels = model.sample(40000, random_state=0)
    gappy, gappy_labels = model.sample(40000, random_state=0, missing="training")
    np.testing.assert_array_equal(labels, gappy_labels)
    kept = ~np.isnan(gappy)
    np.testing.assert_array_equal(gappy[kept], complete[kept])
    rates = np.isnan(X).mean(axis=0)
    for j, rate in enumerate(rates):
        share = np.isnan(gappy[:, j]).mean()
        assert abs(share - rate) <= 4 * np.sqrt(max(rate * (1 - rate), 1e-9) / 40000) + 1e-12
    # Missing completely at random: a gap says nothing of the class or the other columns.
    table = pd.crosstab(np.isnan(gappy[:, 0]), gappy_labels)
    assert stats.chi2_contingency(table).pvalue > 1e-3
    assert (
        stats.chi2_contingency(pd.crosstab(np.isnan(gappy[:, 0]), np.isnan(gappy[:, 2]))).pvalue
        > 1e-3
    )


def test_partial_fit_adds_the_counts_of_every_batch():
    X, y = _gappy(n=900, seed=1)
    X = np.abs(np.round(X))  # counts: a Poisson skips their gaps, batch by batch
    model = PoissonNB()
    for rows in np.array_split(np.arange(900), 3):
        model.partial_fit(X[rows], y[rows], classes=[0, 1])
    np.testing.assert_array_equal(model.n_missing_, np.isnan(X).sum(axis=0))
    assert model.n_samples_seen_ == 900


def test_a_table_keeps_its_columns_and_the_given_ones_are_never_missing(tmp_path):
    rng = np.random.default_rng(2)
    n = 4000
    y = rng.integers(0, 2, n)
    frame = pd.DataFrame(
        {
            "size": rng.normal(y, 1.0),
            "visits": rng.poisson(1 + y),
            "colour": pd.Categorical(rng.choice(["red", "blue"], n)),
        }
    )
    frame.loc[rng.random(n) < 0.3, "size"] = np.nan
    frame.loc[rng.random(n) < 0.1, "colour"] = None
    model = MixedNB().fit(frame, y)
    np.testing.assert_array_equal(model.n_missing_, frame.isna().sum().to_numpy())
    drawn, _ = model.sample(20000, random_state=3, missing="training")
    assert list(drawn.columns) == list(frame.columns)
    assert isinstance(drawn["colour"].dtype, pd.CategoricalDtype)
    assert drawn["visits"].dtype == np.int64  # never missing in training: stays whole
    np.testing.assert_allclose(drawn.isna().mean(), frame.isna().mean(), atol=0.015)
    given, _ = model.sample(5000, random_state=3, missing="training", given={"size": 0.5})
    assert (given["size"] == 0.5).all()
    assert abs(given["colour"].isna().mean() - 0.1) < 0.02
    model.save(tmp_path / "mixed.bgm")
    again = bayesgen.load(tmp_path / "mixed.bgm").sample(20000, random_state=3, missing="training")
    pd.testing.assert_frame_equal(again[0], drawn)


def test_counts_come_back_as_floats_with_gaps_and_support_training_holds():
    rng = np.random.default_rng(4)
    y = rng.integers(0, 2, 2000)
    X = rng.poisson(2 + 3 * y[:, None], size=(2000, 3)).astype(float)
    X[rng.random(2000) < 0.2, 1] = np.nan
    drawn, _ = PoissonNB().fit(X, y).sample(500, random_state=0, missing="training")
    assert drawn.dtype == np.float64 and np.isnan(drawn[:, 1]).any()
    assert not np.isnan(drawn[:, [0, 2]]).any()
    model = QDA().fit(*_gappy(n=2000, seed=5))
    inside, _ = model.sample(3000, random_state=0, support="training", missing="training")
    kept = ~np.isnan(inside)
    assert np.all((inside >= model.data_min_) | ~kept) and np.all(
        (inside <= model.data_max_) | ~kept
    )
    assert (
        abs(np.isnan(inside[:, 0]).mean() - np.isnan(_gappy(n=2000, seed=5)[0][:, 0]).mean()) < 0.04
    )


def test_sparse_counts_have_no_gaps_and_multinomial_rows_take_them_too():
    import scipy.sparse as sp

    rng = np.random.default_rng(6)
    X = sp.random(300, 20, density=0.2, random_state=0, data_rvs=lambda k: rng.integers(1, 5, k))
    y = rng.integers(0, 2, 300)
    model = MultinomialNB().fit(X, y)
    np.testing.assert_array_equal(model.n_missing_, np.zeros(20))
    drawn, _ = model.sample(10, random_state=0, missing="training")
    complete, _ = model.sample(10, random_state=0)
    assert drawn.dtype == complete.dtype  # no column had a gap: the rows as they are
    np.testing.assert_array_equal(drawn, complete)


@pytest.mark.parametrize("layout", ["csr", "csc", "coo"])
def test_stored_nan_of_a_sparse_matrix_are_counted_as_the_fit_reads_them(layout):
    import scipy.sparse as sp

    rng = np.random.default_rng(7)
    y = rng.integers(0, 2, 400)
    dense = rng.poisson(2.0, (400, 4)).astype(float)
    dense[rng.random(400) < 0.3, 1] = np.nan
    sparse = sp.csr_matrix(dense).asformat(layout)
    model = PoissonNB().fit(sparse, y)
    np.testing.assert_array_equal(model.n_missing_, np.isnan(dense).sum(axis=0))
    np.testing.assert_allclose(
        model.predict_proba(dense), PoissonNB().fit(dense, y).predict_proba(dense)
    )


def test_a_row_of_weight_w_counts_w_times_and_weight_0_not_at_all():
    """As the fit reads weights: the counts, the rows and the range of a weighted fit are
    those of the rows repeated by their weights."""
    rng = np.random.default_rng(8)
    X = rng.poisson(3.0, (400, 2)).astype(float)
    X[:200, 0] = np.nan
    X[:10, 1] = 99.0  # only in rows of weight 0
    y = rng.integers(0, 2, 400)
    weights = np.where(np.isnan(X[:, 0]), 0, rng.integers(1, 4, 400))
    weights[200:230] = 0
    weighted = PoissonNB().fit(X, y, sample_weight=weights)
    repeated = PoissonNB().fit(np.repeat(X, weights, axis=0), np.repeat(y, weights))
    for name in ("n_missing_", "n_samples_seen_", "data_min_", "data_max_"):
        np.testing.assert_array_equal(getattr(weighted, name), getattr(repeated, name))
    assert weighted.data_max_[1] < 99.0
    halves = np.where(np.arange(400) % 2 == 0, 0.5, 1.5)
    X[:, 0] = np.where(np.arange(400) % 4 == 0, np.nan, 1.0)
    fractional = PoissonNB().fit(X, y, sample_weight=halves)
    assert fractional.n_samples_seen_ == pytest.approx(halves.sum())
    assert fractional.n_missing_[0] == pytest.approx(halves[np.arange(400) % 4 == 0].sum())


def test_a_refused_first_batch_leaves_the_model_unfitted():
    rng = np.random.default_rng(9)
    X = rng.poisson(2.0, (300, 4)).astype(float)
    y = rng.integers(0, 2, 300)
    gappy = X.copy()
    gappy[5, 1] = np.nan  # multinomial counts cannot miss a cell: refused while fitting
    model = MultinomialNB()
    with pytest.raises(ValueError):
        model.partial_fit(gappy, y, classes=[0, 1])
    assert not hasattr(model, "classes_")
    model.partial_fit(X, y, classes=[0, 1])
    np.testing.assert_array_equal(model.n_missing_, np.zeros(4))
    assert model.n_samples_seen_ == 300
    assert model.sample(3, missing="training", random_state=0)[0].shape == (3, 4)


def test_bad_requests_are_refused_by_name():
    X, y = _gappy(n=200)
    model = GaussianNB().fit(X, y)
    with pytest.raises(ValueError, match=r"missing must be one of \(None, 'training'\); got 'yes'"):
        model.sample(5, missing="yes")
    # As a model from an earlier file: ranges recorded, missing cells not counted.
    model.joint_ = model.joint_._replace(
        record=model.joint_.record._replace(n_missing=None, n_rows=None)
    )
    with pytest.raises(ValueError, match="did not count"):
        model.sample(5, missing="training")
    assert model.sample(5, random_state=0)[0].shape == (5, 4)
