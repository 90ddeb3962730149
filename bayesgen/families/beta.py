r"""Bounded values with a scaled Beta density per class and feature, fitted by maximum
likelihood.

For values strictly between ``lower`` and ``upper`` (proportions, rates, shares, scores on
a closed scale), with $u = (x - \mathrm{lower}) / (\mathrm{upper} - \mathrm{lower})$:

$$
u_j \mid y = k \sim \mathrm{Beta}(a_{kj}, b_{kj}), \qquad
\log p(x_j \mid k) = (a - 1)\log u_j + (b - 1)\log(1 - u_j) - \log \mathrm{B}(a, b)
- \log(\mathrm{upper} - \mathrm{lower}).
$$

Neither shape has a conjugate prior, so, like `bayesgen.families.gamma`, this family is a
non-conjugate leaf: no posterior, no predictive, one estimate (``"mle"``). With the
weighted means of the observed entries of each class and feature,
$g_1 = \overline{\log u}$ and $g_2 = \overline{\log(1 - u)}$, the likelihood equations are

$$
\psi(a) - \psi(a + b) = g_1, \qquad \psi(b) - \psi(a + b) = g_2,
$$

solved by Newton's method (the log-likelihood is concave in $(a, b)$) from the closed-form
start $a_0 = \tfrac12 + e^{g_1} / (2\delta)$, $b_0 = \tfrac12 + e^{g_2} / (2\delta)$,
$\delta = 1 - e^{g_1} - e^{g_2}$ (the approximation of Johnson, Kotz and Balakrishnan for
shapes above 1). Values all equal have $\delta = 0$ and no finite estimate: $\delta$ is
floored at `MIN_SPREAD`, and the start, a Beta concentrated about $1 / (2 \cdot
10^{-8})$ times more than a uniform, is kept there. The statistics are sums, so fits merge
exactly; inside `bayesgen.families.component_mixture.MixtureFamily` the M-step is this
estimate from the components' responsibilities.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, NamedTuple

import numpy as np
from scipy.special import betaln, polygamma, psi

from bayesgen.families import class_prior
from bayesgen.families.maximum_likelihood import MaximumLikelihood
from bayesgen.families.protocol import FeatureFamily, as_numbers, refuse_entries

if TYPE_CHECKING:
    from jax import Array

#: The smallest $\delta = 1 - e^{g_1} - e^{g_2}$ the shapes are solved for.
MIN_SPREAD = 1e-8
#: Newton stops where no shape moves by more than this, relative (its steps then are
#: rounding: a tighter stop let iterates wander about the root for all the steps allowed).
STEP_TOLERANCE = 1e-12
_MAX_NEWTON_STEPS = 100
_MAX_NUDGES = 64


class BetaStats(NamedTuple):
    """Weighted sums over the observed entries of each class and feature.

    Attributes
    ----------
    counts : Array of shape (n_classes,)
        $N_k = \\sum_i R_{ik}$.
    observed_counts : Array of shape (n_classes, n_features)
        $\\sum_i R_{ik} [x_{ij}$ observed$]$.
    log_sums : Array of shape (n_classes, n_features)
        $\\sum_i R_{ik} \\log u_{ij}$.
    log_complement_sums : Array of shape (n_classes, n_features)
        $\\sum_i R_{ik} \\log(1 - u_{ij})$.
    """

    counts: Array
    observed_counts: Array
    log_sums: Array
    log_complement_sums: Array


class BetaParams(NamedTuple):
    """Shapes $a_{kj}$ and $b_{kj}$, each of shape (n_classes, n_features)."""

    a: Array
    b: Array


def solve_shapes(mean_log: np.ndarray, mean_log_complement: np.ndarray):
    """The $(a, b)$ with $\\psi(a) - \\psi(a + b) = g_1$ and $\\psi(b) - \\psi(a + b) = g_2$,
    elementwise, for $g_1 = $ ``mean_log`` and $g_2 = $ ``mean_log_complement`` (both < 0).

    Where $\\delta = 1 - e^{g_1} - e^{g_2}$ is below `MIN_SPREAD` (values all but equal),
    the closed-form start at the floored $\\delta$.
    """
    g1 = np.asarray(mean_log, dtype=np.float64)
    g2 = np.asarray(mean_log_complement, dtype=np.float64)
    spread = 1.0 - np.exp(g1) - np.exp(g2)
    floored = spread < MIN_SPREAD
    spread = np.maximum(spread, MIN_SPREAD)
    a = 0.5 + np.exp(g1) / (2.0 * spread)
    b = 0.5 + np.exp(g2) / (2.0 * spread)
    start = a.copy(), b.copy()
    solving = np.flatnonzero(~floored.ravel())
    a, b, g1, g2 = (np.array(np.broadcast_to(v, floored.shape)).ravel() for v in (a, b, g1, g2))
    for _ in range(_MAX_NEWTON_STEPS):
        if solving.size == 0:
            break
        x, z = a[solving], b[solving]
        total = polygamma(1, x + z)
        f1 = psi(x) - psi(x + z) - g1[solving]
        f2 = psi(z) - psi(x + z) - g2[solving]
        j11, j22 = polygamma(1, x) - total, polygamma(1, z) - total
        determinant = j11 * j22 - total * total
        # A step may not shrink a shape by more than 10x, which keeps it positive.
        new_x = np.maximum(x - (j22 * f1 + total * f2) / determinant, x / 10.0)
        new_z = np.maximum(z - (total * f1 + j11 * f2) / determinant, z / 10.0)
        a[solving], b[solving] = new_x, new_z
        moved = (np.abs(new_x - x) > STEP_TOLERANCE * new_x) | (
            np.abs(new_z - z) > STEP_TOLERANCE * new_z
        )
        solving = solving[moved]
    a, b = a.reshape(floored.shape), b.reshape(floored.shape)
    kept = floored | ~(np.isfinite(a) & np.isfinite(b))  # no root, or Newton lost it
    return np.where(kept, start[0], a), np.where(kept, start[1], b)


class BetaFamily(MaximumLikelihood, FeatureFamily):
    """Bounded continuous features, a scaled Beta per class and feature (maximum likelihood).

    A column-of-a-table family with no estimator of its own: use it through
    [`bayesgen.FamilyClassifier`][bayesgen.FamilyClassifier], alone or as the leaf of a
    mixture (``MixtureFamily(BetaFamily(), n_components=3)``). ``X`` holds values strictly
    between ``lower`` and ``upper``; NaN is missing and drops its factor.

    Parameters
    ----------
    lower : float, default=0.0
        The lower end of the open interval of the values (the Beta's support, scaled).
    upper : float, default=1.0
        Its upper end; ``lower < upper``, both finite.

    Examples
    --------
    >>> import numpy as np
    >>> from bayesgen.families.beta import BetaFamily
    >>> rng = np.random.default_rng(0)
    >>> X = 10.0 * rng.beta(2.0, 5.0, size=(20000, 1))
    >>> family = BetaFamily(upper=10.0)
    >>> stats = family.suff_stats(X, np.ones((20000, 1)), np.float64)
    >>> params = family.point_estimate(family.prior(stats), stats, "mle")
    >>> bool(abs(params.a[0, 0] - 2.0) < 0.05 and abs(params.b[0, 0] - 5.0) < 0.15)
    True
    """

    name = "beta"
    column_values = "numbers"

    def __init__(self, lower: float = 0.0, upper: float = 1.0):
        self.lower, self.upper = lower, upper

    def check(self) -> BetaFamily:
        """This family, once ``lower < upper`` are checked to be finite numbers."""
        try:
            lower, upper = float(self.lower), float(self.upper)
        except (TypeError, ValueError):
            lower = upper = math.nan
        if not (math.isfinite(lower) and math.isfinite(upper) and lower < upper):
            raise ValueError(
                f"lower and upper must be finite numbers with lower < upper; got "
                f"lower={self.lower!r}, upper={self.upper!r}."
            )
        return self

    def _unit(self, X: np.ndarray):
        """``(observed, log u, log(1 - u))`` of ``X``, a missing entry adding nothing."""
        X = np.asarray(X)
        observed = ~np.isnan(X)
        unit = (np.where(observed, X, self.lower) - self.lower) / (self.upper - self.lower)
        filled = np.where(observed, unit, 0.5)  # finite logs; weight 0 where missing
        log_u = np.where(observed, np.log(filled), 0.0)
        return observed.astype(X.dtype), log_u, np.where(observed, np.log1p(-filled), 0.0)

    # ----------------------------------------------------------- statistics
    def suff_stats(self, X, responsibilities, dtype=None) -> BetaStats:
        """Weighted counts and sums of $\\log u$ and $\\log(1 - u)$ of the observed entries."""
        X = np.asarray(X, dtype=dtype)
        R = np.asarray(responsibilities, dtype=X.dtype)
        observed, log_u, log_complement = self._unit(X)
        return BetaStats(R.sum(axis=0), R.T @ observed, R.T @ log_u, R.T @ log_complement)

    # ------------------------------------------------------------ estimate
    def point_estimate(self, prior, stats, kind: str) -> BetaParams:
        """The maximum-likelihood shapes; a class and feature without observed entries gets
        the uniform, $a = b = 1$ (it scores nothing there)."""
        self.check_estimate(kind)
        n = np.asarray(stats.observed_counts, dtype=np.float64)
        seen = n > 0
        safe = np.where(seen, n, 1.0)
        g1 = np.where(seen, np.asarray(stats.log_sums) / safe, math.log(0.5))
        g2 = np.where(seen, np.asarray(stats.log_complement_sums) / safe, math.log(0.5))
        a, b = solve_shapes(g1, g2)
        dtype = np.asarray(stats.log_sums).dtype
        return BetaParams(
            np.where(seen, a, 1.0).astype(dtype), np.where(seen, b, 1.0).astype(dtype)
        )

    # ------------------------------------------------------------ densities
    def log_likelihood(self, params, X, *, row_terms: bool = True):
        """``(n_samples, n_classes)`` $\\sum_j \\log p(x_j \\mid k)$ over the observed
        entries, the scale's $-\\log(\\mathrm{upper} - \\mathrm{lower})$ included (it is the
        same for every class: ``row_terms`` changes nothing)."""
        X = np.asarray(X)
        a, b = (np.asarray(p, dtype=X.dtype) for p in params)
        observed, log_u, log_complement = self._unit(X)
        constant = -betaln(a, b) - math.log(self.upper - self.lower)
        return log_u @ (a - 1.0).T + log_complement @ (b - 1.0).T + observed @ constant.T

    # ---------------------------------------------------------------- draws
    def _scaled(self, unit):
        return self.lower + (self.upper - self.lower) * unit

    def _drawn(self, rng, a, b):
        """Scaled Beta draws kept strictly inside ``(lower, upper)``: with small shapes a
        draw rounds to 0 or 1 in floating point (2 % of them at a = b = 0.1), a value the
        family refuses and scores as impossible, so it moves to the nearest values inside,
        one floating-point step at a time, until its $u$ is strictly between 0 and 1."""
        values = self._scaled(rng.beta(a, b))
        for _ in range(_MAX_NUDGES):  # until each maps into (0, 1) as `_unit` computes it
            unit = (values - self.lower) / (self.upper - self.lower)
            low, high = unit <= 0.0, unit >= 1.0
            if not (low.any() or high.any()):
                break
            values = np.where(low, np.nextafter(values, self.upper), values)
            values = np.where(high, np.nextafter(values, self.lower), values)
        return values

    def draw_features(self, params, classes, rng, **options) -> dict:
        """``{"X": values}``: a scaled Beta draw with each row's class's shapes."""
        a, b = (np.asarray(p, dtype=np.float64)[classes] for p in params)
        return {"X": self._drawn(rng, a, b)}

    def features_from_draws(self, draws: dict) -> np.ndarray:
        """The drawn values, as floats."""
        return np.asarray(draws["X"])

    def mean(self, params):
        """$E[x_j \\mid k] = \\mathrm{lower} + (\\mathrm{upper} - \\mathrm{lower})\\,
        a_{kj} / (a_{kj} + b_{kj})$."""
        a, b = (np.asarray(p, dtype=np.float64) for p in params)
        return self._scaled(a / (a + b))

    def conditional(self, params, X, class_weights, method: str, rng):
        """Missing entries: the class mixture's mean, or a class drawn from the weights for
        each row and scaled Beta draws of its entries given it."""
        X = np.asarray(X, dtype=np.float64)
        weights = np.asarray(class_weights, dtype=np.float64)
        rows, columns = np.nonzero(np.isnan(X))
        filled = X.copy()
        if method == "mean":
            filled[rows, columns] = np.einsum(
                "rk,kr->r", weights[rows], self.mean(params)[:, columns]
            )
            return filled
        a, b = (np.asarray(p, dtype=np.float64) for p in params)
        drawn = class_prior.draw_classes(weights, rng)[rows]  # one class per row
        filled[rows, columns] = self._drawn(rng, a[drawn, columns], b[drawn, columns])
        return filled

    # ------------------------------------------------- columns of a table
    def check_columns(self, X, *, owner: str = "X", columns=None) -> np.ndarray:
        """Numbers strictly between ``lower`` and ``upper`` (NaN missing)."""
        X = as_numbers(X, owner, columns)
        with np.errstate(invalid="ignore"):
            outside = (X <= self.lower) | (X >= self.upper)
        refuse_entries(
            outside,
            X,
            columns,
            f"{owner} models values strictly between {self.lower} and {self.upper} (a scaled "
            "Beta density; set BetaFamily's lower and upper to the scale's bounds)",
        )
        return X

    def sites(self, params) -> dict:
        """``"beta_a"`` and ``"beta_b"``, (n_classes, n_features) each."""
        return {"beta_a": params.a, "beta_b": params.b}

    def params_from_sites(self, sites: dict) -> BetaParams:
        """The inverse of `sites`."""
        return BetaParams(np.asarray(sites["beta_a"]), np.asarray(sites["beta_b"]))

    def parameter_dims(self, features: list) -> tuple[dict, dict]:
        """Both sites by (class, feature)."""
        dims = {"beta_a": ("class", "feature"), "beta_b": ("class", "feature")}
        return dims, {"feature": list(features)}
