"""`fixed_rows`: what a family derives from its rows alone, made once for an EM's iterations,
gives every score, statistic and fit bit for bit as the rows themselves do."""

import numpy as np
import pytest
from same_bits import assert_same_bits

from bayesgen import joint
from bayesgen.families.categorical import CategoricalFamily, FixedCodes
from bayesgen.families.component_mixture import MixtureFamily
from bayesgen.families.composite import CompositeFamily
from bayesgen.families.exponential import ExponentialFamily, FixedValues
from bayesgen.families.gaussian import GaussianFamily
from bayesgen.families.histogram import FixedCells, HistogramFamily
from bayesgen.families.namespace import as_numpy
from bayesgen.inference import mixture_family_em
from bayesgen.sparse_rows import KeptRows

N_ROWS = 240
SETTINGS = joint.FitSettings("map", joint.ClassPriorRule(None, 1.0, "mle"))


def _columns(seed=0):
    """Raw columns of every kind, each with missing entries: categories, values with a point
    mass at 0 (a histogram's atom), positive values (exponential)."""
    rng = np.random.default_rng(seed)
    kinds = rng.choice(np.array(["red", "green", "blue"], dtype=object), (N_ROWS, 2))
    kinds[::9, 0] = np.nan
    spikes = np.where(rng.random((N_ROWS, 2)) < 0.4, 0.0, rng.gamma(2.0, 3.0, (N_ROWS, 2)))
    spikes[::7, 1] = np.nan
    positives = rng.exponential(2.0, (N_ROWS, 3))
    positives[::5, 2] = np.nan
    return kinds, spikes, positives


def _leaves(seed=0):
    """``{name: (learned family, its encoded rows)}``."""
    kinds, spikes, positives = _columns(seed)
    categorical, _ = CategoricalFamily(alpha=1.0).learn(kinds)
    histogram, _ = HistogramFamily(bins=4).learn(spikes)
    return {
        "categorical": (categorical, categorical.encode(kinds)),
        "histogram": (histogram, histogram.encode(spikes)),
        "exponential": (ExponentialFamily(), positives),
    }


class _Groups(dict):
    """Each group's rows by group name, with the table's shape (as MixedNB hands them on)."""

    shape = (N_ROWS, 7)


def _composite(seed=0):
    leaves = _leaves(seed)
    family = CompositeFamily({name: (f, []) for name, (f, _) in leaves.items()})
    return family, _Groups({name: rows for name, (_, rows) in leaves.items()})


def _responsibilities(n_classes=3, seed=1):
    return np.random.default_rng(seed).dirichlet(np.ones(n_classes), N_ROWS)


def _cases():
    cases = dict(_leaves())
    cases["composite"] = _composite()
    return cases


@pytest.mark.parametrize("name", ["categorical", "histogram", "exponential", "composite"])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_scores_and_statistics_of_fixed_rows_are_those_of_the_rows_bit_for_bit(name, dtype):
    family, rows = _cases()[name]
    R = _responsibilities().astype(dtype)
    fixed = family.fixed_rows(rows)
    stats = family.suff_stats(rows, R, dtype)
    assert_same_bits(family.suff_stats(fixed, R, dtype), stats)
    params = family.point_estimate(family.prior(stats), stats, "mean")
    params = as_numpy(params, dtype)
    for _ in range(2):  # the second call reads what the first made
        for row_terms in (True, False):
            assert_same_bits(
                family.log_likelihood(params, fixed, row_terms=row_terms),
                family.log_likelihood(params, rows, row_terms=row_terms),
            )
        assert_same_bits(family.suff_stats(fixed, R, dtype), stats)


def test_each_family_fixes_what_it_derives_and_the_default_is_the_rows_themselves():
    leaves = _leaves()
    categorical, codes = leaves["categorical"]
    fixed = categorical.fixed_rows(codes)
    assert isinstance(fixed, FixedCodes) and fixed.shape == codes.shape
    one_hot = categorical.one_hot(fixed, np.float64)
    assert isinstance(one_hot, KeptRows) and categorical.one_hot(fixed, np.float64) is one_hot
    single = categorical.one_hot(fixed, np.float32)
    assert single is not one_hot and single.dtype == np.float32
    np.testing.assert_array_equal(single.toarray(), one_hot.toarray())
    histogram, values = leaves["histogram"]
    cells = histogram.fixed_rows(values)
    assert isinstance(cells, FixedCells) and cells.values is values
    np.testing.assert_array_equal(cells.codes.codes, histogram.cell_codes(values))
    exponential, positives = leaves["exponential"]
    split = exponential.fixed_rows(positives)
    assert isinstance(split, FixedValues)
    np.testing.assert_array_equal(split.present, ~np.isnan(positives))
    composite, rows = _composite()
    assert set(composite.fixed_rows(rows)) == set(rows)
    gaussian_rows = np.random.default_rng(2).normal(size=(10, 2))
    assert GaussianFamily("diag").fixed_rows(gaussian_rows) is gaussian_rows


def test_another_layout_or_other_cells_score_the_rows_as_their_own():
    """Fixed rows are scored by a family of another layout (more categories) or other cells
    (bins learned from other values) as that family scores the rows themselves."""
    leaves = _leaves()
    categorical, codes = leaves["categorical"]
    wider = categorical.with_learned(
        categories=[np.append(categorical.categories[0], "violet"), categorical.categories[1]]
    )
    assert tuple(wider.sizes) != tuple(categorical.sizes)
    fixed = categorical.fixed_rows(codes)
    categorical.one_hot(fixed)  # made for the first layout
    np.testing.assert_array_equal(wider.one_hot(fixed).toarray(), wider.one_hot(codes).toarray())
    histogram, values = leaves["histogram"]
    other, _ = HistogramFamily(bins=2).learn(_columns(seed=5)[1])
    R = _responsibilities()
    stats = other.suff_stats(values, R, np.float64)
    params = other.point_estimate(other.prior(stats), stats, "mean")
    cells = histogram.fixed_rows(values)
    assert_same_bits(other.log_likelihood(params, cells), other.log_likelihood(params, values))
    assert_same_bits(other.suff_stats(cells, R, np.float64), stats)


def test_fixed_values_are_checked_once_and_their_columns_at_every_call():
    exponential = ExponentialFamily()
    with pytest.raises(ValueError, match="Negative values"):
        exponential.fixed_rows(-np.ones((3, 2)))
    split = exponential.fixed_rows(np.ones((3, 2)))
    with pytest.raises(ValueError, match=r"shape \(n_samples, 3\); got \(3, 2\)"):
        exponential.log_likelihood(np.ones((2, 3)), split)


def test_an_em_over_fixed_rows_fits_as_over_the_rows_and_finds_the_cells_once(monkeypatch):
    """The components' EM (`mixture_family_em.fit`) hands every step the fixed rows: the fit,
    its history and its iterations are those of an EM over the rows themselves, and the
    histogram's cells are found once instead of at every step."""
    composite, rows = _composite()
    family = MixtureFamily(composite, 3)
    labels = np.arange(N_ROWS) % 2
    R = joint.responsibilities(labels, np.ones(N_ROWS), 2)
    classes = np.array([0, 1])
    found = []
    cell_codes = HistogramFamily.cell_codes

    def counted(self, X, xp=np):
        found.append(len(X))
        return cell_codes(self, X, xp)

    monkeypatch.setattr(HistogramFamily, "cell_codes", counted)
    built = []
    one_hot = CategoricalFamily.one_hot

    def counted_one_hot(self, codes, dtype=np.float64):
        if not isinstance(codes, FixedCodes):
            built.append(type(self).__name__)
        return one_hot(self, codes, dtype)

    monkeypatch.setattr(CategoricalFamily, "one_hot", counted_one_hot)
    fixed = mixture_family_em.fit(family, rows, R, classes, SETTINGS, random_state=0)
    # Once, never at a step (the exponential group keeps every class's scores: no
    # `ClassRows`, whose rows are fixed class by class).
    assert fixed.n_iter > 3 and found == [N_ROWS]
    assert sorted(built) == ["CategoricalFamily", "HistogramFamily"]
    for cls in (CategoricalFamily, HistogramFamily, ExponentialFamily, CompositeFamily):
        monkeypatch.setattr(cls, "fixed_rows", lambda self, X: X)
    found.clear()
    built.clear()
    plain = mixture_family_em.fit(family, rows, R, classes, SETTINGS, random_state=0)
    assert len(found) > plain.n_iter and len(built) > 2 * plain.n_iter
    assert (fixed.n_iter, fixed.converged) == (plain.n_iter, plain.converged)
    assert_same_bits(fixed.history, plain.history)
    assert_same_bits(fixed.joint.params, plain.joint.params)
