"""Rubin's rules (bayesgen.pooling) against R's mice::pool, and on bayesgen's imputations."""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from bayesgen import GaussianDA, pool, rubin_pool

FIXTURES = Path(__file__).parent / "fixtures" / "r"


def _ols(table: pd.DataFrame):
    """chl ~ age + bmi: coefficients and their squared standard errors (as R's lm)."""
    design = np.column_stack([np.ones(len(table)), table["age"], table["bmi"]])
    response = table["chl"].to_numpy(float)
    coefficients, *_ = np.linalg.lstsq(design, response, rcond=None)
    residuals = response - design @ coefficients
    sigma2 = residuals @ residuals / (len(table) - design.shape[1])
    return coefficients, np.diag(sigma2 * np.linalg.inv(design.T @ design))


def test_pooled_regression_equals_mice():
    """mice 3.15's pool() of lm(chl ~ age + bmi) over its 5 imputations of nhanes: every
    column (estimate, ubar, b, t, df, riv, lambda, fmi) to 1e-10."""
    long = pd.read_csv(FIXTURES / "nhanes_imputations.csv")
    expected = pd.read_csv(FIXTURES / "nhanes_mice_pool.csv")
    tables = [group for _, group in long.groupby(".imp")]
    pooled = pool(_ols, tables, dfcom=int(expected["dfcom"].iloc[0]))
    for column, field in [
        ("estimate", "estimate"), ("ubar", "ubar"), ("b", "b"), ("t", "t"), ("df", "df"),
        ("riv", "riv"), ("lambda", "lambda_"), ("fmi", "fmi"),
    ]:  # fmt: skip
        np.testing.assert_allclose(
            getattr(pooled, field), expected[column].to_numpy(), rtol=1e-10, err_msg=column
        )
    np.testing.assert_allclose(pooled.std_error, np.sqrt(expected["t"].to_numpy()), rtol=1e-12)


def test_infinite_complete_data_degrees_of_freedom_are_rubin_s():
    estimates, variances = np.array([1.0, 1.4, 0.9, 1.3]), np.array([0.2, 0.25, 0.22, 0.18])
    pooled = rubin_pool(estimates, variances)
    b = estimates.var(ddof=1)
    lam = 1.25 * b / (variances.mean() + 1.25 * b)
    np.testing.assert_allclose(pooled.df, 3 / lam**2, rtol=1e-12)


def test_proper_imputations_carry_the_missing_entries_uncertainty():
    """The mean of a column with 30 % of its entries missing, from 20 imputations drawn with
    parameter draws: the total variance exceeds the within one, and the pooled estimate is
    near the complete data's mean."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 2)) @ np.array([[1.0, 0.8], [0.0, 0.6]])
    holes = X.copy()
    holes[rng.random(300) < 0.3, 1] = np.nan
    model = GaussianDA(estimate="map").fit(holes, np.zeros(300))
    copies = model.impute(holes, method="sample", n_imputations=20, random_state=1)

    def mean_of_second(table):
        column = np.asarray(table)[:, 1]
        return column.mean(), column.var(ddof=1) / len(column)

    pooled = pool(mean_of_second, copies)
    assert pooled.t[0] > pooled.ubar[0] and 0 < pooled.fmi[0] < 1
    assert abs(pooled.estimate[0] - X[:, 1].mean()) < 3 * pooled.std_error[0]


@pytest.mark.parametrize(
    "arguments, match",
    [
        (([1.0], [0.1]), "at least two imputations"),
        (([1.0, 2.0], [0.1]), "the same shape"),
        (([1.0, 2.0], [0.1, -0.1]), "non-negative"),
        (([1.0, np.nan], [0.1, 0.1]), "estimates must be finite"),
        ((np.ones((2, 2, 2)), np.ones((2, 2, 2))), "shape"),
    ],
)
def test_bad_inputs_are_named(arguments, match):
    with pytest.raises(ValueError, match=match):
        rubin_pool(*arguments)
    with pytest.raises(ValueError, match="dfcom"):
        rubin_pool([1.0, 2.0], [0.1, 0.1], dfcom=0)
