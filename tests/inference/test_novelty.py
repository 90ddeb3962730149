"""``tail_probability``: uniform under the model for every missing pattern (issue 16, item 3).

The checks simulate rows from the fitted model itself, hide entries completely at random
and test the tail probabilities against Uniform(0, 1) with Kolmogorov–Smirnov. The same
test rejects the two definitions the issue names as candidates (the class-conditional
chi-square tail averaged over p(k | x_o), or under the most probable class), so it has the
power to tell a uniform definition from one that is not.
"""

import re

import numpy as np
import pytest
from scipy import stats
from sklearn.datasets import load_wine

from bayesgen import LDA, QDA, RDACV, BernoulliNB, ComplementNB, GaussianNB, MultinomialNB
from bayesgen.families.gaussian.missing import full_covariances
from bayesgen.families.gaussian.tail import chi_square_tail
from bayesgen.inference.novelty import reference_tail

FRACTIONS = (0.0, 0.2, 0.5)


def _hide(X, fraction, rng):
    """``X`` with entries missing completely at random; rows left with nothing dropped."""
    hidden = np.array(X, dtype=float)
    hidden[rng.random(hidden.shape) < fraction] = np.nan
    return hidden[~np.isnan(hidden).all(axis=1)]


@pytest.fixture(scope="module")
def wine():
    X, y = load_wine(return_X_y=True)
    return X[:, [0, 1, 6, 9, 12]], y


def _class_tails(model, X):
    """The two non-uniform candidates: chi-square tails averaged, and under the top class."""
    n_classes, n_features = model.means_.shape
    covariances = full_covariances(model.covariances_, model.covariance_type, n_classes, n_features)
    per_class = chi_square_tail(model.means_, covariances, X)
    posterior = model.predict_proba(X)
    averaged = np.sum(per_class * posterior, axis=1)
    top = per_class[np.arange(X.shape[0]), np.argmax(posterior, axis=1)]
    return averaged, top


@pytest.mark.parametrize("estimator", [QDA, LDA, GaussianNB], ids=["full", "tied", "diag"])
def test_gaussian_tail_is_uniform_for_every_missing_fraction(wine, estimator):
    X, y = wine
    model = estimator().fit(X, y)
    rows, _ = model.sample(2000, random_state=1)
    rng = np.random.default_rng(2)
    for fraction in FRACTIONS:
        hidden = _hide(rows, fraction, rng)
        tail = model.tail_probability(hidden, n_draws=20000, random_state=3)
        assert stats.kstest(tail, "uniform").pvalue > 0.01, fraction
        if fraction == 0.5:  # the same test rejects both class-conditional candidates
            for candidate in _class_tails(model, hidden):
                assert stats.kstest(candidate, "uniform").pvalue < 1e-3


def test_bernoulli_tail_is_uniform_despite_ties():
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 400)
    X = (rng.random((400, 8)) < np.where(y[:, None] == 1, 0.8, 0.3)).astype(float)
    model = BernoulliNB().fit(X, y)
    rows, _ = model.sample(2000, random_state=1)
    for fraction in FRACTIONS:
        hidden = _hide(rows, fraction, rng)
        tail = model.tail_probability(hidden, n_draws=20000, random_state=3)
        assert stats.kstest(tail, "uniform").pvalue > 0.01, fraction
    # Complete rows: the exact law of log p(X) by enumerating the 2^8 rows here too. The
    # tail lies between P(log p(X) < s) and P(log p(X) <= s) (BernoulliNB enumerates the
    # values itself, so exactly); the atoms are large, so either end alone would be far
    # from uniform.
    every_row = (np.arange(256)[:, None] >> np.arange(8) & 1).astype(float)
    law = np.sort(model.score_samples(every_row))
    probabilities = np.exp(law)
    assert probabilities.sum() == pytest.approx(1.0)
    scores = model.score_samples(rows.astype(float))
    below = np.array([probabilities[law < s - 1e-9].sum() for s in scores])
    at_most = np.array([probabilities[law <= s + 1e-9].sum() for s in scores])
    tail = model.tail_probability(rows.astype(float), n_draws=20000, random_state=5)
    assert np.all((tail >= below - 1e-12) & (tail <= at_most + 1e-12))
    assert stats.kstest(at_most, "uniform").pvalue < 1e-6


def test_multinomial_tail_compares_rows_of_the_same_total():
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 300)
    X = rng.poisson(2 + 2 * y[:, None], size=(300, 6)).astype(float)
    model = MultinomialNB().fit(X, y)
    rows, _ = model.sample(1500, random_state=1, lengths=rng.integers(5, 30, 1500))
    for fraction in (0.0, 0.2):
        hidden = _hide(rows, fraction, rng)
        tail = model.tail_probability(hidden, n_draws=4000, random_state=4)
        assert stats.kstest(tail, "uniform").pvalue > 0.01, fraction


def test_chi_square_tail_is_scipys_for_one_gaussian_class():
    rng = np.random.default_rng(0)
    n_features = 5
    mean = rng.normal(size=(1, n_features))
    root = rng.normal(size=(n_features, n_features))
    covariance = root @ root.T + np.eye(n_features)
    X = rng.multivariate_normal(mean[0], covariance, size=300) * 1.5
    X[rng.random(X.shape) < 0.3] = np.nan
    X[0] = np.nan
    tail = chi_square_tail(mean, covariance[None], X)[:, 0]
    for i, row in enumerate(X):
        observed = ~np.isnan(row)
        if not observed.any():
            assert tail[i] == 1.0
            continue
        deviation = row[observed] - mean[0, observed]
        block = covariance[np.ix_(observed, observed)]
        distance = deviation @ np.linalg.solve(block, deviation)
        assert tail[i] == pytest.approx(stats.chi2.sf(distance, observed.sum()), rel=1e-9)


def test_rank_among_model_rows_estimates_the_chi_square_tail():
    """For one class the rank of log p(x_o) among draws is the closed form, up to MC error."""
    rng = np.random.default_rng(1)
    mean, covariance = (
        np.array([1.0, -2.0, 0.5]),
        np.array([[2, 0.5, 0], [0.5, 1, 0.3], [0, 0.3, 1]]),
    )
    observed = np.array([True, False, True])
    block = covariance[np.ix_(observed, observed)]
    density = stats.multivariate_normal(mean[observed], block)
    n_draws = 100_000
    reference = density.logpdf(rng.multivariate_normal(mean, covariance, n_draws)[:, observed])
    rows = rng.multivariate_normal(mean, covariance, 200) * 1.3
    estimate = reference_tail(density.logpdf(rows[:, observed]), reference, rng.uniform(size=200))
    X = np.where(observed, rows, np.nan)
    exact = chi_square_tail(mean[None], covariance[None], X)[:, 0]
    error = np.sqrt(exact * (1 - exact) / n_draws) + 1 / n_draws
    assert np.all(np.abs(estimate - exact) < 5 * error)


def test_unseen_class_is_flagged_whatever_is_missing():
    X, y = load_wine(return_X_y=True)
    known, unseen = X[y < 2], X[y == 2]
    rng = np.random.default_rng(0)
    test = rng.random(known.shape[0]) < 0.3
    model = QDA().fit(known[~test], y[y < 2][~test])
    for fraction in (0.0, 0.5):
        known_tail = model.tail_probability(_hide(known[test], fraction, rng), random_state=0)
        unseen_tail = model.tail_probability(_hide(unseen, fraction, rng), random_state=0)
        assert np.median(unseen_tail) < 0.01 < np.median(known_tail), fraction
        assert np.mean(unseen_tail < 0.01) > 0.5 > np.mean(known_tail < 0.01) + 0.3


def test_all_missing_row_gets_one_and_results_repeat(wine):
    X, y = wine
    model = LDA().fit(X, y)
    rows = X[:4].copy()
    rows[1] = np.nan
    rows[2, :2] = np.nan
    first = model.tail_probability(rows, n_draws=500, random_state=7)
    assert first[1] == 1.0
    assert np.all((first > 0) & (first <= 1))
    np.testing.assert_array_equal(first, model.tail_probability(rows, n_draws=500, random_state=7))


@pytest.mark.parametrize(
    "bad",
    [
        lambda X: np.where(np.arange(X.shape[1]) == 0, np.inf, X),
        lambda X: np.where(np.arange(X.shape[1]) == 1, -np.inf, X),
        lambda X: X[:, :-1],
    ],
    ids=["inf", "-inf", "width"],
)
def test_bad_input_errors_as_score_samples_does(wine, bad):
    X, y = wine
    model = GaussianNB().fit(X, y)
    rows = bad(X[:3])
    with pytest.raises(ValueError) as expected:
        model.score_samples(rows)
    with pytest.raises(ValueError, match=re.escape(str(expected.value))):
        model.tail_probability(rows)


def test_n_draws_must_be_positive(wine):
    X, y = wine
    model = GaussianNB().fit(X, y)
    with pytest.raises(ValueError, match="n_draws"):
        model.tail_probability(X[:2], n_draws=0)


def test_every_density_has_a_tail_and_only_those(wine):
    X, y = wine
    search = RDACV(cv=2, reg_alphas=[0.0, 1.0], reg_gammas=[0.0]).fit(X, y)
    np.testing.assert_array_equal(
        search.tail_probability(X[:5], n_draws=200, random_state=0),
        search.best_estimator_.tail_probability(X[:5], n_draws=200, random_state=0),
    )
    counts = np.random.default_rng(0).poisson(3, size=(40, 4))
    assert not hasattr(ComplementNB().fit(counts, np.arange(40) % 2), "tail_probability")


def test_novelty_example_flags_gappy_wines_by_tail_probability():
    """The example's numbers: blanks hide the unseen cultivar from log p(x), not from t(x)."""
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "examples" / "novelty.py"
    spec = importlib.util.spec_from_file_location("novelty_example", path)
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    result = example.main()
    assert result["detection_tail"] > 0.9 and result["false_alarms_tail"] < 0.2
    assert result["detection_tail_gappy"] > result["detection_gappy_log_density"] + 0.15
    assert result["false_alarms_tail_gappy"] < 0.2


# NumPy's overflow warning from squaring the far row is left to the caller: scoring such
# rows in scaled coordinates is the part of issue 33's item still open.
@pytest.mark.filterwarnings("ignore:overflow encountered:RuntimeWarning")
def test_a_row_of_density_zero_is_as_unusual_as_can_be(wine):
    """Issue 33: a finite row far outside the data (log p(x) = -inf in float64) got a
    uniform draw as its tail (an infinite tie margin made every comparison NaN)."""
    X, y = wine
    model = QDA().fit(X, y)
    rows = X[:3].copy()
    rows[1, 0] = 1e154
    scores = model.score_samples(rows)
    assert np.isneginf(scores[1]) and np.isfinite(scores[[0, 2]]).all()
    tail = model.tail_probability(rows, n_draws=1000, random_state=0)
    assert tail[1] <= 1 / 1001
    # -inf ties only with reference rows of density 0 (none here): U / (N + 1).
    expected = reference_tail(scores[[1]], np.zeros(1000), np.array([0.5]), 1e-9)
    np.testing.assert_allclose(expected, 0.5 / 1001)
