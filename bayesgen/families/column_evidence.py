r"""How well each family explains one column: its log marginal likelihood (evidence).

For a column $x$ and labels $y$, the evidence of a family is
$\log p(x \mid y) = \sum_k \log \int \prod_{i: y_i = k} p(x_i \mid \theta_k)\,
p(\theta_k)\, d\theta_k$, the parameters integrated out under the family's conjugate
prior (the defaults its estimator uses). Comparing evidences compares families with the
complexity of their parameters paid for (a Bayes factor), which is how
[`MixedNB`][bayesgen.MixedNB] picks a column's family among those its values admit.

Discrete families give probabilities and the Gaussian a density, which do not compare. For
integer data the Gaussian is therefore scored as a model of integers: each value's
probability is the Gaussian mass of its unit interval $[x - \tfrac12, x + \tfrac12]$,
taken prequentially, $\log p(x \mid y) = \sum_i \log P(x_i \mid x_{<i}, y)$ under the
Student-t posterior predictive of the rows before it (for densities this chain rule gives
the closed-form evidence exactly, which the tests check). NaN entries are missing and
skipped.
"""

from __future__ import annotations

import numpy as np
from scipy import special, stats

#: The Normal–Inverse-Gamma prior behind the Gaussian evidence, as GaussianNB resolves
#: it: $\kappa_0 = 1$, $\nu_0 = 3$, $m_0$ and $\psi_0$ the column's mean and variance.
MEAN_PRECISION_PRIOR = 1.0
DEGREES_OF_FREEDOM_PRIOR = 3.0


def _per_class(x: np.ndarray, class_index: np.ndarray, n_classes: int):
    observed = ~np.isnan(x)
    return [x[observed & (class_index == k)] for k in range(n_classes)]


def _log_interval_mass(distribution, x: np.ndarray) -> np.ndarray:
    r"""$\log P(x - 1/2 < X \le x + 1/2)$, from the tail that keeps precision."""
    lower, upper = x - 0.5, x + 0.5
    with np.errstate(divide="ignore"):  # log1p(-1): the two tails agree to every digit
        left = distribution.logcdf(upper) + np.log1p(
            -np.exp(distribution.logcdf(lower) - distribution.logcdf(upper))
        )
        right = distribution.logsf(lower) + np.log1p(
            -np.exp(distribution.logsf(upper) - distribution.logsf(lower))
        )
    mass = np.where(x <= distribution.mean(), left, right)
    # A mass below the tails' resolution: the predictive is far wider than the unit interval
    # there, so the density at x (times the width 1) is the mass to within rounding.
    return np.where(np.isfinite(mass), mass, distribution.logpdf(x))


def gaussian(
    x: np.ndarray,
    class_index: np.ndarray,
    n_classes: int,
    *,
    discrete: bool,
    reg_covar: float = 1e-6,
) -> float:
    r"""Evidence of independent Gaussians per class under the Normal–Inverse-Gamma prior.

    Parameters
    ----------
    x : ndarray of shape (n_samples,)
        The column; NaN is missing.
    class_index : ndarray of shape (n_samples,)
        Class of each row, ``0 .. n_classes - 1``.
    n_classes : int
    discrete : bool
        Score each value by the Gaussian mass of its unit interval (for integer data).
    reg_covar : float, default=1e-6
        Relative ridge added to the prior scale, as ``GaussianNB`` does.

    Returns
    -------
    float
        $\log p(x \mid y)$, prequentially (module docstring).
    """
    observed = x[~np.isnan(x)]
    m0 = float(np.mean(observed))
    variance = float(np.var(observed))
    psi0 = variance + reg_covar * variance if variance > 0 else max(reg_covar, 1e-12)
    kappa0, nu0 = MEAN_PRECISION_PRIOR, DEGREES_OF_FREEDOM_PRIOR
    total = 0.0
    for values in _per_class(x, class_index, n_classes):
        if values.size == 0:
            continue
        seen = np.arange(values.size, dtype=float)  # rows before each one
        sums = np.concatenate([[0.0], np.cumsum(values)[:-1]])
        squares = np.concatenate([[0.0], np.cumsum(values**2)[:-1]])
        means = np.divide(sums, seen, out=np.zeros_like(sums), where=seen > 0)
        scatter = np.maximum(squares - seen * means**2, 0.0)
        kappa, nu = kappa0 + seen, nu0 + seen
        loc = (kappa0 * m0 + sums) / kappa
        psi = psi0 + scatter + kappa0 * seen / kappa * (means - m0) ** 2
        predictive = stats.t(df=nu, loc=loc, scale=np.sqrt(psi * (kappa + 1) / (kappa * nu)))
        if discrete:
            total += float(np.sum(_log_interval_mass(predictive, values)))
        else:
            total += float(np.sum(predictive.logpdf(values)))
    return total


def poisson(
    x: np.ndarray, class_index: np.ndarray, n_classes: int, *, alpha=1.0, beta=1.0
) -> float:
    r"""Evidence of Poisson counts with a ``Gamma(alpha, beta)`` prior on each class's rate.

    $\sum_k \big[\log\Gamma(a + S_k) - \log\Gamma(a) + a \log b - (a + S_k)\log(b + n_k)
    - \sum_i \log x_i!\big]$, a negative-binomial marginal.
    """
    total = 0.0
    for values in _per_class(x, class_index, n_classes):
        n, s = values.size, float(values.sum())
        total += (
            special.gammaln(alpha + s)
            - special.gammaln(alpha)
            + alpha * np.log(beta)
            - (alpha + s) * np.log(beta + n)
            - float(special.gammaln(values + 1).sum())
        )
    return float(total)


def exponential(
    x: np.ndarray, class_index: np.ndarray, n_classes: int, *, alpha=1.0, beta=1.0
) -> float:
    r"""Evidence of exponential values with a ``Gamma(alpha, beta)`` prior on each rate.

    $\sum_k \big[\log\Gamma(a + n_k) - \log\Gamma(a) + a \log b - (a + n_k)\log(b + S_k)\big]$.
    """
    total = 0.0
    for values in _per_class(x, class_index, n_classes):
        n, s = values.size, float(values.sum())
        total += (
            special.gammaln(alpha + n)
            - special.gammaln(alpha)
            + alpha * np.log(beta)
            - (alpha + n) * np.log(beta + s)
        )
    return float(total)


def categorical(
    x: np.ndarray, class_index: np.ndarray, n_classes: int, *, alpha=1.0, integer_range=False
) -> float:
    r"""Evidence of unordered levels with a symmetric ``Dirichlet(alpha)`` prior per class.

    The levels are the column's distinct values plus the unseen one ``CategoricalNB``
    keeps, $C + 1$ in all; with ``integer_range``, every integer from the column's least
    to its greatest value (plus the unseen one), so that the model does not learn for
    free which integers occur. A Dirichlet–multinomial,
    $\sum_k \big[\log\Gamma((C+1)a) - \log\Gamma((C+1)a + n_k)
    + \sum_c \log\Gamma(a + n_{kc}) - \log\Gamma(a)\big]$.
    """
    levels = np.unique(x[~np.isnan(x)])
    # A level no row holds adds gammaln(a) - gammaln(a) = 0: only the number of levels counts,
    # so an integer range is never laid out (10^23 levels cost nothing).
    size = (levels.max() - levels.min() + 1.0 if integer_range else levels.size) + 1
    total = 0.0
    for values in _per_class(x, class_index, n_classes):
        counts = np.bincount(np.searchsorted(levels, values), minlength=levels.size)
        total += (
            special.gammaln(size * alpha)
            - special.gammaln(size * alpha + values.size)
            + float(np.sum(special.gammaln(alpha + counts) - special.gammaln(alpha)))
        )
    return float(total)


def bernoulli(x: np.ndarray, class_index: np.ndarray, n_classes: int, *, alpha=1.0) -> float:
    r"""Evidence of 0/1 values with a ``Beta(alpha, alpha)`` prior on each class's probability.

    $\sum_k \big[\log B(\alpha + n_{k1}, \alpha + n_{k0}) - \log B(\alpha, \alpha)\big]$,
    a Beta–binomial of the sequence.
    """
    total = 0.0
    for values in _per_class(x, class_index, n_classes):
        ones = float(np.count_nonzero(values))
        total += special.betaln(alpha + ones, alpha + values.size - ones) - special.betaln(
            alpha, alpha
        )
    return float(total)
