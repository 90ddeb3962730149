r"""Bernoulli features with a Beta prior (the Bernoulli event model of naive Bayes).

$$
\theta_{kj} \sim \mathrm{Beta}(\alpha, \alpha), \qquad
x_j \mid y = k \sim \mathrm{Bernoulli}(\theta_{kj}).
$$

Every feature counts, present or absent. With $O_{kj} = \sum_i R_{ik} x_{ij}$ the
posterior is $\mathrm{Beta}(\alpha + O_{kj}, \alpha + N_k - O_{kj})$, whose mean is
Laplace smoothing $(O_{kj} + \alpha)/(N_k + 2\alpha)$.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from bayesgen.families import count_data, count_imputation, dirichlet, numpy_draws
from bayesgen.families.estimates import (
    check_concentration,
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
from bayesgen.families.protocol import FeatureFamily, as_numbers, refuse_entries
from bayesgen.validation import InputRows

if TYPE_CHECKING:
    from jax import Array


class BernoulliStats(NamedTuple):
    """Sufficient statistics: class counts and per-class feature occurrence counts.

    Attributes
    ----------
    counts : Array of shape (n_classes,)
        $N_k$.
    feature_counts : Array of shape (n_classes, n_features)
        $O_{kj} = \\sum_i R_{ik} x_{ij}$ over the observed entries (``R^T X``).
    missing_counts : Array of shape (n_classes, n_features), optional
        $\\sum_i R_{ik} [x_{ij}$ missing]; ``None`` means none missing.
    """

    counts: Array
    feature_counts: Array
    missing_counts: Array | None = None


class Beta(NamedTuple):
    """Beta distributions over the per-class feature probabilities.

    Attributes
    ----------
    concentration1 : Array
        Pseudo-counts of ones ($\\alpha$ in the prior).
    concentration0 : Array
        Pseudo-counts of zeros.
    """

    concentration1: Array
    concentration0: Array


def merge(a: BernoulliStats, b: BernoulliStats) -> BernoulliStats:
    """Statistics of the union of two disjoint batches (they are sums)."""
    shape = a.feature_counts.shape
    missing = add_missing_counts(a.missing_counts, b.missing_counts, shape)
    return BernoulliStats(a.counts + b.counts, a.feature_counts + b.feature_counts, missing)


def _observed(stats: BernoulliStats) -> Array:
    return observed_counts(stats.counts, stats.missing_counts, stats.feature_counts.shape)


def posterior(prior: Beta, stats: BernoulliStats) -> Beta:
    """Conjugate update: $\\mathrm{Beta}(\\alpha_1 + O, \\alpha_0 + N - O)$.

    $N$ counts the observed entries of each feature only.
    """
    zeros = _observed(stats) - stats.feature_counts
    return Beta(prior.concentration1 + stats.feature_counts, prior.concentration0 + zeros)


def point_estimate(prior: Beta, stats: BernoulliStats, kind: str) -> Array:
    """$\\theta_{kj}$ by ``"mle"``, ``"map"`` or ``"mean"`` (a two-category Dirichlet).

    Returns
    -------
    Array of shape (n_classes, n_features)
    """
    xp = namespace(prior, stats)
    zeros = _observed(stats) - stats.feature_counts
    counts = xp.stack([stats.feature_counts, zeros], axis=-1)
    concentration = xp.stack(
        xp.broadcast_arrays(prior.concentration1, prior.concentration0), axis=-1
    )
    return dirichlet.point_estimate(concentration, counts, kind)[..., 0]


def sample_params(key: Array, beta: Beta, num_samples: int) -> Array:
    """Independent draws of $\\theta$, shape ``(num_samples, n_classes, n_features)``.

    ``key`` is a JAX key, or a NumPy generator (`bayesgen.families.numpy_draws`).
    """
    if numpy_draws.is_generator(key):
        return numpy_draws.beta(key, beta.concentration1, beta.concentration0, num_samples)
    import jax
    import jax.numpy as jnp

    shape = (
        num_samples,
        *jnp.broadcast_shapes(beta.concentration1.shape, beta.concentration0.shape),
    )
    return jax.random.beta(key, beta.concentration1, beta.concentration0, shape=shape)


def linear_form(theta: Array) -> LinearLogLikelihood:
    """The linear form of the Bernoulli log-likelihood.

    $\\log p(x \\mid k) = \\sum_j x_j \\log\\frac{\\theta_{kj}}{1-\\theta_{kj}}
    + \\sum_j \\log(1-\\theta_{kj})$.

    A one where $\\theta_{kj} = 0$, or a zero where $\\theta_{kj} = 1$, makes
    the class impossible: $Z = [\\theta = 0] - [\\theta = 1]$, $z_k = \\sum_j
    [\\theta_{kj} = 1]$, so $x \\cdot Z_k + z_k$ counts exactly those features.
    """
    xp = namespace(theta)
    log_one, never_one = finite_log(theta)
    log_zero, never_zero = finite_log(1.0 - theta)
    dtype = theta.dtype
    return LinearLogLikelihood(
        weights=log_one - log_zero,
        bias=xp.sum(log_zero, axis=1),
        zero_weights=never_one.astype(dtype) - never_zero.astype(dtype),
        zero_bias=xp.sum(never_zero, axis=1).astype(dtype),
        feature_bias=log_zero,
        feature_zero_bias=never_zero.astype(dtype),
    )


class BernoulliFamily(FeatureFamily):
    """The Beta–Bernoulli family behind [`bayesgen.BernoulliNB`][bayesgen.BernoulliNB].

    Parameters are the probabilities $\\theta$ of shape (n_classes, n_features);
    ``X`` holds 0, 1 or NaN (missing), dense or SciPy sparse.

    Parameters
    ----------
    alpha : float or array-like of shape (n_features,), default=1.0
        Beta prior pseudo-counts of ones and of zeros.
    binarize : float, optional
        Read by `check_columns` only: values above it become 1, the rest 0.
    """

    name = "bernoulli"
    sparse_class_weights = True  # count_data.class_sums
    input_rows = InputRows(counts=True, binary=True)
    estimator = "BernoulliNB"
    column_preference = 0

    def __init__(self, alpha=1.0, binarize=None):
        self.alpha = alpha
        self.binarize = binarize

    def check(self) -> BernoulliFamily:
        """This family, once a scalar ``alpha`` is checked (an array is checked against
        the columns when fitted)."""
        check_scalar_concentration(self.alpha, "alpha")
        return self

    def admits_column(self, column) -> bool:
        """Flags: a bool column, or numbers that are all 0/1."""
        return column.kind == "flags"

    def column_log_evidence(self, column, class_index, n_classes: int) -> float:
        """The Beta–Bernoulli evidence (`column_evidence.bernoulli`)."""
        from bayesgen.families import column_evidence  # imports SciPy: only when choosing

        return column_evidence.bernoulli(column.values, class_index, n_classes, alpha=self.alpha)

    def check_columns(self, X, *, owner="X", columns=None):
        """0/1 (or boolean) values, NaN missing; with ``binarize``, any numbers thresholded."""
        X = as_numbers(X, owner, columns)
        if self.binarize is not None:
            return np.where(np.isnan(X), np.nan, X > self.binarize).astype(X.dtype)
        refuse_entries(X < 0, X, columns, f"{owner} models counts, which must be >= 0", "Negative")
        not_binary = (X != 0) & (X != 1) & ~np.isnan(X)
        refuse_entries(not_binary, X, columns, f"{owner} needs 0/1 (or boolean) features")
        return X

    def prior_for(self, n_features: int, dtype=None, *, xp=None) -> Beta:
        """The prior ``Beta(alpha, alpha)`` of ``n_features`` features (JAX arrays unless
        ``xp`` names another namespace)."""
        xp = jax_numpy() if xp is None else xp
        alpha = xp.asarray(check_concentration(self.alpha, "alpha", n_features), dtype)
        return Beta(alpha, alpha)

    def suff_stats(self, X, responsibilities, dtype) -> BernoulliStats:
        """Class counts, ``R^T X`` and missing counts (NaN skipped)."""
        return BernoulliStats(*count_data.class_statistics(X, responsibilities, dtype))

    def merge(self, a, b):
        """Statistics of the union of two disjoint batches."""
        return merge(a, b)

    def prior(self, stats) -> Beta:
        """``Beta(alpha, alpha)`` in the statistics' precision."""
        return self.prior_for(
            stats.feature_counts.shape[-1], stats.counts.dtype, xp=namespace(stats)
        )

    def posterior(self, prior, stats) -> Beta:
        """The conjugate Beta posterior."""
        return posterior(prior, stats)

    def point_estimate(self, prior, stats, kind: str):
        """$\\theta$ by ``"mle"``, ``"map"`` or ``"mean"``."""
        return point_estimate(prior, stats, kind)

    def log_prior(self, prior, params, kind: str = "map") -> float:
        """$\\sum a_1 \\log\\theta + a_0 \\log(1-\\theta)$, the log prior whose mode
        the ``kind`` estimate is (`bayesgen.families.estimates.pseudo_counts`)."""
        theta = np.asarray(params)
        ones = pseudo_counts(prior.concentration1, kind)
        zeros = pseudo_counts(prior.concentration0, kind)
        return pseudo_log_density(ones, theta) + pseudo_log_density(zeros, 1.0 - theta)

    def log_likelihood(self, params, X, *, row_terms: bool = True):
        """``(n_samples, n_classes)`` log-likelihood; a NaN feature's factor is dropped."""
        filled, missing = count_data.split_missing(X)
        return count_data.evaluate(linear_form(np.asarray(params)), filled, None, missing)

    def predictive_log_likelihood(self, posterior, X):
        """The Beta–Bernoulli predictive: features are independent a posteriori, so it is
        the Bernoulli likelihood at the posterior-mean probabilities."""
        ones, zeros = (np.asarray(c) for c in posterior)
        return self.log_likelihood(ones / (ones + zeros), X)

    def sample_params(self, key, posterior, num_samples: int):
        """Posterior draws of $\\theta$, shape (num_samples, n_classes, n_features)."""
        return sample_params(key, posterior, num_samples)

    def draw_features(self, params, classes, rng, **options) -> dict:
        """``{"X": 0/1 rows}``: an entry is one with its class's probability $\\theta_{kj}$."""
        theta = np.asarray(params, dtype=np.float64)[classes]
        return {"X": (rng.random(theta.shape) < theta).astype(np.float64)}

    def mean(self, params):
        """The feature probabilities $\\theta_{kj} = E[x_j \\mid k]$."""
        return np.asarray(params)

    def conditional(self, params, X, class_weights, method: str, rng):
        """Missing entries: 1 when the mixture puts more than half its mass on 1, or a draw."""
        theta = np.broadcast_to(np.asarray(params), (X.shape[0], *np.shape(params)))
        return count_imputation.fill_missing(
            X,
            theta,
            class_weights,
            method,
            rng,
            count_imputation.bernoulli_mixture_mode,
            count_imputation.bernoulli_draw,
        )
