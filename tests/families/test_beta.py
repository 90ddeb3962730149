"""`BetaFamily`: a non-conjugate leaf for bounded values, fitted by maximum likelihood, used
with no estimator (added by following docs/adding-a-family.md, no edit elsewhere).

References: SciPy's ``beta.fit`` (maximum likelihood) and ``beta.logpdf``, the likelihood
equations themselves, weights against repeated rows, and the family inside a per-class
mixture through `FamilyClassifier`.
"""

import numpy as np
import pytest
import scipy.stats
from scipy.special import psi

import bayesgen
from bayesgen import FamilyClassifier, joint
from bayesgen.families.beta import BetaFamily, solve_shapes
from bayesgen.families.component_mixture import MixtureFamily
from bayesgen.inference import mixture_family_em

ML = joint.FitSettings("mle")
LOWER, UPPER = -2.0, 8.0  # a scale of 10 points from -2


def _data(seed=0, n=600):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    a = np.array([[0.7, 6.0], [3.0, 0.9]])
    b = np.array([[2.0, 1.5], [3.0, 0.4]])
    return LOWER + (UPPER - LOWER) * rng.beta(a[y], b[y]), y


def _one_hot(y):
    classes, index = np.unique(y, return_inverse=True)
    return classes, joint.responsibilities(index, np.ones(len(y)), classes.shape[0])


def _bimodal(n=2000):
    """Two peaks in each class (0.1 and 0.8 of the scale), in opposite proportions."""
    rng = np.random.default_rng(3)
    y = rng.integers(0, 2, n)
    mode = rng.integers(0, 2, n)
    centre = np.where(mode == y, 0.1, 0.8)[:, None]
    unit = rng.beta(40.0 * centre, 40.0 * (1.0 - centre), size=(n, 2))
    return LOWER + (UPPER - LOWER) * unit, y


def test_the_shapes_solve_the_likelihood_equations():
    a = np.array([0.05, 0.6, 1.0, 3.0, 40.0, 2000.0])
    b = np.array([0.3, 5.0, 1.0, 0.2, 70.0, 10.0])
    g1, g2 = psi(a) - psi(a + b), psi(b) - psi(a + b)
    solved = solve_shapes(g1, g2)
    np.testing.assert_allclose(solved[0], a, rtol=1e-9)
    np.testing.assert_allclose(solved[1], b, rtol=1e-9)


def test_newton_converges_over_a_wide_range_of_shapes():
    """Shapes from 0.05 to 1,000 (log-uniform): every solution satisfies both likelihood
    equations to rounding, so none was left unconverged by the step limit."""
    rng = np.random.default_rng(7)
    a, b = np.exp(rng.uniform(np.log(0.05), np.log(1000.0), size=(2, 40, 50)))
    g1, g2 = psi(a) - psi(a + b), psi(b) - psi(a + b)
    x, z = solve_shapes(g1, g2)
    assert x.shape == z.shape == (40, 50)
    np.testing.assert_allclose(psi(x) - psi(x + z), g1, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(psi(z) - psi(x + z), g2, rtol=1e-10, atol=1e-12)


def test_values_all_equal_give_a_concentrated_beta_at_that_value():
    u = 0.3
    a, b = solve_shapes(np.log([u]), np.log([1 - u]))
    assert a / (a + b) == pytest.approx(u, rel=1e-6)
    assert a + b > 1e7  # about 1 / MIN_SPREAD: a point mass in all but name


def test_the_estimate_is_scipy_maximum_likelihood_per_class_and_feature():
    X, y = _data()
    classes, R = _one_hot(y)
    value = joint.fit(BetaFamily(LOWER, UPPER), X, R, classes, ML)
    for k in range(2):
        for j in range(2):
            a, b, _, _ = scipy.stats.beta.fit(
                X[y == k, j], floc=LOWER, fscale=UPPER - LOWER, method="MLE"
            )
            assert value.params.a[k, j] == pytest.approx(a, rel=1e-4)
            assert value.params.b[k, j] == pytest.approx(b, rel=1e-4)


def test_log_likelihood_is_scipy_with_missing_entries_dropped():
    X, y = _data(seed=1, n=50)
    classes, R = _one_hot(y)
    family = BetaFamily(LOWER, UPPER)
    value = joint.fit(family, X, R, classes, ML)
    gappy = X.copy()
    gappy[::3, 1] = np.nan
    got = family.log_likelihood(value.params, gappy)
    a, b = value.params
    terms = scipy.stats.beta.logpdf(gappy[:, None, :], a[None], b[None], LOWER, UPPER - LOWER)
    np.testing.assert_allclose(got, np.nansum(terms, axis=2), rtol=1e-12)


def test_weights_are_repeated_rows_and_batches_merge():
    X, y = _data(seed=2, n=60)
    classes, R = _one_hot(y)
    weights = np.arange(60) % 3
    repeated = np.repeat(np.arange(60), weights)
    family = BetaFamily(LOWER, UPPER)
    weighted = joint.fit(family, X, R * weights[:, None], classes, ML)
    copies = joint.fit(family, X[repeated], R[repeated], classes, ML)
    np.testing.assert_allclose(weighted.params.a, copies.params.a, rtol=1e-10)
    merged = joint.update(
        family, joint.fit(family, X[:30], R[:30], classes, ML), X[30:], R[30:], ML
    )
    whole = joint.fit(family, X, R, classes, ML)
    np.testing.assert_allclose(merged.params.b, whole.params.b, rtol=1e-10)


def test_draws_and_imputation_follow_the_fitted_beta():
    family = BetaFamily(LOWER, UPPER)
    X = _data(n=4000)[0]
    params = family.point_estimate(None, family.suff_stats(X, np.ones((4000, 1))), "mle")
    drawn = family.draw_features(params, np.zeros(50000, dtype=int), np.random.default_rng(0))["X"]
    assert LOWER < drawn.min() and drawn.max() < UPPER
    a, b = params.a[0], params.b[0]
    variance = (UPPER - LOWER) ** 2 * a * b / ((a + b) ** 2 * (a + b + 1))
    np.testing.assert_allclose(drawn.mean(axis=0), family.mean(params)[0], rtol=0.02)
    np.testing.assert_allclose(drawn.var(axis=0), variance, rtol=0.05)
    gappy = np.array([[np.nan, 1.0], [2.0, np.nan]])
    filled = family.conditional(params, gappy, np.ones((2, 1)), "mean", None)
    np.testing.assert_allclose(filled[[0, 1], [0, 1]], family.mean(params)[0], rtol=1e-12)
    drawn = family.conditional(params, gappy, np.ones((2, 1)), "sample", np.random.default_rng(1))
    assert LOWER < drawn[0, 0] < UPPER and drawn[0, 1] == 1.0


def test_draws_with_small_shapes_stay_strictly_inside_the_bounds():
    """rng.beta gives exactly 0 or 1 for small shapes (about 15 % of draws at 0.05): such
    draws are moved inside, where the family can score them."""
    family = BetaFamily(LOWER, UPPER)
    params = family.params_from_sites(
        {"beta_a": np.full((1, 2), 0.05), "beta_b": np.full((1, 2), 0.05)}
    )
    drawn = family.draw_features(params, np.zeros(20000, dtype=int), np.random.default_rng(4))["X"]
    assert LOWER < drawn.min() and drawn.max() < UPPER
    assert np.isfinite(family.log_likelihood(params, drawn)).all()
    gappy = np.full((5000, 2), np.nan)
    filled = family.conditional(
        params, gappy, np.ones((5000, 1)), "sample", np.random.default_rng(5)
    )
    assert LOWER < filled.min() and filled.max() < UPPER


def test_a_mixture_of_beta_leaves_per_class_needs_no_estimator_code():
    """U-shaped and peaked values in each class: two Beta components per class fit them
    better than one, EM never lowers its objective, and draws stay inside the bounds."""
    X, y = _bimodal()
    classes, R = _one_hot(y)
    family = MixtureFamily(BetaFamily(LOWER, UPPER), 2)
    fitted = mixture_family_em.fit(family, X, R, classes, ML, random_state=0, n_init=2)
    assert np.diff(fitted.history).min() >= -1e-9 * abs(fitted.history[-1])
    single = joint.fit(BetaFamily(LOWER, UPPER), X, R, classes, ML)
    mixture_fit = joint.log_joint(family, fitted.joint, X)[np.arange(2000), y].sum()
    single_fit = joint.log_joint(BetaFamily(LOWER, UPPER), single, X)[np.arange(2000), y].sum()
    assert mixture_fit > single_fit + 500
    model = FamilyClassifier(family=family, estimate="mle", random_state=0).fit(X, y)
    drawn, _ = model.sample(1000, random_state=0)
    assert LOWER < drawn.min() and drawn.max() < UPPER


def test_the_model_is_saved_and_loaded(tmp_path):
    X, y = _bimodal(600)
    model = FamilyClassifier(family=MixtureFamily(BetaFamily(LOWER, UPPER), 2), estimate="mle")
    model.set_params(random_state=0).fit(X, y)
    model.save(tmp_path / "beta.bgm")
    loaded = bayesgen.load(tmp_path / "beta.bgm")
    np.testing.assert_array_equal(loaded.predict_proba(X), model.predict_proba(X))
    np.testing.assert_array_equal(loaded.score_samples(X), model.score_samples(X))


def test_bad_input_and_settings_are_refused():
    X, y = _data(n=40)
    with pytest.raises(ValueError, match=r"strictly between -2.0 and 8.0 \(a scaled Beta"):
        FamilyClassifier(family=BetaFamily(LOWER, UPPER), estimate="mle").fit(X + 5.0, y)
    with pytest.raises(ValueError, match="maximum likelihood only: use estimate='mle'"):
        FamilyClassifier(family=BetaFamily(LOWER, UPPER)).fit(X, y)  # default: "map"
    with pytest.raises(ValueError, match="lower < upper; got lower=3, upper=1"):
        FamilyClassifier(family=BetaFamily(3, 1), estimate="mle").fit(X, y)
    model = FamilyClassifier(family=BetaFamily(LOWER, UPPER), estimate="mle").fit(X, y)
    with pytest.raises(ValueError, match="beta family has no closed-form posterior"):
        model.predict_proba_draws(X, 10)
