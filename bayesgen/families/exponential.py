r"""Non-negative real features with exponential densities and Gamma-distributed rates.

$$
\lambda_{kj} \sim \mathrm{Gamma}(\alpha, \beta), \qquad
x_j \mid y = k \sim \mathrm{Exponential}(\lambda_{kj}), \quad x_j \ge 0.
$$

With $N_{kj} = \sum_i R_{ik} [x_{ij}\ \text{observed}]$ and $S_{kj} = \sum_i
R_{ik} x_{ij}$ (missing entries, NaN, skipped) the posterior is
$\mathrm{Gamma}(\alpha + N_{kj},\ \beta + S_{kj})$ and the posterior predictive of one
entry is the Lomax (Pareto II) density

$$
p(x \mid k, \mathcal D) = \frac{a' b'^{a'}}{(b' + x)^{a' + 1}}, \qquad
a' = \alpha + N_{kj},\ b' = \beta + S_{kj}.
$$

Data are dense NumPy arrays (this family takes no SciPy sparse input: a zero is a value,
not an absence, so sparsity buys nothing here).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from bayesgen._lazy import lazy_module
from bayesgen.families import numpy_draws
from bayesgen.families.count_imputation import fill_missing
from bayesgen.families.estimates import (
    check_concentration,
    check_estimate_kind,
    pseudo_counts,
    pseudo_log_density,
)
from bayesgen.families.namespace import jax_numpy, namespace
from bayesgen.families.poisson import Gamma
from bayesgen.families.protocol import FeatureFamily, as_numbers, refuse_entries
from bayesgen.validation import check_positive_values

if TYPE_CHECKING:
    from jax import Array

jax = lazy_module("jax")

__all__ = ["ExponentialFamily", "ExponentialStats", "Gamma", "check_values"]


class ExponentialStats(NamedTuple):
    """Sufficient statistics of exponential features.

    Attributes
    ----------
    counts : Array of shape (n_classes,)
        $N_k$, the weighted number of rows of each class.
    observed_counts : Array of shape (n_classes, n_features)
        $N_{kj}$, the weighted number of observed entries of each feature.
    feature_sums : Array of shape (n_classes, n_features)
        $S_{kj} = \\sum_i R_{ik} x_{ij}$ over the observed entries.
    """

    counts: Array
    observed_counts: Array
    feature_sums: Array


def check_values(X, name: str = "X", n_features: int | None = None) -> np.ndarray:
    """``X`` as a 2-D float array of non-negative values or NaN (missing).

    Raises
    ------
    ValueError
        Naming ``name``, for a wrong shape, a SciPy sparse matrix, ±inf or a negative value.
    """
    if hasattr(X, "tocsr"):
        raise ValueError(
            f"{name} must be a dense array: the exponential family takes no sparse input."
        )
    X = np.asarray(X)
    if X.ndim != 2 or (n_features is not None and X.shape[1] != n_features):
        expected = "(n_samples, n_features)" if n_features is None else f"(n_samples, {n_features})"
        raise ValueError(f"{name} must have shape {expected}; got {X.shape}.")
    if np.any(np.isinf(X)):
        raise ValueError(f"{name} holds ±inf; exponential features are finite (NaN: missing).")
    if np.any(X < 0):
        # The wording scikit-learn's checks expect of a model for non-negative data.
        raise ValueError(f"Negative values in data passed to {name}; exponential data are >= 0.")
    return X


def _split(X: np.ndarray):
    present = ~np.isnan(X)
    return present.astype(X.dtype), np.where(present, X, 0.0).astype(X.dtype)


class FixedValues(NamedTuple):
    """Checked values of rows scored many times (an EM's iterations), with their indicator
    of observed entries and their zero-filled copy made once (`ExponentialFamily.fixed_rows`).
    The values must not change while it is in use."""

    values: np.ndarray
    present: np.ndarray
    filled: np.ndarray


def _checked_split(X, n_features: int | None = None) -> FixedValues:
    """Values, checked (`check_values`), or `FixedValues`, checked when made (only their
    number of columns is checked here), as `FixedValues`."""
    if not isinstance(X, FixedValues):
        X = check_values(X, n_features=n_features)
        return FixedValues(X, *_split(X))
    if n_features is not None and X.values.shape[1] != n_features:
        check_values(X.values, n_features=n_features)  # raises, naming the shapes
    return X


def merge(a: ExponentialStats, b: ExponentialStats) -> ExponentialStats:
    """Statistics of the union of two disjoint batches (they are sums)."""
    return ExponentialStats(*(x + y for x, y in zip(a, b, strict=True)))


def posterior(prior: Gamma, stats: ExponentialStats) -> Gamma:
    """Conjugate update $\\mathrm{Gamma}(\\alpha + N_{kj}, \\beta + S_{kj})$."""
    shape = prior.shape + stats.observed_counts
    rate = namespace(prior, stats).broadcast_to(prior.rate + stats.feature_sums, shape.shape)
    return Gamma(shape, rate)


def point_estimate(prior: Gamma, stats: ExponentialStats, kind: str) -> Array:
    """Rates $\\lambda_{kj}$, shape (n_classes, n_features).

    ``"mle"``: $N/S$; ``"map"``: $(\\alpha + N - 1)_+/(\\beta + S)$, clipped at 0
    because for $\\alpha + N < 1$ the posterior density is decreasing and its mode is
    the boundary; ``"mean"``: $(\\alpha + N)/(\\beta + S)$. Without observed entries
    the maximum-likelihood rate is 0 (the class gives no density to that feature); where
    every observed value is 0 it is ``inf``.
    """
    check_estimate_kind(kind)
    xp = namespace(prior, stats)
    if kind == "mle":
        n, s = stats.observed_counts, stats.feature_sums
        unseen = xp.where(n > 0, xp.full_like(n, xp.inf), xp.zeros_like(n))  # in n's dtype
        return xp.where(s > 0, n / xp.where(s > 0, s, 1), unseen)
    post = posterior(prior, stats)
    if kind == "mean":
        return post.shape / post.rate
    return xp.clip(post.shape - 1.0, 0.0, None) / post.rate


def sample_params(key: Array, gamma: Gamma, num_samples: int) -> Array:
    """Draws of the rates, shape ``(num_samples, n_classes, n_features)``.

    ``key`` is a JAX key, or a NumPy generator (`bayesgen.families.numpy_draws`).
    """
    if numpy_draws.is_generator(key):
        return numpy_draws.gamma(key, gamma.shape, gamma.rate, num_samples)
    return jax.random.gamma(key, gamma.shape, shape=(num_samples, *gamma.shape.shape)) / gamma.rate


def log_likelihood(rates, X) -> np.ndarray:
    """$\\sum_{j\\ \\text{observed}} [\\log\\lambda_{kj} - \\lambda_{kj} x_{ij}]$.

    A zero rate makes an observed entry impossible (``-inf``); an infinite one (an
    ``"mle"`` from all-zero values) puts infinite density at 0 and none elsewhere. ``X``:
    values, or `FixedValues`.

    Returns
    -------
    ndarray of shape (n_samples, n_classes)
    """
    rates = np.asarray(rates)
    X, present, filled = X if isinstance(X, FixedValues) else (X, *_split(X))
    finite = np.isfinite(rates)
    # 0 * log 0 would be NaN: zero rates are kept apart as "impossible" indicators.
    is_zero = (rates <= 0).astype(X.dtype)
    log_rates = np.log(np.where(finite & (rates > 0), rates, 1.0)).astype(X.dtype)
    result = present @ log_rates.T - filled @ np.where(finite, rates, 0.0).T.astype(X.dtype)
    if finite.all() and not is_zero.any():
        return result  # every entry is possible
    impossible = present @ is_zero.T
    if not finite.all():
        infinite = (~finite).astype(X.dtype)
        impossible = impossible + (filled > 0).astype(X.dtype) @ infinite.T
        at_zero = (present * (filled == 0)) @ infinite.T
        result = np.where(at_zero > 0, np.inf, result)
    return np.where(impossible > 0, -np.inf, result)


def predictive_log_likelihood(gamma: Gamma, X: np.ndarray) -> np.ndarray:
    """The Lomax $\\log p(x \\mid k, \\mathcal D)$ summed over observed entries, float64.

    Returns
    -------
    ndarray of shape (n_samples, n_classes)
    """
    shape, rate = (np.asarray(p, dtype=np.float64) for p in gamma)
    rate = np.broadcast_to(rate, shape.shape)
    present = ~np.isnan(X)
    filled = np.where(present, X, 0.0).astype(np.float64)
    result = np.empty((X.shape[0], shape.shape[0]))
    for k in range(shape.shape[0]):
        a, b = shape[k], rate[k]
        terms = np.log(a) + a * np.log(b) - (a + 1.0) * np.log(b + filled)
        result[:, k] = np.sum(np.where(present, terms, 0.0), axis=1)
    return result


def _mixture_mean(weights: np.ndarray, rates: np.ndarray) -> np.ndarray:
    return np.sum(weights / rates, axis=1)


def _draw(rates: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    return rng.exponential(1.0 / rates)


class ExponentialFamily(FeatureFamily):
    """The Gamma–exponential family behind ``ExponentialNB``.

    Parameters are the rates $\\lambda$ of shape (n_classes, n_features); ``X`` is a
    dense array of non-negative values, NaN for missing.

    Parameters
    ----------
    alpha : float or array-like of shape (n_features,), default=1.0
        Gamma prior shape.
    beta : float or array-like of shape (n_features,), default=1.0
        Gamma prior rate.
    """

    name = "exponential"
    estimator = "ExponentialNB"
    site = "rates"
    column_preference = 30

    def admits_column(self, column) -> bool:
        """Numbers that are not all whole, none of them negative."""
        return column.kind == "numbers" and not column.whole and column.minimum >= 0

    def column_log_evidence(self, column, class_index, n_classes: int) -> float:
        """The Gamma–exponential evidence (`column_evidence.exponential`)."""
        from bayesgen.families import column_evidence  # imports SciPy: only when choosing

        return column_evidence.exponential(
            column.values, class_index, n_classes, alpha=self.alpha, beta=self.beta
        )

    def check_columns(self, X, *, owner="X", columns=None):
        """Non-negative numbers, NaN missing."""
        X = as_numbers(X, owner, columns)
        reason = f"{owner} models exponential data, which are >= 0"
        refuse_entries(X < 0, X, columns, reason, "Negative")
        return X

    def features_from_draws(self, draws):
        """The drawn waiting times, as floats."""
        return np.asarray(draws["X"])

    def __init__(self, alpha=1.0, beta=1.0):
        self.alpha = alpha
        self.beta = beta

    def check(self) -> ExponentialFamily:
        """This family, once ``alpha`` and ``beta`` are checked: positive numbers, or arrays
        of them (their shape is checked against the columns when fitted)."""
        for name in ("alpha", "beta"):
            check_positive_values(getattr(self, name), name)
        return self

    def prior_for(self, n_features: int, dtype=None, *, xp=None) -> Gamma:
        """The prior ``Gamma(alpha, beta)`` of ``n_features`` features (JAX arrays unless
        ``xp`` names another namespace)."""
        xp = jax_numpy() if xp is None else xp
        shape = check_concentration(self.alpha, "alpha", n_features)
        rate = check_concentration(self.beta, "beta", n_features)
        return Gamma(xp.asarray(shape, dtype), xp.asarray(rate, dtype))

    def suff_stats(self, X, responsibilities, dtype) -> ExponentialStats:
        """Class counts, observed counts and sums of ``X`` (NaN skipped)."""
        X, present, filled = _checked_split(X)
        weights = np.asarray(responsibilities, dtype=X.dtype)
        xp = namespace(responsibilities)
        return ExponentialStats(
            xp.asarray(weights.sum(axis=0), dtype),
            xp.asarray(weights.T @ present, dtype),
            xp.asarray(weights.T @ filled, dtype),
        )

    def merge(self, a, b) -> ExponentialStats:
        """Statistics of the union of two disjoint batches."""
        return merge(a, b)

    def prior(self, stats) -> Gamma:
        """``Gamma(alpha, beta)`` in the statistics' precision."""
        return self.prior_for(stats.feature_sums.shape[-1], stats.counts.dtype, xp=namespace(stats))

    def posterior(self, prior, stats) -> Gamma:
        """The conjugate Gamma posterior."""
        return posterior(prior, stats)

    def point_estimate(self, prior, stats, kind: str):
        """Rates by ``"mle"``, ``"map"`` or ``"mean"`` (see `point_estimate`)."""
        return point_estimate(prior, stats, kind)

    def log_prior(self, prior, params, kind: str = "map") -> float:
        """$\\sum (\\alpha - 1)\\log\\lambda - \\beta\\lambda$ for ``"map"``; ``"mean"`` is
        the mode under $\\mathrm{Gamma}(\\alpha + 1, \\beta)$; ``"mle"`` has none (0)."""
        if kind == "mle":
            return 0.0
        rates = np.asarray(params)
        shape = pseudo_counts(prior.shape, kind)
        return pseudo_log_density(shape, rates) - float(np.sum(np.asarray(prior.rate) * rates))

    def log_likelihood(self, params, X, *, row_terms: bool = True):
        """``(n_samples, n_classes)`` log-likelihood; a NaN entry's factor is dropped."""
        return log_likelihood(params, _checked_split(X, n_features=np.shape(params)[-1]))

    def fixed_rows(self, X) -> FixedValues:
        """Values ``X``, checked, with their observed entries and zero-filled copy
        (`FixedValues`)."""
        return _checked_split(X)

    def predictive_log_likelihood(self, posterior, X):
        """The Lomax posterior predictive, float64 (see `predictive_log_likelihood`)."""
        X = check_values(X, n_features=np.shape(posterior.shape)[-1])
        return predictive_log_likelihood(posterior, X)

    def sample_params(self, key, posterior, num_samples: int):
        """Posterior draws of the rates, shape (num_samples, n_classes, n_features)."""
        return sample_params(key, posterior, num_samples)

    def draw_features(self, params, classes, rng, **options) -> dict:
        """``{"X": waiting times}``, exponential with the rates of each row's class (a zero
        rate waits forever: ``inf``)."""
        rates = np.asarray(params)
        with np.errstate(divide="ignore"):
            drawn = rng.standard_exponential((classes.shape[0], rates.shape[-1])) / rates[classes]
        return {"X": drawn.astype(np.result_type(rates.dtype, np.float32))}

    def mean(self, params):
        """The mean waiting times $1 / \\lambda_{kj}$ (``inf`` for a zero rate)."""
        with np.errstate(divide="ignore"):
            return 1.0 / np.asarray(params)

    def conditional(self, params, X, class_weights, method: str, rng):
        """Missing entries: the mixture mean $\\sum_k w_k / \\lambda_{kj}$, or an
        exponential draw given a class drawn from the weights."""
        rates = np.broadcast_to(np.asarray(params), (X.shape[0], *np.shape(params)))
        return fill_missing(X, rates, class_weights, method, rng, _mixture_mean, _draw)
