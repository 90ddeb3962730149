"""``sample(rounding="training")``: draws on the grid each column was recorded on.

References: the fitted ``data_decimals_`` and ``data_step_`` against exact decimal
arithmetic on the training table (`tests.test_recorded_grid._reference`); each rounded
draw against the
unrounded draw of the same seed (the nearest grid point, at most half a step away); the
sum property of ``partial_fit``.
"""

import numpy as np
import pandas as pd
import pytest

import bayesgen
from tests.test_recorded_grid import _reference


def _penguin_like(n=240, seed=0):
    """Whole millimetres, tenths of a millimetre, masses to 25 g, a category, gaps."""
    rng = np.random.default_rng(seed)
    species = rng.integers(0, 2, n)
    frame = pd.DataFrame(
        {
            "flipper": np.round(rng.normal(190 + 20 * species, 7)),
            "bill": np.round(rng.normal(39 + 8 * species, 3), 1),
            "mass": 25 * np.round(rng.normal(3700 + 1300 * species, 450) / 25),
            "island": np.where(rng.random(n) < 0.5, "Biscoe", "Dream"),
            "ratio": rng.gamma(2.0, size=n),  # continuous: no grid
        }
    )
    frame.loc[rng.random(n) < 0.1, "bill"] = np.nan
    return frame, species


def test_the_fit_records_each_numeric_column_grid_exactly():
    frame, y = _penguin_like()
    model = bayesgen.MixedNB().fit(frame, y)
    expected = np.array(
        [
            _reference(frame[c].to_numpy(float)) if c != "island" else (np.nan, np.nan)
            for c in frame.columns
        ]
    )
    np.testing.assert_array_equal(model.data_decimals_, expected[:, 0])
    np.testing.assert_array_equal(model.data_step_, expected[:, 1])
    np.testing.assert_array_equal(model.data_step_[[0, 1, 2]], [1.0, 0.1, 25.0])
    np.testing.assert_array_equal(model.data_decimals_[[0, 1, 2]], [0.0, 1.0, 0.0])
    rows = frame["bill"].notna().to_numpy()  # partial_fit takes no gappy Gaussian rows
    whole = bayesgen.MixedNB().fit(frame[rows], y[rows])
    batches = bayesgen.MixedNB(features=whole.feature_families_)
    batches.partial_fit(frame[rows].iloc[:100], y[rows][:100], classes=[0, 1])
    batches.partial_fit(frame[rows].iloc[100:], y[rows][100:])
    np.testing.assert_array_equal(batches.data_step_, whole.data_step_)
    np.testing.assert_array_equal(batches.data_decimals_, whole.data_decimals_)


def test_rounded_draws_are_the_same_draws_moved_to_the_nearest_grid_point():
    frame, y = _penguin_like()
    model = bayesgen.LatentClassNB(n_components=2, random_state=0).fit(frame, y)
    raw, labels = model.sample(2000, random_state=3)
    rounded, same_labels = model.sample(2000, random_state=3, rounding="training")
    np.testing.assert_array_equal(labels, same_labels)
    assert list(rounded.dtypes) == list(raw.dtypes)
    pd.testing.assert_series_equal(rounded["island"], raw["island"])
    pd.testing.assert_series_equal(rounded["ratio"], raw["ratio"])  # on no grid: as drawn
    for column, step in (("flipper", 1.0), ("bill", 0.1), ("mass", 25.0)):
        low = model.data_min_[frame.columns.get_loc(column)]
        moved = rounded[column].to_numpy()
        assert np.max(np.abs(moved - raw[column].to_numpy())) <= step / 2 + 1e-9
        units = (moved - low) / step
        np.testing.assert_allclose(units, np.round(units), atol=1e-9)
        written = np.array([float(f"{value:.{1 if step == 0.1 else 0}f}") for value in moved])
        np.testing.assert_array_equal(moved, written)  # no float residue: 43.7, not 43.7000001
    assert rounded["mass"].nunique() < raw["mass"].nunique() / 10


def test_rounding_keeps_given_columns_the_range_and_the_training_gaps():
    frame, y = _penguin_like()
    model = bayesgen.MixedNB().fit(frame, y)
    drawn, _ = model.sample(
        500, given={"mass": 3712.3}, support="training", rounding="training", random_state=1
    )
    assert (drawn["mass"] == 3712.3).all()  # the caller's value, not a draw
    inside = drawn[["flipper", "bill"]].to_numpy()
    assert np.all(inside >= model.data_min_[[0, 1]]) and np.all(inside <= model.data_max_[[0, 1]])
    gappy, _ = model.sample(3000, missing="training", rounding="training", random_state=2)
    complete, _ = model.sample(3000, rounding="training", random_state=2)
    kept = gappy["bill"].notna()
    np.testing.assert_array_equal(gappy.loc[kept, "bill"], complete.loc[kept, "bill"])
    assert abs(gappy["bill"].isna().mean() - frame["bill"].isna().mean()) < 0.03


def test_arrays_keep_their_dtype_and_whole_number_grids_give_whole_numbers():
    rng = np.random.default_rng(5)
    X = np.column_stack([rng.integers(0, 40, 300) * 2.0, rng.normal(size=300)])
    y = rng.integers(0, 2, 300)
    model = bayesgen.GaussianNB().fit(X, y)
    np.testing.assert_array_equal(model.data_step_[0], 2.0)
    drawn, _ = model.sample(1000, random_state=0, rounding="training")
    raw, _ = model.sample(1000, random_state=0)
    assert drawn.dtype == np.float64
    np.testing.assert_array_equal(drawn[:, 0] % 2, 0.0)
    np.testing.assert_array_equal(drawn[:, 1], raw[:, 1])
    counts = bayesgen.PoissonNB().fit(rng.poisson(3.0, size=(200, 3)), y[:200])
    whole, _ = counts.sample(50, random_state=0, rounding="training")
    same, _ = counts.sample(50, random_state=0)
    np.testing.assert_array_equal(whole, same)  # counts already lie on their grid
    assert whole.dtype == same.dtype
    narrow = np.round(rng.normal(100.0, 1.0, size=(300, 1)), 2).astype(np.float32)
    single = bayesgen.GaussianNB().fit(narrow, y)
    assert (single.data_decimals_[0], single.data_step_[0]) == (2.0, 0.01)
    drawn32, _ = single.sample(200, random_state=0, rounding="training")
    assert drawn32.dtype == np.float32
    written = np.array([np.float32(f"{value:.2f}") for value in drawn32[:, 0]])
    np.testing.assert_array_equal(drawn32[:, 0], written)


def test_the_range_holds_where_its_ends_are_float_residues():
    rng = np.random.default_rng(8)
    X = rng.choice([0.1 + 0.2, 0.5, 0.7, 0.9 + 1e-16], size=(400, 1))
    y = rng.integers(0, 2, 400)
    model = bayesgen.GaussianNB().fit(X, y)
    assert model.data_step_[0] == 0.2 and model.data_min_[0] == 0.1 + 0.2
    drawn, _ = model.sample(3000, support="training", rounding="training", random_state=1)
    assert np.all((drawn >= model.data_min_) & (drawn <= model.data_max_))
    assert set(np.unique(drawn)) == set(np.unique(X))


def test_bad_rounding_and_models_without_grids_are_refused_by_name():
    frame, y = _penguin_like()
    model = bayesgen.MixedNB().fit(frame, y)
    with pytest.raises(ValueError, match="rounding must be one of"):
        model.sample(3, rounding="decimals")
    counts = bayesgen.MultinomialNB().fit(np.arange(40).reshape(10, 4) * 2, np.arange(10) % 2)
    with pytest.raises(ValueError, match="MultinomialNB.sample does not take rounding"):
        counts.sample(3, rounding="training")
    # A model from before grids were kept.
    model.joint_ = model.joint_._replace(
        record=model.joint_.record._replace(decimals=None, step=None)
    )
    with pytest.raises(ValueError, match="rounding='training' needs the grid"):
        model.sample(3, rounding="training")
    drawn, _ = model.sample(3, random_state=0)  # the model's own values still draw
    assert drawn.shape == (3, 5)


def test_sparse_and_weighted_inputs():
    rng = np.random.default_rng(7)
    import scipy.sparse as sp

    counts = sp.random(40, 5, density=0.4, format="csr", random_state=1)
    model = bayesgen.MultinomialNB().fit(counts, np.arange(40) % 2)
    assert np.isnan(model.data_step_).all() and np.isnan(model.data_decimals_).all()
    X = np.column_stack([rng.integers(0, 10, 60) * 5.0, rng.integers(0, 10, 60) * 1.0])
    X[0] = [2.0, 0.5]  # a row of weight 0 is no row: off both grids
    weights = np.r_[0.0, np.ones(59)]
    weighted = bayesgen.GaussianNB().fit(X, np.arange(60) % 2, sample_weight=weights)
    np.testing.assert_array_equal(
        weighted.data_step_, [_reference(X[1:, 0])[1], _reference(X[1:, 1])[1]]
    )
