"""Label shift (``with_class_prior``, ``adapt_class_prior``) and cost-sensitive decisions."""

import numpy as np
import pandas as pd
import pytest
from scipy.special import logsumexp
from sklearn.exceptions import ConvergenceWarning, NotFittedError

import bayesgen as bg

RNG = np.random.default_rng(4)
N_ROWS = 90
LABELS = RNG.integers(0, 3, N_ROWS)
GAUSSIAN = RNG.normal(LABELS[:, None] * np.array([1.5, -1.0, 0.5]), 1.0, (N_ROWS, 3))
BINARY = (RNG.random((N_ROWS, 6)) < np.array([0.2, 0.5, 0.8])[LABELS][:, None]).astype(float)
COUNTS = RNG.poisson(1.0 + 2.0 * LABELS[:, None] * np.array([1, 0, 1, 0]), (N_ROWS, 4)).astype(
    float
)
CATEGORIES = np.array(["a", "b", "c", "d"], dtype=object)[
    (LABELS[:, None] + RNG.integers(0, 2, (N_ROWS, 3))) % 4
]
MIXED = pd.DataFrame(
    {"size": GAUSSIAN[:, 0], "count": COUNTS[:, 0].astype(int) + 2, "colour": CATEGORIES[:, 0]}
)

MODELS = {
    "QDA": (bg.QDA, GAUSSIAN),
    "LDA": (bg.LDA, GAUSSIAN),
    "GaussianNB": (bg.GaussianNB, GAUSSIAN),
    "spherical": (lambda: bg.GaussianDA(covariance_type="spherical"), GAUSSIAN),
    "BernoulliNB": (bg.BernoulliNB, BINARY),
    "MultinomialNB": (bg.MultinomialNB, COUNTS),
    "PoissonNB": (bg.PoissonNB, COUNTS),
    "CategoricalNB": (bg.CategoricalNB, CATEGORIES),
    "MixedNB": (bg.MixedNB, MIXED),
}


def _fitted(name):
    factory, X = MODELS[name]
    return factory().fit(X, LABELS), X


@pytest.mark.parametrize("name", MODELS)
def test_with_class_prior_reweights_the_posterior_exactly(name):
    """p'(k | x) = normalise(pi'_k / pi_k * p(k | x)); the original model is untouched."""
    model, X = _fitted(name)
    before = model.predict_proba(X)
    new_prior = np.array([0.7, 0.2, 0.1])
    shifted = model.with_class_prior(new_prior)
    reweighted = np.log(before) + np.log(new_prior / model.class_prior_)
    expected = np.exp(reweighted - logsumexp(reweighted, axis=1, keepdims=True))
    np.testing.assert_allclose(shifted.predict_proba(X), expected, rtol=1e-10, atol=1e-14)
    np.testing.assert_array_equal(model.predict_proba(X), before)
    np.testing.assert_array_equal(shifted.class_prior_, new_prior)
    assert shifted is not model
    # The new prior is fixed: no class_prior site in the posterior, and a refit keeps it.
    assert "class_prior" not in shifted.posterior(5, random_state=0).posterior
    np.testing.assert_array_equal(shifted.fit(X, LABELS).class_prior_, new_prior)


@pytest.mark.parametrize("name", MODELS)
def test_adapt_class_prior_recovers_a_shifted_prior(name):
    """Target rows drawn from the fitted model with new proportions: EM finds them."""
    model, _ = _fitted(name)
    true_prior = np.array([0.6, 0.3, 0.1])
    rng = np.random.default_rng(0)
    labels = rng.choice(model.classes_, size=4000, p=true_prior)
    X_target, _ = model.sample(y=labels, random_state=1)
    adapted = model.adapt_class_prior(X_target)
    observed = np.bincount(labels, minlength=3) / labels.size
    assert np.max(np.abs(adapted.class_prior_ - true_prior)) < 0.03
    assert np.max(np.abs(adapted.class_prior_ - observed)) < 0.03
    report = adapted.class_prior_adaptation_
    assert report.converged and report.n_iter == report.log_likelihood_history.size
    assert np.all(
        np.diff(report.log_likelihood_history) >= -1e-9 * np.abs(report.log_likelihood_history[1:])
    )
    assert not np.allclose(model.class_prior_, adapted.class_prior_)


def test_adapt_class_prior_with_missing_features_and_convergence_warning():
    model = bg.QDA().fit(GAUSSIAN, LABELS)
    X_target, _ = model.sample(y=np.repeat([0, 1, 2], [300, 100, 100]), random_state=0)
    X_target[::2, 1] = np.nan
    adapted = model.adapt_class_prior(X_target)
    assert abs(adapted.class_prior_[0] - 0.6) < 0.05
    with pytest.warns(ConvergenceWarning, match="did not converge in max_iter=1"):
        model.adapt_class_prior(X_target, max_iter=1, tol=0.0)


@pytest.mark.parametrize("name", MODELS)
def test_cost_decisions_minimise_the_brute_force_expected_cost(name):
    model, X = _fitted(name)
    rng = np.random.default_rng(1)
    cost = rng.uniform(0, 5, (3, 3))
    np.fill_diagonal(cost, 0.0)
    probabilities = model.predict_proba(X)
    expected = []
    for p in probabilities:
        risks = [sum(cost[k, j] * p[k] for k in range(3)) for j in range(3)]
        expected.append(model.classes_[int(np.argmin(risks))])
    np.testing.assert_array_equal(model.predict(X, cost=cost), expected)
    np.testing.assert_array_equal(model.predict(X, cost=1 - np.eye(3)), model.predict(X))


def test_a_costly_miss_moves_decisions_towards_that_class():
    """Missing class 2 costs 20 times more: more rows are predicted as class 2."""
    model, X = _fitted("QDA")
    cost = 1 - np.eye(3)
    cost[2, :2] = 20.0
    assert np.sum(model.predict(X, cost=cost) == 2) > np.sum(model.predict(X) == 2)


def test_predictive_decisions():
    model, X = _fitted("LDA")
    predictive = model.predict_proba(X, method="predictive")
    np.testing.assert_array_equal(
        model.predict(X, method="predictive"), model.classes_[np.argmax(predictive, axis=1)]
    )


@pytest.mark.parametrize(
    ("cost", "message"),
    [
        (np.ones((2, 2)), r"cost must have shape \(n_classes, n_classes\) = \(3, 3\)"),
        (np.ones(3), r"cost must have shape"),
        (-np.eye(3), "cost must be non-negative"),
        (np.full((3, 3), np.nan), "cost must be finite"),
        (np.full((3, 3), np.inf), "cost must be finite"),
    ],
)
def test_bad_cost_matrices(cost, message):
    model, X = _fitted("GaussianNB")
    with pytest.raises(ValueError, match=message):
        model.predict(X, cost=cost)


@pytest.mark.parametrize(
    ("prior", "message"),
    [
        ([0.5, 0.5], r"prior must have one entry per class, shape \(3,\)"),
        ([0.5, 0.4, 0.2], "prior must sum to one"),
        ([1.2, -0.1, -0.1], "prior must be finite and non-negative"),
        ([np.nan, 0.5, 0.5], "prior must be finite and non-negative"),
    ],
)
def test_bad_priors(prior, message):
    model, _ = _fitted("BernoulliNB")
    with pytest.raises(ValueError, match=message):
        model.with_class_prior(prior)


def test_bad_adaptation_arguments_and_unfitted_models():
    model, X = _fitted("PoissonNB")
    with pytest.raises(ValueError, match="max_iter must be an integer >= 1"):
        model.adapt_class_prior(X, max_iter=0)
    with pytest.raises(ValueError, match="tol must be >= 0"):
        model.adapt_class_prior(X, tol=-1.0)
    with pytest.raises(ValueError, match="X has 3 features"):
        model.adapt_class_prior(X[:, :3])
    for call in (
        lambda m: m.with_class_prior([0.5, 0.5]),
        lambda m: m.adapt_class_prior(X),
    ):
        with pytest.raises(NotFittedError):
            call(bg.PoissonNB())
