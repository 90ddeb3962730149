"""Gaussian class densities with full, tied, diagonal or spherical covariance.

The conjugate prior is Normal–Inverse-Wishart (Normal–Inverse-Gamma per coordinate for
the diagonal and spherical types); see `bayesgen.families.gaussian.posterior`.
"""

from bayesgen.families.gaussian.family import GaussianFamily
from bayesgen.families.gaussian.likelihood import log_likelihood
from bayesgen.families.gaussian.posterior import (
    GAUSSIAN_ESTIMATE_KINDS,
    GaussianParams,
    NormalInverseWishart,
    add_ridge,
    check_gaussian_estimate_kind,
    default_dof,
    default_scale,
    mean_exists,
    point_estimate,
    posterior,
    sample_params,
)
from bayesgen.families.gaussian.prior import (
    covariance_log_prior,
    log_prior,
    mean_log_prior,
    resolve_prior,
)
from bayesgen.families.gaussian.stats import (
    COVARIANCE_TYPES,
    GaussianStats,
    check_covariance_type,
    merge,
    suff_stats,
    total_moments,
)

__all__ = [
    "COVARIANCE_TYPES",
    "GAUSSIAN_ESTIMATE_KINDS",
    "GaussianFamily",
    "GaussianParams",
    "GaussianStats",
    "NormalInverseWishart",
    "add_ridge",
    "check_covariance_type",
    "check_gaussian_estimate_kind",
    "covariance_log_prior",
    "default_dof",
    "default_scale",
    "log_likelihood",
    "log_prior",
    "mean_log_prior",
    "mean_exists",
    "merge",
    "point_estimate",
    "posterior",
    "resolve_prior",
    "sample_params",
    "suff_stats",
    "total_moments",
]
