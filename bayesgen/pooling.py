r"""Rubin's rules: one estimate and its uncertainty from ``m`` imputed tables.

Fit the analysis to each completed copy of a table (``model.impute(X,
n_imputations=m)``), giving estimates $Q_\ell$ with variances $U_\ell$; then (Rubin 1987;
van Buuren, *Flexible Imputation of Missing Data*, 2nd ed., §2.3)

$$
\bar Q = \frac1m \sum_\ell Q_\ell,\quad
\bar U = \frac1m \sum_\ell U_\ell,\quad
B = \frac{1}{m-1} \sum_\ell (Q_\ell - \bar Q)^2,\quad
T = \bar U + \left(1 + \frac1m\right) B,
$$

with $\lambda = (1 + 1/m) B / T$ the share of the variance due to the missing entries,
$r = (1 + 1/m) B / \bar U$ the relative increase in variance, and the degrees of freedom of
Barnard and Rubin (1999) for complete-data degrees of freedom $\nu_{com}$ ($\lambda$
floored at $10^{-4}$ in them, as ``mice`` does):
$\nu_{old} = (m - 1)/\lambda^2$, $\nu_{obs} = \frac{\nu_{com} + 1}{\nu_{com} + 3}
\nu_{com} (1 - \lambda)$, $\nu = \nu_{old}\nu_{obs}/(\nu_{old} + \nu_{obs})$; the fraction
of missing information is $\gamma = (r + 2/(\nu + 3))/(r + 1)$. These are the columns of R's
``mice::pool`` (tested against it).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np


class Pooled(NamedTuple):
    """Rubin's rules applied to each parameter (arrays of shape (n_parameters,)).

    Attributes
    ----------
    estimate : ndarray
        $\\bar Q$.
    ubar : ndarray
        $\\bar U$, the mean within-imputation variance.
    b : ndarray
        $B$, the between-imputation variance.
    t : ndarray
        $T$, the total variance (``std_error = sqrt(t)``).
    riv : ndarray
        $r$, the relative increase in variance due to the missing entries.
    lambda_ : ndarray
        $\\lambda$, the share of the total variance due to them.
    df : ndarray
        Barnard–Rubin degrees of freedom $\\nu$.
    fmi : ndarray
        $\\gamma$, the fraction of missing information.
    std_error : ndarray
        $\\sqrt T$.
    """

    estimate: np.ndarray
    ubar: np.ndarray
    b: np.ndarray
    t: np.ndarray
    riv: np.ndarray
    lambda_: np.ndarray
    df: np.ndarray
    fmi: np.ndarray
    std_error: np.ndarray


def _check(values, name: str) -> np.ndarray:
    array = np.asarray(values, dtype=np.float64)
    if array.ndim == 1:
        array = array[:, None]
    if array.ndim != 2:
        raise ValueError(
            f"{name} must have shape (n_imputations,) or (n_imputations, n_parameters); got "
            f"shape {np.shape(values)}."
        )
    if not np.all(np.isfinite(array)):
        raise ValueError(f"{name} must be finite.")
    return array


def rubin_pool(estimates, variances, *, dfcom=math.inf) -> Pooled:
    """Pool ``m`` estimates and their variances by Rubin's rules (module docstring).

    Parameters
    ----------
    estimates : array-like of shape (n_imputations,) or (n_imputations, n_parameters)
        $Q_\\ell$: the analysis's estimate on each completed table.
    variances : array-like of the same shape
        $U_\\ell$: each estimate's squared standard error on that table.
    dfcom : float, default=inf
        The complete-data degrees of freedom $\\nu_{com}$ (for a linear regression,
        rows minus coefficients, as ``mice::pool`` takes from ``df.residual``).

    Returns
    -------
    Pooled

    Raises
    ------
    ValueError
        For fewer than two imputations, shapes that differ, negative or non-finite
        variances, or a ``dfcom`` that is not positive.
    """
    Q = _check(estimates, "estimates")
    U = _check(variances, "variances")
    if Q.shape != U.shape:
        raise ValueError(
            f"estimates and variances must have the same shape; got {Q.shape} and {U.shape}."
        )
    m = Q.shape[0]
    if m < 2:
        raise ValueError(
            f"Rubin's rules need at least two imputations (the between-imputation variance); "
            f"got {m}."
        )
    if np.any(U < 0):
        raise ValueError("variances must be non-negative.")
    if not (isinstance(dfcom, (int, float, np.integer, np.floating)) and dfcom > 0):
        raise ValueError(f"dfcom must be a positive number (or inf); got {dfcom!r}.")
    estimate = Q.mean(axis=0)
    ubar = U.mean(axis=0)
    b = Q.var(axis=0, ddof=1)
    inflation = 1.0 + 1.0 / m
    t = ubar + inflation * b
    with np.errstate(divide="ignore", invalid="ignore"):
        lambda_ = np.where(t > 0, inflation * b / t, 0.0)
        riv = np.where(ubar > 0, inflation * b / ubar, np.inf)
    # As mice's barnard.rubin: lambda floored at 1e-4 for the degrees of freedom (a
    # statistic the imputations do not move has large but finite ones).
    floored = np.maximum(lambda_, 1e-4)
    old = (m - 1) / floored**2
    if math.isinf(dfcom):
        df = old
    else:
        observed = (dfcom + 1.0) / (dfcom + 3.0) * dfcom * (1.0 - floored)
        df = old * observed / (old + observed)
    fmi = (riv + 2.0 / (df + 3.0)) / (riv + 1.0)
    return Pooled(estimate, ubar, b, t, riv, lambda_, df, fmi, np.sqrt(t))


def pool(statistic, imputations, *, dfcom=math.inf) -> Pooled:
    """Apply ``statistic`` to each completed table and pool the results (Rubin's rules).

    Parameters
    ----------
    statistic : callable
        ``statistic(table) -> (estimates, variances)``, both of shape (n_parameters,) (or
        scalars): the analysis and its squared standard errors on one completed table.
    imputations : ndarray of shape (m, n_samples, n_features), or a list of m tables
        What ``impute(X, n_imputations=m)`` returns (arrays or DataFrames).
    dfcom : float, default=inf
        See `rubin_pool`.

    Returns
    -------
    Pooled

    Examples
    --------
    >>> import numpy as np
    >>> from bayesgen import GaussianDA, pool
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(200, 2)) @ [[1.0, 0.8], [0.0, 0.6]]
    >>> X[rng.random(200) < 0.3, 1] = np.nan
    >>> model = GaussianDA(estimate="map").fit(X, np.zeros(200))
    >>> copies = model.impute(X, method="sample", n_imputations=10, random_state=0)
    >>> def mean_of_second(table):
    ...     column = np.asarray(table)[:, 1]
    ...     return column.mean(), column.var(ddof=1) / len(column)
    >>> pooled = pool(mean_of_second, copies)
    >>> bool(pooled.t[0] > pooled.ubar[0])  # the missing entries add uncertainty
    True
    """
    results = [statistic(table) for table in imputations]
    estimates = np.array([np.ravel(estimate) for estimate, _ in results], dtype=np.float64)
    variances = np.array([np.ravel(variance) for _, variance in results], dtype=np.float64)
    return rubin_pool(estimates, variances, dfcom=dfcom)
