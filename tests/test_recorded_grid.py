"""The grid a column was recorded on, against exact decimal arithmetic.

The reference reads each value as the shortest decimal that writes it (Python's ``repr``,
through `decimal.Decimal`) and finds its decimals and the greatest common divisor of the
distances from the least value exactly, with no float64 scaling; the module's float64
path must agree with it.
"""

import math
from decimal import Decimal

import numpy as np
import pytest

from bayesgen import recorded_grid

FLOAT64 = recorded_grid.precision_of(np.float64)
FLOAT32 = recorded_grid.precision_of(np.float32)


def _reference(column, precision=FLOAT64) -> tuple[float, float]:
    """``(decimals, step)`` of a column by exact decimal arithmetic, as the module defines
    them: the fewest decimals ``d`` at which every value is within its type's precision
    (plus float64's error in scaling it) of a decimal, resolvable at `RESOLVED`."""
    observed = [Decimal(repr(float(value))) for value in column if not math.isnan(value)]
    if not observed:
        return np.nan, np.nan
    tolerance = Decimal(repr(precision)) + Decimal(repr(FLOAT64))
    for decimals in range(recorded_grid.MAX_DECIMALS + 1):
        units = [value.scaleb(decimals) for value in observed]
        if all(
            abs(unit - unit.to_integral_value()) <= tolerance * abs(unit)
            and tolerance * abs(unit) <= Decimal(repr(recorded_grid.RESOLVED))
            for unit in units
        ):
            whole = [int(unit.to_integral_value()) for unit in units]
            low = min(whole)
            step = math.gcd(*(unit - low for unit in whole))
            return float(decimals), float(Decimal(step).scaleb(-decimals))
    if len(set(observed)) == 1:
        return np.nan, 0.0
    return np.nan, np.nan


def _grid_column(rng, low: str, step: str, n: int, spread: int = 400):
    """``n`` values ``low + k step`` written as decimals, k from 0 up to ``spread``."""
    k = rng.integers(0, spread, n)
    k[0] = 0
    return np.array([float(Decimal(low) + int(i) * Decimal(step)) for i in k])


def _table(seed=0, n=3000):
    rng = np.random.default_rng(seed)
    columns = {
        "whole": _grid_column(rng, "172", "1", n),
        "tenths": _grid_column(rng, "32.1", "0.1", n),
        "twenty-fives": _grid_column(rng, "2700", "25", n),
        "halves off zero": _grid_column(rng, "0.5", "1", n),
        "three decimals": _grid_column(rng, "-1.234", "0.002", n),
        "continuous": rng.normal(size=n),
        "one value": np.full(n, 4.25),
        "large whole": _grid_column(rng, "123456789", "1", n),
        "millionths from zero": _grid_column(rng, "0", "0.000001", n, spread=9_000_000),
        "ten-millionths": _grid_column(rng, "0", "0.0000001", n),
        "millions": _grid_column(rng, "0", "1000000", n, spread=5),
    }
    table = np.column_stack(list(columns.values()))
    table[rng.random(table.shape) < 0.1] = np.nan
    table[0] = [172.0, 32.1, 2700.0, 0.5, -1.234, 0.3, 4.25, 123456789.0, 0.0, 0.0, 0.0]
    return table, list(columns)


def _grids(values, precision=FLOAT64):
    low, high = np.fmin.reduce(values, axis=0), np.fmax.reduce(values, axis=0)
    return recorded_grid.grids(values, low, high, precision)


def _expected(values, precision=FLOAT64):
    pairs = [_reference(values[:, j], precision) for j in range(values.shape[1])]
    return np.array([p[0] for p in pairs]), np.array([p[1] for p in pairs])


def test_decimals_and_steps_equal_exact_decimal_arithmetic():
    values, names = _table()
    decimals, step = _grids(values)
    expected_decimals, expected_step = _expected(values)
    np.testing.assert_array_equal(decimals, expected_decimals)
    np.testing.assert_array_equal(step, expected_step)
    found = dict(zip(names, step, strict=True))
    assert found["twenty-fives"] == 25.0 and found["tenths"] == 0.1
    assert found["halves off zero"] == 1.0 and found["three decimals"] == 0.002
    assert found["one value"] == 0.0 and np.isnan(found["continuous"])
    assert found["millionths from zero"] == 1e-6 and found["ten-millionths"] == 1e-7


def test_rows_the_probe_misses_are_found():
    values, _ = _table(seed=1, n=2000)
    values[1001, 2] = 2710.0  # off the 25 g grid the probe's rows propose
    values[1003, 1] = 40.05  # a second decimal
    values[1005, 0] = 180.5  # a decimal in a column of whole numbers
    values[1007, 3] = 7.12345678901  # 11 decimals: no grid
    values[1009, 10] = 3000001.0  # one unit off a grid of millions
    values[1011, 5] = 0.5  # continuous stays continuous
    decimals, step = _grids(values)
    expected = _expected(values)
    np.testing.assert_array_equal(decimals, expected[0])
    np.testing.assert_array_equal(step, expected[1])
    assert step[2] == 5.0 and step[1] == 0.05 and step[0] == 0.5 and step[10] == 1.0
    assert np.isnan(step[3])


@pytest.mark.parametrize(
    ("column", "decimals", "step"),
    [
        ([0.500000005, 0.50000001], 9, 5e-9),  # nine decimals, not one
        ([0.0, 1.0000001, 2.0], 7, 1e-7),
        ([0.1 + 0.2, 0.5, 0.7], 1, 0.2),  # 0.30000000000000004 is 0.3
        ([-60000000.5, 60000000.5], 1, 120000001.0),
        ([np.pi, np.pi], np.nan, 0.0),  # one value, more than 10 decimals
        ([1e12, 2e12, 3e12 + 0.5], np.nan, np.nan),  # too large to tell 0.5 from 0
    ],
)
def test_decimals_at_float64_precision(column, decimals, step):
    values = np.array(column)[:, None]
    found = _grids(values)
    np.testing.assert_array_equal(found, [[decimals], [step]])
    np.testing.assert_array_equal(found, np.array(_reference(values[:, 0]))[:, None])


def test_float32_values_are_read_at_their_own_precision():
    written = np.array([100.45, 99.1, 101.37, 100.0], dtype=np.float32)
    decimals, step = _grids(written.astype(np.float64)[:, None], FLOAT32)
    assert (decimals[0], step[0]) == (2.0, 0.01)
    assert np.isnan(_grids(written.astype(np.float64)[:, None])[1][0])  # read as float64


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_merging_two_parts_is_the_grid_of_their_union(seed):
    values, _ = _table(seed=seed, n=1200)
    rng = np.random.default_rng(seed)
    part = rng.random(values.shape[0]) < 0.4
    a, b = values[part], values[~part]
    b[:, 5] = np.nan  # one side never observes a column: the other's grid stands

    def record(X):
        low, high = np.fmin.reduce(X, axis=0), np.fmax.reduce(X, axis=0)
        return (low, high, *recorded_grid.grids(X, low, high, FLOAT64))

    merged = recorded_grid.merged(record(a), record(b))
    union = np.concatenate([a, b])
    np.testing.assert_array_equal(merged, _grids(union))
    np.testing.assert_array_equal(merged, _expected(union))


@pytest.mark.parametrize(
    ("first", "second"),
    [([np.pi, np.pi], [np.pi]), ([0.0, 0.5], [1.0, 2.0, 2e8]), ([0.500000005], [0.50000001])],
)
def test_merging_edge_cases_equals_one_fit(first, second):
    def record(column):
        X = np.array(column)[:, None]
        low, high = X.min(axis=0), X.max(axis=0)
        return (low, high, *recorded_grid.grids(X, low, high, FLOAT64))

    union = np.array(first + second)[:, None]
    merged = recorded_grid.merged(record(first), record(second))
    np.testing.assert_array_equal(merged, _grids(union))


def test_snapping_moves_each_value_to_the_nearest_grid_point_in_its_decimals():
    values, _ = _table(seed=3, n=500)
    low, high = np.fmin.reduce(values, axis=0), np.fmax.reduce(values, axis=0)
    decimals, step = _grids(values)
    grid = (low, high, decimals, step)
    np.testing.assert_array_equal(recorded_grid.snapped(values, *grid), values)
    rng = np.random.default_rng(4)
    drawn = values + rng.normal(scale=3.0, size=values.shape)
    moved = recorded_grid.snapped(drawn, *grid)
    for j in np.flatnonzero(step > 0):
        grid_low, grid_step = Decimal(repr(float(low[j]))), Decimal(repr(float(step[j])))
        for before, after in zip(drawn[:, j], moved[:, j], strict=True):
            if math.isnan(before):
                assert math.isnan(after)
                continue
            k = (Decimal(repr(float(after))) - grid_low) / grid_step
            assert k == k.to_integral_value()  # exactly on the grid, as written
            assert abs(after - before) <= step[j] / 2 + 1e-9 * max(1.0, abs(before))
    np.testing.assert_array_equal(moved[:, 5], drawn[:, 5])  # continuous: as drawn
    assert np.all((moved[:, 6] == 4.25) | np.isnan(drawn[:, 6]))  # one value: that value


def test_a_grid_whose_ends_are_float_residues_keeps_values_inside():
    column = np.array([0.1 + 0.2, 0.5, 0.7, 0.9 + 1e-16])[:, None]
    low, high = column.min(axis=0), column.max(axis=0)
    grid = (low, high, *_grids(column))
    inside = np.linspace(low[0], high[0], 1001)[:, None]
    moved = recorded_grid.snapped(inside, *grid)
    assert np.all((moved >= low) & (moved <= high))
    assert set(np.unique(moved)) == {low[0], 0.5, 0.7, high[0]}
