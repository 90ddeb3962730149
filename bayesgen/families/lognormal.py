r"""Positive continuous columns: a log-normal per class and feature, Normal–Inverse-Gamma prior.

$$
\sigma^2_{kj} \sim \mathrm{InvGamma}\big(\tfrac{\nu_0}{2}, \tfrac{\psi_{0j}}{2}\big), \quad
\mu_{kj} \mid \sigma^2_{kj} \sim \mathcal N\big(m_{0j}, \sigma^2_{kj} / \kappa_0\big), \quad
\log x_j \mid y = k \sim \mathcal N(\mu_{kj}, \sigma^2_{kj}), \quad x_j > 0 .
$$

The logarithm of a log-normal value is normal, so with the weighted statistics of the
observed entries of class $k$ and feature $j$ — $N$, the mean $\bar\ell$ of
$\ell = \log x$ and its scatter $M = \sum_i R_{ik} (\ell_{ij} - \bar\ell)^2$, kept
centred so that float32 input keeps its digits — the posterior is Normal–Inverse-Gamma with
$\kappa_N = \kappa_0 + N$, $m_N = (\kappa_0 m_0 + N\bar\ell) / \kappa_N$,
$\nu_N = \nu_0 + N$ and
$\psi_N = \psi_0 + M + \tfrac{\kappa_0 N}{\kappa_N}(\bar\ell - m_0)^2$, and the
posterior predictive of $\log x$ is a Student-$t$ with $\nu_N$ degrees of freedom, location
$m_N$ and squared scale $\psi_N (\kappa_N + 1) / (\kappa_N \nu_N)$; every density of $x$ is
that of $\log x$ times the Jacobian $1/x$.

The prior's defaults are empirical, as `GaussianNB`'s: $m_0$ and $\psi_0$ are the mean and
the variance (plus the ridge) of $\log x$ over all rows, $\kappa_0 = 1$, $\nu_0 = 3$, the
prior of `bayesgen.families.column_evidence.gaussian`. A column-only family: it names no
estimator, ``MixedNB`` gives it columns (``features={"income": "lognormal"}``, or by
evidence for positive columns that are not whole numbers) and
[`FamilyClassifier`][bayesgen.FamilyClassifier] models whole tables with it. Missing
entries (NaN) are skipped: features are independent given the class.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

import numpy as np
from scipy.special import gammaln

from bayesgen._lazy import lazy_module
from bayesgen.families import numpy_draws
from bayesgen.families.class_prior import draw_classes
from bayesgen.families.estimates import check_estimate_kind
from bayesgen.families.protocol import FeatureFamily, as_numbers, refuse_entries
from bayesgen.validation import check_positive_values

if TYPE_CHECKING:
    from jax import Array

jax = lazy_module("jax")

__all__ = ["LogNormalFamily", "LogNormalParams", "LogNormalStats", "NormalInverseGamma"]


class LogNormalStats(NamedTuple):
    """Weighted, centred statistics of the observed entries of each class and feature.

    Attributes
    ----------
    counts : Array of shape (n_classes,)
        $N_k = \\sum_i R_{ik}$.
    observed_counts : Array of shape (n_classes, n_features)
        $N_{kj} = \\sum_i R_{ik} [x_{ij}$ observed$]$.
    log_means : Array of shape (n_classes, n_features)
        $\\bar\\ell_{kj}$, the weighted mean of $\\log x_{ij}$ (0 without observed entries).
    log_scatter : Array of shape (n_classes, n_features)
        $M_{kj} = \\sum_i R_{ik} (\\log x_{ij} - \\bar\\ell_{kj})^2$.
    """

    counts: Array
    observed_counts: Array
    log_means: Array
    log_scatter: Array


class NormalInverseGamma(NamedTuple):
    """A Normal–Inverse-Gamma law of $(\\mu, \\sigma^2)$ per feature (prior: shapes
    (n_features,) or scalars) or per class and feature (posterior: (n_classes, n_features)).

    Attributes
    ----------
    mean : Array
        $m$.
    mean_precision : Array
        $\\kappa$: the mean's precision in units of $1/\\sigma^2$.
    dof : Array
        $\\nu$: $\\sigma^2 \\sim \\mathrm{InvGamma}(\\nu/2, \\psi/2)$.
    scale : Array
        $\\psi$.
    """

    mean: Array
    mean_precision: Array
    dof: Array
    scale: Array


class LogNormalParams(NamedTuple):
    """$\\mu_{kj}$ and $\\sigma^2_{kj}$ of $\\log x$, each (n_classes, n_features)."""

    log_means: Array
    log_variances: Array


def _split(X: np.ndarray):
    """Observed indicators, and $\\log x$ with 0 where ``X`` is missing."""
    observed = ~np.isnan(X)
    logs = np.log(np.where(observed, X, 1.0))
    return observed.astype(X.dtype), logs


def _as_floats(X) -> np.ndarray:
    """``X`` as floats: float32 kept, anything else float64."""
    X = np.asarray(X)
    return X if X.dtype in (np.float32, np.float64) else X.astype(np.float64)


def _float64(*arrays):
    return tuple(np.asarray(a, dtype=np.float64) for a in arrays)


def _pooled(n_a, mean_a, scatter_a, n_b, mean_b, scatter_b):
    """Counts, means and scatters of two disjoint sets of rows together (float64)."""
    n = n_a + n_b
    share = np.divide(n_b, n, out=np.zeros_like(n), where=n > 0)
    delta = mean_b - mean_a
    return n, mean_a + delta * share, scatter_a + scatter_b + delta**2 * n_a * share


def _sums(stats):
    """$N$, $\\sum \\log x$ and the scatter, float64."""
    n, mean, scatter = _float64(stats.observed_counts, stats.log_means, stats.log_scatter)
    return n, n * mean, scatter


class LogNormalFamily(FeatureFamily):
    """Log-normal class densities of positive values (naive Bayes: one per feature).

    Parameters
    ----------
    mean_prior : float or array-like of shape (n_features,), optional
        $m_0$, the prior mean of $\\log x$; default: its mean over all rows.
    mean_precision_prior : float, default=1.0
        $\\kappa_0$.
    degrees_of_freedom_prior : float, default=3.0
        $\\nu_0 > 0$.
    scale_prior : float or array-like of shape (n_features,), optional
        $\\psi_0 > 0$; default: the variance of $\\log x$ over all rows plus the ridge.
    reg_covar : float, default=1e-6
        Ridge added to every variance estimate, relative to the variance of $\\log x$
        over all rows (as `GaussianNB`'s).

    Examples
    --------
    >>> import numpy as np
    >>> from bayesgen.families.lognormal import LogNormalFamily
    >>> rng = np.random.default_rng(0)
    >>> X = rng.lognormal(mean=1.0, sigma=0.5, size=(20000, 1))
    >>> family = LogNormalFamily()
    >>> stats = family.suff_stats(X, np.ones((20000, 1)), np.float64)
    >>> params = family.point_estimate(family.prior(stats), stats, "mle")
    >>> [round(float(p[0, 0]), 2) for p in params]
    [1.0, 0.25]
    """

    name = "lognormal"
    column_family = True
    column_preference = 40
    column_values = "numbers"

    def __init__(
        self,
        mean_prior=None,
        mean_precision_prior=1.0,
        degrees_of_freedom_prior=3.0,
        scale_prior=None,
        reg_covar=1e-6,
    ):
        self.mean_prior = mean_prior
        self.mean_precision_prior = mean_precision_prior
        self.degrees_of_freedom_prior = degrees_of_freedom_prior
        self.scale_prior = scale_prior
        self.reg_covar = reg_covar

    def check(self) -> LogNormalFamily:
        """This family, once ``mean_precision_prior``, ``degrees_of_freedom_prior``,
        ``scale_prior`` and ``reg_covar`` are checked."""
        for name in ("mean_precision_prior", "degrees_of_freedom_prior", "scale_prior"):
            value = getattr(self, name)
            try:
                values = None if value is None else np.asarray(value, dtype=float)
            except (TypeError, ValueError):
                raise ValueError(f"{name} must be > 0; got {value!r}.") from None
            if values is not None and not np.all(values > 0):  # inf is a limit: fixed
                raise ValueError(f"{name} must be > 0; got {value!r}.")
        check_positive_values(self.reg_covar, "reg_covar", allow_zero=True)
        return self

    # ----------------------------------------------------------- statistics
    def suff_stats(self, X, responsibilities, dtype=None) -> LogNormalStats:
        """Weighted counts, means of the logarithms and their scatter (NaN skipped), computed
        in float64 and stored in ``dtype`` (default: ``X``'s float precision)."""
        X = _as_floats(X) if dtype is None else np.asarray(X, dtype=dtype)
        R = np.asarray(responsibilities, dtype=np.float64)
        observed, logs = _split(X.astype(np.float64))
        n = R.T @ observed
        mean = np.divide(R.T @ logs, n, out=np.zeros_like(n), where=n > 0)
        scatter = np.stack(
            [R[:, k] @ (observed * (logs - mean[k]) ** 2) for k in range(R.shape[1])]
        ).reshape(n.shape)
        return LogNormalStats(
            *(a.astype(X.dtype) for a in (R.sum(axis=0), n, mean, np.maximum(scatter, 0.0)))
        )

    def merge(self, a, b) -> LogNormalStats:
        """Statistics of the union of two disjoint batches (the pooled mean and scatter)."""
        dtype = np.asarray(a.log_means).dtype
        n, mean, scatter = _pooled(
            *_float64(a.observed_counts, a.log_means, a.log_scatter),
            *_float64(b.observed_counts, b.log_means, b.log_scatter),
        )
        counts = np.asarray(a.counts, dtype=np.float64) + np.asarray(b.counts, dtype=np.float64)
        return LogNormalStats(*(x.astype(dtype) for x in (counts, n, mean, scatter)))

    def _totals(self, stats):
        """The mean and variance of $\\log x$ over all rows, per feature."""
        n, mean, scatter = (np.zeros(np.shape(stats.log_means)[-1]) for _ in range(3))
        per_class = _float64(stats.observed_counts, stats.log_means, stats.log_scatter)
        for row in zip(*per_class, strict=True):
            n, mean, scatter = _pooled(n, mean, scatter, *row)
        return mean, np.divide(scatter, n, out=np.zeros_like(n), where=n > 0)

    def ridge(self, stats) -> np.ndarray:
        """``reg_covar`` times each feature's variance of $\\log x$ over all rows (a
        constant feature takes the largest variance, or 1)."""
        _, variance = self._totals(stats)
        largest = float(np.max(variance, initial=0.0))
        return self.reg_covar * np.where(variance > 0, variance, largest if largest > 0 else 1.0)

    # ------------------------------------------------------ prior, posterior
    def prior(self, stats) -> NormalInverseGamma:
        """The prior, $m_0$ and $\\psi_0$ resolved from ``stats`` where not given."""
        mean, variance = self._totals(stats)
        dtype = np.asarray(stats.log_means).dtype
        if self.scale_prior is None:
            scale = np.where(variance > 0, variance * (1.0 + self.reg_covar), 0.0)
            scale = np.where(variance > 0, scale, max(self.reg_covar, 1e-12))
        else:
            scale = np.broadcast_to(np.asarray(self.scale_prior, dtype=np.float64), mean.shape)
        if self.mean_prior is not None:
            mean = np.broadcast_to(np.asarray(self.mean_prior, dtype=np.float64), mean.shape)
        return NormalInverseGamma(
            mean.astype(dtype),
            np.asarray(self.mean_precision_prior, dtype=dtype),
            np.asarray(self.degrees_of_freedom_prior, dtype=dtype),
            scale.astype(dtype),
        )

    def posterior(self, prior, stats) -> NormalInverseGamma:
        """The conjugate Normal–Inverse-Gamma posterior of every class and feature."""
        m0, k0, nu0, psi0 = _float64(*prior)
        n, s, scatter = _sums(stats)
        local = np.asarray(stats.log_means, dtype=np.float64)
        kappa = k0 + n
        shift = np.where(n > 0, k0 * n / kappa * (local - m0) ** 2, 0.0)
        dtype = np.asarray(stats.log_means).dtype
        return NormalInverseGamma(
            ((k0 * m0 + s) / kappa).astype(dtype),
            kappa.astype(dtype),
            np.broadcast_to(nu0 + n, n.shape).astype(dtype),
            (psi0 + scatter + shift).astype(dtype),
        )

    def point_estimate(self, prior, stats, kind: str) -> LogNormalParams:
        """$(\\mu, \\sigma^2)$ with the ridge added to $\\sigma^2$.

        ``"mle"``: $\\bar\\ell$ and $M / N$ (a class and feature without observed
        entries takes $m_0$ and the variance over all rows); ``"map"``: the joint mode,
        $m_N$ and $\\psi_N / (\\nu_N + 3)$; ``"mean"``: $m_N$ and $\\psi_N / (\\nu_N - 2)$.

        Raises
        ------
        ValueError
            For ``"mean"`` where $\\nu_N \\le 2$ (no posterior mean of $\\sigma^2$), or a
            variance that is not positive (``reg_covar=0`` on a constant feature).
        """
        check_estimate_kind(kind)
        dtype = np.asarray(stats.log_means).dtype
        if kind == "mle":
            n, _, scatter = _sums(stats)
            overall_mean, overall_variance = self._totals(stats)
            local = np.asarray(stats.log_means, dtype=np.float64)
            means = np.where(n > 0, local, overall_mean)
            variances = np.where(
                n > 0, np.divide(scatter, n, out=np.zeros_like(n), where=n > 0), overall_variance
            )
        else:
            post = self.posterior(prior, stats)
            means, nu, psi = _float64(post.mean, post.dof, post.scale)
            if kind == "mean" and np.any(nu <= 2):
                raise ValueError(
                    "estimate='mean' needs a posterior mean of the variance, which does not "
                    f"exist for degrees_of_freedom_prior={self.degrees_of_freedom_prior} with "
                    "this few rows in a class; raise it or use estimate='map'."
                )
            variances = psi / (nu + 3.0) if kind == "map" else psi / (nu - 2.0)
        variances = variances + self.ridge(stats)
        if not np.all(variances > 0):
            raise ValueError(
                "A fitted variance of log x is 0 (a constant feature in a class) and "
                f"reg_covar={self.reg_covar} adds no ridge; use reg_covar > 0."
            )
        return LogNormalParams(means.astype(dtype), variances.astype(dtype))

    def log_prior(self, prior, params, kind: str = "map") -> float:
        """$\\log p(\\mu, \\sigma^2)$ up to a constant; for ``"mean"`` the same kernel with
        $\\nu_0 - 5$, whose joint mode is the posterior mean; 0 for ``"mle"``."""
        check_estimate_kind(kind)
        if kind == "mle":
            return 0.0
        m0, k0, nu0, psi0 = _float64(*prior)
        mu, variance = _float64(*params)
        nu = nu0 - 5.0 if kind == "mean" else nu0
        kernel = -(nu / 2.0 + 1.5) * np.log(variance) - (psi0 + k0 * (mu - m0) ** 2) / (
            2.0 * variance
        )
        return float(np.sum(kernel))

    # ------------------------------------------------------------ densities
    def log_likelihood(self, params, X, *, row_terms: bool = True):
        """``(n_samples, n_classes)`` $\\sum_j \\log p(x_j \\mid k)$ over the observed
        entries; without ``row_terms`` the Jacobian $-\\sum_j \\log x_j$ is left out."""
        X = _as_floats(X)
        mu, variance = (np.asarray(p, dtype=X.dtype) for p in params)
        observed, logs = _split(X)
        result = np.empty((X.shape[0], mu.shape[0]), dtype=X.dtype)
        for k in range(mu.shape[0]):
            terms = np.log(2.0 * np.pi * variance[k]) + (logs - mu[k]) ** 2 / variance[k]
            result[:, k] = -0.5 * np.sum(observed * terms, axis=1)
        if row_terms:
            result -= np.sum(logs, axis=1, keepdims=True)
        return result

    def predictive_log_likelihood(self, posterior, X) -> np.ndarray:
        """The posterior predictive: a Student-$t$ density of $\\log x$ times $1/x$, over
        the observed entries (float64)."""
        X = _as_floats(X).astype(np.float64)
        m, kappa, nu, psi = _float64(*posterior)
        squared_scale = psi * (kappa + 1.0) / (kappa * nu)
        observed, logs = _split(X)
        result = np.empty((X.shape[0], m.shape[0]))
        for k in range(m.shape[0]):
            constant = (
                gammaln((nu[k] + 1.0) / 2.0)
                - gammaln(nu[k] / 2.0)
                - 0.5 * np.log(np.pi * nu[k] * squared_scale[k])
            )
            tail = -(nu[k] + 1.0) / 2.0 * np.log1p((logs - m[k]) ** 2 / (nu[k] * squared_scale[k]))
            result[:, k] = np.sum(observed * (constant + tail - logs), axis=1)
        return result

    def column_log_evidence(self, column, class_index, n_classes: int) -> float:
        """$\\log p(x \\mid y)$ in closed form: the Normal–Inverse-Gamma evidence of
        $\\log x$ minus $\\sum \\log x$ (the Jacobian), per class.

        Raises
        ------
        ValueError
            When ``mean_prior`` or ``scale_prior`` holds one value per feature: a column on
            its own has no place among them (name the columns in ``features=``).
        """
        for name in ("mean_prior", "scale_prior"):
            if np.ndim(getattr(self, name)) > 0:
                raise ValueError(
                    f"the lognormal family's {name} holds one value per feature, so it cannot "
                    f"score column {column.name!r} alone for the choice by evidence; name the "
                    "lognormal columns in features=, or give a single value."
                )
        x = np.asarray(column.values, dtype=np.float64)[:, None]
        stats = self.suff_stats(x, np.eye(n_classes)[np.asarray(class_index)], np.float64)
        prior = self.prior(stats)
        post = self.posterior(prior, stats)
        n = np.asarray(stats.observed_counts)
        a0, b0 = float(prior.dof) / 2.0, np.asarray(prior.scale) / 2.0
        an, bn = np.asarray(post.dof) / 2.0, np.asarray(post.scale) / 2.0
        per_class = (
            gammaln(an)
            - gammaln(a0)
            + a0 * np.log(b0)
            - an * np.log(bn)
            + 0.5 * np.log(float(prior.mean_precision) / np.asarray(post.mean_precision))
            - n / 2.0 * np.log(2.0 * np.pi)
        )
        return float(np.sum(per_class) - np.sum(_sums(stats)[1]))

    def admits_column(self, column) -> bool:
        """Positive numbers that are not all whole (a density compares with densities)."""
        return column.kind == "numbers" and not column.whole and column.minimum > 0

    # ---------------------------------------------------------------- draws
    def sample_params(self, key, posterior, num_samples: int) -> LogNormalParams:
        """Exact posterior draws, each field (num_samples, n_classes, n_features):
        $\\sigma^2 = (\\psi_N / 2) / G$, $G \\sim \\mathrm{Gamma}(\\nu_N / 2)$, then
        $\\mu \\sim \\mathcal N(m_N, \\sigma^2 / \\kappa_N)$. ``key`` is a JAX key or a
        NumPy generator."""
        m, kappa, nu, psi = posterior
        if numpy_draws.is_generator(key):
            m, kappa, nu, psi = _float64(m, kappa, nu, psi)
            variances = (psi / 2.0) / numpy_draws.gamma(key, nu / 2.0, 1.0, num_samples)
            noise = key.standard_normal(variances.shape)
            dtype = np.asarray(posterior.mean).dtype
            means = m + np.sqrt(variances / kappa) * noise
            return LogNormalParams(means.astype(dtype), variances.astype(dtype))
        jnp = jax.numpy
        first, second = jax.random.split(key)
        shape = (num_samples, *jnp.shape(m))
        variances = (jnp.asarray(psi) / 2.0) / jax.random.gamma(first, jnp.asarray(nu) / 2.0, shape)
        means = m + jnp.sqrt(variances / kappa) * jax.random.normal(second, shape, variances.dtype)
        return LogNormalParams(means, variances)

    def draw_features(self, params, classes, rng, **options) -> dict:
        """``{"X": values}``: $\\exp(\\mu + \\sigma z)$ with each row's class's parameters."""
        mu, variance = (np.asarray(p, dtype=np.float64)[classes] for p in params)
        drawn = np.exp(mu + np.sqrt(variance) * rng.standard_normal(mu.shape))
        return {"X": drawn.astype(np.result_type(np.asarray(params.log_means).dtype, np.float32))}

    def features_from_draws(self, draws: dict) -> np.ndarray:
        """The drawn values, as floats."""
        return np.asarray(draws["X"])

    def mean(self, params) -> np.ndarray:
        """$E[x_j \\mid k] = \\exp(\\mu_{kj} + \\sigma^2_{kj} / 2)$."""
        mu, variance = _float64(*params)
        return np.exp(mu + variance / 2.0)

    def conditional(self, params, X, class_weights, method: str, rng):
        """Missing entries: the class mixture's mean $\\sum_k w_k E[x_j \\mid k]$, or a
        class drawn from the weights and a log-normal draw given it."""
        dtype = _as_floats(X).dtype
        filled = np.array(X, dtype=np.float64)
        weights = np.asarray(class_weights, dtype=np.float64)
        rows, columns = np.nonzero(np.isnan(filled))
        if method == "mean":
            means = self.mean(params)
            filled[rows, columns] = np.einsum("rk,kr->r", weights[rows], means[:, columns])
            return filled.astype(dtype)
        mu, variance = _float64(*params)
        drawn = draw_classes(weights, rng)[rows]
        noise = rng.standard_normal(rows.size)
        filled[rows, columns] = np.exp(
            mu[drawn, columns] + np.sqrt(variance[drawn, columns]) * noise
        )
        return filled.astype(dtype)

    # ------------------------------------------------- columns of a table
    def check_columns(self, X, *, owner: str = "X", columns=None) -> np.ndarray:
        """Numbers > 0 (NaN missing)."""
        X = as_numbers(X, owner, columns)
        with np.errstate(invalid="ignore"):
            refuse_entries(X <= 0, X, columns, f"{owner} models values > 0 (a log-normal density)")
        return X

    def sites(self, params) -> dict:
        """``"log_means"`` and ``"log_variances"``, (n_classes, n_features) each."""
        return {"log_means": params.log_means, "log_variances": params.log_variances}

    def params_from_sites(self, sites: dict) -> LogNormalParams:
        """The inverse of `sites`."""
        return LogNormalParams(np.asarray(sites["log_means"]), np.asarray(sites["log_variances"]))

    def parameter_dims(self, features: list) -> tuple[dict, dict]:
        """Both sites by (class, feature)."""
        dims = {"log_means": ("class", "feature"), "log_variances": ("class", "feature")}
        return dims, {"feature": list(features)}
