"""``MixtureFamily(leaf, n_components="auto")`` in ``FamilyClassifier``: each class's count
chosen by held-out log-likelihood for any leaf, with no estimator code per family.

References: the counts of the clusters the rows were drawn from; the model with those
counts given (bit for bit, so the choice is what the fit uses); the choice computed
directly by `bayesgen.inference.component_count`; the model-file round trip.
"""

import numpy as np
import pytest

import bayesgen
from bayesgen import FamilyClassifier
from bayesgen.families.categorical import CategoricalFamily
from bayesgen.families.component_mixture import MixtureFamily
from bayesgen.families.poisson import PoissonFamily
from bayesgen.inference import component_count, mixture_family_em
from bayesgen.joint import responsibilities


def _clustered_counts(seed=0, n=600):
    """Class 0: one Poisson cluster (rate 4 everywhere); class 1: three clusters, each
    with one of three columns high (rate 12) and the others low (rate 1)."""
    rng = np.random.default_rng(seed)
    y = np.repeat([0, 1], n // 2)
    cluster = rng.integers(0, 3, n)
    rates = np.where(np.arange(3) == cluster[:, None], 12.0, 1.0)
    rates[y == 0] = 4.0
    return rng.poisson(rates).astype(float), y


def _latent_categories(seed=0, n=900):
    """Class 0: four independent uniform categorical columns; class 1: two latent patterns,
    each making all four columns nearly one value (0 or 2)."""
    rng = np.random.default_rng(seed)
    y = np.repeat([0, 1], n // 2)
    pattern = rng.integers(0, 2, n) * 2
    noisy = rng.uniform(size=(n, 4)) < 0.1
    X = np.where(noisy, rng.integers(0, 3, (n, 4)), pattern[:, None])
    X[y == 0] = rng.integers(0, 3, (n // 2, 4))
    return X.astype(float), y


@pytest.mark.parametrize(
    ("leaf", "data", "expected"),
    [
        (PoissonFamily(), _clustered_counts, [1, 3]),
        (CategoricalFamily(), _latent_categories, [1, 2]),
    ],
)
def test_auto_finds_each_class_count_and_fits_with_it(leaf, data, expected):
    X, y = data()
    auto = FamilyClassifier(family=MixtureFamily(leaf, "auto"), random_state=0).fit(X, y)
    np.testing.assert_array_equal(auto.n_components_, expected)
    choice = auto.component_choice_
    assert choice.scores.shape == (5, 3, 2)
    np.testing.assert_array_equal(choice.candidates, [1, 2, 3, 4, 5])
    # The fit is the model with those counts given, bit for bit.
    given = FamilyClassifier(family=MixtureFamily(leaf, tuple(expected)), random_state=0)
    given.fit(X, y)
    np.testing.assert_array_equal(auto.predict_proba(X), given.predict_proba(X))
    assert auto.family_.n_components == tuple(expected)
    # Refitting chooses afresh, the same way for the same random_state.
    np.testing.assert_array_equal(auto.fit(X, y).n_components_, expected)


def test_the_choice_is_component_counts_by_held_out_log_likelihood():
    """The report equals `component_count.choose` run by hand with the same folds, starts
    and fits (each candidate's EM from one random start drawn from the same generator)."""
    X, y = _clustered_counts(n=300)
    auto = FamilyClassifier(family=MixtureFamily(PoissonFamily(), "auto"), random_state=3)
    auto.fit(X, y)
    classes, index = np.unique(y, return_inverse=True)
    R = responsibilities(index, np.ones(len(y)), 2)
    rng = np.random.RandomState(3)
    seed = rng.randint(2**31 - 1)
    settings = auto._fit_settings()

    def fit(count, rows):
        rows_per_class = np.count_nonzero(R[rows] > 0, axis=0)
        family = MixtureFamily(PoissonFamily(), tuple(np.minimum(count, rows_per_class)))
        value = mixture_family_em.fit(
            family, X[rows], R[rows], classes, settings, random_state=rng
        ).joint
        return family, value

    def log_likelihood(model, rows):
        family, value = model
        return family.log_likelihood(value.params, X[rows])

    expected = component_count.choose(fit, log_likelihood, R, range(1, 6), random_state=seed)
    np.testing.assert_array_equal(auto.component_choice_.scores, expected.scores)
    np.testing.assert_array_equal(auto.n_components_, expected.counts)


def test_auto_is_kept_by_a_model_file_and_refused_where_nothing_chooses(tmp_path):
    X, y = _clustered_counts(n=300)
    model = FamilyClassifier(family=MixtureFamily(PoissonFamily(), "auto"), random_state=0)
    model.fit(X, y)
    model.save(tmp_path / "auto.bgm")
    loaded = bayesgen.load(tmp_path / "auto.bgm")
    np.testing.assert_array_equal(loaded.n_components_, model.n_components_)
    np.testing.assert_array_equal(loaded.predict_proba(X), model.predict_proba(X))
    # Given counts afterwards: the earlier choice is forgotten.
    model.set_params(family=MixtureFamily(PoissonFamily(), 2)).fit(X, y)
    assert not hasattr(model, "n_components_") and not hasattr(model, "component_choice_")
    classes, index = np.unique(y, return_inverse=True)
    with pytest.raises(ValueError, match="n_components='auto' is chosen by a fit"):
        mixture_family_em.fit(
            MixtureFamily(PoissonFamily(), "auto"),
            X,
            responsibilities(index, np.ones(300), 2),
            classes,
        )
    with pytest.raises(ValueError, match="n_components must be an integer >= 1, a sequence"):
        FamilyClassifier(family=MixtureFamily(PoissonFamily(), "many")).fit(X, y)


def test_a_row_no_candidate_explains_leaves_the_choice_to_the_other_rows():
    """One entry of class 1 set to a category no training fold showed: every candidate
    gives that held-out row density zero, which says nothing about which is better. The
    choice is the clean table's (before, every candidate scored -inf in that fold and the
    class fell back to one component)."""
    X, y = _latent_categories()
    clean = FamilyClassifier(family=MixtureFamily(CategoricalFamily(), "auto"), random_state=0)
    X[600, 0] = 7.0
    odd = FamilyClassifier(family=MixtureFamily(CategoricalFamily(), "auto"), random_state=0)
    odd.fit(X, y)  # no RuntimeWarning (0 * -inf) escapes: the suite makes warnings errors
    np.testing.assert_array_equal(odd.n_components_, clean.fit(*_latent_categories()).n_components_)
    np.testing.assert_array_equal(odd.n_components_, [1, 2])
    assert np.isfinite(odd.component_choice_.scores[:, :, 1]).all()


def test_unexplained_rows_and_empty_folds_by_hand():
    """`component_count.choose` with scores made up: a row -inf under every candidate is left
    out; a row -inf under one candidate only sinks that candidate; a class with no row
    explained in a fold scores NaN there and the fold drops out of its choice."""
    R = np.repeat(np.eye(2), 6, axis=0)
    table = {  # per candidate, each row's log p(x | k) (both columns alike)
        1: np.r_[np.full(6, -2.0), np.full(6, -3.0)],
        2: np.r_[np.full(6, -2.0), np.full(6, -1.0)],
    }
    table[1][[0, 6]] = table[2][[0, 6]] = -np.inf  # row 0 and row 6: nobody explains them

    def fit(count, rows):
        return count

    def log_likelihood(count, rows):
        return np.repeat(table[count][rows, None], 2, axis=1)

    choice = component_count.choose(fit, log_likelihood, R, [1, 2], n_folds=2, random_state=0)
    assert np.isfinite(choice.scores).all()
    np.testing.assert_array_equal(choice.counts, [1, 2])  # class 0: a tie -> fewest
    table[2][7] = -np.inf  # candidate 2 cannot explain a row candidate 1 can
    sunk = component_count.choose(fit, log_likelihood, R, [1, 2], n_folds=2, random_state=0)
    assert np.isneginf(sunk.scores[1, :, 1]).sum() == 1
    np.testing.assert_array_equal(sunk.counts, [1, 1])
    table[1][6:] = table[2][6:] = -np.inf  # class 1: no row explained anywhere
    blind = component_count.choose(fit, log_likelihood, R, [1, 2], n_folds=2, random_state=0)
    assert np.isnan(blind.scores[:, :, 1]).all()
    np.testing.assert_array_equal(blind.counts, [1, 1])
