"""`ClassRows`: labelled rows scored under their own class's components only give the
memberships, objective and fit of every class's, bit for bit."""

import numpy as np
import pytest
from same_bits import assert_same_bits

from bayesgen import joint
from bayesgen.families.bernoulli import BernoulliFamily
from bayesgen.families.categorical import CategoricalFamily
from bayesgen.families.component_mixture import ClassRows, MixtureFamily
from bayesgen.families.composite import CompositeFamily
from bayesgen.families.exponential import ExponentialFamily
from bayesgen.families.gaussian import GaussianFamily
from bayesgen.families.histogram import HistogramFamily
from bayesgen.families.poisson import PoissonFamily
from bayesgen.inference import mixture_family_em

N_ROWS = 300
SETTINGS = joint.FitSettings("map", joint.ClassPriorRule(None, 1.0, "mle"))


class _Groups(dict):
    """Each group's rows by group name, with the table's shape (as MixedNB hands them on)."""

    shape = (N_ROWS, 9)


def _table(seed=0, n_kinds=2):
    """A composite of the families that slice their classes, with missing entries: many
    categorical columns, and values with a point mass (a histogram)."""
    rng = np.random.default_rng(seed)
    kinds = rng.choice(np.array(["red", "green", "blue"], dtype=object), (N_ROWS, n_kinds))
    kinds[::9, 0] = np.nan
    spikes = np.where(rng.random((N_ROWS, 2)) < 0.4, 0.0, rng.gamma(2.0, 3.0, (N_ROWS, 2)))
    spikes[::7, 1] = np.nan
    groups = {  # the EM learns the categories and the cells
        "categorical": (CategoricalFamily(alpha=1.0), kinds),
        "histogram": (HistogramFamily(bins=4), spikes),
    }
    family = CompositeFamily({name: (f, []) for name, (f, _) in groups.items()})
    return family, _Groups({name: rows for name, (_, rows) in groups.items()})


def _dense_groups(seed=0):
    """Groups of the families scored by dense BLAS products, which do not slice."""
    rng = np.random.default_rng(seed)
    positives = rng.exponential(2.0, (N_ROWS, 2))
    positives[::5, 1] = np.nan
    return {
        "exponential": (ExponentialFamily(), positives),
        "bernoulli": (BernoulliFamily(), (rng.random((N_ROWS, 30)) < 0.3).astype(np.float64)),
        "poisson": (PoissonFamily(), rng.poisson(3.0, (N_ROWS, 1)).astype(np.float64)),
    }


def _labelled(n_classes=3, seed=1, weights=None):
    labels = np.random.default_rng(seed).integers(0, n_classes, N_ROWS)
    weights = np.ones(N_ROWS) if weights is None else weights
    return labels, joint.responsibilities(labels, weights, n_classes)


def _fit_both(monkeypatch, family, rows, R, classes, **options):
    """The EM's fit with its rows class by class, and with every class's scores."""
    made = []
    class_rows = mixture_family_em._class_rows

    def recorded(*args):
        made.append(class_rows(*args))
        return made[-1]

    monkeypatch.setattr(mixture_family_em, "_class_rows", recorded)
    by_class = mixture_family_em.fit(family, rows, R, classes, SETTINGS, **options)
    monkeypatch.setattr(mixture_family_em, "_class_rows", lambda *args: None)
    every_class = mixture_family_em.fit(family, rows, R, classes, SETTINGS, **options)
    return made, by_class, every_class


@pytest.mark.parametrize(
    "case",
    [
        "unit weights",
        "sample weights and a row of weight 0",
        "counts per class",
        "one component, 30 columns",
    ],
)
def test_an_em_over_labelled_rows_class_by_class_fits_as_over_every_class(monkeypatch, case):
    composite, rows = _table(n_kinds=30 if case == "one component, 30 columns" else 2)
    weights = None
    n_components = 1 if case == "one component, 30 columns" else 3
    if case.startswith("sample weights") or case == "counts per class":
        weights = np.random.default_rng(2).uniform(0.2, 3.0, N_ROWS)
        weights[7] = 0.0
    if case == "counts per class":
        n_components = (1, 3, 2)
    family = MixtureFamily(composite, n_components)
    _, R = _labelled(weights=weights)
    made, by_class, every_class = _fit_both(
        monkeypatch, family, rows, R, np.arange(3), random_state=0, n_init=2
    )
    assert isinstance(made[0], ClassRows)
    labels = _labelled()[0]
    in_fit = labels if weights is None else labels[weights > 0]  # a row of weight 0 in none
    assert [index.size for index in made[0].index] == list(np.bincount(in_fit))
    assert by_class.n_iter > (1 if n_components == 1 else 3)
    assert (by_class.n_iter, by_class.converged) == (every_class.n_iter, every_class.converged)
    assert_same_bits(by_class.history, every_class.history)
    assert_same_bits(by_class.joint.params, every_class.joint.params)


def test_own_class_memberships_are_every_class_s_there_and_zero_elsewhere():
    composite, rows = _table()
    family = MixtureFamily(composite, 3)
    labels, R = _labelled()
    params = mixture_family_em.fit(family, rows, R, np.arange(3), SETTINGS, random_state=0)
    params = params.joint.params
    family, _ = family.learn(joint.rows_to_learn_from(family, rows, R))  # as the EM did
    encoded = family.encode(rows)
    scored = mixture_family_em._class_rows(family, encoded, R)
    gamma, log_likelihood = family.memberships(params, scored)
    every_gamma, every_log_likelihood = family.memberships(params, encoded)
    own = (np.arange(N_ROWS), labels)
    assert_same_bits(gamma[own], every_gamma[own])
    assert_same_bits(log_likelihood[own], every_log_likelihood[own])
    other = np.ones(gamma.shape[:2], bool)
    other[own] = False
    assert np.all(gamma[other] == 0.0) and np.all(log_likelihood[other] == 0.0)


def test_soft_weights_one_class_or_a_leaf_that_does_not_slice_score_every_class():
    composite, rows = _table()
    family = MixtureFamily(composite, 2)
    soft = np.random.default_rng(3).dirichlet(np.ones(3), N_ROWS)  # unlabelled rows' weights
    assert mixture_family_em._class_rows(family, rows, soft) is None
    _, one_class = _labelled(n_classes=1)
    assert mixture_family_em._class_rows(family, rows, one_class) is None
    _, R = _labelled()
    assert composite.slices_classes
    dense = {**_dense_groups(), "gaussian": (GaussianFamily("diag"), None)}
    for name, (group, _) in dense.items():
        assert not type(group).slices_classes
        wider = CompositeFamily({**composite.groups, name: (group, [])})
        assert not wider.slices_classes
        assert mixture_family_em._class_rows(MixtureFamily(wider, 2), rows, R) is None


def test_classes_of_takes_the_classes_rows_and_a_subclass_s_own_scores_do_not_slice():
    params = np.arange(12.0).reshape(4, 3)
    np.testing.assert_array_equal(
        CategoricalFamily().classes_of(params, np.array([1, 3])), params[[1, 3]]
    )
    composite, _ = _table()
    assert CategoricalFamily.slices_classes and HistogramFamily.slices_classes
    assert not GaussianFamily.slices_classes

    class OwnScores(HistogramFamily):
        def log_likelihood(self, params, X, *, row_terms=True):
            return super().log_likelihood(params, X, row_terms=row_terms)

    class SaysSo(OwnScores):
        slices_classes = True

    assert not OwnScores.slices_classes and SaysSo.slices_classes
    by_group = {name: np.arange(8.0).reshape(4, 2) for name in composite.groups}
    taken = composite.classes_of(by_group, np.array([0, 2]))
    assert set(taken) == set(composite.groups)
    for part in taken.values():
        np.testing.assert_array_equal(part, [[0.0, 1.0], [4.0, 5.0]])
