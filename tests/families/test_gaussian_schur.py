"""Rows with missing entries at the cost of their missing block (Schur complement)."""

import numpy as np
import pytest
from gappy_cases import covariances as _covariances
from gappy_cases import gappy as _gappy
from gappy_cases import stored as _stored
from scipy import stats

from bayesgen.families.gaussian import GaussianFamily, GaussianParams, missing, missing_conditionals


def _scipy_forms(means, covariances, X):
    """(squared Mahalanobis distance, half log det) of each observed block, by SciPy."""
    squared = np.zeros((X.shape[0], means.shape[0]))
    half_log_det = np.zeros_like(squared)
    for i, row in enumerate(X):
        seen = ~np.isnan(row)
        if not seen.any():
            continue
        for k in range(means.shape[0]):
            block = covariances[k][np.ix_(seen, seen)]
            factor = stats.Covariance.from_cholesky(np.linalg.cholesky(block))
            deviation = row[seen] - means[k, seen]
            squared[i, k] = np.sum(factor.whiten(deviation) ** 2)
            half_log_det[i, k] = 0.5 * factor.log_pdet
    return squared, half_log_det


@pytest.mark.parametrize("offset", [0.0, 50.0])
def test_schur_forms_equal_scipy_on_every_observed_block(offset):
    rng = np.random.default_rng(0)
    K, d = 3, 9
    means = offset + rng.normal(size=(K, d))
    covariances = _covariances(rng, K, d)
    X = _gappy(rng, 200, d, offset=offset)
    squared, half_log_det, n_observed = missing.schur_forms(means, covariances, X)
    expected_squared, expected_half_log_det = _scipy_forms(means, covariances, X)
    np.testing.assert_allclose(squared, expected_squared, rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(half_log_det, expected_half_log_det, rtol=1e-9, atol=1e-9)
    np.testing.assert_array_equal(n_observed, np.sum(~np.isnan(X), axis=1))


def test_chunks_do_not_change_the_result(monkeypatch):
    rng = np.random.default_rng(1)
    means, covariances = rng.normal(size=(2, 6)), _covariances(rng, 2, 6)
    X = _gappy(rng, 150, 6)
    whole = missing.schur_forms(means, covariances, X)
    monkeypatch.setattr(missing, "CHUNK_VALUES", 50)  # a few rows per chunk
    chunks = list(missing.row_chunks(X, 2, complete=True))
    assert len(chunks) > 10
    assert sorted(np.concatenate([rows for rows, _ in chunks])) == list(range(150))
    for got, expected in zip(missing.schur_forms(means, covariances, X), whole, strict=True):
        np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12)


def test_float32_rows_get_float32_forms_computed_without_cancellation():
    rng = np.random.default_rng(2)
    means, covariances = rng.normal(size=(2, 7)), _covariances(rng, 2, 7)
    X = _gappy(rng, 100, 7)
    squared, half_log_det, _ = missing.schur_forms(means, covariances, X.astype(np.float32))
    assert squared.dtype == half_log_det.dtype == np.float32
    expected_squared, expected_half_log_det = _scipy_forms(
        means, covariances, X.astype(np.float32).astype(np.float64)
    )
    np.testing.assert_allclose(squared, expected_squared, rtol=1e-6, atol=1e-5)
    np.testing.assert_allclose(half_log_det, expected_half_log_det, rtol=1e-6, atol=1e-5)


def test_conditionals_equal_the_observed_block_formulas():
    """E[x_m | x_o, k] and Cov[x_m | x_o, k] against the Sigma_oo factorisation, per row."""
    rng = np.random.default_rng(3)
    K, d = 2, 6
    means, covariances = rng.normal(size=(K, d)), _covariances(rng, K, d)
    X = _gappy(rng, 120, d)
    seen_rows = set()
    for rows, index, mean, covariance in missing_conditionals.conditionals(means, covariances, X):
        for r, row in enumerate(rows):
            pattern = np.isnan(X[row])
            assert list(index[r]) == list(np.flatnonzero(pattern))
            for k in range(K):
                expected_mean, expected_covariance = missing.conditional(
                    means, covariances, X, np.array([row]), pattern, k
                )
                np.testing.assert_allclose(mean[k, r], expected_mean[0], rtol=1e-9, atol=1e-9)
                np.testing.assert_allclose(
                    covariance[k, r], expected_covariance, rtol=1e-9, atol=1e-9
                )
        seen_rows.update(rows.tolist())
    assert seen_rows == set(np.flatnonzero(np.isnan(X).any(axis=1)).tolist())


@pytest.mark.parametrize("covariance_type", ["full", "tied", "diag", "spherical"])
def test_family_scores_many_patterns_as_scipy_for_every_covariance_type(covariance_type):
    rng = np.random.default_rng(4)
    K, d = 3, 8
    means = rng.normal(size=(K, d))
    full = _covariances(rng, K, d)
    stored = _stored(full, covariance_type)
    family = GaussianFamily(covariance_type)
    params = GaussianParams(means, stored)
    X = _gappy(rng, 300, d)
    patterns, _ = missing.missing_patterns(X)
    assert len(patterns) > missing.MANY_PATTERNS
    covariances = family.full_covariances(params)
    expected_squared, expected_half_log_det = _scipy_forms(means, covariances, X)
    n_observed = np.sum(~np.isnan(X), axis=1)[:, None]
    expected = (
        -0.5 * expected_squared - expected_half_log_det - 0.5 * n_observed * np.log(2 * np.pi)
    )
    np.testing.assert_allclose(family.log_likelihood(params, X), expected, rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("covariance_type", ["full", "tied", "diag", "spherical"])
@pytest.mark.parametrize("gappy_share", [0.1, 0.9])
@pytest.mark.parametrize("order", ["C", "F"])
def test_every_way_to_a_gappy_table_gives_the_observed_block_densities(
    monkeypatch, covariance_type, gappy_share, order
):
    """A table most of whose rows miss entries is scored by observed blocks at once (no
    complete pass first), one with a few such rows by rescoring them: the same densities
    as SciPy's, complete rows included, a complete row far out at density 0, and float32,
    in C and in Fortran order (a DataFrame's values)."""
    from bayesgen.families.gaussian import family as family_module

    rng = np.random.default_rng(12)
    K, d, n = 3, 6, 400
    means = rng.normal(size=(K, d))
    full = _covariances(rng, K, d)
    stored = _stored(full, covariance_type)
    family, params = GaussianFamily(covariance_type), GaussianParams(means, stored)
    X = rng.normal(size=(n, d)) * 2.0
    X[rng.uniform(size=n) < gappy_share, rng.integers(0, d)] = np.nan
    X[rng.uniform(size=(n, d)) < 0.2 * gappy_share] = np.nan
    X[3] = 1e300  # complete, and so far out that its quadratic form overflows
    X[4] = np.nan
    X = np.asarray(X, order=order)
    reference_rows = X.copy()
    reference_rows[3] = 0.0  # its expected density is set to 0 below
    expected_squared, expected_half_log_det = _scipy_forms(
        means, family.full_covariances(params), reference_rows
    )
    n_observed = np.sum(~np.isnan(X), axis=1)[:, None]
    expected = -0.5 * expected_squared - expected_half_log_det
    expected -= 0.5 * n_observed * np.log(2 * np.pi)
    expected[3] = -np.inf
    monkeypatch.setattr(family_module, "GAPPY_PROBE_ROWS", 8)  # judged on 8 rows of >= 256
    monkeypatch.setattr(missing, "MANY_PATTERNS", 0)  # and their patterns count as many
    gappy_first = family_module._mostly_gappy(X)
    assert gappy_first == (gappy_share > 0.5)
    found = family.log_likelihood(params, X)
    np.testing.assert_allclose(found, expected, rtol=1e-9, atol=1e-9)
    # Not judged at all: the complete pass, then the flagged rows rescored.
    monkeypatch.setattr(family_module, "GAPPY_PROBE_ROWS", n)
    np.testing.assert_allclose(family.log_likelihood(params, X), found, rtol=1e-12, atol=1e-12)
    monkeypatch.setattr(family_module, "GAPPY_PROBE_ROWS", 8)
    single = family.log_likelihood(params, reference_rows.astype(np.float32))
    assert single.dtype == np.float32
    double = family.log_likelihood(params, reference_rows)
    np.testing.assert_allclose(single, double, rtol=1e-4, atol=1e-3)
