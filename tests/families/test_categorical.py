"""Dirichlet–categorical features over one-hot blocks against SciPy's dirichlet and NumPy."""

import jax
import jax.numpy as jnp
import linear_reference
import numpy as np
import pytest
from scipy import stats

from bayesgen.families import categorical

NUM_SAMPLES = 4000
Z = 4.0  # Monte-Carlo standard errors allowed
K = 3
SEEN = np.array([2, 3, 1])  # C_j, the categories seen in training per feature
SIZES = SEEN + 1  # each block has one more column for the unseen categories
OFFSETS = np.concatenate([[0], np.cumsum(SIZES)[:-1]])
SEGMENT_IDS = np.repeat(np.arange(len(SIZES)), SIZES)
N_FEATURES, M = len(SIZES), int(SIZES.sum())


def _one_hot(codes):
    """The side-by-side one-hot encoding of category codes (n, n_features) -> (n, M)."""
    encoded = np.zeros((codes.shape[0], M))
    for j in range(N_FEATURES):
        encoded[np.arange(codes.shape[0]), OFFSETS[j] + codes[:, j]] = 1.0
    return encoded


def _data(rng, n=30, weighted=True):
    """Training codes (seen categories only) and responsibilities R."""
    codes = np.stack([rng.integers(0, c, size=n) for c in SEEN], axis=1)
    labels = rng.integers(0, K, size=n)
    weights = rng.uniform(0.3, 2.0, size=n) if weighted else np.ones(n)
    return codes, np.eye(K)[labels] * weights[:, None]


def _stats(codes, R):
    return categorical.CategoricalStats(R.sum(axis=0), R.T @ _one_hot(codes))


def _blocks(row):
    return [row[OFFSETS[j] : OFFSETS[j] + SIZES[j]] for j in range(N_FEATURES)]


def _estimate(alpha, stats_, kind):
    with jax.enable_x64(True):
        result = categorical.point_estimate(
            np.asarray(alpha, float), stats_, kind, np.asarray(SEGMENT_IDS), N_FEATURES
        )
        return np.asarray(result)


def _log_lookup(codes, theta):
    """log p(x_i | k) = sum_j log theta_k[block j][x_ij] by a NumPy loop, shape (n, K)."""
    out = np.zeros((codes.shape[0], theta.shape[0]))
    with np.errstate(divide="ignore"):
        for i, row in enumerate(codes):
            for k in range(theta.shape[0]):
                out[i, k] = sum(np.log(theta[k, OFFSETS[j] + row[j]]) for j in range(N_FEATURES))
    return out


def _evaluate(form, X):
    return linear_reference.evaluate(form, X)


def _random_theta(rng):
    return np.stack([np.concatenate([rng.dirichlet(np.ones(s)) for s in SIZES]) for _ in range(K)])


def test_merge_is_the_sum_of_statistics():
    """merge of two batches equals the statistics of their union (R^T onehot, sums of R)."""
    codes, R = _data(np.random.default_rng(50))
    with jax.enable_x64(True):
        merged = categorical.merge(_stats(codes[:12], R[:12]), _stats(codes[12:], R[12:]))
    np.testing.assert_allclose(np.asarray(merged.counts), R.sum(axis=0), rtol=1e-13)
    np.testing.assert_allclose(np.asarray(merged.category_counts), R.T @ _one_hot(codes))


def test_mean_is_that_of_the_blockwise_conjugate_posterior():
    """The per-block Dirichlet(alpha + counts) is the posterior (SciPy), and "mean" its mean."""
    rng = np.random.default_rng(51)
    codes, R = _data(rng)
    alpha = 0.7
    stats_ = _stats(codes, R)
    counts = R.T @ _one_hot(codes)
    post = alpha + counts

    def constant(theta):
        total = np.sum(R * _log_lookup(codes, theta))
        for k in range(K):
            for t, c in zip(_blocks(theta[k]), _blocks(post[k]), strict=True):
                total += stats.dirichlet.logpdf(t, np.full(len(t), alpha))
                total -= stats.dirichlet.logpdf(t, c)
        return total

    first, second = (constant(_random_theta(rng)) for _ in range(2))
    np.testing.assert_allclose(first, second, rtol=1e-10)

    got = _estimate(alpha, stats_, "mean")
    expected = np.stack(
        [np.concatenate([stats.dirichlet.mean(c) for c in _blocks(post[k])]) for k in range(K)]
    )
    np.testing.assert_allclose(got, expected, rtol=1e-13)


def test_mean_of_the_unseen_column_is_alpha_over_smoothed_count():
    """Unit weights: the unseen column's mean is alpha/(N_k + alpha (C_j + 1))."""
    codes, R = _data(np.random.default_rng(52), weighted=False)
    alpha = 0.4
    got = _estimate(alpha, _stats(codes, R), "mean")
    N = R.sum(axis=0)
    for j in range(N_FEATURES):
        unseen = got[:, OFFSETS[j] + SEEN[j]]
        np.testing.assert_allclose(unseen, alpha / (N + alpha * SIZES[j]), rtol=1e-13)


@pytest.mark.parametrize("kind", ["mle", "map", "mean"])
def test_point_estimates_blockwise_closed_forms(kind):
    """Each block of each class equals its closed form (NumPy loop), incl. an empty class."""
    codes, R = _data(np.random.default_rng(53))
    R[:, 2] = 0.0  # class 2 without rows
    alpha = 0.6
    got = _estimate(alpha, _stats(codes, R), kind)
    counts = R.T @ _one_hot(codes)
    expected = np.zeros((K, M))
    for k in range(K):
        for j in range(N_FEATURES):
            block = slice(OFFSETS[j], OFFSETS[j] + SIZES[j])
            c = counts[k, block]
            if kind == "mle":
                value = c / c.sum() if c.sum() > 0 else np.full(SIZES[j], 1.0 / SIZES[j])
            elif kind == "mean":
                value = (c + alpha) / (c.sum() + alpha * SIZES[j])
            else:
                mode = np.maximum(c + alpha - 1, 0.0)
                value = mode / mode.sum() if mode.sum() > 0 else (c + alpha) / (c + alpha).sum()
            expected[k, block] = value
    np.testing.assert_allclose(got, expected, rtol=1e-13, atol=1e-300)
    for j in range(N_FEATURES):
        np.testing.assert_allclose(got[:, SEGMENT_IDS == j].sum(axis=1), 1.0, rtol=1e-13)
    if kind == "mle":
        assert np.all(got[:2, OFFSETS + SEEN] == 0.0)  # no unseen category in training


def test_linear_form_is_log_theta_lookup():
    """onehot(x) @ W.T + b equals sum_j log theta_k[x_j] for interior theta (NumPy lookup)."""
    rng = np.random.default_rng(54)
    theta = _random_theta(rng)
    codes = np.stack([rng.integers(0, s, size=15) for s in SIZES], axis=1)  # unseen included
    with jax.enable_x64(True):
        form = categorical.linear_form(np.asarray(theta))
    assert np.asarray(form.weights).shape == (K, M)
    assert np.asarray(form.bias).shape == (K,)
    np.testing.assert_allclose(_evaluate(form, _one_hot(codes)), _log_lookup(codes, theta))


def test_linear_form_with_zero_probabilities():
    """MLE theta (zeros, unseen column 0): -inf exactly where log theta lookup is, no NaN."""
    rng = np.random.default_rng(55)
    train, R = _data(rng, n=8, weighted=False)
    theta = _estimate(1.0, _stats(train, R), "mle")
    # Independent check of the MLE used here: per block frequencies of the training codes.
    labels = R.argmax(axis=1)
    for k in range(K):
        for j in range(N_FEATURES):
            rows = train[labels == k, j]
            if rows.size:
                freq = np.bincount(rows, minlength=SIZES[j]) / rows.size
                np.testing.assert_allclose(theta[k, OFFSETS[j] : OFFSETS[j] + SIZES[j]], freq)
    codes = np.stack([rng.integers(0, s, size=40) for s in SIZES], axis=1)
    with jax.enable_x64(True):
        form = categorical.linear_form(np.asarray(theta))
    got = _evaluate(form, _one_hot(codes))
    expected = _log_lookup(codes, theta)
    linear_reference.assert_matches_with_impossible_classes(form, got, expected)


def test_sample_params_are_blockwise_dirichlet():
    """Draws have shape (S, K, M), each block sums to 1, means are Dirichlet's within MC error."""
    rng = np.random.default_rng(56)
    concentration = rng.uniform(0.5, 6.0, size=(K, M))
    with jax.enable_x64(True):
        draws = categorical.sample_params(
            jax.random.key(57), concentration, np.asarray(SEGMENT_IDS), N_FEATURES, NUM_SAMPLES
        )
    draws = np.asarray(draws)
    assert draws.shape == (NUM_SAMPLES, K, M)
    assert np.all(draws >= 0)
    mean, var = np.zeros((K, M)), np.zeros((K, M))
    for j in range(N_FEATURES):
        block = SEGMENT_IDS == j
        np.testing.assert_allclose(draws[..., block].sum(axis=-1), 1.0, rtol=1e-12)
        for k in range(K):
            mean[k, block] = stats.dirichlet.mean(concentration[k, block])
            var[k, block] = stats.dirichlet.var(concentration[k, block])
    assert np.all(np.abs(draws.mean(axis=0) - mean) <= Z * np.sqrt(var / NUM_SAMPLES))


def test_posterior_is_alpha_plus_counts_and_its_block_mean_is_the_mean_estimate():
    """posterior = alpha + counts; normalising it per block gives point_estimate('mean')."""
    segment_ids = np.array([0, 0, 0, 1, 1])
    counts = np.array([[3.0, 0.0, 1.0, 2.0, 2.0], [0.0, 5.0, 0.0, 4.0, 1.0]])
    with jax.enable_x64(True):
        observed = categorical.CategoricalStats(counts.sum(axis=1) / 2, jnp.asarray(counts))
        concentration = np.asarray(categorical.posterior(jnp.asarray(0.5), observed))
        mean = np.asarray(categorical.point_estimate(0.5, observed, "mean", segment_ids, 2))
    np.testing.assert_allclose(concentration, counts + 0.5)
    for block in (slice(0, 3), slice(3, 5)):
        expected = concentration[:, block] / concentration[:, block].sum(axis=1, keepdims=True)
        np.testing.assert_allclose(mean[:, block], expected, rtol=1e-12)


def test_probability_floor_scores_each_probability_at_most_eps_as_threshold():
    """R's e1071 floor in the family's density, against a NumPy loop over floored
    probabilities; the posterior predictive keeps the model's own probabilities."""
    rng = np.random.default_rng(7)
    theta = _random_theta(rng)
    theta[0, OFFSETS[1]] = 0.0  # an impossible category, as an MLE of unseen counts gives
    theta[1, OFFSETS[2] + 1] = 1e-4
    codes = np.stack([rng.integers(0, c, size=40) for c in SIZES], axis=1)
    codes[0] = [0, 0, 1]  # a row hitting both small probabilities
    categories = [np.arange(c) for c in SEEN]
    plain = categorical.CategoricalFamily(categories=categories)
    floored = categorical.CategoricalFamily(categories=categories, probability_floor=(1e-3, 1e-4))
    expected = _log_lookup(codes, np.where(theta <= 1e-4, 1e-3, theta))
    np.testing.assert_allclose(floored.log_likelihood(theta, codes), expected, rtol=1e-13)
    assert np.isneginf(plain.log_likelihood(theta, codes)[0, 0])
    posterior = 1.0 + rng.uniform(0, 5, theta.shape)
    np.testing.assert_array_equal(
        floored.predictive_log_likelihood(posterior, codes),
        plain.predictive_log_likelihood(posterior, codes),
    )
    assert floored.with_learned(categories=categories).probability_floor == (1e-3, 1e-4)
