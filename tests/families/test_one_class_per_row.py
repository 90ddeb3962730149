"""Drawing a row's missing entries draws its class once: entries of one row, in one family
or in different column groups, are independent given the class, not given the weights.

Reference: the correlation of two entries of an all-missing row under the class mixture,
in closed form from the parameters, $\\mathrm{Cov} = \\sum_k \\pi_k m_k n_k -
(\\sum_k \\pi_k m_k)(\\sum_k \\pi_k n_k)$ with each class's means $m_k$, $n_k$.
"""

import numpy as np
import pandas as pd

from bayesgen import MixedNB
from bayesgen.families.gamma import GammaFamily, GammaParams


def _mixture_correlation(weights, means_a, means_b, variances_a, variances_b):
    mean_a, mean_b = weights @ means_a, weights @ means_b
    covariance = weights @ (means_a * means_b) - mean_a * mean_b
    variance_a = weights @ (variances_a + means_a**2) - mean_a**2
    variance_b = weights @ (variances_b + means_b**2) - mean_b**2
    return covariance / np.sqrt(variance_a * variance_b)


def _check(draws, expected):
    """Fisher's z: the sample correlation of n draws within 4 standard errors."""
    observed = np.corrcoef(draws.T)[0, 1]
    error = 1.0 / np.sqrt(draws.shape[0] - 3)
    assert abs(np.arctanh(observed) - np.arctanh(expected)) < 4 * error, (observed, expected)


def test_a_gamma_rows_entries_share_their_drawn_class():
    shape = np.array([[4.0, 4.0], [9.0, 9.0]])
    rate = np.array([[4.0, 4.0], [1.0, 1.0]])  # class means 1 and 9 in both columns
    X = np.full((20000, 2), np.nan)
    weights = np.full((20000, 2), 0.5)
    filled = GammaFamily().conditional(
        GammaParams(shape, rate), X, weights, "sample", np.random.default_rng(0)
    )
    means, variances = shape / rate, shape / rate**2
    expected = _mixture_correlation(
        np.array([0.5, 0.5]), means[:, 0], means[:, 1], variances[:, 0], variances[:, 1]
    )
    assert expected > 0.5  # a class drawn per entry (or per group) would give 0
    _check(filled, expected)


def test_mixed_nb_fills_every_column_group_of_a_row_under_one_class():
    rng = np.random.default_rng(1)
    y = np.repeat([0, 1], 300)
    table = pd.DataFrame(
        {"size": rng.normal(np.where(y == 0, 0.0, 6.0), 1.0), "count": rng.poisson(1 + 8 * y)}
    )
    model = MixedNB(features={"size": "gaussian", "count": "poisson"}).fit(table, y)
    blank = pd.DataFrame({"size": np.full(20000, np.nan), "count": np.full(20000, np.nan)})
    filled = model.impute(blank, method="sample", random_state=0)
    groups = model.estimators_
    gaussian, poisson = groups["gaussian"], groups["poisson"]
    expected = _mixture_correlation(
        model.class_prior_,
        gaussian.means_[:, 0],
        poisson.rates_[:, 0],
        gaussian.covariances_[:, 0],
        poisson.rates_[:, 0],
    )
    assert expected > 0.5  # a class drawn per entry (or per group) would give 0
    _check(filled.to_numpy(dtype=float), expected)
