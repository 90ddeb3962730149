"""Gaussian sufficient statistics against NumPy brute force."""

import jax
import numpy as np
import pytest

from bayesgen.families import gaussian

COVARIANCE_TYPES = ("full", "tied", "diag", "spherical")


def _numpy_stats(X, R, covariance_type):
    """Counts, weighted means and centred scatter by explicit loops over classes and rows."""
    n, d = X.shape
    K = R.shape[1]
    counts = np.zeros(K)
    means = np.zeros((K, d))
    scatter = np.zeros((K, d, d))
    for k in range(K):
        counts[k] = sum(R[i, k] for i in range(n))
        if counts[k] > 0:
            means[k] = sum(R[i, k] * X[i] for i in range(n)) / counts[k]
        for i in range(n):
            centred = X[i] - means[k]
            scatter[k] += R[i, k] * np.outer(centred, centred)
    if covariance_type == "full":
        return counts, means, scatter
    if covariance_type == "tied":
        return counts, means, scatter.sum(axis=0)
    return counts, means, np.stack([np.diag(s) for s in scatter])


def _responsibilities(rng, n, K, kind):
    """One-hot times weight, or soft rows; the last class always has zero weight."""
    if kind == "soft":
        R = rng.dirichlet(np.ones(K - 1), size=n) * rng.uniform(0.5, 2.0, size=(n, 1))
    else:
        labels = rng.integers(0, K - 1, size=n)
        weights = rng.uniform(0.5, 2.0, size=n) if kind == "weighted" else np.ones(n)
        R = np.eye(K - 1)[labels] * weights[:, None]
    return np.concatenate([R, np.zeros((n, 1))], axis=1)


def _assert_stats_close(stats, expected, rtol=1e-10, atol=1e-10):
    counts, means, scatter = expected
    np.testing.assert_allclose(np.asarray(stats.counts), counts, rtol=rtol, atol=atol)
    np.testing.assert_allclose(np.asarray(stats.means), means, rtol=rtol, atol=atol)
    np.testing.assert_allclose(np.asarray(stats.scatter), scatter, rtol=rtol, atol=atol)


@pytest.mark.parametrize("covariance_type", COVARIANCE_TYPES)
@pytest.mark.parametrize("kind", ["onehot", "weighted", "soft"])
def test_suff_stats_match_numpy_loop(covariance_type, kind):
    """suff_stats equals an explicit NumPy loop, including a zero-weight class (mean 0)."""
    rng = np.random.default_rng(0)
    n, d, K = 40, 3, 4
    X = rng.normal(size=(n, d)) * [1.0, 2.0, 0.5] + [3.0, -1.0, 0.0]
    R = _responsibilities(rng, n, K, kind)
    with jax.enable_x64(True):
        stats = gaussian.suff_stats(X, R, covariance_type)
    expected = _numpy_stats(X, R, covariance_type)
    _assert_stats_close(stats, expected)
    assert np.all(np.asarray(stats.means)[-1] == 0.0)
    assert np.asarray(stats.counts)[-1] == 0.0


@pytest.mark.parametrize("covariance_type", COVARIANCE_TYPES)
@pytest.mark.parametrize("kind", ["onehot", "weighted", "soft"])
def test_rows_in_ranges_side_by_side_equal_one_range(monkeypatch, covariance_type, kind):
    """Rows cut into ranges of whole blocks (run in threads) and merged (labelled rows) or
    added up (soft responsibilities, both passes) give the statistics of one range, whether
    the cuts fall inside a class's rows or not."""
    from bayesgen import _parallel
    from bayesgen.families.gaussian import blocked_stats

    rng = np.random.default_rng(3)
    n, d, K = 203, 3, 4
    X = rng.normal(size=(n, d)) * [1.0, 2.0, 0.5] + [3.0, -1.0, 0.0]
    R = _responsibilities(rng, n, K, kind)
    monkeypatch.setattr(blocked_stats, "ONE_HOT_BLOCK_ROWS", 16)
    monkeypatch.setattr(blocked_stats, "SOFT_BLOCK_ROWS", 16)
    whole = blocked_stats.suff_stats(X, R, covariance_type)
    ranges = []
    real = blocked_stats.run_pieces
    monkeypatch.setattr(
        blocked_stats,
        "run_pieces",
        lambda f, pieces, **kw: ranges.append(list(pieces)) or real(f, pieces, **kw),
    )
    monkeypatch.setattr(blocked_stats, "PARALLEL_ROWS", 32)
    monkeypatch.setattr(blocked_stats, "thread_count", lambda: 3)
    monkeypatch.setattr(_parallel, "thread_count", lambda: 3)  # three threads in fact
    cut = blocked_stats.suff_stats(X, R, covariance_type)
    passes = 2 if kind == "soft" else 1
    assert ranges == [[slice(0, 64), slice(64, 128), slice(128, n)]] * passes
    for got, expected in zip(cut, whole, strict=True):
        np.testing.assert_allclose(got, expected, rtol=1e-13, atol=1e-13)
    _assert_stats_close(gaussian.GaussianStats(*cut), _numpy_stats(X, R, covariance_type))


def test_partial_statistics_larger_than_the_rows_are_not_made_per_thread(monkeypatch):
    """A (classes x features x features) scatter per range would outweigh the rows
    themselves: such statistics are taken in one range."""
    from bayesgen.families.gaussian import blocked_stats

    monkeypatch.setattr(blocked_stats, "PARALLEL_ROWS", 1)
    monkeypatch.setattr(blocked_stats, "thread_count", lambda: 4)
    assert len(blocked_stats._row_ranges(4_000, 16, 10, 4_000 * 3)) == 4
    assert len(blocked_stats._row_ranges(4_000, 16, 6_000, 4_000 * 3)) == 2
    assert len(blocked_stats._row_ranges(4_000, 16, 10**9, 4_000 * 3)) == 1


@pytest.mark.parametrize("covariance_type", COVARIANCE_TYPES)
@pytest.mark.parametrize("where", ["first", "middle", "last"])
def test_a_row_in_two_classes_anywhere_sends_the_rows_to_the_soft_kernel(
    monkeypatch, covariance_type, where
):
    """Labelled rows with one soft row, in the first block, a middle one or the last row.
    The screen of spread rows (every 50th) misses it, so the blocks, which check every row,
    find it; the statistics are those of the soft responsibilities."""
    from bayesgen.families.gaussian import blocked_stats

    rng = np.random.default_rng(5)
    n, d, K = 203, 3, 4
    X = rng.normal(size=(n, d)) * [1.0, 2.0, 0.5] + [3.0, -1.0, 0.0]
    R = _responsibilities(rng, n, K, "weighted")
    row = {"first": 1, "middle": 101, "last": n - 1}[where]
    R[row, :2] = [0.25, 0.75]
    monkeypatch.setattr(blocked_stats, "ONE_HOT_BLOCK_ROWS", 16)
    monkeypatch.setattr(blocked_stats, "SOFT_BLOCK_ROWS", 16)
    monkeypatch.setattr(blocked_stats, "PARALLEL_ROWS", 32)
    monkeypatch.setattr(blocked_stats, "SCREENED_ROWS", 4)  # rows 0, 50, 100, 150, 200
    assert row % 50 != 0
    stats = gaussian.GaussianStats(*blocked_stats.suff_stats(X, R, covariance_type))
    _assert_stats_close(stats, _numpy_stats(X, R, covariance_type))


@pytest.mark.parametrize("covariance_type", COVARIANCE_TYPES)
def test_labelled_rows_then_unlabelled_ones_make_no_one_pass_attempt(monkeypatch, covariance_type):
    """One-hot rows followed by soft ones (labelled rows stacked on unlabelled ones): the
    screen of spread rows (every 50th here) sends them to the soft kernel before any block
    of the one-pass kernels runs."""
    from bayesgen.families.gaussian import blocked_stats

    rng = np.random.default_rng(6)
    n, d, K = 400, 3, 4
    X = rng.normal(size=(n, d))
    R = np.concatenate(
        [_responsibilities(rng, 300, K, "onehot"), _responsibilities(rng, 100, K, "soft")]
    )
    monkeypatch.setattr(blocked_stats, "SCREENED_ROWS", 8)

    def refused(*args):
        raise AssertionError("a one-pass kernel ran on soft responsibilities")

    monkeypatch.setattr(blocked_stats, "_one_hot_stats", refused)
    monkeypatch.setattr(blocked_stats, "_one_hot_diagonal_stats", refused)
    stats = gaussian.GaussianStats(*blocked_stats.suff_stats(X, R, covariance_type))
    _assert_stats_close(stats, _numpy_stats(X, R, covariance_type))


@pytest.mark.parametrize("kernel", ["diagonal", "full"])
def test_a_range_that_finds_a_row_in_two_classes_stops_the_others(kernel):
    """The ranges share an event: the kernel that meets a soft row sets it, and a kernel
    whose event is set returns at its next block without reading it."""
    import threading

    from bayesgen.families.gaussian import blocked_stats

    rng = np.random.default_rng(8)
    X = rng.normal(size=(50, 3))
    R = _responsibilities(rng, 50, 4, "onehot")
    soft = R.copy()
    soft[40, :2] = [0.5, 0.5]

    def run(R, stop):
        if kernel == "diagonal":
            return blocked_stats._one_hot_diagonal_stats(X, R, stop)
        return blocked_stats._one_hot_stats(X, R, stop)

    stop = threading.Event()
    assert run(R, stop) is not None and not stop.is_set()
    assert run(soft, stop) is None and stop.is_set()
    assert run(R, stop) is None  # set by another range: no block is read


@pytest.mark.parametrize("covariance_type", ["diag", "spherical"])
def test_weights_below_rounding_of_an_otherwise_empty_class_stay_consistent(covariance_type):
    """A dying component: every row labelled, with 1e-18 of its weight in a last class. The
    diagonal kernel's count and mean of that class come from those weights, as the closed
    form says (their sum, their weighted mean); its scatter is taken around each row's own
    class's mean (one pass), so it is only as small as those weights. The full kernel
    groups rows by their labels and leaves such weights out, as it always did."""
    rng = np.random.default_rng(9)
    X = rng.normal(size=(50, 2)) + 5.0
    R = np.eye(3)[rng.integers(0, 2, 50)]
    R[:, 2] = 1e-18 * rng.uniform(size=50)
    stats = gaussian.suff_stats(X, R, covariance_type)
    counts, means, scatter = _numpy_stats(X, R, covariance_type)
    np.testing.assert_allclose(np.asarray(stats.counts), counts, rtol=1e-10, atol=0)
    np.testing.assert_allclose(np.asarray(stats.means), means, rtol=1e-10, atol=0)
    assert 0 < np.asarray(stats.counts)[2] < 1e-16
    np.testing.assert_allclose(np.asarray(stats.scatter)[:2], scatter[:2], rtol=1e-10)
    assert np.all(np.abs(np.asarray(stats.scatter)[2]) < 1e-15)


@pytest.mark.parametrize("covariance_type", COVARIANCE_TYPES)
def test_a_row_whose_other_classes_are_below_its_rounding_counts_as_labelled(
    monkeypatch, covariance_type
):
    """Largest responsibility == their sum in floating point is the test of a labelled row:
    1e-20 beside 1.0 is such a row, fitted as one-hot (as an E-step near convergence gives
    it), bit for bit as the row without it."""
    from bayesgen.families.gaussian import blocked_stats

    rng = np.random.default_rng(7)
    n, d, K = 300, 3, 4
    X = rng.normal(size=(n, d))
    R = _responsibilities(rng, n, K, "onehot")
    tiny = R.copy()
    tiny[10, (np.argmax(R[10]) + 1) % (K - 1)] = 1e-20
    soft_calls = []
    real = blocked_stats._soft_stats
    monkeypatch.setattr(
        blocked_stats, "_soft_stats", lambda *args: soft_calls.append(1) or real(*args)
    )
    got = blocked_stats.suff_stats(X, tiny, covariance_type)
    expected = blocked_stats.suff_stats(X, R, covariance_type)
    assert soft_calls == []
    for a, b in zip(got, expected, strict=True):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("covariance_type", COVARIANCE_TYPES)
@pytest.mark.parametrize("kind", ["onehot", "weighted", "soft"])
def test_merge_equals_stats_of_union(covariance_type, kind):
    """merge(stats(A), stats(B)) equals a NumPy loop over A ∪ B, also when B lacks a class."""
    rng = np.random.default_rng(1)
    d, K = 3, 4
    X = rng.normal(size=(50, d)) * 2.0 + 5.0
    R = _responsibilities(rng, 50, K, kind)
    # Batch B has no weight in class 0 (and, like A, none in the last class).
    R_b = R[30:].copy()
    R_b[:, 0] = 0.0
    R = np.concatenate([R[:30], R_b])
    with jax.enable_x64(True):
        a = gaussian.suff_stats(X[:30], R[:30], covariance_type)
        b = gaussian.suff_stats(X[30:], R[30:], covariance_type)
        merged = gaussian.merge(a, b, covariance_type)
        merged_reversed = gaussian.merge(b, a, covariance_type)
    expected = _numpy_stats(X, R, covariance_type)
    _assert_stats_close(merged, expected)
    _assert_stats_close(merged_reversed, expected)


@pytest.mark.parametrize("covariance_type", COVARIANCE_TYPES)
def test_merge_of_several_uneven_batches(covariance_type):
    """Folding merge over uneven batches (one empty for a class) equals the NumPy loop on all."""
    rng = np.random.default_rng(2)
    d, K = 2, 3
    X = rng.normal(size=(37, d)) + 100.0
    labels = rng.integers(0, K, size=37)
    labels[:5] = 0  # the first batch holds class 0 only
    R = np.eye(K)[labels]
    cuts = [0, 5, 6, 20, 37]
    with jax.enable_x64(True):
        total = gaussian.suff_stats(X[:5], R[:5], covariance_type)
        for lo, hi in zip(cuts[1:-1], cuts[2:], strict=True):
            batch = gaussian.suff_stats(X[lo:hi], R[lo:hi], covariance_type)
            total = gaussian.merge(total, batch, covariance_type)
    _assert_stats_close(total, _numpy_stats(X, R, covariance_type), atol=1e-9)


@pytest.mark.parametrize("covariance_type", COVARIANCE_TYPES)
def test_total_moments_match_numpy(covariance_type):
    """total_moments equals np.mean and np.cov(bias=True) (np.var: diag/spherical) of all rows."""
    rng = np.random.default_rng(3)
    n, d, K = 60, 3, 3
    X = rng.normal(size=(n, d)) @ rng.normal(size=(d, d)) + [10.0, -5.0, 2.0]
    labels = rng.integers(0, K, size=n)
    R = np.eye(K)[labels]
    with jax.enable_x64(True):
        stats = gaussian.suff_stats(X, R, covariance_type)
        mean, covariance = gaussian.total_moments(stats, covariance_type)
    np.testing.assert_allclose(np.asarray(mean), X.mean(axis=0), rtol=1e-12)
    if covariance_type in ("full", "tied"):
        expected = np.cov(X, rowvar=False, bias=True)
    else:
        expected = X.var(axis=0)
    np.testing.assert_allclose(np.asarray(covariance), expected, rtol=1e-10)


@pytest.mark.parametrize("covariance_type", COVARIANCE_TYPES)
def test_float32_scatter_is_accurate_on_offset_data(covariance_type):
    """Float32 scatter/N of unit-variance data offset by 1000 matches a float64 NumPy reference."""
    rng = np.random.default_rng(4)
    n, d, K = 4000, 2, 2
    X = (rng.standard_normal(size=(n, d)) + 1000.0).astype(np.float32)
    labels = rng.integers(0, K, size=n)
    R = np.eye(K, dtype=np.float32)[labels]
    stats = gaussian.suff_stats(X, R, covariance_type)
    assert np.asarray(stats.scatter).dtype == np.float32
    counts, _, scatter = _numpy_stats(X.astype(np.float64), R.astype(np.float64), covariance_type)
    if covariance_type == "tied":
        expected = scatter / counts.sum()
        got = np.asarray(stats.scatter, dtype=np.float64) / counts.sum()
    else:
        shape = (K,) + (1,) * (scatter.ndim - 1)
        expected = scatter / counts.reshape(shape)
        got = np.asarray(stats.scatter, dtype=np.float64) / counts.reshape(shape)
    # The variances are about 1 (the raw-moment formula would be off by about 1 here).
    np.testing.assert_allclose(got, expected, atol=1e-3)
    if covariance_type in ("full", "tied"):
        variances = np.diagonal(got, axis1=-2, axis2=-1)
    else:
        variances = got
    np.testing.assert_allclose(variances, 1.0, atol=0.1)
