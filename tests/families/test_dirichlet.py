"""Dirichlet point estimates from counts against closed forms, SciPy and NumPy loops."""

import jax
import numpy as np
import pytest
from scipy import stats

from bayesgen.families import dirichlet

KINDS = ("mle", "map", "mean")


def _estimate(alpha, counts, kind, segment_ids=None, num_segments=None):
    with jax.enable_x64(True):
        ids = None if segment_ids is None else np.asarray(segment_ids)
        result = dirichlet.point_estimate(
            np.asarray(alpha, dtype=float),
            np.asarray(counts, dtype=float),
            kind,
            ids,
            num_segments,
        )
        return np.asarray(result)


def _reference(alpha, counts, kind):
    """The closed form for one probability vector, written out in NumPy."""
    alpha = np.broadcast_to(np.asarray(alpha, dtype=float), np.shape(counts))
    counts = np.asarray(counts, dtype=float)
    if kind == "mle":
        if counts.sum() == 0:
            return np.full(counts.shape, 1.0 / counts.size)
        return counts / counts.sum()
    posterior = alpha + counts
    if kind == "mean":
        return posterior / posterior.sum()
    mode = np.maximum(posterior - 1.0, 0.0)
    if mode.sum() == 0:
        return posterior / posterior.sum()
    return mode / mode.sum()


def test_mle_is_normalised_counts():
    """kind="mle" equals c / sum(c); the prior is ignored."""
    counts = np.array([3.0, 0.0, 5.5, 1.5])
    got = _estimate([10.0, 0.1, 3.0, 7.0], counts, "mle")
    np.testing.assert_allclose(got, counts / counts.sum(), rtol=1e-14)
    assert got[1] == 0.0


def test_mle_of_all_zero_counts_is_uniform():
    """An all-zero count vector gets the uniform vector under "mle" (no 0/0 NaN)."""
    got = _estimate([2.0, 2.0, 2.0, 2.0, 2.0], np.zeros(5), "mle")
    np.testing.assert_allclose(got, np.full(5, 0.2), rtol=1e-15)


def test_mean_is_scipy_dirichlet_mean():
    """kind="mean" equals SciPy's Dirichlet(alpha + c) mean, (alpha + c)/sum(alpha + c)."""
    alpha, counts = np.array([0.5, 1.0, 2.0, 0.2]), np.array([3.0, 0.0, 5.5, 1.5])
    got = _estimate(alpha, counts, "mean")
    np.testing.assert_allclose(got, stats.dirichlet.mean(alpha + counts), rtol=1e-14)


def test_mean_broadcasts_a_scalar_concentration():
    """A scalar alpha is additive smoothing (c + alpha)/(sum c + n alpha)."""
    counts = np.array([4.0, 0.0, 1.0])
    got = _estimate(0.5, counts, "mean")
    np.testing.assert_allclose(got, (counts + 0.5) / (counts.sum() + 1.5), rtol=1e-14)


def test_map_is_interior_mode():
    """kind="map" equals (alpha + c - 1)/sum(alpha + c - 1) when every alpha + c >= 1."""
    alpha, counts = np.array([1.0, 2.0, 1.5]), np.array([3.0, 0.0, 5.5])
    posterior = alpha + counts
    got = _estimate(alpha, counts, "map")
    np.testing.assert_allclose(got, (posterior - 1) / np.sum(posterior - 1), rtol=1e-14)
    # It is a mode: SciPy's log density is no higher at nearby points of the simplex.
    rng = np.random.default_rng(1)
    best = stats.dirichlet.logpdf(got, posterior)
    for _ in range(10):
        step = rng.normal(size=3) * 1e-3
        assert best >= stats.dirichlet.logpdf(got + step - step.mean(), posterior)


def test_map_clips_entries_below_one():
    """kind="map" clips alpha + c - 1 at zero before normalising (mode on the boundary)."""
    got = _estimate([0.5, 0.5, 0.5], [0.0, 2.0, 4.0], "map")
    np.testing.assert_allclose(got, np.array([0.0, 1.5, 3.5]) / 5.0, rtol=1e-14)
    assert got[0] == 0.0


def test_map_without_a_mode_falls_back_to_the_mean():
    """Every alpha + c <= 1 (here one equal to 1): the posterior mean is returned."""
    alpha, counts = np.array([0.5, 0.5, 0.2]), np.array([0.3, 0.5, 0.0])
    got = _estimate(alpha, counts, "map")
    np.testing.assert_allclose(got, np.array([0.8, 1.0, 0.2]) / 2.0, rtol=1e-14)


@pytest.mark.parametrize("kind", ["MLE", "mode", ""])
def test_invalid_kind_raises(kind):
    """An unknown kind raises ValueError naming `estimate`."""
    with pytest.raises(ValueError, match="estimate"):
        _estimate([1.0, 1.0], [1.0, 2.0], kind)


@pytest.mark.parametrize("kind", KINDS)
def test_batch_rows_are_estimated_independently(kind):
    """(K, n) counts: each row equals the single-vector closed form (NumPy loop over rows)."""
    alpha = np.array([0.5, 1.0, 2.0, 0.7])
    counts = np.array(
        [
            [3.0, 0.0, 5.5, 1.5],
            [0.0, 0.0, 0.0, 0.0],  # no counts: uniform MLE, map falls back to the mean
            [0.0, 0.0, 7.0, 0.0],
            [10.0, 0.2, 0.0, 4.0],
        ]
    )
    got = _estimate(alpha, counts, kind)
    expected = np.stack([_reference(alpha, row, kind) for row in counts])
    assert got.shape == counts.shape
    np.testing.assert_allclose(got, expected, rtol=1e-13, atol=1e-300)


@pytest.mark.parametrize("kind", KINDS)
def test_segments_are_normalised_separately(kind):
    """With segment_ids each block equals the single-vector closed form (loop over blocks)."""
    sizes = [2, 3, 4]
    segment_ids = np.repeat(np.arange(3), sizes)
    alpha = np.array([0.5, 1.0, 0.3, 2.0, 0.5, 1.0, 1.0, 0.2, 3.0])
    counts = np.array(
        [
            # block 0 without counts: uniform MLE, map falls back to the block's mean
            [0.0, 0.0, 0.2, 0.0, 0.5, 4.0, 0.0, 1.0, 2.0],
            # block 2 without counts: its map lies on the boundary
            [3.0, 1.0, 0.5, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
            [1.0, 0.0, 6.0, 1.0, 1.0, 2.0, 3.0, 0.0, 1.0],
        ]
    )
    got = _estimate(alpha, counts, kind, segment_ids, 3)
    expected = np.zeros_like(counts)
    for k in range(counts.shape[0]):
        for s in range(3):
            block = segment_ids == s
            expected[k, block] = _reference(alpha[block], counts[k, block], kind)
    assert got.shape == counts.shape
    np.testing.assert_allclose(got, expected, rtol=1e-13, atol=1e-300)
    for s in range(3):
        np.testing.assert_allclose(got[:, segment_ids == s].sum(axis=1), 1.0, rtol=1e-13)


def test_segment_map_fallback_is_per_block():
    """The map fallback applies to a block without a mode only, not to the whole vector."""
    segment_ids = np.array([0, 0, 1, 1])
    got = _estimate(0.5, [[0.2, 0.4, 3.0, 1.0]], "map", segment_ids, 2)
    # Block 0: 0.7, 0.9 <= 1, so the mean 0.7/1.6, 0.9/1.6; block 1: (2.5, 0.5)/3.
    np.testing.assert_allclose(got[0], [0.7 / 1.6, 0.9 / 1.6, 2.5 / 3.0, 0.5 / 3.0], rtol=1e-14)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("backend", ["numpy", "jax"])
def test_two_categories_equal_the_reduction_bit_for_bit(kind, backend):
    """A Beta (two categories) is normalised by a + b in place of the reduction over the last
    axis: the same sums, so the same bits, including rows without counts or a mode."""
    rng = np.random.default_rng(7)
    counts = rng.poisson(1.5, size=(6, 40, 2)) * rng.uniform(0.1, 3.0, (6, 40, 1))
    counts[0, :5] = 0.0
    alpha = rng.uniform(0.2, 2.0, size=(6, 40, 2))
    with jax.enable_x64(True):
        xp = np if backend == "numpy" else jax.numpy
        reduction = lambda w, *_: xp.sum(w, axis=-1, keepdims=True)  # noqa: E731
        fast = dirichlet.point_estimate(xp.asarray(alpha), xp.asarray(counts), kind)
        original = dirichlet._segment_total
        try:
            dirichlet._segment_total = lambda xp_, w, ids, n: reduction(w)
            reduced = dirichlet.point_estimate(xp.asarray(alpha), xp.asarray(counts), kind)
        finally:
            dirichlet._segment_total = original
        np.testing.assert_array_equal(np.asarray(fast), np.asarray(reduced))
        for row in (0, 3):
            np.testing.assert_allclose(
                np.asarray(fast)[row, 0], _reference(alpha[row, 0], counts[row, 0], kind)
            )
