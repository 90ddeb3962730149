"""Category learning, encoding and re-laying of counts: pure functions of the categorical family."""

import numpy as np

from bayesgen.families import categorical


def test_categories_are_sorted_and_missing_values_left_out():
    """Sorted distinct values; unorderable ones keep their order of appearance."""
    X = np.array([["b", 2], ["a", None], [None, 1], ["b", 1]], dtype=object)
    known = [categorical.learn_categories(column) for column in X.T]
    assert [list(k) for k in known] == [["a", "b"], [1, 2]]
    mixed = categorical.learn_categories(np.array(["x", 1, "x"], dtype=object))
    assert list(mixed) == ["x", 1]


def test_codes_give_unseen_values_the_last_code_and_missing_ones_minus_one():
    """Known -> its index, unseen -> C_j, NaN/None -> -1."""
    known = [np.array(["a", "b"], dtype=object), np.array([1, 2], dtype=object)]
    codes = categorical.encode(known, np.array([["a", 2], ["z", np.nan], [None, 1]], dtype=object))
    np.testing.assert_array_equal(codes, [[0, 1], [2, -1], [-1, 0]])


def test_merging_adds_only_unseen_categories():
    """merge_categories returns known itself when nothing is new."""
    known = np.array(["a", "b"], dtype=object)
    grown = categorical.merge_categories(known, np.array(["c", "a", None], dtype=object))
    assert list(grown) == ["a", "b", "c"]
    assert categorical.merge_categories(known, np.array(["a"], dtype=object)) is known


def test_relaid_category_counts_keep_every_count_under_its_category():
    """A late category gets a zero column; every known category keeps its counts."""
    before = [np.array(["b", "d"], dtype=object), np.array([1], dtype=object)]
    after = [np.array(["a", "b", "c", "d"], dtype=object), np.array([1], dtype=object)]
    counts = np.array([[5.0, 7.0, 0.0, 3.0, 0.0], [1.0, 2.0, 0.0, 4.0, 0.0]])
    relaid = categorical.relay_category_counts(counts, before, after)
    expected = np.array([[0.0, 5.0, 0.0, 7.0, 0.0, 3.0, 0.0], [0.0, 1.0, 0.0, 2.0, 0.0, 4.0, 0.0]])
    np.testing.assert_array_equal(relaid, expected)
    assert relaid.dtype == counts.dtype
