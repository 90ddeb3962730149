r"""The exact posterior of diagonal Gaussian class densities from the observed entries.

With a diagonal covariance the features of a class are independent, and so are their
Normal–Inverse-Gamma priors: the likelihood of a row with missing entries is the product of
its observed coordinates' factors. The posterior of $(\mu_{kj}, \sigma^2_{kj})$ is then
the conjugate update of the prior by feature $j$'s observed entries in class $k$ only:
$N_{kj}$ of them, their mean and scatter, with
$\kappa_{kj} = \kappa_0 + N_{kj}$, $\nu_{kj} = \nu_0 + N_{kj}$ (no EM, no sampler).

Each (class, feature) pair is one single-feature ``"diag"`` posterior, so the family's own
``posterior`` and ``sample_params`` do the algebra on a flattened axis of ``K d`` pairs.
"""

from __future__ import annotations

import numpy as np
from scipy import stats as scipy_stats

from bayesgen._lazy import lazy_module
from bayesgen.families.gaussian import GaussianStats, NormalInverseWishart

jnp = lazy_module("jax.numpy")


def observed_stats(X: np.ndarray, responsibilities: np.ndarray) -> GaussianStats:
    """Per (class, feature): weighted count, mean and centred scatter of the observed entries.

    Returns
    -------
    GaussianStats
        ``counts``, ``means`` and ``scatter`` each of shape (n_classes, n_features).
    """
    observed = ~np.isnan(X)
    values = np.where(observed, X, 0.0)
    counts = responsibilities.T @ observed
    sums = responsibilities.T @ values
    with np.errstate(invalid="ignore", divide="ignore"):
        means = np.where(counts > 0, sums / counts, 0.0)
    scatter = np.stack(
        [
            responsibilities[:, k] @ (observed * (values - means[k]) ** 2)
            for k in range(responsibilities.shape[1])
        ]
    )
    return GaussianStats(counts, means, scatter)


def posterior(family, prior: NormalInverseWishart, X, responsibilities) -> NormalInverseWishart:
    """The exact posterior, each field of shape (n_classes, n_features) (module docstring)."""
    stats = observed_stats(np.asarray(X, dtype=np.float64), np.asarray(responsibilities))
    shape = stats.means.shape
    dtype = prior.mean.dtype
    flat_stats = GaussianStats(
        jnp.asarray(stats.counts.ravel(), dtype),
        jnp.asarray(stats.means.reshape(-1, 1), dtype),
        jnp.asarray(stats.scatter.reshape(-1, 1), dtype),
    )
    flat_prior = NormalInverseWishart(
        jnp.broadcast_to(prior.mean, shape).reshape(-1, 1),
        prior.mean_precision,
        prior.dof,
        jnp.broadcast_to(prior.scale, shape).reshape(-1, 1),
    )
    flat = family.posterior(flat_prior, flat_stats)
    return NormalInverseWishart(*(jnp.reshape(field, shape) for field in flat))


def sample_params(family, key, post: NormalInverseWishart, num_samples: int) -> dict:
    """``{"means", "covariances"}``, each (num_samples, n_classes, n_features)."""
    shape = post.mean.shape
    flat = NormalInverseWishart(
        post.mean.reshape(-1, 1),
        post.mean_precision.ravel(),
        post.dof.ravel(),
        post.scale.reshape(-1, 1),
    )
    drawn = family.sample_params(key, flat, num_samples)
    return {
        "means": drawn.means.reshape(num_samples, *shape),
        "covariances": drawn.covariances.reshape(num_samples, *shape),
    }


def predictive_log_likelihood(post: NormalInverseWishart, X) -> np.ndarray:
    r"""$\log p(x_o \mid k, \mathcal D)$ of each row and class, shape (n_samples, n_classes).

    A sum over the observed coordinates of univariate Student-t densities
    $t_{\nu_{kj}}(m_{kj}, \psi_{kj}(\kappa_{kj} + 1)/(\kappa_{kj}\nu_{kj}))$.
    """
    mean, kappa, dof, scale = (np.asarray(field, dtype=np.float64) for field in post)
    width = np.sqrt(scale * (kappa + 1.0) / (kappa * dof))
    X = np.asarray(X, dtype=np.float64)
    per_entry = scipy_stats.t.logpdf(X[:, None, :], dof, loc=mean, scale=width)
    return np.sum(np.where(np.isnan(X)[:, None, :], 0.0, per_entry), axis=2)
