"""`MixtureFamily`: a mixture of components of any leaf family per class, fitted by EM.

References: the leaf itself (one component), brute-force mixture densities from SciPy, a
hand-written EM over the same starting memberships, EM's monotone objective, and the
recovery of known clusters.
"""

import warnings

import numpy as np
import pytest
import scipy.stats
from scipy.special import logsumexp

from bayesgen import joint
from bayesgen.families.bernoulli import BernoulliFamily
from bayesgen.families.categorical import CategoricalFamily
from bayesgen.families.component_mixture import MixtureFamily, MixtureFamilyParams
from bayesgen.families.gaussian import GaussianFamily
from bayesgen.families.poisson import PoissonFamily
from bayesgen.inference import mixture_family_em

ML = joint.FitSettings("mle", joint.ClassPriorRule(None, 1.0, "mle"))


def _clustered_counts(seed=0, n=400):
    """Two classes, each a two-cluster Poisson mixture over 4 features."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    rates = np.array([[[1.0, 8, 1, 8], [8, 1, 8, 1]], [[3.0, 3, 12, 0.5], [12, 0.5, 3, 3]]])
    weights = np.array([[0.3, 0.7], [0.6, 0.4]])
    component = (rng.random(n) > weights[y, 0]).astype(int)
    X = rng.poisson(rates[y, component]).astype(np.float64)
    return X, y, rates, weights


def _one_hot(y):
    classes, index = np.unique(y, return_inverse=True)
    return classes, joint.responsibilities(index, np.ones(len(y)), classes.shape[0])


def test_one_component_is_the_leaf_itself():
    X, y, _, _ = _clustered_counts()
    classes, R = _one_hot(y)
    leaf = PoissonFamily(alpha=0.5)
    settings = joint.FitSettings("mean", joint.ClassPriorRule(None, 1.0, "mle"))
    mixture = mixture_family_em.fit(MixtureFamily(leaf, 1), X, R, classes, settings, random_state=0)
    plain = joint.fit(leaf, X, R, classes, settings)
    np.testing.assert_allclose(
        joint.log_joint(MixtureFamily(leaf, 1), mixture.joint, X),
        joint.log_joint(leaf, plain, X),
        rtol=1e-12,
    )
    np.testing.assert_array_equal(mixture.joint.params.weights, np.ones((2, 1)))


def test_log_likelihood_is_the_brute_force_mixture_with_missing_entries_integrated_out():
    rng = np.random.default_rng(1)
    weights = np.array([[0.2, 0.5, 0.3], [0.6, 0.1, 0.3]])
    rates = rng.uniform(0.5, 9.0, (6, 4))
    X = rng.poisson(3.0, (30, 4)).astype(np.float64)
    X[::3, 2] = np.nan
    family = MixtureFamily(PoissonFamily(), 3)
    got = family.log_likelihood(MixtureFamilyParams(weights, rates), X)
    observed = ~np.isnan(X)
    expected = np.empty((30, 2))
    for i in range(30):
        for k in range(2):
            terms = [
                np.log(weights[k, m])
                + scipy.stats.poisson.logpmf(X[i, observed[i]], rates[3 * k + m, observed[i]]).sum()
                for m in range(3)
            ]
            expected[i, k] = logsumexp(terms)
    np.testing.assert_allclose(got, expected, rtol=1e-13)


def _hand_written_em(X, R, gamma, n_iter, weight_concentration=None):
    """Poisson-mixture EM written out from the formulas (maximum likelihood; the weights'
    Dirichlet(beta) mode when ``weight_concentration`` is beta)."""
    for _ in range(n_iter):
        sub = R[:, :, None] * gamma  # (n, K, M)
        counts = sub.sum(axis=0)
        rates = np.einsum("nkm,nj->kmj", sub, X) / counts[:, :, None]
        pseudo = counts if weight_concentration is None else counts + weight_concentration - 1
        weights = pseudo / pseudo.sum(axis=1, keepdims=True)
        log_terms = np.log(weights)[None] + np.stack(
            [
                [scipy.stats.poisson.logpmf(X, rates[k, m]).sum(axis=1) for m in range(2)]
                for k in range(2)
            ]
        ).transpose(2, 0, 1)
        gamma = np.exp(log_terms - logsumexp(log_terms, axis=2, keepdims=True))
    return weights, rates.reshape(4, -1)


def test_em_steps_are_the_hand_written_em_from_the_same_start():
    X, y, _, _ = _clustered_counts(seed=2)
    classes, R = _one_hot(y)
    start = np.random.default_rng(5).dirichlet(np.ones(2), size=(X.shape[0], 2))
    fitted = mixture_family_em.fit(
        MixtureFamily(PoissonFamily(), 2), X, R, classes, ML, max_iter=7, tol=0.0, start=start
    )
    assert fitted.n_iter == 7 and not fitted.converged
    weights, rates = _hand_written_em(X, R, start, 7)
    np.testing.assert_allclose(fitted.joint.params.weights, weights, rtol=1e-10)
    np.testing.assert_allclose(fitted.joint.params.leaves, rates, rtol=1e-10)


def test_weight_estimate_fixes_the_weights_mode_and_starts_run_from_each():
    """``weight_estimate="map"`` keeps the weights at their Dirichlet mode under maximum-
    likelihood components (the hand-written EM with pseudo-counts beta - 1); of two given
    starts, the run of higher final objective is kept."""
    X, y, _, _ = _clustered_counts(seed=2)
    classes, R = _one_hot(y)
    rng = np.random.default_rng(5)
    starts = [rng.dirichlet(np.ones(2), size=(X.shape[0], 2)) for _ in range(2)]
    family = MixtureFamily(PoissonFamily(), 2, weight_concentration=3.0, weight_estimate="map")
    runs = [
        mixture_family_em.fit(family, X, R, classes, ML, max_iter=6, tol=0.0, start=start)
        for start in starts
    ]
    both = mixture_family_em.fit(family, X, R, classes, ML, max_iter=6, tol=0.0, start=starts)
    kept = int(np.argmax([run.history[-1] for run in runs]))
    assert runs[0].history[-1] != runs[1].history[-1]  # the choice is not a tie
    np.testing.assert_array_equal(both.history, runs[kept].history)
    kept = starts[kept]
    weights, rates = _hand_written_em(X, R, kept, 6, weight_concentration=3.0)
    np.testing.assert_allclose(both.joint.params.weights, weights, rtol=1e-10)
    np.testing.assert_allclose(both.joint.params.leaves, rates, rtol=1e-10)
    with pytest.raises(ValueError, match="weight_estimate must be None or one of .*'median'"):
        MixtureFamily(PoissonFamily(), 2, weight_estimate="median").check()


@pytest.mark.parametrize("estimate", ["mle", "map", "mean"])
@pytest.mark.parametrize(
    ("leaf", "make"),
    [
        (PoissonFamily(alpha=2.0), lambda X: X),
        (BernoulliFamily(alpha=2.0), lambda X: (X > 3).astype(np.float64)),
        (CategoricalFamily(alpha=2.0), lambda X: np.minimum(X, 4).astype(int).astype(object)),
        (GaussianFamily("diag"), lambda X: X + np.random.default_rng(0).normal(0, 0.3, X.shape)),
    ],
    ids=["poisson", "bernoulli", "categorical", "gaussian-diag"],
)
def test_the_em_objective_never_decreases(leaf, make, estimate):
    if estimate == "mle" and isinstance(leaf, CategoricalFamily | BernoulliFamily):
        estimate = "map"  # maximum likelihood puts zeros where a component saw no value
    if estimate == "mean" and isinstance(leaf, GaussianFamily):
        estimate = "mle"  # the NIW posterior mean is the mode of no density EM climbs
    X, y, _, _ = _clustered_counts(seed=3, n=200)
    classes, R = _one_hot(y)
    settings = joint.FitSettings(estimate, joint.ClassPriorRule(None, 1.0, "mle"))
    family = MixtureFamily(leaf, 3)
    fitted = mixture_family_em.fit(family, make(X), R, classes, settings, max_iter=40, tol=0.0)
    steps = np.diff(fitted.history)
    assert steps.min() >= -1e-9 * np.abs(fitted.history).max()
    assert fitted.history[-1] > fitted.history[0]


def test_known_clusters_are_recovered_in_each_class():
    X, y, rates, weights = _clustered_counts(seed=4, n=3000)
    classes, R = _one_hot(y)
    fitted = mixture_family_em.fit(
        MixtureFamily(PoissonFamily(), 2), X, R, classes, ML, n_init=3, random_state=0
    )
    assert fitted.converged
    got = fitted.joint.params.leaves.reshape(2, 2, 4)
    for k in range(2):
        order = np.argsort(got[k, :, 0])
        truth = np.argsort(rates[k, :, 0])
        np.testing.assert_allclose(got[k, order], rates[k, truth], rtol=0.12, atol=0.15)
        np.testing.assert_allclose(
            fitted.joint.params.weights[k, order], weights[k, truth], atol=0.04
        )


def test_a_fit_is_reproducible_from_its_random_state_and_restarts_keep_the_best():
    X, y, _, _ = _clustered_counts(seed=5, n=300)
    classes, R = _one_hot(y)
    family = MixtureFamily(PoissonFamily(), 3)
    a = mixture_family_em.fit(family, X, R, classes, ML, random_state=11, n_init=3)
    b = mixture_family_em.fit(family, X, R, classes, ML, random_state=11, n_init=3)
    np.testing.assert_array_equal(a.joint.params.leaves, b.joint.params.leaves)
    singles = [
        mixture_family_em.fit(family, X, R, classes, ML, random_state=seed).history[-1]
        for seed in range(3)
    ]
    best_of_three = mixture_family_em.fit(family, X, R, classes, ML, random_state=0, n_init=3)
    assert best_of_three.history[-1] >= min(singles)


def test_a_latent_class_model_of_categories_learns_its_categories():
    rng = np.random.default_rng(6)
    z = rng.integers(0, 2, 500)
    X = np.where(rng.random((500, 3)) < np.where(z[:, None] == 0, 0.85, 0.15), "yes", "no").astype(
        object
    )
    y = np.zeros(500, dtype=int)
    classes, R = _one_hot(y)
    family = MixtureFamily(CategoricalFamily(alpha=1.0), 2)
    fitted = mixture_family_em.fit(family, X, R, classes, random_state=1, n_init=2)
    assert [list(c) for c in fitted.joint.learned["categories"]] == [["no", "yes"]] * 3
    # Each latent class answers "yes" mostly or rarely, as drawn.
    leaf = joint.family_of(family, fitted.joint).leaf
    yes = np.stack([block[:, 1] for block in leaf.blocks(fitted.joint.params.leaves)], axis=1)
    np.testing.assert_allclose(np.sort(yes.mean(axis=1)), [0.15, 0.85], atol=0.06)
    log_joint = joint.log_joint(family, fitted.joint, X)
    assert log_joint.shape == (500, 1) and np.all(np.isfinite(log_joint))


def test_synthetic_rows_follow_the_mixture():
    weights = np.array([[0.25, 0.75]])
    rates = np.array([[1.0, 10.0], [6.0, 2.0]])
    family = MixtureFamily(PoissonFamily(), 2)
    params = MixtureFamilyParams(weights, rates)
    drawn = family.draw_features(params, np.zeros(40000, dtype=int), np.random.default_rng(0))
    X = drawn["X"]
    np.testing.assert_allclose(X.mean(axis=0), family.mean(params)[0], rtol=0.02)
    # The mixture's within-class covariance: negative here, which no single Poisson has.
    expected_cov = weights[0] @ (rates - rates.T @ weights[0]).prod(axis=1)
    assert np.cov(X.T)[0, 1] == pytest.approx(expected_cov, rel=0.05)
    assert np.all(X == np.rint(X)) and X.min() >= 0


def test_imputation_weighs_the_components_by_the_observed_entries():
    weights = np.array([[0.5, 0.5]])
    rates = np.array([[1.5, 1.5], [20.5, 20.5]])
    family = MixtureFamily(PoissonFamily(), 2)
    X = np.array([[0.0, np.nan], [25.0, np.nan]])
    filled = family.conditional(
        MixtureFamilyParams(weights, rates), X, np.ones((2, 1)), "mean", None
    )
    # The observed entry says which component: its mode, 1 (Poisson(1.5)) or 20 (Poisson(20.5)).
    np.testing.assert_array_equal(filled[:, 1], [1.0, 20.0])


def test_bad_settings_and_input_are_refused_with_their_names():
    X, y, _, _ = _clustered_counts(n=50)
    classes, R = _one_hot(y)
    with pytest.raises(ValueError, match="n_components must be an integer >= 1, a sequence"):
        mixture_family_em.fit(MixtureFamily(PoissonFamily(), 0), X, R, classes)
    with pytest.raises(ValueError, match="n_components must have one entry per class"):
        mixture_family_em.fit(MixtureFamily(PoissonFamily(), (1, 2, 3)), X, R, classes)
    with pytest.raises(ValueError, match="leaf must be a feature family"):
        mixture_family_em.fit(MixtureFamily("poisson", 2), X, R, classes)
    with pytest.raises(ValueError, match="responsibilities must have shape"):
        mixture_family_em.fit(MixtureFamily(PoissonFamily(), 2), X, R[:10], classes)
    with pytest.raises(ValueError, match="start must have shape"):
        mixture_family_em.fit(
            MixtureFamily(PoissonFamily(), 2), X, R, classes, start=np.ones((50, 2, 3)) / 3
        )
    with pytest.raises(ValueError, match="need the component memberships"):
        MixtureFamily(PoissonFamily(), 2).suff_stats(X, R)


def test_a_row_impossible_under_a_class_it_does_not_belong_to_adds_nothing():
    """Maximum-likelihood rates of 0 make other classes' rows impossible there: weight 0
    times log 0 is no term of the objective (no NaN, no warning)."""
    X = np.array([[0.0, 5.0], [0.0, 4.0], [3.0, 0.0], [4.0, 0.0]])
    classes, R = _one_hot(np.array([0, 0, 1, 1]))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fitted = mixture_family_em.fit(
            MixtureFamily(PoissonFamily(), 2), X, R, classes, ML, random_state=0
        )
    assert np.all(np.isfinite(fitted.history))


def _gappy_gaussian_rows(n=300, rate=0.2, seed=5):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    X = rng.normal(size=(n, 3)) @ np.array([[1.0, 0.6, 0.0], [0.0, 0.8, 0.3], [0.0, 0.0, 0.5]])
    X += 2.0 * y[:, None]
    gappy = X.copy()
    gappy[rng.random(X.shape) < rate] = np.nan
    gappy[np.isnan(gappy).all(axis=1), 0] = 0.0
    return gappy, y


@pytest.mark.parametrize("covariance_type", ["full", "diag"])
def test_one_gaussian_component_with_missing_entries_is_the_gaussian_em(covariance_type):
    """With M = 1 the joined EM over components and missing entries is EM over missing
    entries alone (`gaussian_em.run`, another code path): same parameters, same objective."""
    from bayesgen.inference import gaussian_em

    X, y = _gappy_gaussian_rows()
    classes, R = _one_hot(y)
    leaf = GaussianFamily(covariance_type)
    fitted = mixture_family_em.fit(
        MixtureFamily(leaf, 1), X, R, classes, joint.FitSettings("map"), tol=1e-10, max_iter=500
    )
    direct = gaussian_em.run(
        leaf,
        X,
        R,
        np.float64,
        m_step=gaussian_em.family_m_step(leaf, "map"),
        kind="map",
        tol=1e-10,
        max_iter=500,
    )
    _, params = leaf.estimate(direct.stats, "map", direct.frozen)
    got = fitted.joint.params.leaves
    np.testing.assert_allclose(got.means, params.means, rtol=1e-7)
    np.testing.assert_allclose(got.covariances, params.covariances, rtol=1e-7)
    np.testing.assert_allclose(fitted.joint.params.weights, 1.0)
    # The objective differs by the weights' Dirichlet term only, 0 for one component.
    np.testing.assert_allclose(fitted.history[-1], direct.history[-1], rtol=1e-9)


def test_components_and_missing_entries_are_one_em_that_never_decreases():
    X, y = _gappy_gaussian_rows()
    classes, R = _one_hot(y)
    fitted = mixture_family_em.fit(
        MixtureFamily(GaussianFamily("full"), 2),
        X,
        R,
        classes,
        joint.FitSettings("mle"),
        random_state=0,
    )
    steps = np.diff(fitted.history)
    assert fitted.converged and steps.min() >= -1e-9 * np.abs(fitted.history).max()
    # At the fixed point the observed-data log-likelihood is the objective.
    family = MixtureFamily(GaussianFamily("full"), 2)
    log_likelihood = family.log_likelihood(fitted.joint.params, X)
    np.testing.assert_allclose(np.sum(R * log_likelihood), fitted.history[-1], rtol=1e-6)


def test_component_counts_may_differ_by_class():
    """A class's components past its own count have weight 0 and add nothing to the
    prior; with one class of one component, that class is the leaf's own estimate."""
    X, y, _, _ = _clustered_counts(n=200)
    classes, R = _one_hot(y)
    family = MixtureFamily(PoissonFamily(), (1, 2))
    fitted = mixture_family_em.fit(family, X, R, classes, joint.FitSettings("map"), random_state=0)
    weights = fitted.joint.params.weights
    np.testing.assert_array_equal(weights[0], [1.0, 0.0])
    assert np.all(weights[1] > 0) and fitted.converged
    rows = y == classes[0]
    single = joint.fit(
        PoissonFamily(), X[rows], R[rows][:, :1], classes[:1], joint.FitSettings("map")
    )
    np.testing.assert_allclose(
        np.asarray(fitted.joint.params.leaves)[0], np.asarray(single.params)[0], rtol=1e-10
    )


def test_the_caller_s_leaf_log_likelihoods_are_left_as_they_were():
    """`memberships` given the leaf's log-likelihoods writes the component terms into an
    array of its own: the caller's stay as passed, and the result equals the one it
    computes itself (which it writes over its own leaf array)."""
    rng = np.random.default_rng(4)
    weights = np.array([[0.2, 0.8], [0.5, 0.5]])
    rates = rng.uniform(0.5, 9.0, (4, 3))
    X = rng.poisson(3.0, (25, 3)).astype(np.float64)
    family = MixtureFamily(PoissonFamily(), 2)
    params = MixtureFamilyParams(weights, rates)
    leaf = np.ascontiguousarray(PoissonFamily().log_likelihood(rates, X))  # a view reshapes
    kept = leaf.copy()
    given = family.memberships(params, X, leaf)
    np.testing.assert_array_equal(leaf, kept)
    own = family.memberships(params, X)
    for a, b in zip(given, own, strict=True):
        np.testing.assert_array_equal(a, b)
