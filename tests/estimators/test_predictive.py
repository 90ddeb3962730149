"""The posterior predictive and per-draw class probabilities, with missing features."""

import jax
import numpy as np
import pytest
import scipy.sparse as sp
from scipy import stats
from scipy.special import logsumexp

import bayesgen as bg
from bayesgen.families import gaussian
from bayesgen.inference import parameter_posterior

RNG = np.random.default_rng(1)
N_ROWS = 40
LABELS = RNG.integers(0, 2, N_ROWS)
GAUSSIAN = RNG.normal(LABELS[:, None] * np.array([1.0, 0.5, -1.0]), 1.0, (N_ROWS, 3))
BINARY = (RNG.random((N_ROWS, 4)) < np.where(LABELS[:, None] == 1, 0.75, 0.3)).astype(float)
COUNTS = RNG.poisson(1.0 + 2.0 * LABELS[:, None] * np.array([1, 0, 1, 0]), (N_ROWS, 4)).astype(
    float
)
CATEGORIES = np.array(["a", "b", "c"], dtype=object)[RNG.integers(0, 3, (N_ROWS, 2))]


def _with_missing(X, columns=(1,)):
    X = X.astype(float if X.dtype != object else object).copy()
    for column in columns:
        X[::3, column] = np.nan
    return X


def _student_t_by_hand(model):
    """Per class (loc, shape, dof) from the textbook NIW predictive (Murphy 2007, eq. 258)."""
    with jax.enable_x64(True):
        post = gaussian.posterior(model.prior_, model.suff_stats_, model.covariance_type)
    mean, kappa, nu, psi = (np.asarray(f) for f in post)
    d = mean.shape[1]
    for k in range(mean.shape[0]):
        if model.covariance_type in ("full", "tied"):
            scale = psi[k] if model.covariance_type == "full" else psi
            dof = (nu[k] if model.covariance_type == "full" else nu) - d + 1
            yield mean[k], scale * (kappa[k] + 1) / (kappa[k] * dof), dof
        elif model.covariance_type == "diag":
            yield mean[k], psi[k] * (kappa[k] + 1) / (kappa[k] * nu[k]), nu[k]
        else:
            yield mean[k], np.eye(d) * psi[k] * (kappa[k] + 1) / (kappa[k] * nu[k]), nu[k]


@pytest.mark.parametrize("covariance_type", ["full", "tied", "diag", "spherical"])
def test_gaussian_predictive_is_student_t_over_the_observed_block(covariance_type):
    """``predictive`` probabilities = normalised E[pi] x SciPy's Student-t densities of each
    row's observed entries (a t marginalises to a t with the same dof)."""
    model = bg.GaussianDA(covariance_type=covariance_type).fit(GAUSSIAN, LABELS)
    X = _with_missing(GAUSSIAN[:12], columns=(0, 2))
    X[5] = np.nan  # nothing observed: the class prior
    log_joint = np.zeros((len(X), 2))
    counts = np.bincount(LABELS)
    log_joint += np.log((1.0 + counts) / (2.0 + counts.sum()))
    for k, (loc, shape, dof) in enumerate(_student_t_by_hand(model)):
        for i, row in enumerate(X):
            seen = ~np.isnan(row)
            if not seen.any():
                continue
            if covariance_type == "diag":
                log_joint[i, k] += stats.t.logpdf(
                    row[seen], dof, loc[seen], np.sqrt(shape[seen])
                ).sum()
            else:
                block = shape[np.ix_(seen, seen)]
                log_joint[i, k] += stats.multivariate_t(loc[seen], block, df=dof).logpdf(row[seen])
    expected = np.exp(log_joint - logsumexp(log_joint, axis=1, keepdims=True))
    np.testing.assert_allclose(model.predict_proba(X, method="predictive"), expected, rtol=1e-9)


def test_multinomial_predictive_is_dirichlet_multinomial():
    """SciPy's Dirichlet–multinomial with alpha + C_k; a missing word drops out of both the
    counts and the concentrations."""
    model = bg.MultinomialNB(alpha=0.5).fit(COUNTS, LABELS)
    X = _with_missing(COUNTS[:9], columns=(2,))
    log_joint = np.log((1.0 + np.bincount(LABELS)) / (2.0 + N_ROWS))[None, :].repeat(len(X), 0)
    concentration = 0.5 + model.feature_count_
    for i, row in enumerate(X):
        seen = ~np.isnan(row)
        for k in range(2):
            log_joint[i, k] += stats.dirichlet_multinomial.logpmf(
                row[seen], concentration[k, seen], row[seen].sum()
            )
    expected = np.exp(log_joint - logsumexp(log_joint, axis=1, keepdims=True))
    np.testing.assert_allclose(model.predict_proba(X, method="predictive"), expected, rtol=1e-9)


def test_poisson_predictive_is_negative_binomial():
    """Gamma(a + S, b + N) rates integrate to NB(a + S, (b + N) / (b + N + 1)) per count."""
    model = bg.PoissonNB(alpha=2.0, beta=0.5).fit(COUNTS, LABELS)
    X = _with_missing(COUNTS[:9], columns=(0, 3))
    log_joint = np.log((1.0 + np.bincount(LABELS)) / (2.0 + N_ROWS))[None, :].repeat(len(X), 0)
    for k in range(2):
        rows = COUNTS[LABELS == k]
        shape, rate = 2.0 + rows.sum(axis=0), 0.5 + len(rows)
        terms = stats.nbinom.logpmf(np.nan_to_num(X), shape, rate / (rate + 1))
        log_joint[:, k] += np.where(np.isnan(X), 0.0, terms).sum(axis=1)
    expected = np.exp(log_joint - logsumexp(log_joint, axis=1, keepdims=True))
    np.testing.assert_allclose(model.predict_proba(X, method="predictive"), expected, rtol=1e-9)


def test_beta_bernoulli_and_categorical_predictives_are_the_posterior_mean_plugins():
    """Features independent a posteriori: the predictive uses E[theta | D], i.e. the
    ``estimate="mean"`` fit, with E[pi | D] = (1 + N_k) / (K + N) as class prior."""
    class_prior = (1.0 + np.bincount(LABELS)) / (2.0 + N_ROWS)
    for model_class, X in ((bg.BernoulliNB, BINARY), (bg.CategoricalNB, CATEGORIES)):
        model = model_class(alpha=1.5).fit(X, LABELS)
        plugin = model_class(alpha=1.5, class_prior=class_prior).fit(X, LABELS)
        rows = _with_missing(X[:9])
        np.testing.assert_allclose(
            model.predict_proba(rows, method="predictive"), plugin.predict_proba(rows), rtol=1e-9
        )


MODELS = {
    "QDA": (bg.QDA(), GAUSSIAN),
    "LDA": (bg.LDA(), GAUSSIAN),
    "GaussianNB": (bg.GaussianNB(), GAUSSIAN),
    "spherical": (bg.GaussianDA(covariance_type="spherical"), GAUSSIAN),
    "BernoulliNB": (bg.BernoulliNB(), BINARY),
    "MultinomialNB": (bg.MultinomialNB(), COUNTS),
    "PoissonNB": (bg.PoissonNB(), COUNTS),
    "CategoricalNB": (bg.CategoricalNB(), CATEGORIES),
}


@pytest.mark.parametrize("name", MODELS)
def test_predictive_is_the_posterior_average_of_the_joint(name):
    """Monte Carlo over exact draws: mean_s p(x, k | theta_s) -> E[pi_k] p(x | k, D), and the
    draws' normalised average -> ``predict_proba(method="predictive")``. This ties the
    closed-form predictive to the sampler, each checked independently of the other."""
    model, X = MODELS[name]
    model.fit(X, LABELS)
    rows = X[:6] if name == "MultinomialNB" else _with_missing(X[:6])
    checked, dtype = model._prepare(rows)
    draws = model._exact_draws(np.random.default_rng(3), 20000)
    joint = np.concatenate([j for j, _ in model._joint_draws(checked, dtype, draws)])
    density = np.exp(joint)  # (draws, rows, classes)
    family, value, rule = model.family_, model.joint_, model._fit_settings().class_prior
    with jax.enable_x64(True):
        predictive_log_likelihood = parameter_posterior.predictive_log_likelihood(
            family, value, rule, checked, dtype
        )
    class_probabilities = parameter_posterior.predictive_class_prior(rule, value)
    predictive_joint = np.exp(predictive_log_likelihood + np.log(class_probabilities))
    error = density.std(axis=0) / np.sqrt(density.shape[0])
    assert np.all(np.abs(density.mean(axis=0) - predictive_joint) <= 5 * error + 1e-300)
    ratio = density.mean(axis=0) / density.mean(axis=0).sum(axis=1, keepdims=True)
    np.testing.assert_allclose(ratio, model.predict_proba(rows, method="predictive"), atol=0.02)


def test_predict_proba_draws_shape_and_normalisation():
    model = bg.QDA().fit(GAUSSIAN, LABELS)
    draws = model.predict_proba_draws(_with_missing(GAUSSIAN[:7]), 50, random_state=0)
    assert draws.shape == (50, 7, 2)
    np.testing.assert_allclose(draws.sum(axis=2), 1.0, rtol=1e-12)
    again = model.predict_proba_draws(_with_missing(GAUSSIAN[:7]), 50, random_state=0)
    np.testing.assert_array_equal(draws, again)


def test_predict_proba_draws_are_the_posterior_of_each_draw_over_observed_features():
    """Draw by draw, p(k | x_o, theta_s) computed with SciPy from the InferenceData."""
    model = bg.QDA().fit(GAUSSIAN, LABELS)
    idata = model.posterior(4, random_state=2)
    X = _with_missing(GAUSSIAN[:6], columns=(0,))
    result = model.predict_proba_draws(X, posterior=idata)
    pi = idata.posterior["class_prior"].values[0]
    means = idata.posterior["means"].values[0]
    covariances = idata.posterior["covariances"].values[0]
    for s in range(4):
        for i, row in enumerate(X):
            seen = ~np.isnan(row)
            log_joint = [
                np.log(pi[s, k])
                + stats.multivariate_normal.logpdf(
                    row[seen], means[s, k, seen], covariances[s, k][np.ix_(seen, seen)]
                )
                for k in range(2)
            ]
            expected = np.exp(log_joint - logsumexp(log_joint))
            np.testing.assert_allclose(result[s, i], expected, rtol=1e-9)


def _band_width(n_rows: int) -> float:
    rng = np.random.default_rng(5)
    y = rng.integers(0, 2, n_rows)
    X = rng.normal(y[:, None], 1.0, (n_rows, 2))
    model = bg.QDA().fit(X, y)
    draws = model.predict_proba_draws(np.array([[0.5, 0.5], [1.5, 0.0]]), 400, random_state=0)
    low, high = np.percentile(draws[:, :, 1], [5, 95], axis=0)
    return float(np.mean(high - low))


def test_credible_bands_shrink_as_the_data_grow():
    """The 90% band of p(y | x) narrows roughly like 1/sqrt(n)."""
    widths = [_band_width(n) for n in (20, 200, 2000)]
    assert widths[0] > 2 * widths[1] > 4 * widths[2]


def test_draws_average_towards_the_predictive_as_data_grow():
    """The plain average of the draws differs from the predictive by O(1/n)."""
    gaps = []
    for n in (20, 2000):
        rng = np.random.default_rng(6)
        y = rng.integers(0, 2, n)
        X = rng.normal(y[:, None], 1.0, (n, 2))
        model = bg.LDA().fit(X, y)
        grid = rng.normal(0.5, 1.0, (30, 2))
        average = model.predict_proba_draws(grid, 2000, random_state=0).mean(axis=0)
        gaps.append(np.max(np.abs(average - model.predict_proba(grid, method="predictive"))))
    assert gaps[1] < 0.01 and gaps[1] < gaps[0]


def test_predictive_is_less_confident_than_the_plugin_on_small_data():
    """Integrating the parameters out widens the class densities: p(y | x) moves toward
    the class prior far from the data, where the plug-in is most overconfident."""
    rng = np.random.default_rng(0)
    y = np.repeat([0, 1], 5)
    X = rng.normal(y[:, None] * 2.0, 1.0, (10, 2))
    model = bg.QDA().fit(X, y)
    far = np.array([[6.0, -4.0], [-5.0, 5.0]])
    plugin = model.predict_proba(far).max(axis=1)
    predictive = model.predict_proba(far, method="predictive").max(axis=1)
    assert np.all(predictive < plugin)


@pytest.mark.parametrize("model_class", [bg.MultinomialNB, bg.PoissonNB, bg.BernoulliNB])
def test_sparse_input_gives_the_dense_predictive(model_class):
    """The predictive passes visit only non-zero entries: CSR equals dense, NaN included."""
    X = BINARY if model_class is bg.BernoulliNB else COUNTS
    model = model_class().fit(sp.csr_matrix(X), LABELS)
    rows = X[:10].copy()
    if model_class is not bg.MultinomialNB:
        rows[::4, 1] = np.nan
    dense = model.predict_proba(rows, method="predictive")
    np.testing.assert_allclose(
        model.predict_proba(sp.csr_matrix(rows), method="predictive"), dense, rtol=1e-12
    )
