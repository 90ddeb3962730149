"""Multiple imputation's copies made side by side (`bayesgen.inference.multiple_imputation`):
each copy's class weights are the plug-in posterior under its own draw, and its missing
entries are drawn from its own draw's Gaussian conditional, whatever the stacking."""

import tracemalloc

import numpy as np
import pytest

from bayesgen import LDA, QDA, GaussianNB, MultinomialNB
from bayesgen.families.gaussian import missing
from bayesgen.inference import multiple_imputation
from bayesgen.joint import with_params


@pytest.fixture(scope="module")
def table():
    """Three correlated Gaussian classes of 25 rows in 3 dimensions, a fifth of it hidden."""
    rng = np.random.default_rng(5)
    mixing = np.array([[1.0, 0.0, 0.0], [0.8, 0.6, 0.0], [0.3, -0.4, 0.9]])
    X = np.concatenate([rng.normal(size=(25, 3)) @ mixing + 2.5 * k for k in range(3)])
    y = np.repeat([0, 1, 2], 25)
    gappy = np.where(rng.uniform(size=X.shape) < 0.2, np.nan, X)
    gappy[np.isnan(gappy).all(axis=1), 0] = 1.0  # no row without an observed entry
    return X, y, gappy


def _drawn(model, draws, index):
    sites = {name: value[index] for name, value in draws.items() if name != "class_prior"}
    value = with_params(model.joint_, model._feature_family().params_from_sites(sites))
    return value._replace(class_probabilities=np.asarray(draws["class_prior"][index]))


@pytest.mark.parametrize("make", [LDA, QDA, GaussianNB, MultinomialNB])
def test_each_copys_class_weights_are_the_plugin_posterior_under_its_draw(table, make):
    X, y, gappy = table
    rows = np.abs(np.round(X * 3)) if make is MultinomialNB else gappy
    model = make().fit(np.abs(np.round(X * 3)) if make is MultinomialNB else X, y)
    draws = model._exact_draws(np.random.default_rng(0), 7)
    known_rows = np.arange(rows.shape[0]) % 4 == 0
    known = (known_rows, np.eye(3)[y[known_rows]])
    weights, n_impossible = multiple_imputation.class_weights_under_draws(
        model._feature_family(), model.joint_, rows, draws, known, np.dtype(np.float64)
    )
    assert weights.shape == (7, rows.shape[0], 3) and n_impossible == 0
    for i in range(7):
        expected = model._plugin_posterior(rows, log=False, value=_drawn(model, draws, i))
        expected[known_rows] = known[1]
        np.testing.assert_allclose(weights[i], expected, rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("make", [LDA, QDA, GaussianNB])
@pytest.mark.parametrize("stack_entries", [2**22, 1])
def test_each_copy_is_drawn_from_its_own_draws_conditional(table, make, stack_entries, monkeypatch):
    """One gappy row repeated 3,000 times, of a known class, under three draws: each copy's
    filled entries have that draw's conditional mean and covariance (tied draws become one
    full covariance per draw and class side by side; stacks of one copy or of all)."""
    monkeypatch.setattr(multiple_imputation, "STACK_ENTRIES", stack_entries)
    X, y, _ = table
    model = make().fit(X, y)
    family = model._feature_family()
    draws = model._exact_draws(np.random.default_rng(1), 3)
    row = np.array([[np.nan, 1.5, np.nan]])
    rows = np.repeat(row, 3000, axis=0)
    weights = np.zeros((3, rows.shape[0], 3))
    weights[:, :, 1] = 1.0
    copies = multiple_imputation.copies_under_draws(
        family, rows, draws, weights, np.random.default_rng(2)
    )
    conditionals = []
    for i in range(3):
        params = family.params_from_sites({k: v[i] for k, v in draws.items()})
        (mean,), covariance = missing.conditional(
            np.asarray(params.means),
            family.full_covariances(params),
            row,
            np.array([0]),
            np.isnan(row[0]),
            1,
        )
        conditionals.append((mean, covariance))
    for copy, (mean, covariance) in zip(copies, conditionals, strict=True):
        filled = copy[:, [0, 2]]
        np.testing.assert_array_equal(copy[:, 1], 1.5)
        # Each draw's own conditional: its mean within 4 standard errors, its covariance
        # (a Wishart of 2,999 degrees of freedom) within 4 of its standard errors.
        error = np.sqrt(np.diag(covariance) / rows.shape[0])
        assert np.all(np.abs(filled.mean(axis=0) - mean) < 4 * error)
        spread = np.cov(filled.T)
        scale = np.sqrt((covariance**2 + np.outer(np.diag(covariance), np.diag(covariance))) / 3000)
        assert np.all(np.abs(spread - covariance) < 4 * scale)
    # The draws' conditional means lie further apart than the check's 4 standard errors,
    # so a copy filled under another draw's conditional would fail it.
    means = np.array([mean for mean, _ in conditionals])
    assert np.ptp(means, axis=0).max() > 8 * error.max()


def test_stacks_bound_the_wide_arrays_whatever_the_number_of_copies():
    """A count family's conditional holds (rows x classes x features) over the stack's
    draws side by side, a Gaussian's (classes x features x features): both stay within
    STACK_ENTRIES, so 30 copies of 100 rows of 400 word counts stay tens of MiB (they took
    933 MiB when only the weights were bounded)."""
    for n_rows, n_classes, n_features in [(100, 3, 400), (171, 2, 30), (10, 10, 500), (1, 1, 1)]:
        size = multiple_imputation._stack_size(n_rows, n_classes, n_features)
        limit = multiple_imputation.STACK_ENTRIES
        assert size == 1 or (
            size**2 * n_rows * n_classes * n_features <= limit
            and size * n_classes * n_features**2 <= limit
        )
    rng = np.random.default_rng(0)
    X = rng.poisson(1.0, (300, 400)).astype(float)
    rows = X[:100].copy()
    rows[rng.random(rows.shape) < 0.1] = np.nan
    model = MultinomialNB().fit(X, np.arange(300) % 3)
    tracemalloc.start()
    try:
        copies = model.impute(rows, method="sample", n_imputations=30, random_state=0)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert copies.shape == (30, 100, 400) and not np.isnan(copies).any()
    assert peak < 150 * 2**20


@pytest.mark.parametrize("labels", [lambda y: y[:-1], lambda y: np.r_[y, 0], lambda y: y[:, None]])
def test_labels_of_another_shape_are_refused_by_name(table, labels):
    X, y, gappy = table
    with pytest.raises(ValueError, match=r"y must have one label per row of X, shape \(75,\)"):
        QDA().fit(X, y).impute(gappy, method="sample", y=labels(y), n_imputations=2)
