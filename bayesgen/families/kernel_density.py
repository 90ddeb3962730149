r"""The Gaussian kernel density family: a class density is a kernel mixture over rows.

$$
p(x \mid k) = \frac{1}{n_k} \sum_i w_{ik}\, \mathcal N(x;\, x_i, H_k), \qquad
n_k = \sum_i w_{ik}, \qquad H_k = h_k^2\, \hat\Sigma_k,
$$

$$
\hat\Sigma_k = \frac{1}{n_k - 1} \sum_i w_{ik} (x_i - \bar x_k)(x_i - \bar x_k)^\top,
\qquad \bar x_k = \frac{1}{n_k} \sum_i w_{ik}\, x_i.
$$

The weights $w_{ik}$ are frequency weights: a weight of $w$ counts as
$w$ copies of row $i$ (EM's soft responsibilities enter the same formulas
fractionally). $\hat\Sigma_k$ is ``numpy.cov(X.T, fweights=w)`` and the factor
$h_k$ (Scott or Silverman) uses $n_k$, so with integer weights the density is
``scipy.stats.gaussian_kde`` of the rows repeated. The statistics are the weighted rows
themselves: merging two batches is concatenation.

Missing entries (NaN) of a scored row are integrated out: the kernel's marginal on the
observed block, $\mathcal N(x_o;\, x_{i,o}, H_{k,oo})$.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from scipy import linalg
from scipy.special import logsumexp

from bayesgen._lazy import lazy_attribute, lazy_jit, lazy_module
from bayesgen.families.gaussian import missing

jax = lazy_module("jax")
jnp = lazy_module("jax.numpy")
solve_triangular = lazy_attribute("jax.scipy.linalg", "solve_triangular")

BANDWIDTH_RULES = ("scott", "silverman")
BANDWIDTH_SCOPES = ("class", "shared")
_CHUNK_ENTRIES = 2**21  # rows are scored in chunks of about this many (row, class, centre)


class KernelStats(NamedTuple):
    """What a kernel density fit depends on: the rows and their class weights.

    Attributes
    ----------
    rows : array of shape (n_train, n_features)
    weights : array of shape (n_train, n_classes)
        The frequency weights $w_{ik}$.
    """

    rows: np.ndarray
    weights: np.ndarray


class KernelParams(NamedTuple):
    """A fitted kernel density per class.

    Attributes
    ----------
    training_X : array of shape (n_train, n_features)
        The kernel centres.
    training_weights : array of shape (n_train, n_classes)
        Non-negative weight of each centre in each class (normalised per class when used).
    kernel_covariances : array of shape (n_classes, n_features, n_features)
        $H_k$.
    """

    training_X: np.ndarray
    training_weights: np.ndarray
    kernel_covariances: np.ndarray


# ---------------------------------------------------------------------- fitting
def bandwidth_factor(rule, class_sizes, n_features: int) -> np.ndarray:
    r"""The factor $h$ of ``scipy.stats.gaussian_kde`` for ``bw_method=rule``.

    ``rule`` "scott": $n_k^{-1/(d+4)}$; "silverman": $(n_k(d+2)/4)^{-1/(d+4)}$;
    a number is the factor itself. ``class_sizes`` (n_classes,) are $n_k = \sum_i
    w_{ik}$; the result has the same shape.
    """
    class_sizes = np.asarray(class_sizes, dtype=np.float64)
    if rule == "scott":
        return class_sizes ** (-1.0 / (n_features + 4))
    if rule == "silverman":
        return (class_sizes * (n_features + 2) / 4.0) ** (-1.0 / (n_features + 4))
    return np.full(class_sizes.shape, float(rule))


def weighted_covariances(rows: np.ndarray, weights: np.ndarray):
    r"""Per class, the frequency-weighted covariance and the class size.

    $n_k = \sum_i w_{ik}$ and $\hat\Sigma_k = \sum_i w_{ik} (x_i - \bar
    x_k)(x_i - \bar x_k)^\top / (n_k - 1)$, NumPy's ``cov(fweights=w)`` (which equals the
    covariance of the rows repeated). A class with $n_k \le 1$ gets $\hat\Sigma
    = 0$.

    Parameters
    ----------
    rows : ndarray of shape (n_train, n_features)
    weights : ndarray of shape (n_train, n_classes)

    Returns
    -------
    covariances : ndarray of shape (n_classes, n_features, n_features)
    class_sizes : ndarray of shape (n_classes,)
    """
    class_sizes = weights.sum(axis=0)
    means = weights.T @ rows / np.where(class_sizes > 0, class_sizes, 1.0)[:, None]
    covariances = np.zeros((weights.shape[1], rows.shape[1], rows.shape[1]))
    for k, size in enumerate(class_sizes):
        if size <= 1:
            continue
        centred = rows - means[k]  # centre before the second moment
        covariances[k] = (weights[:, k, None] * centred).T @ centred / (size - 1.0)
    return covariances, class_sizes


def pooled_covariance(covariances: np.ndarray, class_sizes: np.ndarray) -> np.ndarray:
    r"""$\sum_k (n_k - 1)\hat\Sigma_k / \sum_k (n_k - 1)$, classes with $n_k > 1$.

    From ``covariances`` (K, d, d) and ``class_sizes`` (K,), a (d, d) matrix: LDA's pooled
    within-class covariance $\sum_k S_k / (N - K)$ of the rows repeated; zero when
    no class has $n_k > 1$.
    """
    degrees = np.maximum(class_sizes - 1.0, 0.0)
    if degrees.sum() <= 0:
        return np.zeros(covariances.shape[1:])
    return np.einsum("k,kij->ij", degrees, covariances) / degrees.sum()


def feature_ridge(rows: np.ndarray, row_weights: np.ndarray, reg_covar: float, dtype):
    r"""$\lambda v_j$: ``reg_covar`` times each feature's weighted variance.

    The variance $v_j$ is over all training rows, with ``row_weights`` (n_train,);
    $\lambda$ is raised to at least ``n_features`` times the machine epsilon of
    ``dtype`` unless it is 0. Returns shape (n_features,).
    """
    if reg_covar == 0:
        return np.zeros(rows.shape[1])
    total = row_weights.sum()
    mean = row_weights @ rows / total
    variances = row_weights @ (rows - mean) ** 2 / total
    # A feature constant over all rows still gets a ridge, on the scale of the others. It
    # is told by its values, not its variance: rounding leaves one of 1e-32 for a column of
    # 6.1 everywhere, which would be no ridge at all.
    weighted = rows[row_weights > 0]
    varies = (variances > 0) & np.any(weighted != weighted[:1], axis=0)
    fallback = np.max(variances, where=varies, initial=0.0)
    variances = np.where(varies, variances, fallback if fallback > 0 else 1.0)
    return max(reg_covar, rows.shape[1] * np.finfo(dtype).eps) * variances


def kernel_covariances(stats: KernelStats, bandwidth, scope: str, ridge: np.ndarray):
    r"""``(factors h_k, kernels H_k)``: $H_k = h_k^2(\hat\Sigma_k + \mathrm{diag}(r))$.

    ``scope="class"``: each class its own $\hat\Sigma_k$ and $h_k$ from
    $n_k$; ``"shared"``: the pooled covariance and one factor from $\sum_k n_k$.

    Returns
    -------
    factors : ndarray of shape (n_classes,)
    kernels : ndarray of shape (n_classes, n_features, n_features)
    """
    rows, weights = (np.asarray(part, dtype=np.float64) for part in stats)
    covariances, class_sizes = weighted_covariances(rows, weights)
    if scope == "shared":
        pooled = pooled_covariance(covariances, class_sizes)
        covariances = np.broadcast_to(pooled, covariances.shape)
        class_sizes = np.full(weights.shape[1], class_sizes.sum())
    # A class with no weight has no density; any finite factor keeps H defined.
    factors = bandwidth_factor(bandwidth, np.maximum(class_sizes, 1.0), rows.shape[1])
    return factors, factors[:, None, None] ** 2 * (covariances + np.diag(ridge))


# ---------------------------------------------------------------------- scoring
@lazy_jit
def _log_kernel_mixture(values, row_index, shifts, lower, centres, centre_index, log_weights):
    """``log sum_i w~_ik N(x; x_i, H_k)`` for a chunk of rows, (n_rows, n_classes).

    ``centres`` are already shifted by ``shifts`` and whitened by ``lower`` (the Cholesky
    factor of $H_k$); the squared distance is expanded as
    $|z|^2 + |c|^2 - 2 z\\cdot c$, so memory is rows × centres, not × features. A
    centre whose ``centre_index`` equals the row's ``row_index`` is left out (leave-one-out
    scores of training rows; -1 elsewhere), and ``log_weights`` then are not renormalised.
    """
    deviations = values[None, :, :] - shifts[:, None, :]  # (K, m, d)
    whitened = jnp.swapaxes(
        solve_triangular(lower, jnp.swapaxes(deviations, -1, -2), lower=True),
        -1,
        -2,
    )
    squared = (
        jnp.sum(whitened**2, axis=-1)[:, :, None]
        + jnp.sum(centres**2, axis=-1)[:, None, :]
        - 2.0 * whitened @ jnp.swapaxes(centres, -1, -2)
    )
    half_log_det = jnp.sum(jnp.log(jnp.diagonal(lower, axis1=-2, axis2=-1)), axis=-1)
    log_kernels = (
        -0.5 * jnp.maximum(squared, 0.0)
        - half_log_det[:, None, None]
        - 0.5 * values.shape[-1] * math.log(2 * math.pi)
    )
    itself = centre_index[:, None, :] == row_index[None, :, None]  # (K, m, n)
    terms = jnp.where(itself, -jnp.inf, log_kernels + log_weights[:, None, :])
    return jax.nn.logsumexp(terms, axis=-1).T


def observed_blocks(params: KernelParams, observed: np.ndarray, dtype):
    """Per class, the centres with positive weight, shifted and whitened on ``observed``.

    Returns JAX arrays in ``dtype``: ``shifts`` (K, d_o), each class's weighted mean
    centre; ``lower`` (K, d_o, d_o), the Cholesky factors of $H_{k,oo}$; ``centres``
    (K, n_max, d_o), padded to the most centres in a class; ``centre_index`` (K, n_max),
    their rows in ``training_X`` (integers, -2 for padding); ``log_weights`` (K, n_max),
    normalised (``-inf`` for padding).
    """
    weights = np.asarray(params.training_weights, dtype=np.float64)
    totals = weights.sum(axis=0)
    centres_o = np.asarray(params.training_X, dtype=np.float64)[:, observed]
    support = [np.flatnonzero(weights[:, k] > 0) for k in range(weights.shape[1])]
    n_max = max(1, max(len(rows) for rows in support))
    n_classes, n_observed = weights.shape[1], int(observed.sum())
    shifts = np.zeros((n_classes, n_observed))
    lower = np.empty((n_classes, n_observed, n_observed))
    centres = np.zeros((n_classes, n_max, n_observed))
    centre_index = np.full((n_classes, n_max), -2)
    log_weights = np.full((n_classes, n_max), -np.inf)
    for k, rows in enumerate(support):
        kernel = np.asarray(params.kernel_covariances[k])
        lower[k] = np.linalg.cholesky(kernel[np.ix_(observed, observed)])
        if rows.size == 0:
            continue
        share = weights[rows, k] / totals[k]
        # Shifting by the class mean keeps |z|^2 + |c|^2 - 2 z.c from cancelling.
        shifts[k] = share @ centres_o[rows]
        centres[k, : rows.size] = _solve_lower(lower[k], centres_o[rows] - shifts[k])
        centre_index[k, : rows.size] = rows
        log_weights[k, : rows.size] = np.log(share)
    floats = (jnp.asarray(part, dtype) for part in (shifts, lower, centres, log_weights))
    shifts, lower, centres, log_weights = floats
    return shifts, lower, centres, jnp.asarray(centre_index), log_weights


def log_likelihood(params: KernelParams, X: np.ndarray, dtype, *, leave_out=None):
    """$\\log p(x \\mid k)$ with missing entries (NaN) integrated out.

    Parameters
    ----------
    params : KernelParams
    X : ndarray of shape (n_samples, n_features)
    dtype : numpy dtype
        Precision of the computation and of the result.
    leave_out : ndarray of shape (n_samples,), optional
        The training row each row of ``X`` is, scored without its own kernel (the other
        weights are not renormalised); -1 for none.

    Returns
    -------
    ndarray of shape (n_samples, n_classes)
    """
    n_classes = params.training_weights.shape[1]
    result = np.empty((X.shape[0], n_classes), dtype=dtype)
    if leave_out is None:
        leave_out = np.full(X.shape[0], -1)
    patterns, groups = missing.missing_patterns(X)
    has_weight = np.asarray(params.training_weights).sum(axis=0) > 0
    for pattern, rows in zip(patterns, groups, strict=True):
        observed = ~pattern
        if not observed.any():  # the density of an empty block is 1
            result[rows] = np.where(has_weight, 0.0, -np.inf)
            continue
        blocks = observed_blocks(params, observed, dtype)
        values = X[np.ix_(rows, observed)]
        chunk = max(1, _CHUNK_ENTRIES // (n_classes * blocks[2].shape[1]))
        # Pad to a power of two (or whole chunks) so each shape compiles once.
        chunk = min(chunk, 1 << max(0, (len(rows) - 1).bit_length()))
        for start in range(0, len(rows), chunk):
            part = rows[start : start + chunk]
            padded = np.zeros((chunk, values.shape[1]), dtype=dtype)
            padded[: len(part)] = values[start : start + chunk]
            index = np.full(chunk, -1)
            index[: len(part)] = leave_out[part]
            scores = _log_kernel_mixture(jnp.asarray(padded), jnp.asarray(index), *blocks)
            result[part] = np.asarray(scores)[: len(part)]
    return result


def leave_one_out_log_likelihood(params: KernelParams, X: np.ndarray, dtype) -> np.ndarray:
    """$\\log p_{-i}(x_i \\mid k)$: each training row under the other rows' kernels.

    The sum without row $i$'s own kernel, renormalised by $\\sum_{j \\ne i}
    w_{jk}$; ``-inf`` where no other row has weight in class $k$. ``X`` is
    ``training_X``, shape (n_train, n_features); the result is (n_train, n_classes).
    """
    weights = np.asarray(params.training_weights, dtype=np.float64)
    totals = weights.sum(axis=0)
    others = totals[None, :] - weights
    with np.errstate(divide="ignore", invalid="ignore"):
        scores = log_likelihood(params, X, dtype, leave_out=np.arange(X.shape[0]))
        rescale = np.log(totals)[None, :] - np.log(np.where(others > 0, others, 1.0))
        valid = others > totals[None, :] * 1e-12
        return np.where(valid, scores + rescale, -np.inf).astype(dtype)


# ---------------------------------------------------------------------- imputation
def conditional_missing(params: KernelParams, k: int, observed_values, pattern, rng=None):
    """The missing block of rows of class ``k`` given their observed block: mean or draw.

    Centre $i$ has probability $p(i \\mid x_o) \\propto w_{ik}\\,\\mathcal
    N(x_o;\\, x_{i,o}, H_{k,oo})$, and given it $x_m \\sim \\mathcal N(x_{i,m} + R(x_o -
    x_{i,o}),\\, H_{mm} - R H_{om})$ with $R = H_{mo}H_{oo}^{-1}$. As the mean is
    linear in the centre, $E[x_m \\mid x_o, k]$ is that mean at the posterior mean
    centre $\\sum_i p(i \\mid x_o)\\, x_i$.

    Parameters
    ----------
    params : KernelParams
    k : int
    observed_values : ndarray of shape (n_rows, n_observed)
    pattern : ndarray of shape (n_features,)
        True where an entry is missing.
    rng : numpy.random.Generator, optional
        ``None``: the conditional mean; otherwise one draw per row (a centre, then its
        Gaussian).

    Returns
    -------
    ndarray of shape (n_rows, n_missing)
    """
    centres = np.asarray(params.training_X, dtype=np.float64)
    posterior, regression, covariance = _centre_conditional(params, k, observed_values, pattern)

    def regress(centre_rows):  # one centre per row
        return centre_rows[:, pattern] + (observed_values - centre_rows[:, ~pattern]) @ regression.T

    if rng is None:
        return regress(posterior @ centres)
    cumulative = np.cumsum(posterior, axis=1)
    picked = (rng.random((len(observed_values), 1)) > cumulative).sum(axis=1)
    picked = np.minimum(picked, centres.shape[0] - 1)
    lower = np.linalg.cholesky(covariance)
    noise = rng.standard_normal((len(observed_values), int(pattern.sum()))) @ lower.T
    return regress(centres[picked]) + noise


def _centre_conditional(params: KernelParams, k: int, observed_values, pattern):
    """``(p(i | x_o) (n_rows, n_train), R = H_mo H_oo^-1, H_mm - R H_om)`` in class ``k``."""
    kernel = np.asarray(params.kernel_covariances[k], dtype=np.float64)
    centres = np.asarray(params.training_X, dtype=np.float64)
    weights = np.asarray(params.training_weights, dtype=np.float64)[:, k]
    observed = ~pattern
    with np.errstate(divide="ignore"):
        log_weights = np.log(weights / weights.sum())
    if not observed.any():
        posterior = np.broadcast_to(np.exp(log_weights), (len(observed_values), len(weights)))
        return posterior, np.zeros((int(pattern.sum()), 0)), kernel[np.ix_(pattern, pattern)]
    lower = np.linalg.cholesky(kernel[np.ix_(observed, observed)])
    shift_to = np.exp(log_weights) @ centres[:, observed]  # keeps the expansion exact
    whitened_x = _solve_lower(lower, observed_values - shift_to)
    whitened_c = _solve_lower(lower, centres[:, observed] - shift_to)
    squared = (
        np.sum(whitened_x**2, axis=1)[:, None]
        + np.sum(whitened_c**2, axis=1)[None, :]
        - 2.0 * whitened_x @ whitened_c.T
    )
    log_posterior = log_weights - 0.5 * np.maximum(squared, 0.0)
    posterior = np.exp(log_posterior - logsumexp(log_posterior, axis=1, keepdims=True))
    cross = kernel[np.ix_(pattern, observed)]
    regression = linalg.cho_solve((lower, True), cross.T).T
    return posterior, regression, kernel[np.ix_(pattern, pattern)] - regression @ cross.T


def _solve_lower(lower: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """$L^{-1} r$ for each row ``r`` of ``rows``, (n_rows, d)."""
    return linalg.solve_triangular(lower, rows.T, lower=True).T
