"""Dirichlet–Categorical class prior against closed forms and SciPy's Dirichlet."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from scipy import stats

from bayesgen.families import class_prior

NUM_SAMPLES = 4000
Z = 4.0  # Monte-Carlo standard errors allowed


def _estimate(alpha, counts, kind):
    with jax.enable_x64(True):
        prior = class_prior.Dirichlet(np.asarray(alpha, dtype=float))
        stats_ = class_prior.ClassCounts(np.asarray(counts, dtype=float))
        return np.asarray(class_prior.point_estimate(prior, stats_, kind))


def test_suff_stats_and_merge_are_column_sums():
    """suff_stats is the column sum of R, and merge of two batches the sum over both (NumPy)."""
    rng = np.random.default_rng(40)
    R = rng.dirichlet(np.ones(3), size=20) * rng.uniform(0.5, 2.0, size=(20, 1))
    with jax.enable_x64(True):
        merged = class_prior.merge(class_prior.suff_stats(R[:7]), class_prior.suff_stats(R[7:]))
        whole = class_prior.suff_stats(R)
    np.testing.assert_allclose(np.asarray(whole.counts), R.sum(axis=0), rtol=1e-12)
    np.testing.assert_allclose(np.asarray(merged.counts), R.sum(axis=0), rtol=1e-12)


def test_posterior_is_alpha_plus_counts():
    """The conjugate update is Dirichlet(alpha + N): SciPy's prior x multinomial ratio check."""
    alpha, counts = np.array([0.5, 2.0, 1.5]), np.array([3.0, 0.0, 5.0])
    with jax.enable_x64(True):
        post = class_prior.posterior(
            class_prior.Dirichlet(alpha), class_prior.ClassCounts(counts)
        ).concentration
    post = np.asarray(post)
    # log prior(pi) + log lik(pi) - log posterior(pi) must not depend on pi.
    rng = np.random.default_rng(41)
    constants = [
        stats.dirichlet.logpdf(pi, alpha) + counts @ np.log(pi) - stats.dirichlet.logpdf(pi, post)
        for pi in rng.dirichlet(np.ones(3), size=3)
    ]
    np.testing.assert_allclose(constants[1:], constants[0], rtol=1e-10)
    np.testing.assert_allclose(post, alpha + counts, rtol=1e-15)


def test_mle_is_normalised_counts():
    """kind="mle" equals N_k / sum N (the prior ignored)."""
    counts = np.array([3.0, 0.0, 5.5, 1.5])
    got = _estimate([10.0, 10.0, 10.0, 10.0], counts, "mle")
    np.testing.assert_allclose(got, counts / counts.sum(), rtol=1e-14)


def test_mean_is_additive_smoothing():
    """kind="mean" equals (alpha + N)/sum(alpha + N), SciPy's Dirichlet mean."""
    alpha, counts = np.array([0.5, 1.0, 2.0, 0.2]), np.array([3.0, 0.0, 5.5, 1.5])
    got = _estimate(alpha, counts, "mean")
    np.testing.assert_allclose(got, stats.dirichlet.mean(alpha + counts), rtol=1e-14)


def test_map_is_dirichlet_mode():
    """kind="map" equals the closed-form mode (alpha+N-1)/sum(alpha+N-1) when all >= 1."""
    alpha, counts = np.array([1.0, 2.0, 1.5]), np.array([3.0, 0.0, 5.5])
    concentration = alpha + counts
    got = _estimate(alpha, counts, "map")
    np.testing.assert_allclose(got, (concentration - 1) / np.sum(concentration - 1), rtol=1e-14)
    # A mode: SciPy's log density is higher there than at nearby points of the simplex.
    rng = np.random.default_rng(42)
    best = stats.dirichlet.logpdf(got, concentration)
    for _ in range(10):
        step = rng.normal(size=3) * 1e-3
        nearby = got + step - step.mean()
        assert best >= stats.dirichlet.logpdf(nearby, concentration)


def test_map_clips_below_one():
    """kind="map" clips alpha + N - 1 at zero before normalising (mode on the boundary)."""
    alpha, counts = np.array([0.5, 0.5, 0.5]), np.array([0.0, 2.0, 4.0])
    got = _estimate(alpha, counts, "map")
    np.testing.assert_allclose(got, np.array([0.0, 1.5, 3.5]) / 5.0, rtol=1e-14)
    assert got[0] == 0.0


@pytest.mark.parametrize("kind", ["MLE", "median", ""])
def test_invalid_kind_raises(kind):
    """An unknown kind raises ValueError naming `estimate`."""
    with pytest.raises(ValueError, match="estimate"):
        _estimate([1.0, 1.0], [1.0, 2.0], kind)


def test_sample_params_match_dirichlet():
    """Draws lie on the simplex, with SciPy's Dirichlet mean and variance within MC error."""
    concentration = np.array([0.7, 2.0, 5.0, 1.3])
    with jax.enable_x64(True):
        draws = class_prior.sample_params(
            jax.random.key(43), class_prior.Dirichlet(concentration), NUM_SAMPLES
        )
    draws = np.asarray(draws)
    assert draws.shape == (NUM_SAMPLES, 4)
    assert np.all(draws >= 0)
    np.testing.assert_allclose(draws.sum(axis=1), 1.0, rtol=1e-12)
    se = draws.std(axis=0, ddof=1) / np.sqrt(NUM_SAMPLES)
    assert np.all(np.abs(draws.mean(axis=0) - stats.dirichlet.mean(concentration)) <= Z * se)
    # Marginals are Beta(alpha_k, sum - alpha_k): KS test per class.
    total = concentration.sum()
    for k, a in enumerate(concentration):
        result = stats.kstest(draws[:, k], stats.beta(a, total - a).cdf)
        assert result.pvalue > 1e-3, (k, result)


def test_map_without_an_interior_mode_falls_back_to_the_mean():
    """Every alpha_k + N_k <= 1: no single mode, so the posterior mean (no 0/0 NaN)."""
    with jax.enable_x64(True):
        prior = class_prior.Dirichlet(jnp.array([0.5, 0.5, 0.2]))
        stats = class_prior.ClassCounts(jnp.array([0.3, 0.0, 0.5]))
        result = np.asarray(class_prior.point_estimate(prior, stats, "map"))
    np.testing.assert_allclose(result, np.array([0.8, 0.5, 0.7]) / 2.0)
