r"""Conjugate priors and posteriors of Gaussian class densities.

Prior (the story in ``bayesgen.stories`` samples exactly this):

- ``"full"``: per class, $\Sigma_k \sim \mathcal{IW}(\nu_0, \Psi_0)$ and
  $\mu_k \mid \Sigma_k \sim \mathcal N(m_0, \Sigma_k/\kappa_0)$ (Normal–Inverse-Wishart).
- ``"tied"``: one $\Sigma \sim \mathcal{IW}(\nu_0, \Psi_0)$,
  $\mu_k \mid \Sigma \sim \mathcal N(m_0, \Sigma/\kappa_0)$ for every class.
- ``"diag"``: per class and feature, $\sigma^2_{kj} \sim \mathrm{InvGamma}(\nu_0/2,
  \psi_{0j}/2)$ and $\mu_{kj} \mid \sigma^2_{kj} \sim \mathcal N(m_{0j},
  \sigma^2_{kj}/\kappa_0)$ (Normal–Inverse-Gamma, the one-dimensional NIW).
- ``"spherical"``: per class, $\sigma^2_k \sim \mathrm{InvGamma}(\nu_0/2, \psi_0/2)$,
  $\mu_k \mid \sigma^2_k \sim \mathcal N(m_0, \sigma^2_k I/\kappa_0)$.

Posterior, with $\kappa_k = \kappa_0 + N_k$ and $m_k = (\kappa_0 m_0 + N_k\bar
x_k)/\kappa_k$: $\Psi_k = \Psi_0 + S_k + \frac{\kappa_0 N_k}{\kappa_k}(\bar x_k -
m_0)(\bar x_k - m_0)^\top$ and $\nu_k = \nu_0 + N_k$ (for ``"tied"`` both sums run
over all classes, $\nu = \nu_0 + N$; for ``"spherical"`` $\nu_k = \nu_0 + d
N_k$ and $\Psi_k$ is the trace form).
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from bayesgen.families.gaussian.stats import GaussianStats, total_moments
from bayesgen.families.namespace import namespace, numpy_or_jit

if TYPE_CHECKING:
    from jax import Array

GAUSSIAN_ESTIMATE_KINDS = ("mle", "map", "mean", "unbiased")
"""The Gaussian family's point estimates: the shared kinds plus ``"unbiased"``, the sample
covariance with the textbook divisors (R's ``MASS::lda``, ``MASS::qda``, e1071's
``naiveBayes``)."""


def check_gaussian_estimate_kind(kind: str) -> None:
    """Raise a ``ValueError`` unless ``kind`` is one of `GAUSSIAN_ESTIMATE_KINDS`."""
    if kind not in GAUSSIAN_ESTIMATE_KINDS:
        raise ValueError(f"estimate must be one of {GAUSSIAN_ESTIMATE_KINDS}; got {kind!r}.")


class NormalInverseWishart(NamedTuple):
    """Normal–Inverse-Wishart (or per-coordinate Normal–Inverse-Gamma) distribution.

    The same type holds the prior (no class axis) and the posterior (a leading class axis
    where the parameter is per class), so conjugacy shows in the signatures.

    Attributes
    ----------
    mean : Array of shape (n_features,) or (n_classes, n_features)
        $m$, the location of the class means.
    mean_precision : Array of shape () or (n_classes,)
        $\\kappa$, pseudo-observations behind $m$.
    dof : Array of shape () or (n_classes,)
        $\\nu$, degrees of freedom; the inverse-gamma shape is $\\nu/2$.
    scale : Array
        $\\Psi$: ``(d, d)`` or ``(K, d, d)`` for ``"full"``/``"tied"``, ``(d,)`` or
        ``(K, d)`` for ``"diag"``, ``()`` or ``(K,)`` for ``"spherical"``; the
        inverse-gamma rate is $\\psi/2$.
    """

    mean: Array
    mean_precision: Array
    dof: Array
    scale: Array


class GaussianParams(NamedTuple):
    """Parameters of the Gaussian class densities, shaped like ``sklearn.mixture``.

    Attributes
    ----------
    means : Array of shape (n_classes, n_features)
    covariances : Array
        ``(K, d, d)`` full, ``(d, d)`` tied, ``(K, d)`` diag, ``(K,)`` spherical.
    """

    means: Array
    covariances: Array


def default_dof(covariance_type: str, n_features: int) -> float:
    """The smallest integer degrees of freedom whose prior covariance mean exists."""
    return float(n_features + 2) if covariance_type in ("full", "tied") else 3.0


@numpy_or_jit(static_argnames="covariance_type")
def default_scale(stats: GaussianStats, covariance_type: str) -> Array:
    """The empirical-Bayes prior scale: the total covariance of all rows.

    With the default degrees of freedom it is also the prior mean of every class
    covariance. It is computed from the statistics, so a chunked fit gets the same prior.
    """
    _, covariance = total_moments(stats, covariance_type)
    if covariance_type == "spherical":
        return namespace(stats).mean(covariance)
    return covariance


@numpy_or_jit(static_argnames="covariance_type")
def posterior(
    prior: NormalInverseWishart, stats: GaussianStats, covariance_type: str
) -> NormalInverseWishart:
    """The conjugate update of ``prior`` by ``stats`` (see the module docstring)."""
    xp = namespace(prior, stats)
    counts = stats.counts
    mean_precision = prior.mean_precision + counts
    mean = (prior.mean_precision * prior.mean + counts[:, None] * stats.means) / mean_precision[
        :, None
    ]
    offset = stats.means - prior.mean
    shrink = prior.mean_precision * counts / mean_precision
    if covariance_type == "full":
        scale = (
            prior.scale
            + stats.scatter
            + shrink[:, None, None] * xp.einsum("ki,kj->kij", offset, offset)
        )
        dof = prior.dof + counts
    elif covariance_type == "tied":
        scale = prior.scale + stats.scatter + xp.einsum("k,ki,kj->ij", shrink, offset, offset)
        dof = prior.dof + xp.sum(counts)
    elif covariance_type == "diag":
        scale = prior.scale + stats.scatter + shrink[:, None] * xp.square(offset)
        dof = prior.dof + counts
    else:
        n_features = stats.means.shape[1]
        scale = (
            prior.scale + xp.sum(stats.scatter, axis=1) + shrink * xp.sum(xp.square(offset), axis=1)
        )
        dof = prior.dof + n_features * counts
    return NormalInverseWishart(mean, mean_precision, dof, scale)


def _covariance_divisor(post: NormalInverseWishart, covariance_type: str, kind: str, n_classes):
    """Denominator turning the posterior scale into the covariance estimate."""
    n_features = post.mean.shape[-1]
    if covariance_type in ("full", "tied"):
        if kind == "mean":  # E[Sigma] = Psi / (nu - d - 1)
            return post.dof - n_features - 1
        # Joint mode of (mu, Sigma): each class mean adds |Sigma|^(-1/2) to the density.
        n_means = n_classes if covariance_type == "tied" else 1
        return post.dof + n_features + 1 + n_means
    if kind == "mean":  # E[sigma^2] = (psi/2) / (nu/2 - 1)
        return post.dof - 2
    coordinates = 1 if covariance_type == "diag" else n_features
    return post.dof + 2 + coordinates  # joint mode of (mu, sigma^2)


@numpy_or_jit(static_argnames=("covariance_type", "kind"))
def point_estimate(
    prior: NormalInverseWishart, stats: GaussianStats, covariance_type: str, kind: str
) -> GaussianParams:
    """Maximum-likelihood, posterior-mode or posterior-mean parameters.

    Parameters
    ----------
    prior : NormalInverseWishart
        Ignored for ``kind="mle"``.
    stats : GaussianStats
    covariance_type : {"full", "tied", "diag", "spherical"}
    kind : {"mle", "map", "mean", "unbiased"}
        ``"mle"``: class means and $S_k/N_k$ (pooled $\\sum_k S_k / N$ for
        ``"tied"``, $\\mathrm{tr}(S_k)/(d N_k)$ for ``"spherical"``). ``"map"``: the
        joint posterior mode. ``"mean"``: the posterior mean (needs $\\nu > d + 1$,
        or $\\nu > 2$ per coordinate). ``"unbiased"``: class means and the unbiased
        sample covariances, $S_k/(N_k - 1)$ (per feature for ``"diag"``,
        $\\mathrm{tr}(S_k)/(d (N_k - 1))$ for ``"spherical"``) and the pooled
        $\\sum_k S_k/(N - K)$ for ``"tied"``; a class with at most one row gets a zero
        covariance. Not a Bayesian estimate: the prior is ignored.

    Returns
    -------
    GaussianParams
        Without any ridge; see `add_ridge`. A class with no weight gets a zero
        covariance under ``"mle"``.
    """
    check_gaussian_estimate_kind(kind)
    xp = namespace(prior, stats)
    counts = stats.counts
    if kind in ("mle", "unbiased"):
        # "unbiased": one degree of freedom per estimated mean (K of them for "tied").
        lost = 1 if kind == "unbiased" else 0
        safe = xp.where(counts > lost, counts - lost, xp.ones_like(counts))
        if covariance_type == "full":
            covariances = stats.scatter / safe[:, None, None]
        elif covariance_type == "tied":
            covariances = stats.scatter / (xp.sum(counts) - lost * counts.shape[0])
        elif covariance_type == "diag":
            covariances = stats.scatter / safe[:, None]
        else:
            covariances = xp.mean(stats.scatter, axis=1) / safe
        return GaussianParams(stats.means, covariances)
    post = posterior(prior, stats, covariance_type)
    divisor = _covariance_divisor(post, covariance_type, kind, counts.shape[0])
    if covariance_type == "full":
        covariances = post.scale / divisor[:, None, None]
    elif covariance_type == "diag":
        covariances = post.scale / divisor[:, None]
    else:
        covariances = post.scale / divisor
    return GaussianParams(post.mean, covariances)


def mean_exists(post: NormalInverseWishart, covariance_type: str) -> Array:
    """Whether every covariance of ``post`` has a finite posterior mean."""
    divisor = _covariance_divisor(post, covariance_type, "mean", post.mean.shape[0])
    return namespace(post).all(divisor > 0)


@numpy_or_jit(static_argnames="covariance_type")
def add_ridge(params: GaussianParams, ridge: Array, covariance_type: str) -> GaussianParams:
    """Add ``ridge`` to the diagonal of every covariance.

    ``ridge`` is a per-feature $\\lambda_j$ of shape ``(n_features,)`` (or a scalar)
    for ``"full"``, ``"tied"`` and ``"diag"``, and a scalar for ``"spherical"``; for
    ``"full"``/``"tied"`` this is $\\Sigma + \\mathrm{diag}(\\lambda)$.
    """
    xp = namespace(params, ridge)
    covariances = params.covariances
    if covariance_type in ("full", "tied"):
        covariances = covariances + xp.diag(xp.broadcast_to(ridge, covariances.shape[-1:]))
    else:
        covariances = covariances + ridge
    return GaussianParams(params.means, covariances)


def sample_params(
    key: Array, post: NormalInverseWishart, covariance_type: str, num_samples: int
) -> GaussianParams:
    """Independent draws of (means, covariances) from a posterior.

    Parameters
    ----------
    key : jax.random key or numpy.random.Generator
        A generator draws in NumPy/SciPy (no compilation: the many one-draw steps of data
        augmentation), a JAX key in a jitted kernel (the stories' law, bit for bit).
    post : NormalInverseWishart
        A posterior from `posterior` (with a class axis).
    covariance_type : {"full", "tied", "diag", "spherical"}
    num_samples : int

    Returns
    -------
    GaussianParams
        Each field with a leading axis of length ``num_samples``.
    """
    if isinstance(key, np.random.Generator):
        return _sample_params_numpy(key, post, covariance_type, num_samples)
    return _jitted_sample_params()(key, post, covariance_type, num_samples)


def _sample_params_numpy(
    rng: np.random.Generator, post: NormalInverseWishart, covariance_type: str, num_samples: int
) -> GaussianParams:
    """`sample_params` in NumPy/SciPy: the same laws, drawn with ``rng`` in float64 and
    returned in the posterior's dtype (float32 stays float32, as from JAX)."""
    dtype = np.result_type(np.asarray(post.mean).dtype, np.float32)
    draws = _sample_params_float64(rng, post, covariance_type, num_samples)
    return GaussianParams(*(field.astype(dtype, copy=False) for field in draws))


def _sample_params_float64(rng, post, covariance_type: str, num_samples: int) -> GaussianParams:
    mean, kappa, dof, scale = (np.asarray(field, dtype=np.float64) for field in post)
    shape = (num_samples,)
    if covariance_type in ("full", "tied"):
        per_class = scale.ndim == 3
        dofs, scales = (
            np.broadcast_to(dof, scale.shape[:-2]).reshape(-1),
            scale.reshape(-1, *scale.shape[-2:]),
        )
        covariances = np.stack(
            [
                _inverse_wishart(rng, nu, psi, num_samples)
                for nu, psi in zip(dofs, scales, strict=True)
            ],
            axis=1,
        )  # (num_samples, K or 1, d, d)
        lower = np.linalg.cholesky(covariances / kappa[:, None, None])
        noise = rng.standard_normal((num_samples, *mean.shape))
        means = mean + np.einsum("skij,skj->ski", lower, noise)
        return GaussianParams(means, covariances if per_class else covariances[:, 0])
    dof = dof[:, None] if covariance_type == "diag" else dof
    covariances = 1.0 / rng.gamma(dof / 2, 2.0 / scale, size=(*shape, *scale.shape))
    variances = covariances if covariance_type == "diag" else covariances[..., None]
    means = mean + np.sqrt(variances / kappa[:, None]) * rng.standard_normal((*shape, *mean.shape))
    return GaussianParams(means, covariances)


def _inverse_wishart(rng, dof, scale, num_samples: int) -> np.ndarray:
    """``(num_samples, d, d)`` draws of $\\mathcal{IW}(\\nu, \\Psi)$ (SciPy's sampler)."""
    from scipy.stats import invwishart

    drawn = invwishart.rvs(df=float(dof), scale=scale, size=num_samples, random_state=rng)
    return np.reshape(drawn, (num_samples, *scale.shape))


@functools.cache
def _jitted_sample_params():
    import jax

    return jax.jit(_sample_params, static_argnames=("covariance_type", "num_samples"))


def _sample_params(key, post, covariance_type: str, num_samples: int) -> GaussianParams:
    import jax
    import jax.numpy as jnp
    import numpyro.distributions as dist

    key_cov, key_mean = jax.random.split(key)
    shape = (num_samples,)
    if covariance_type in ("full", "tied"):
        covariances = dist.InverseWishart(post.dof, scale_matrix=post.scale).sample(key_cov, shape)
        per_class = covariances if covariance_type == "full" else covariances[:, None]
        scale = per_class / post.mean_precision[:, None, None]
        means = dist.MultivariateNormal(post.mean, covariance_matrix=scale).sample(key_mean)
    else:
        dof = post.dof[:, None] if covariance_type == "diag" else post.dof
        covariances = dist.InverseGamma(dof / 2, post.scale / 2).sample(key_cov, shape)
        variances = covariances if covariance_type == "diag" else covariances[..., None]
        scale = jnp.sqrt(variances / post.mean_precision[:, None])
        means = dist.Normal(post.mean, scale).sample(key_mean)
    return GaussianParams(means, covariances)
