"""The discrete naive-Bayes stories: their density is the closed form plus the log prior."""

import jax
import numpy as np
import pytest
from numpyro import handlers
from numpyro.infer import Predictive
from numpyro.infer.util import log_density
from scipy import stats
from sklearn.datasets import load_digits

from bayesgen import BernoulliNB, CategoricalNB, MultinomialNB, PoissonNB

X_DIGITS, Y_DIGITS = load_digits(return_X_y=True)
X, Y = X_DIGITS[:200], Y_DIGITS[:200]


def _class_part(model, X_rows, y_rows):
    """sum_i log p(x_i, y_i) from the estimator's own closed form."""
    joint = model.predict_joint_log_proba(X_rows)
    return joint[np.arange(len(y_rows)), np.searchsorted(model.classes_, y_rows)].sum()


def _story_density(model, params, X_rows, y_rows):
    with jax.enable_x64(True):
        density, _ = log_density(model.story, (X_rows, y_rows), {}, params)
    return float(density)


def test_multinomial_story_density():
    """Dirichlet prior (scipy) + sum_i [log pi + Multinomial logpmf] = story log density."""
    model = MultinomialNB(alpha=0.7).fit(X, Y)
    theta = np.exp(model.feature_log_prob_)
    params = {"class_prior": model.class_prior_, "feature_probs": theta}
    prior = stats.dirichlet.logpdf(model.class_prior_, np.ones(10))
    prior += sum(stats.dirichlet.logpdf(t, np.full(64, 0.7)) for t in theta)
    expected = prior + _class_part(model, X, Y)
    np.testing.assert_allclose(_story_density(model, params, X, Y), expected, rtol=1e-9)


def test_bernoulli_story_density():
    """Beta priors (scipy) + sum_i [log pi + Bernoulli log-likelihood] = story log density."""
    binary = (X > 7).astype(float)
    model = BernoulliNB(alpha=1.5).fit(binary, Y)
    theta = np.exp(model.feature_log_prob_)
    params = {"class_prior": model.class_prior_, "feature_probs": theta}
    prior = stats.dirichlet.logpdf(model.class_prior_, np.ones(10))
    prior += stats.beta.logpdf(theta, 1.5, 1.5).sum()
    expected = prior + _class_part(model, binary, Y)
    np.testing.assert_allclose(_story_density(model, params, binary, Y), expected, rtol=1e-9)


def test_poisson_story_density():
    """Gamma priors (scipy) + sum_i [log pi + Poisson log-likelihood] = story log density."""
    model = PoissonNB(alpha=2.0, beta=0.5).fit(X, Y)
    params = {"class_prior": model.class_prior_, "rates": model.rates_}
    prior = stats.dirichlet.logpdf(model.class_prior_, np.ones(10))
    prior += stats.gamma.logpdf(model.rates_, 2.0, scale=1 / 0.5).sum()
    expected = prior + _class_part(model, X, Y)
    np.testing.assert_allclose(_story_density(model, params, X, Y), expected, rtol=1e-9)


def test_categorical_story_density():
    """Per-feature Dirichlet priors (scipy) + categorical log-likelihood = story density."""
    rng = np.random.default_rng(0)
    X_cat = rng.choice(np.array(["a", "b", "c"], dtype=object), size=(60, 3))
    y = rng.integers(0, 2, size=60)
    model = CategoricalNB(alpha=0.8).fit(X_cat, y)
    params = {"class_prior": model.class_prior_}
    prior = stats.dirichlet.logpdf(model.class_prior_, np.ones(2))
    for j, log_theta in enumerate(model.feature_log_prob_):
        theta = np.exp(log_theta)
        params[f"category_probs_{j}"] = theta
        prior += sum(stats.dirichlet.logpdf(t, np.full(t.shape[0], 0.8)) for t in theta)
    expected = prior + _class_part(model, X_cat, y)
    np.testing.assert_allclose(_story_density(model, params, X_cat, y), expected, rtol=1e-9)


@pytest.mark.parametrize("model_class", [BernoulliNB, PoissonNB])
def test_forward_draws_refit_to_the_fitted_parameters(model_class):
    """Predictive on the story with fitted parameters: refitting recovers them."""
    data = (X_DIGITS > 7).astype(float) if model_class is BernoulliNB else X_DIGITS
    model = model_class().fit(data, Y_DIGITS)
    site = "feature_probs" if model_class is BernoulliNB else "rates"
    fitted = np.exp(model.feature_log_prob_) if model_class is BernoulliNB else model.rates_
    with jax.enable_x64(True):
        story = handlers.substitute(
            model.story, data={"class_prior": model.class_prior_, site: fitted}
        )
        draws = Predictive(story, num_samples=1)(jax.random.key(0), n_samples=20_000)
    refit = model_class(estimate="mle").fit(np.asarray(draws["X"][0]), np.asarray(draws["y"][0]))
    refitted = np.exp(refit.feature_log_prob_) if model_class is BernoulliNB else refit.rates_
    counts = refit.class_count_[:, None]
    # Binomial / Poisson standard error of a per-class mean, 5 of them.
    scale = (
        np.sqrt(np.maximum(fitted * (1 - fitted), 1e-3))
        if model_class is BernoulliNB
        else (np.sqrt(np.maximum(fitted, 1e-2)))
    )
    np.testing.assert_array_less(np.abs(refitted - fitted), 5 * scale / np.sqrt(counts) + 1e-9)
