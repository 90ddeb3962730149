r"""Positive values with a Gamma density per class and feature, fitted by maximum likelihood.

$$
x_j \mid y = k \sim \mathrm{Gamma}(a_{kj}, b_{kj}), \qquad
\log p(x_j \mid k) = a \log b - \log\Gamma(a) + (a - 1)\log x_j - b\,x_j .
$$

The shape has no conjugate prior, so this family is the package's non-conjugate leaf: no
posterior, no predictive, one estimate (``"mle"``). With the weighted statistics of the
observed entries of each class and feature, $N = \sum_i R_{ik}$, $\bar x = \sum_i R_{ik}
x_{ij} / N$ and $\overline{\log x} = \sum_i R_{ik} \log x_{ij} / N$, the likelihood
equation of the shape is

$$
\log a - \psi(a) = s, \qquad s = \log \bar x - \overline{\log x} \;(\ge 0),
$$

solved by Newton's method from Minka's (2002) closed-form start
$a_0 = (3 - s + \sqrt{(s - 3)^2 + 24 s}) / (12 s)$; then $b = a / \bar x$. A class whose
observed values are all equal has $s = 0$ and no finite estimate: $s$ is floored at
`MIN_SPREAD` (shape about $1 / (2 \cdot 10^{-8})$, the values' point mass in all but
name). The statistics are sums, so fits merge exactly; inside
`bayesgen.families.component_mixture.MixtureFamily` the M-step is this estimate from the
components' responsibilities.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

import numpy as np
from scipy.special import gammaln, polygamma, psi

from bayesgen.families import class_prior
from bayesgen.families.maximum_likelihood import MaximumLikelihood
from bayesgen.families.protocol import FeatureFamily, as_numbers, refuse_entries

if TYPE_CHECKING:
    from jax import Array

#: The smallest spread $s = \log\bar x - \overline{\log x}$ the shape is solved for.
MIN_SPREAD = 1e-8
_NEWTON_STEPS = 8


class GammaStats(NamedTuple):
    """Weighted sums over the observed entries of each class and feature.

    Attributes
    ----------
    counts : Array of shape (n_classes,)
        $N_k = \\sum_i R_{ik}$.
    observed_counts : Array of shape (n_classes, n_features)
        $\\sum_i R_{ik} [x_{ij}$ observed$]$.
    sums : Array of shape (n_classes, n_features)
        $\\sum_i R_{ik} x_{ij}$.
    log_sums : Array of shape (n_classes, n_features)
        $\\sum_i R_{ik} \\log x_{ij}$.
    """

    counts: Array
    observed_counts: Array
    sums: Array
    log_sums: Array


class GammaParams(NamedTuple):
    """Shapes $a_{kj}$ and rates $b_{kj}$, each of shape (n_classes, n_features)."""

    shape: Array
    rate: Array


def solve_shape(spread: np.ndarray) -> np.ndarray:
    """The $a$ with $\\log a - \\psi(a) = s$ for each spread $s$ (floored at `MIN_SPREAD`)."""
    s = np.maximum(np.asarray(spread, dtype=np.float64), MIN_SPREAD)
    a = (3.0 - s + np.sqrt((s - 3.0) ** 2 + 24.0 * s)) / (12.0 * s)
    for _ in range(_NEWTON_STEPS):
        # Newton on f(a) = log a - psi(a) - s, f'(a) = 1/a - psi'(a); a step may not shrink a
        # by more than 10x, which keeps it positive from a far start.
        step = (np.log(a) - psi(a) - s) / (1.0 / a - polygamma(1, a))
        a = np.maximum(a - step, a / 10.0)
    return a


def _split(X: np.ndarray):
    observed = ~np.isnan(X)
    filled = np.where(observed, X, 1.0)  # log 1 = 0 and 1 * 0 weight: a missing entry adds nothing
    return observed.astype(X.dtype), np.where(observed, X, 0.0), np.log(filled)


class GammaFamily(MaximumLikelihood, FeatureFamily):
    """Positive continuous features, a Gamma per class and feature (maximum likelihood).

    A column-of-a-table family with no estimator of its own: use it through
    [`bayesgen.FamilyClassifier`][bayesgen.FamilyClassifier], alone or as the leaf of a
    mixture (``MixtureFamily(GammaFamily(), n_components=3)``). ``X`` holds values > 0;
    NaN is missing and drops its factor.

    Examples
    --------
    >>> import numpy as np
    >>> from bayesgen.families.gamma import GammaFamily
    >>> rng = np.random.default_rng(0)
    >>> X = rng.gamma(shape=4.0, scale=0.5, size=(20000, 1))
    >>> family = GammaFamily()
    >>> stats = family.suff_stats(X, np.ones((20000, 1)), np.float64)
    >>> params = family.point_estimate(family.prior(stats), stats, "mle")
    >>> bool(abs(params.shape[0, 0] - 4.0) < 0.1 and abs(params.rate[0, 0] - 2.0) < 0.05)
    True
    """

    name = "gamma"

    def __init__(self):
        """No hyperparameters: maximum likelihood."""

    # ----------------------------------------------------------- statistics
    def suff_stats(self, X, responsibilities, dtype=None) -> GammaStats:
        """Weighted counts, sums and sums of logarithms of the observed entries."""
        X = np.asarray(X, dtype=dtype)
        R = np.asarray(responsibilities, dtype=X.dtype)
        observed, filled, logs = _split(X)
        return GammaStats(R.sum(axis=0), R.T @ observed, R.T @ filled, R.T @ logs)

    # ------------------------------------------------------------ estimate
    def point_estimate(self, prior, stats, kind: str) -> GammaParams:
        """The maximum-likelihood shapes and rates; a class and feature without observed
        entries gets shape and rate 1 (it scores nothing there)."""
        self.check_estimate(kind)
        n = np.asarray(stats.observed_counts, dtype=np.float64)
        seen = n > 0
        safe = np.where(seen, n, 1.0)
        mean = np.where(seen, np.asarray(stats.sums) / safe, 1.0)
        mean_log = np.where(seen, np.asarray(stats.log_sums) / safe, 0.0)
        shape = np.where(seen, solve_shape(np.log(mean) - mean_log), 1.0)
        dtype = np.asarray(stats.sums).dtype
        return GammaParams(shape.astype(dtype), (shape / mean).astype(dtype))

    # ------------------------------------------------------------ densities
    def log_likelihood(self, params, X, *, row_terms: bool = True):
        """``(n_samples, n_classes)`` $\\sum_j \\log \\mathrm{Gamma}(x_j; a_{kj}, b_{kj})$ over
        the observed entries (every term depends on the class: ``row_terms`` changes
        nothing)."""
        X = np.asarray(X)
        shape, rate = (np.asarray(p, dtype=X.dtype) for p in params)
        observed, filled, logs = _split(X)
        constant = shape * np.log(rate) - gammaln(shape)
        return logs @ (shape - 1.0).T - filled @ rate.T + observed @ constant.T

    # ---------------------------------------------------------------- draws
    def draw_features(self, params, classes, rng, **options) -> dict:
        """``{"X": values}``: a Gamma draw with each row's class's shape and rate."""
        shape, rate = (np.asarray(p, dtype=np.float64)[classes] for p in params)
        return {"X": rng.gamma(shape, 1.0 / rate)}

    def features_from_draws(self, draws: dict) -> np.ndarray:
        """The drawn values, as floats."""
        return np.asarray(draws["X"])

    def mean(self, params):
        """$E[x_j \\mid k] = a_{kj} / b_{kj}$."""
        return np.asarray(params.shape) / np.asarray(params.rate)

    def conditional(self, params, X, class_weights, method: str, rng):
        """Missing entries: the class mixture's mean $\\sum_k w_k a_{kj}/b_{kj}$, or a class
        drawn from the weights for each row and Gamma draws of its entries given it."""
        X = np.asarray(X, dtype=np.float64)
        weights = np.asarray(class_weights, dtype=np.float64)
        rows, columns = np.nonzero(np.isnan(X))
        filled = X.copy()
        shape, rate = (np.asarray(p, dtype=np.float64) for p in params)
        if method == "mean":
            filled[rows, columns] = np.einsum("rk,kr->r", weights[rows], (shape / rate)[:, columns])
            return filled
        drawn = class_prior.draw_classes(weights, rng)[rows]  # one class per row
        filled[rows, columns] = rng.gamma(shape[drawn, columns], 1.0 / rate[drawn, columns])
        return filled

    # ------------------------------------------------- columns of a table
    def check_columns(self, X, *, owner: str = "X", columns=None) -> np.ndarray:
        """Numbers > 0 (NaN missing)."""
        X = as_numbers(X, owner, columns)
        with np.errstate(invalid="ignore"):
            refuse_entries(X <= 0, X, columns, f"{owner} models values > 0 (a Gamma density)")
        return X

    def sites(self, params) -> dict:
        """``"gamma_shape"`` and ``"gamma_rate"``, (n_classes, n_features) each."""
        return {"gamma_shape": params.shape, "gamma_rate": params.rate}

    def params_from_sites(self, sites: dict) -> GammaParams:
        """The inverse of `sites`."""
        return GammaParams(np.asarray(sites["gamma_shape"]), np.asarray(sites["gamma_rate"]))

    def parameter_dims(self, features: list) -> tuple[dict, dict]:
        """Both sites by (class, feature)."""
        dims = {"gamma_shape": ("class", "feature"), "gamma_rate": ("class", "feature")}
        return dims, {"feature": list(features)}
