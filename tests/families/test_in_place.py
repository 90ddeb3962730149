"""bayesgen.families.in_place: arithmetic written over a new array gives the new array's
values, and a new array wherever writing over it would not."""

import numpy as np
import pytest
import scipy.sparse as sp

from bayesgen.families import count_data
from bayesgen.families.in_place import add_in_place
from bayesgen.families.linear import LinearLogLikelihood


@pytest.mark.parametrize("operation", [np.add, np.subtract])
@pytest.mark.parametrize("order", ["C", "F"])
def test_written_over_the_array_with_the_values_of_a_new_one(operation, order):
    rng = np.random.default_rng(0)
    total = np.asarray(rng.normal(size=(50, 7)), order=order)
    for term in (rng.normal(size=7), rng.normal(size=(50, 1)), rng.normal(size=(50, 7))):
        expected = operation(total, term)
        result = add_in_place(total, term, operation)
        assert result is total
        np.testing.assert_array_equal(result, expected)
        assert result.flags.f_contiguous == (order == "F")


def test_a_new_array_where_writing_over_it_would_change_dtype_shape_or_a_read_only_array():
    total = np.arange(6, dtype=np.float32).reshape(2, 3)
    wider = np.ones(3, dtype=np.float64)
    result = add_in_place(total, wider)
    assert result is not total and result.dtype == np.float64
    np.testing.assert_array_equal(total, np.arange(6, dtype=np.float32).reshape(2, 3))
    row = np.ones((1, 3))
    larger = add_in_place(row, np.ones((4, 1)))
    assert larger.shape == (4, 3) and row.shape == (1, 3)
    frozen = np.ones((2, 3))
    frozen.flags.writeable = False
    assert add_in_place(frozen, 1.0) is not frozen
    np.testing.assert_array_equal(frozen, np.ones((2, 3)))


def test_count_evaluation_is_the_expression_it_replaced_bit_for_bit():
    """`count_data.evaluate` with impossible counts, missing features and a row term: the
    values, -inf entries and layout of the earlier out-of-place expression."""
    rng = np.random.default_rng(1)
    n, d, k = 60, 9, 4
    dense = rng.poisson(0.7, size=(n, d)).astype(np.float64)
    missing = (rng.random((n, d)) < 0.1).astype(np.float64)
    dense[missing > 0] = 0.0
    weights = rng.normal(size=(k, d))
    zero_weights = (rng.random((k, d)) < 0.2).astype(np.float64)
    form = LinearLogLikelihood(
        weights,
        rng.normal(size=k),
        zero_weights,
        np.zeros(k),
        rng.normal(size=(k, d)),
        np.zeros((k, d)),
    )
    row_term = rng.normal(size=n)
    for X, gaps in ((dense, missing), (sp.csr_matrix(dense), sp.csr_matrix(missing))):
        result = count_data.evaluate(form, X, row_term, gaps)
        times = count_data._times
        impossible = times(X, zero_weights) + form.zero_bias - times(gaps, form.feature_zero_bias)
        expected = times(X, weights) + form.bias - times(gaps, form.feature_bias)
        expected = np.where(impossible > 0, -np.inf, expected) + row_term[:, None]
        np.testing.assert_array_equal(result.view(np.uint64), expected.view(np.uint64))
        assert np.isneginf(result).any() and np.isfinite(result).any()
        assert result.flags.f_contiguous == expected.flags.f_contiguous


def test_whole_number_counts_become_float_where_a_class_is_impossible():
    """As ``numpy.where`` made them: -inf needs a float array."""
    X = np.array([[1, 0], [0, 2], [3, 1]])
    form = LinearLogLikelihood(
        np.array([[1, 2], [3, 4]]),
        np.array([1, -1]),
        np.array([[0, 1], [0, 0]]),
        np.zeros(2),
        None,
        None,
    )
    result = count_data.evaluate(form, X)
    assert result.dtype == np.float64
    np.testing.assert_array_equal(result, [[2, 2], [-np.inf, 7], [-np.inf, 12]])
