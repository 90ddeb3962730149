r"""Count vectors with a Dirichlet prior: the Dirichlet–multinomial event model.

$$
\theta_k \sim \mathrm{Dirichlet}(\alpha), \qquad
x \mid y = k,\ L \sim \mathrm{Multinomial}(L, \theta_k), \quad L = \textstyle\sum_j x_j.
$$

The row total $L$ is conditioned on, not modelled. With $C_{kj} = \sum_i
R_{ik} x_{ij}$ the posterior is $\mathrm{Dirichlet}(\alpha + C_k)$; its mean is
additive smoothing $(C_{kj} + \alpha_j) / \sum_j (C_{kj} + \alpha_j)$.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

import numpy as np
from scipy.special import gammaln

from bayesgen.families import count_data, count_imputation, dirichlet, numpy_draws
from bayesgen.families.estimates import (
    check_concentration,
    check_scalar_concentration,
    pseudo_counts,
    pseudo_log_density,
)
from bayesgen.families.linear import LinearLogLikelihood, finite_log
from bayesgen.families.namespace import jax_numpy, namespace
from bayesgen.families.protocol import FeatureFamily
from bayesgen.validation import InputRows

if TYPE_CHECKING:
    from jax import Array


class MultinomialStats(NamedTuple):
    """Sufficient statistics: class counts and per-class feature totals.

    Attributes
    ----------
    counts : Array of shape (n_classes,)
        $N_k$, the (weighted) number of rows.
    feature_counts : Array of shape (n_classes, n_features)
        $C_{kj} = \\sum_i R_{ik} x_{ij}$ (``R^T X``).
    """

    counts: Array
    feature_counts: Array


def merge(a: MultinomialStats, b: MultinomialStats) -> MultinomialStats:
    """Statistics of the union of two disjoint batches (they are sums)."""
    return MultinomialStats(a.counts + b.counts, a.feature_counts + b.feature_counts)


def posterior(concentration: Array, stats: MultinomialStats) -> Array:
    """Posterior Dirichlet concentrations $\\alpha + C_k$, shape (n_classes, n_features)."""
    return concentration + stats.feature_counts


def point_estimate(concentration: Array, stats: MultinomialStats, kind: str) -> Array:
    """$\\theta_k$ by ``"mle"``, ``"map"`` or ``"mean"``, shape (n_classes, n_features)."""
    return dirichlet.point_estimate(concentration, stats.feature_counts, kind)


def sample_params(key: Array, posterior_concentration: Array, num_samples: int) -> Array:
    """Draws of $\\theta$, shape ``(num_samples, n_classes, n_features)``.

    ``key`` is a JAX key, or a NumPy generator (`bayesgen.families.numpy_draws`).
    """
    if numpy_draws.is_generator(key):
        return numpy_draws.dirichlet(key, posterior_concentration, num_samples)
    import jax

    shape = (num_samples, posterior_concentration.shape[0])
    return jax.random.dirichlet(key, posterior_concentration, shape=shape)


def linear_form(theta: Array) -> LinearLogLikelihood:
    """$\\log p(x \\mid k, L) = \\sum_j x_j \\log\\theta_{kj}$ + the multinomial coefficient.

    The coefficient $\\log L! - \\sum_j \\log x_j!$ depends on the row only and is
    added by the caller; a count of a feature with $\\theta_{kj} = 0$ makes class
    $k$ impossible.
    """
    log_theta, is_zero = finite_log(theta)
    n_classes = theta.shape[0]
    zeros = namespace(theta).zeros(n_classes, theta.dtype)
    return LinearLogLikelihood(log_theta, zeros, is_zero.astype(theta.dtype), zeros)


MISSING_AT_FIT = (
    "X contains NaN: MultinomialNB cannot be fitted with missing counts (with the "
    "observed words renormalised, the likelihood has no closed-form maximum). "
    "predict_proba and score_samples accept NaN."
)


def _checked_lengths(lengths, shape) -> np.ndarray:
    """``lengths`` as whole-number row totals >= 0 of the rows ``shape``, or a ValueError
    naming them (a fraction would be truncated, a negative or infinite one fail in NumPy)."""
    try:
        totals = np.asarray(lengths, dtype=np.float64)
    except (TypeError, ValueError):
        totals = np.asarray(np.nan)
    whole = totals.size > 0 and np.all(np.isfinite(totals)) and np.all(totals == np.round(totals))
    if not whole or np.any(totals < 0) or totals.ndim > 1:
        raise ValueError(
            f"lengths must be a whole number >= 0 or one per row; got {lengths!r:.60}."
        )
    if totals.ndim == 1 and totals.size != 1 and totals.shape != shape:
        raise ValueError(f"lengths must have one total per row, {shape[0]}; got {totals.size}.")
    return np.broadcast_to(totals.astype(np.int64), shape)


class MultinomialFamily(FeatureFamily):
    """The Dirichlet–multinomial family behind [`bayesgen.MultinomialNB`][bayesgen.MultinomialNB].

    Parameters are the word probabilities $\\theta$ of shape (n_classes,
    n_features); the prior and posterior are Dirichlet concentrations (arrays). ``X``
    holds non-negative counts, dense or SciPy sparse; NaN is refused by ``suff_stats`` and
    integrated out everywhere else (the observed words of a row are multinomial with
    $\\theta$ renormalised over them).

    Parameters
    ----------
    alpha : float or array-like of shape (n_features,), default=1.0
        Dirichlet concentration (pseudo-count of every feature).
    """

    name = "multinomial"
    sparse_class_weights = True  # count_data.class_sums
    input_rows = InputRows(counts=True, missing_at_fit=False)
    estimator = "MultinomialNB"

    def __init__(self, alpha=1.0):
        self.alpha = alpha

    def check(self) -> MultinomialFamily:
        """This family, once a scalar ``alpha`` is checked (an array is checked against
        the columns when fitted)."""
        check_scalar_concentration(self.alpha, "alpha")
        return self

    def prior_for(self, n_features: int, dtype=None, *, xp=None):
        """The Dirichlet concentration of ``n_features`` features, shape (n_features,) (a JAX
        array unless ``xp`` names another namespace)."""
        xp = jax_numpy() if xp is None else xp
        return xp.asarray(check_concentration(self.alpha, "alpha", n_features), dtype)

    def suff_stats(self, X, responsibilities, dtype) -> MultinomialStats:
        """Class counts and ``R^T X``.

        Raises
        ------
        ValueError
            If ``X`` has missing (NaN) entries.
        """
        counts, sums, missing_counts = count_data.class_statistics(X, responsibilities, dtype)
        if bool((missing_counts > 0).any()):
            raise ValueError(MISSING_AT_FIT)
        return MultinomialStats(counts, sums)

    def merge(self, a, b):
        """Statistics of the union of two disjoint batches."""
        return merge(a, b)

    def prior(self, stats):
        """The prior concentration in the statistics' precision."""
        return self.prior_for(
            stats.feature_counts.shape[-1], stats.counts.dtype, xp=namespace(stats)
        )

    def posterior(self, prior, stats):
        """Posterior concentrations $\\alpha + C_k$."""
        return posterior(prior, stats)

    def point_estimate(self, prior, stats, kind: str):
        """$\\theta$ by ``"mle"``, ``"map"`` or ``"mean"``."""
        return point_estimate(prior, stats, kind)

    def log_prior(self, prior, params, kind: str = "map") -> float:
        """$\\sum a \\log\\theta$, the log prior whose mode the ``kind`` estimate is."""
        return pseudo_log_density(pseudo_counts(prior, kind), np.asarray(params))

    def log_likelihood(self, params, X, *, row_terms: bool = True):
        """``(n_samples, n_classes)`` $\\log p(x \\mid k, L)$, NaN words integrated out.

        Conditioning on the observed words, their counts follow $\\theta$
        renormalised over them: the correction $-L_o \\log\\sum_{j \\in o}
        \\theta_{kj}$. ``row_terms`` adds the multinomial coefficient.
        """
        filled, missing = count_data.split_missing(X)
        row_term = count_data.multinomial_coefficients(filled) if row_terms else None
        log_likelihood = count_data.evaluate(linear_form(np.asarray(params)), filled, row_term)
        if missing is None:
            return log_likelihood
        observed_mass = 1.0 - count_data.row_products(missing, np.asarray(params))
        totals = count_data.row_totals(filled)[:, None]
        with np.errstate(divide="ignore", invalid="ignore"):
            correction = np.where(totals > 0, -totals * np.log(observed_mass), 0.0)
            corrected = log_likelihood + correction
        # An observed word of probability 0 makes the row impossible under the class, even
        # where the observed words have no mass at all (-inf + inf would be NaN).
        return np.where(np.isneginf(log_likelihood), log_likelihood, corrected)

    def predictive_log_likelihood(self, posterior, X):
        """The Dirichlet–multinomial $\\log p(x \\mid k, L, \\mathcal D)$, float64.

        With $a = \\alpha + C_k$ and $A = \\sum_j a_j$:
        $\\log\\frac{L!}{\\prod_j x_j!} + \\log\\Gamma(A) - \\log\\Gamma(A + L)
        + \\sum_j [\\log\\Gamma(a_j + x_j) - \\log\\Gamma(a_j)]$. Missing words are
        integrated out: the observed words of a row are Dirichlet–multinomial with their
        own concentrations (the aggregation property), so $A$ runs over the observed
        words and $L$ is their total.
        """
        filled, missing = count_data.split_missing(X)
        concentration = np.asarray(posterior, dtype=np.float64)
        total = np.broadcast_to(concentration.sum(axis=1), (X.shape[0], concentration.shape[0]))
        if missing is not None:
            total = total - count_data.row_products(missing, concentration)
        lengths = count_data.row_totals(filled)[:, None]
        with np.errstate(invalid="ignore"):  # Gamma(A) / Gamma(A + 0) is 1, also for A = 0
            normaliser = np.where(lengths > 0, gammaln(total) - gammaln(total + lengths), 0.0)
        return (
            normaliser
            + count_data.rising_factorial_sums(filled, concentration)
            + count_data.multinomial_coefficients(filled)[:, None]
        )

    def sample_params(self, key, posterior, num_samples: int):
        """Posterior draws of $\\theta$, shape (num_samples, n_classes, n_features)."""
        return sample_params(key, posterior, num_samples)

    def imputation_rates(self, params, X) -> np.ndarray:
        """Expected count of each word given the class and the observed words.

        The story conditions on row totals, so a missing count has no distribution of its
        own; it is imputed as if the document went on at the pace of its observed words:
        $L_o \\theta_{kj} / \\sum_{l \\in o} \\theta_{kl}$, a Poisson rate.

        Returns
        -------
        ndarray of shape (n_samples, n_classes, n_features)
        """
        filled, missing = count_data.split_missing(X)
        theta = np.asarray(params)
        observed_mass = 1.0 - count_data.row_products(missing, theta)  # (n, K)
        totals = count_data.row_totals(filled)[:, None]
        with np.errstate(divide="ignore", invalid="ignore"):
            pace = np.where(observed_mass > 0, totals / observed_mass, 0.0)
        return pace[:, :, None] * theta[None, :, :]

    def mean(self, params):
        """Each feature's share $\\theta_{kj}$ ($E[x_j \\mid k]$ per unit of length)."""
        return np.asarray(params)

    def draw_features(self, params, classes, rng, lengths=None, **options) -> dict:
        """``{"X": counts}``: each row's ``lengths`` items spread over the features with its
        class's probabilities.

        Raises
        ------
        ValueError
            Without ``lengths`` (the story conditions on the row totals, so they are given),
            or for lengths that are not whole numbers >= 0, one or one per row.
        """
        if lengths is None:
            raise ValueError(
                "The multinomial story needs lengths (the row totals to draw): "
                "MultinomialNB.sample(lengths=...) takes them."
            )
        theta = np.asarray(params, dtype=np.float64)[classes]
        theta /= theta.sum(axis=1, keepdims=True)
        return {"X": rng.multinomial(_checked_lengths(lengths, classes.shape), theta).astype(float)}

    def conditional(self, params, X, class_weights, method: str, rng):
        """Missing counts: the mode of the Poisson mixture at `imputation_rates`, or a
        Poisson draw given a drawn class."""
        if not np.isnan(X).any():
            return X.copy()
        rates = self.imputation_rates(params, X)
        return count_imputation.fill_missing(X, rates, class_weights, method, rng)
