"""`GammaFamily`: a non-conjugate leaf, fitted by maximum likelihood, used with no estimator.

References: SciPy's ``gamma.fit`` (maximum likelihood) and ``gamma.logpdf``, the likelihood
equation itself, weights against repeated rows, and the family inside a per-class mixture
through `FamilyClassifier` (no code of its own anywhere else).
"""

import numpy as np
import pytest
import scipy.stats
from scipy.special import psi

import bayesgen
from bayesgen import FamilyClassifier, joint
from bayesgen.families.component_mixture import MixtureFamily
from bayesgen.families.gamma import GammaFamily, solve_shape
from bayesgen.inference import mixture_family_em

ML = joint.FitSettings("mle")


def _data(seed=0, n=600):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    shapes = np.array([[1.5, 6.0], [4.0, 0.8]])
    rates = np.array([[2.0, 1.0], [0.5, 3.0]])
    return rng.gamma(shapes[y], 1.0 / rates[y]), y


def _one_hot(y):
    classes, index = np.unique(y, return_inverse=True)
    return classes, joint.responsibilities(index, np.ones(len(y)), classes.shape[0])


def test_the_shape_solves_the_likelihood_equation():
    spread = np.array([1e-6, 0.01, 0.3, 1.0, 5.0, 40.0])
    shape = solve_shape(spread)
    # log a - psi(a) is a difference of two numbers near log a (13 for s = 1e-6): it cannot
    # be evaluated closer than a few ulp of log a, hence the absolute part.
    np.testing.assert_allclose(np.log(shape) - psi(shape), spread, rtol=1e-12, atol=1e-14)


def test_the_estimate_is_scipy_maximum_likelihood_per_class_and_feature():
    X, y = _data()
    classes, R = _one_hot(y)
    value = joint.fit(GammaFamily(), X, R, classes, ML)
    for k in range(2):
        for j in range(2):
            a, _, scale = scipy.stats.gamma.fit(X[y == k, j], floc=0)
            assert value.params.shape[k, j] == pytest.approx(a, rel=1e-6)
            assert value.params.rate[k, j] == pytest.approx(1 / scale, rel=1e-6)


def test_log_likelihood_is_scipy_with_missing_entries_dropped():
    X, y = _data(seed=1, n=50)
    classes, R = _one_hot(y)
    family = GammaFamily()
    value = joint.fit(family, X, R, classes, ML)
    gappy = X.copy()
    gappy[::3, 1] = np.nan
    got = family.log_likelihood(value.params, gappy)
    shape, rate = value.params
    terms = scipy.stats.gamma.logpdf(gappy[:, None, :], shape[None], scale=1 / rate[None])
    np.testing.assert_allclose(got, np.nansum(terms, axis=2), rtol=1e-12)


def test_weights_are_repeated_rows_and_batches_merge():
    X, y = _data(seed=2, n=60)
    classes, R = _one_hot(y)
    weights = np.arange(60) % 3
    repeated = np.repeat(np.arange(60), weights)
    family = GammaFamily()
    weighted = joint.fit(family, X, R * weights[:, None], classes, ML)
    copies = joint.fit(family, X[repeated], R[repeated], classes, ML)
    np.testing.assert_allclose(weighted.params.shape, copies.params.shape, rtol=1e-12)
    merged = joint.update(
        family, joint.fit(family, X[:30], R[:30], classes, ML), X[30:], R[30:], ML
    )
    whole = joint.fit(family, X, R, classes, ML)
    np.testing.assert_allclose(merged.params.rate, whole.params.rate, rtol=1e-12)


def test_draws_and_imputation_follow_the_fitted_gamma():
    family = GammaFamily()
    params = family.point_estimate(
        None, family.suff_stats(*_data(n=4000)[:1], np.ones((4000, 1))), "mle"
    )
    drawn = family.draw_features(params, np.zeros(50000, dtype=int), np.random.default_rng(0))["X"]
    np.testing.assert_allclose(drawn.mean(axis=0), family.mean(params)[0], rtol=0.02)
    np.testing.assert_allclose(drawn.var(axis=0), params.shape[0] / params.rate[0] ** 2, rtol=0.05)
    gappy = np.array([[np.nan, 1.0], [2.0, np.nan]])
    filled = family.conditional(params, gappy, np.ones((2, 1)), "mean", None)
    np.testing.assert_allclose(filled[[0, 1], [0, 1]], family.mean(params)[0], rtol=1e-12)


def test_a_mixture_of_gamma_leaves_per_class_needs_no_estimator_code():
    """Bimodal positive values in each class: two Gamma components per class fit them
    better than one, and EM never lowers its objective."""
    rng = np.random.default_rng(3)
    y = rng.integers(0, 2, 2000)
    mode = rng.integers(0, 2, 2000)
    scale = np.where(mode == y, 0.2, 5.0)  # class 0: mostly small when mode 0, ...
    X = rng.gamma(8.0, scale[:, None] / 8.0 * np.array([[1.0, 2.0]]))
    classes, R = _one_hot(y)
    family = MixtureFamily(GammaFamily(), 2)
    fitted = mixture_family_em.fit(family, X, R, classes, ML, random_state=0, n_init=2)
    assert np.diff(fitted.history).min() >= -1e-9 * abs(fitted.history[-1])
    single = joint.fit(GammaFamily(), X, R, classes, ML)
    mixture_fit = joint.log_joint(family, fitted.joint, X)[np.arange(2000), y].sum()
    single_fit = joint.log_joint(GammaFamily(), single, X)[np.arange(2000), y].sum()
    assert mixture_fit > single_fit + 500
    model = FamilyClassifier(family=family, estimate="mle", random_state=0).fit(X, y)
    drawn, _ = model.sample(1000, random_state=0)
    assert drawn.min() > 0


def test_the_model_is_saved_and_loaded(tmp_path):
    X, y = _data()
    model = FamilyClassifier(family=MixtureFamily(GammaFamily(), 2), estimate="mle")
    model.set_params(random_state=0).fit(X, y)
    model.save(tmp_path / "gamma.bgm")
    np.testing.assert_array_equal(
        bayesgen.load(tmp_path / "gamma.bgm").predict_proba(X), model.predict_proba(X)
    )


def test_bad_input_and_settings_are_refused():
    X, y = _data(n=40)
    with pytest.raises(ValueError, match=r"models values > 0 \(a Gamma density\)"):
        FamilyClassifier(family=GammaFamily(), estimate="mle").fit(X - 1.0, y)
    with pytest.raises(ValueError, match="maximum likelihood only: use estimate='mle'"):
        FamilyClassifier(family=GammaFamily()).fit(X, y)  # the default estimate is "map"
    model = FamilyClassifier(family=GammaFamily(), estimate="mle").fit(X, y)
    with pytest.raises(ValueError, match="gamma family has no closed-form posterior"):
        model.predict_proba_draws(X, 10)
