r"""Class probabilities of rows too far from every class to score in floating point.

For a Gaussian class density the log joint is $\log \pi_k - \tfrac12 \log\det\Sigma_k -
\tfrac12 (x - \mu_k)^\top \Sigma_k^{-1} (x - \mu_k)$ (up to a constant), and a finite row far
enough out (entries beyond about $10^{154}$) makes the quadratic form overflow: every class
density is then 0 in float64 although the class probabilities are well defined. Writing
$x = s u$ with $s$ a power of two (so $u$ is exact) and $\lVert u \rVert_\infty < 2$,

$$
\log p(x, k) = -\tfrac12 s^2 a_k + s\, b_k + e_k,\qquad
a_k = u^\top \Sigma_k^{-1} u,\quad b_k = u^\top \Sigma_k^{-1}\mu_k,\quad
e_k = \log \pi_k - \tfrac12 \log\det\Sigma_k - \tfrac12 \mu_k^\top \Sigma_k^{-1} \mu_k,
$$

and with $s$ that large the classes are ordered by $-a_k$, then $b_k$, then $e_k$: the class
probabilities are 1 for the first class in that order, or $\propto e^{e_k}$ over classes tied
in $a$ and $b$ (the classes of a tied covariance share $a$ exactly). Missing entries are
integrated out, as everywhere: the observed block of each class's mean and covariance.
"""

from __future__ import annotations

import numpy as np
from scipy.linalg import solve_triangular
from scipy.special import logsumexp


def limit_log_posterior(
    means: np.ndarray, covariances: np.ndarray, X: np.ndarray, log_class_prior: np.ndarray
) -> np.ndarray:
    """``log p(k | x)`` of rows whose every class density overflows, in the limit above.

    Parameters
    ----------
    means : ndarray of shape (n_classes, n_features)
    covariances : ndarray of shape (n_classes, n_features, n_features)
        Full covariances (`GaussianFamily.full_covariances`).
    X : ndarray of shape (n_rows, n_features)
        Finite rows (NaN = missing), each with at least one observed entry.
    log_class_prior : ndarray of shape (n_classes,)

    Returns
    -------
    ndarray of shape (n_rows, n_classes)
        ``-inf`` for classes the limit excludes; each row's probabilities sum to one.
    """
    means = np.asarray(means, dtype=np.float64)
    covariances = np.asarray(covariances, dtype=np.float64)
    log_class_prior = np.asarray(log_class_prior, dtype=np.float64)
    result = np.empty((X.shape[0], means.shape[0]))
    for i, row in enumerate(np.asarray(X, dtype=np.float64)):
        observed = ~np.isnan(row)
        values = row[observed]
        scale = 2.0 ** np.floor(np.log2(np.max(np.abs(values))))
        result[i] = _row_log_posterior(
            values / scale, means[:, observed], covariances[:, observed][:, :, observed],
            log_class_prior,
        )  # fmt: skip
    return result


def _row_log_posterior(u, means, covariances, log_class_prior) -> np.ndarray:
    n_classes = means.shape[0]
    leading, linear, constant = np.empty(n_classes), np.empty(n_classes), np.empty(n_classes)
    for k in range(n_classes):
        lower = np.linalg.cholesky(covariances[k])
        whitened = solve_triangular(lower, u, lower=True)
        centre = solve_triangular(lower, means[k], lower=True)
        leading[k] = -0.5 * whitened @ whitened
        linear[k] = whitened @ centre
        constant[k] = (
            log_class_prior[k] - np.sum(np.log(np.diagonal(lower))) - 0.5 * centre @ centre
        )
    kept = np.isfinite(log_class_prior)  # a class of probability 0 stays at 0
    for term in (leading, linear):
        kept &= term == np.max(term[kept])
    log_posterior = np.full(n_classes, -np.inf)
    log_posterior[kept] = constant[kept] - logsumexp(constant[kept])
    return log_posterior
