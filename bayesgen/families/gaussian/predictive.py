r"""The posterior predictive of Gaussian class densities: Student-t distributions.

Integrating the mean and covariance out of $\mathcal N(x \mid \mu_k, \Sigma_k)$ under
the Normal–Inverse-Wishart posterior of `bayesgen.families.gaussian.posterior`
($m_k, \kappa_k, \nu_k, \Psi_k$) gives a multivariate Student-t,

$$
p(x \mid y = k, \mathcal D) = t_{\nu_k - d + 1}\!\left(x \;\middle|\; m_k,\
\frac{\kappa_k + 1}{\kappa_k (\nu_k - d + 1)}\,\Psi_k\right)
$$

(``"tied"``: the shared $\nu, \Psi$ with each class's $m_k, \kappa_k$). For
``"diag"`` each coordinate is an independent univariate $t_{\nu_{kj}}(m_{kj},
\psi_{kj}(\kappa_k + 1)/(\kappa_k\nu_k))$, and for ``"spherical"`` the shared variance makes
it a multivariate $t_{\nu_k}$ with scale $\psi_k(\kappa_k+1)/(\kappa_k\nu_k)\,I$.
This is the ``method="predictive"`` of MASS ``predict.lda``. A missing feature is
integrated out exactly: the marginal of a Student-t over the observed block is the Student-t
with the same degrees of freedom and the observed block of the scale.

The densities are NumPy/SciPy for the same reason as `missing`: each missing pattern
has blocks of its own shape.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from scipy.special import gammaln

from bayesgen.families.gaussian import missing
from bayesgen.families.gaussian.posterior import NormalInverseWishart


class StudentT(NamedTuple):
    """Per-class Student-t predictive distributions.

    Attributes
    ----------
    loc : ndarray of shape (n_classes, n_features)
    scale : ndarray
        ``(n_classes, n_features, n_features)`` for ``"full"`` and ``"tied"``,
        ``(n_classes, n_features)`` (one univariate scale per coordinate) for ``"diag"``,
        ``(n_classes,)`` (the multiple of the identity) for ``"spherical"``.
    dof : ndarray of shape (n_classes,)
    """

    loc: np.ndarray
    scale: np.ndarray
    dof: np.ndarray


def predictive(post: NormalInverseWishart, covariance_type: str) -> StudentT:
    """The Student-t predictive of every class from a posterior (see the module docstring).

    Raises
    ------
    ValueError
        If the degrees of freedom are not positive (an improper predictive).
    """
    mean, kappa, nu, psi = (np.asarray(field) for field in post)
    n_classes, n_features = mean.shape
    inflation = (kappa + 1.0) / kappa
    if covariance_type in ("full", "tied"):
        dof = np.broadcast_to(nu - n_features + 1.0, (n_classes,)).copy()
        scale = np.broadcast_to(psi, (n_classes, n_features, n_features))
        scale = scale * (inflation / dof)[:, None, None]
    elif covariance_type == "diag":
        dof = np.asarray(nu, dtype=mean.dtype).copy()
        scale = psi * (inflation / dof)[:, None]
    else:
        dof = np.asarray(nu, dtype=mean.dtype).copy()
        scale = psi * inflation / dof
    if np.any(dof <= 0):
        raise ValueError(
            f"The posterior predictive has non-positive degrees of freedom {dof.tolist()}; "
            "raise degrees_of_freedom_prior."
        )
    return StudentT(mean, scale, dof)


def _t_log_density(squared, half_log_det, dimension, dof):
    """Log density of a ``dimension``-variate t from its quadratic form and half log-det.

    All arguments broadcast against each other.
    """
    return (
        gammaln((dof + dimension) / 2.0)
        - gammaln(dof / 2.0)
        - 0.5 * dimension * np.log(dof * math.pi)
        - half_log_det
        - 0.5 * (dof + dimension) * np.log1p(squared / dof)
    )


def log_likelihood(t: StudentT, X: np.ndarray, covariance_type: str) -> np.ndarray:
    """$\\log p(x_{i,o} \\mid y = k, \\mathcal D)$ over the observed entries of each row.

    Parameters
    ----------
    t : StudentT
        From `predictive` with the same ``covariance_type``.
    X : ndarray of shape (n_samples, n_features)
        NaN marks a missing entry (integrated out); a row with none observed gets 0.
    covariance_type : {"full", "tied", "diag", "spherical"}

    Returns
    -------
    ndarray of shape (n_samples, n_classes)
    """
    if covariance_type in ("full", "tied"):
        squared, half_log_det, n_observed = missing.observed_block_forms(t.loc, t.scale, X)
        return _t_log_density(squared, half_log_det, n_observed[:, None], t.dof)
    observed = ~np.isnan(X)
    filled = np.where(observed, X, 0.0)
    result = np.empty((X.shape[0], t.loc.shape[0]), dtype=X.dtype)
    n_observed = np.sum(observed, axis=1)
    for k in range(t.loc.shape[0]):
        squared = np.where(observed, (filled - t.loc[k]) ** 2 / t.scale[k], 0.0)
        if covariance_type == "diag":  # a product of univariate t densities
            per_coordinate = _t_log_density(squared, 0.5 * np.log(t.scale[k]), 1.0, t.dof[k])
            result[:, k] = np.sum(np.where(observed, per_coordinate, 0.0), axis=1)
        else:  # one t over the observed coordinates, scale t.scale[k] * I
            half_log_det = 0.5 * n_observed * np.log(t.scale[k])
            result[:, k] = _t_log_density(
                np.sum(squared, axis=1), half_log_det, n_observed, t.dof[k]
            )
    return result
