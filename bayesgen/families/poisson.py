r"""Poisson counts with a Gamma prior on the rates.

$$
\lambda_{kj} \sim \mathrm{Gamma}(a, b), \qquad
x_j \mid y = k \sim \mathrm{Poisson}(\lambda_{kj}).
$$

With $S_{kj} = \sum_i R_{ik} x_{ij}$ the posterior is $\mathrm{Gamma}(a +
S_{kj},\ b + N_k)$.

The log-likelihood $\sum_j x_j \log\lambda_{kj} - \sum_j \lambda_{kj} - \sum_j
\log x_j!$ contains $\Lambda_k = \sum_j \lambda_{kj}$, the expected length of a
document of class $k$. This is the document-length correction of
``001_8fd34bf03af75598.txt`` §3.4: a long document has more non-zero counts and so a larger
linear part for classes with high word rates; subtracting $\Lambda_k$ stops long
documents from favouring such classes. Unlike the multinomial model, the Poisson model
makes the classification depend on the document's length.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from bayesgen.families import count_data, count_imputation, numpy_draws
from bayesgen.families.estimates import (
    check_concentration,
    check_estimate_kind,
    check_scalar_concentration,
    pseudo_counts,
    pseudo_log_density,
)
from bayesgen.families.linear import (
    LinearLogLikelihood,
    add_missing_counts,
    finite_log,
    observed_counts,
)
from bayesgen.families.namespace import jax_numpy, namespace
from bayesgen.families.protocol import FeatureFamily
from bayesgen.validation import InputRows, check_positive_values

if TYPE_CHECKING:
    from jax import Array


class PoissonStats(NamedTuple):
    """Sufficient statistics: class counts and per-class feature sums.

    Attributes
    ----------
    counts : Array of shape (n_classes,)
        $N_k$.
    feature_sums : Array of shape (n_classes, n_features)
        $S_{kj} = \\sum_i R_{ik} x_{ij}$ over the observed entries (``R^T X``).
    missing_counts : Array of shape (n_classes, n_features), optional
        $\\sum_i R_{ik} [x_{ij}$ missing]; ``None`` means none missing.
    """

    counts: Array
    feature_sums: Array
    missing_counts: Array | None = None


class Gamma(NamedTuple):
    """Gamma distributions over the rates: ``shape`` $a$, ``rate`` $b$."""

    shape: Array
    rate: Array


def merge(a: PoissonStats, b: PoissonStats) -> PoissonStats:
    """Statistics of the union of two disjoint batches (they are sums)."""
    missing = add_missing_counts(a.missing_counts, b.missing_counts, a.feature_sums.shape)
    return PoissonStats(a.counts + b.counts, a.feature_sums + b.feature_sums, missing)


def _observed(stats: PoissonStats) -> Array:
    return observed_counts(stats.counts, stats.missing_counts, stats.feature_sums.shape)


def posterior(prior: Gamma, stats: PoissonStats) -> Gamma:
    """Conjugate update: $\\mathrm{Gamma}(a + S_{kj}, b + N_{kj})$, with
    $N_{kj}$ the weighted count of observed entries ($N_k$ when none is missing)."""
    shape = prior.shape + stats.feature_sums
    rate = namespace(prior, stats).broadcast_to(prior.rate + _observed(stats), shape.shape)
    return Gamma(shape, rate)


def point_estimate(prior: Gamma, stats: PoissonStats, kind: str) -> Array:
    """Rates $\\lambda_{kj}$: ``"mle"`` $S/N$, ``"mean"`` $(a+S)/(b+N)$,
    ``"map"`` $(a+S-1)_+/(b+N)$. A class with no rows gets rate 0 under ``"mle"``.

    Returns
    -------
    Array of shape (n_classes, n_features)
    """
    check_estimate_kind(kind)
    xp = namespace(prior, stats)
    if kind == "mle":
        counts = _observed(stats)
        observed = counts > 0
        rates = stats.feature_sums / xp.where(observed, counts, xp.ones_like(counts))
        return xp.where(observed, rates, xp.zeros_like(rates))
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
    import jax

    return jax.random.gamma(key, gamma.shape, shape=(num_samples, *gamma.shape.shape)) / gamma.rate


def linear_form(rates: Array) -> LinearLogLikelihood:
    """$\\sum_j x_j \\log\\lambda_{kj} - \\Lambda_k$, each feature observed adding
    $-\\lambda_{kj}$ to the bias.

    The caller adds the row term $-\\sum_j \\log x_j!$.

    A positive count of a feature with $\\lambda_{kj} = 0$ makes class ``k`` impossible.
    """
    xp = namespace(rates)
    log_rates, is_zero = finite_log(rates)
    zeros = xp.zeros(rates.shape[0], rates.dtype)
    return LinearLogLikelihood(
        log_rates,
        -xp.sum(rates, axis=1),
        is_zero.astype(rates.dtype),
        zeros,
        feature_bias=-rates,
        feature_zero_bias=xp.zeros_like(rates),
    )


class PoissonFamily(FeatureFamily):
    """The Gamma–Poisson family behind [`bayesgen.PoissonNB`][bayesgen.PoissonNB].

    Parameters are the rates $\\lambda$ of shape (n_classes, n_features); ``X``
    holds non-negative counts (non-integers accepted: ``gammaln`` replaces the
    factorial), dense or SciPy sparse, NaN for missing.

    Parameters
    ----------
    alpha : float or array-like of shape (n_features,), default=1.0
        Gamma prior shape.
    beta : float, default=1.0
        Gamma prior rate.
    """

    name = "poisson"
    sparse_class_weights = True  # count_data.class_sums
    input_rows = InputRows(counts=True)
    estimator = "PoissonNB"
    site = "rates"
    column_preference = 10

    def __init__(self, alpha=1.0, beta=1.0):
        self.alpha = alpha
        self.beta = beta

    def check(self) -> PoissonFamily:
        """This family, once ``beta`` (a positive number) and a scalar ``alpha`` are
        checked (an array ``alpha`` is checked against the columns when fitted)."""
        check_scalar_concentration(self.alpha, "alpha")
        check_positive_values(self.beta, "beta")
        return self

    def admits_column(self, column) -> bool:
        """Whole numbers none of which is negative."""
        return column.kind == "numbers" and column.whole and column.minimum >= 0

    def column_log_evidence(self, column, class_index, n_classes: int) -> float:
        """The Gamma–Poisson evidence (`column_evidence.poisson`)."""
        from bayesgen.families import column_evidence  # imports SciPy: only when choosing

        return column_evidence.poisson(
            column.values, class_index, n_classes, alpha=self.alpha, beta=self.beta
        )

    def prior_for(self, n_features: int, dtype=None, *, xp=None) -> Gamma:
        """The prior ``Gamma(alpha, beta)`` of ``n_features`` features (JAX arrays unless
        ``xp`` names another namespace)."""
        xp = jax_numpy() if xp is None else xp
        shape = check_concentration(self.alpha, "alpha", n_features)
        return Gamma(xp.asarray(shape, dtype), xp.asarray(self.beta, dtype))

    def suff_stats(self, X, responsibilities, dtype) -> PoissonStats:
        """Class counts, ``R^T X`` and missing counts (NaN skipped)."""
        return PoissonStats(*count_data.class_statistics(X, responsibilities, dtype))

    def merge(self, a, b):
        """Statistics of the union of two disjoint batches."""
        return merge(a, b)

    def prior(self, stats) -> Gamma:
        """``Gamma(alpha, beta)`` in the statistics' precision."""
        return self.prior_for(stats.feature_sums.shape[-1], stats.counts.dtype, xp=namespace(stats))

    def posterior(self, prior, stats) -> Gamma:
        """The conjugate Gamma posterior."""
        return posterior(prior, stats)

    def point_estimate(self, prior, stats, kind: str):
        """Rates by ``"mle"``, ``"map"`` or ``"mean"``."""
        return point_estimate(prior, stats, kind)

    def log_prior(self, prior, params, kind: str = "map") -> float:
        """$\\sum (a - 1) \\log\\lambda - b \\lambda$ for ``"map"``; ``"mean"`` is the
        mode under $\\mathrm{Gamma}(a + 1, b)$; ``"mle"`` has none (0)."""
        if kind == "mle":
            return 0.0
        rates = np.asarray(params)
        shape = pseudo_counts(prior.shape, kind)
        rate = np.asarray(prior.rate)
        rate_term = rate * np.sum(rates) if rate.ndim == 0 else np.sum(rate * rates)
        return pseudo_log_density(shape, rates) - float(rate_term)

    def log_likelihood(self, params, X, *, row_terms: bool = True):
        """``(n_samples, n_classes)`` log-likelihood; a NaN feature's factor is dropped.

        ``row_terms`` adds $-\\sum_j \\log x_j!$.
        """
        filled, missing = count_data.split_missing(X)
        row_term = -count_data.log_factorial_sums(filled) if row_terms else None
        return count_data.evaluate(linear_form(np.asarray(params)), filled, row_term, missing)

    def predictive_log_likelihood(self, posterior, X):
        """The negative-binomial $\\log p(x \\mid k, \\mathcal D)$, float64.

        With the posterior $\\mathrm{Gamma}(a, b)$ of a rate,
        $\\log p(x_j) = \\log\\Gamma(a + x_j) - \\log\\Gamma(a) - \\log x_j!
        + a\\log\\frac{b}{b+1} - x_j\\log(b+1)$, summed over the observed features.
        """
        filled, missing = count_data.split_missing(X)
        shape, rate = (np.asarray(p, dtype=np.float64) for p in posterior)
        per_feature = shape * (np.log(rate) - np.log1p(rate))
        zeros = np.zeros_like(shape)
        form = LinearLogLikelihood(
            weights=-np.log1p(rate),
            bias=per_feature.sum(axis=1),
            zero_weights=zeros,
            zero_bias=zeros[:, 0],
            feature_bias=per_feature,
            feature_zero_bias=zeros,
        )
        row_term = -count_data.log_factorial_sums(filled)
        log_likelihood = count_data.evaluate(form, filled, row_term, missing)
        return log_likelihood + count_data.rising_factorial_sums(filled, shape)

    def sample_params(self, key, posterior, num_samples: int):
        """Posterior draws of the rates, shape (num_samples, n_classes, n_features)."""
        return sample_params(key, posterior, num_samples)

    def draw_features(self, params, classes, rng, **options) -> dict:
        """``{"X": counts}``, Poisson with the rates $\\lambda_{kj}$ of each row's class."""
        return {"X": rng.poisson(np.asarray(params, dtype=np.float64)[classes]).astype(np.float64)}

    def mean(self, params):
        """The rates $\\lambda_{kj} = E[x_j \\mid k]$."""
        return np.asarray(params)

    def conditional(self, params, X, class_weights, method: str, rng):
        """Missing counts: the mode of the Poisson mixture, or a draw given a drawn class."""
        rates = np.broadcast_to(np.asarray(params), (X.shape[0], *np.shape(params)))
        return count_imputation.fill_missing(X, rates, class_weights, method, rng)
