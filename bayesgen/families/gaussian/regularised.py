r"""The Gaussian family with a regularised point estimate: `RegularisedGaussian`.

``GaussianDA``'s family. Beside the conjugate point estimate of `GaussianFamily` it can

- shrink each covariance (``"full"``) or the pooled one (``"tied"``) toward
  $\hat\sigma^2 I$, with a given intensity or Ledoit and Wolf's (from the fourth moments
  of the rows, `shrinkage.FourthMoments`);
- move each class covariance toward the pooled one (Friedman's RDA, ``reg_alpha`` and
  ``reg_gamma``);
- floor small variances as R's e1071 ``naiveBayes`` does (``variance_floor``), in the
  estimate and in the density;
- constrain the class means of a shared covariance to the first ``n_components`` of
  Fisher's discriminant directions (reduced-rank LDA).

These act on the point estimate only: the story, its prior and the conjugate posterior
are those of `GaussianFamily`, so a regularised family has no exact posterior
(`is_regularised`).
"""

from __future__ import annotations

import copy
import numbers

import numpy as np

from bayesgen._lazy import lazy_module
from bayesgen._precision import compute_dtype, precision
from bayesgen.families import e1071_floor
from bayesgen.families.gaussian import blocked_stats, fisher, shrinkage
from bayesgen.families.gaussian.family import GaussianFamily
from bayesgen.families.gaussian.posterior import (
    GaussianParams,
    add_ridge,
    mean_exists,
    point_estimate,
)
from bayesgen.families.gaussian.stats import GaussianStats
from bayesgen.families.namespace import as_numpy
from bayesgen.validation import InputRows

jnp = lazy_module("jax.numpy")

SHRINKAGE_METHODS = ("ledoit-wolf",)


def _check_fraction(value, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not 0 <= value <= 1:
        raise ValueError(f"{name} must be a real number in [0, 1]; got {value!r}.")
    return float(value)


def check_regularisation(covariance_type, reg_alpha, reg_gamma, shrinkage_setting, n_components):
    """Validate the regularisation settings of a Gaussian family of ``covariance_type``.

    Raises
    ------
    ValueError
        Naming the argument, what it must be and what it was.
    """
    for name, value in (("reg_alpha", reg_alpha), ("reg_gamma", reg_gamma)):
        value = _check_fraction(value, name)
        if value != 1 and covariance_type != "full":
            raise ValueError(
                f"{name} applies to covariance_type='full' (regularised discriminant "
                f"analysis); got {name}={value!r} with covariance_type={covariance_type!r}. "
                "For 'tied' use shrinkage=1 - reg_gamma."
            )
    if shrinkage_setting is not None:
        if isinstance(shrinkage_setting, str):
            if shrinkage_setting not in SHRINKAGE_METHODS:
                raise ValueError(
                    "shrinkage must be None, 'ledoit-wolf' or a float in [0, 1]; got "
                    f"{shrinkage_setting!r}."
                )
        else:
            _check_fraction(shrinkage_setting, "shrinkage")
        if covariance_type not in ("full", "tied"):
            raise ValueError(
                "shrinkage applies to covariance_type='full' or 'tied' (a diagonal covariance "
                f"needs none); got covariance_type={covariance_type!r}."
            )
    if n_components is not None:
        if (
            isinstance(n_components, bool)
            or not isinstance(n_components, numbers.Integral)
            or n_components < 1
        ):
            raise ValueError(f"n_components must be None or an integer >= 1; got {n_components!r}.")
        if covariance_type != "tied":
            raise ValueError(
                "n_components (Fisher's discriminant coordinates) needs one shared covariance, "
                f"covariance_type='tied'; got covariance_type={covariance_type!r}."
            )


class RegularisedGaussian(GaussianFamily):
    """`GaussianFamily` whose point estimate is regularised (see the module docstring).

    Parameters
    ----------
    covariance_type : {"full", "tied", "diag", "spherical"}, default="full"
    reg_alpha, reg_gamma : float in [0, 1], default=1.0
        RDA's move of each class covariance toward the pooled one (``"full"`` only).
    shrinkage : None, "ledoit-wolf" or float in [0, 1], default=None
        Shrinkage intensity toward $\\hat\\sigma^2 I$ (``"full"`` and ``"tied"``).
    n_components : int, optional
        Discriminant directions the class means are constrained to (``"tied"`` only).
    variance_floor : (threshold, eps), optional
        R's e1071 floor: a standard deviation at most ``eps`` becomes ``threshold``, and a
        density factor at most ``eps`` becomes ``threshold`` (``"diag"``).
    fourth_moments : FourthMoments, optional
        The rows' fourth moments, which ``shrinkage="ledoit-wolf"`` needs to estimate.
    **settings
        The prior and ridge of `GaussianFamily`.

    Examples
    --------
    >>> import numpy as np
    >>> from bayesgen.families.gaussian.regularised import RegularisedGaussian
    >>> rng = np.random.default_rng(0)
    >>> X, R = rng.normal(size=(40, 3)), np.eye(2)[rng.integers(0, 2, 40)]
    >>> family = RegularisedGaussian("full", shrinkage=1.0)
    >>> _, params = family.estimate(family.suff_stats(X, R), "mle")
    >>> bool(np.allclose(params.covariances[0], np.diag(np.diag(params.covariances[0]))))
    True
    """

    HYPERPARAMETERS = (*GaussianFamily.HYPERPARAMETERS, "reg_alpha", "reg_gamma", "shrinkage")

    def __init__(
        self,
        covariance_type: str = "full",
        *,
        reg_alpha=1.0,
        reg_gamma=1.0,
        shrinkage=None,
        n_components=None,
        variance_floor=None,
        fourth_moments=None,
        **settings,
    ):
        super().__init__(covariance_type, **settings)
        check_regularisation(covariance_type, reg_alpha, reg_gamma, shrinkage, n_components)
        self.reg_alpha = reg_alpha
        self.reg_gamma = reg_gamma
        self.shrinkage = shrinkage
        self.n_components = n_components
        self.variance_floor = variance_floor
        self.fourth_moments = fourth_moments

    @classmethod
    def of(cls, owner, **learned) -> RegularisedGaussian:
        """The family of an estimator: `HYPERPARAMETERS` read off ``owner``, its
        ``n_components`` (LDA's) where it has one, and ``learned`` (``variance_floor``,
        ``fourth_moments``)."""
        settings = {name: getattr(owner, name) for name in cls.HYPERPARAMETERS}
        return cls(n_components=getattr(owner, "n_components", None), **settings, **learned)

    def check(self) -> RegularisedGaussian:
        """This family, once `GaussianFamily.check` passes and the regularisation settings
        suit its covariance type (`check_regularisation`: ``reg_alpha``, ``reg_gamma``,
        ``shrinkage``, ``n_components``)."""
        super().check()
        check_regularisation(
            self.covariance_type, self.reg_alpha, self.reg_gamma, self.shrinkage, self.n_components
        )
        return self

    @property
    def input_rows(self) -> InputRows:
        """NaN is a missing value (integrated out when predicting, EM when fitting), except in
        the rows of a Ledoit–Wolf fit (their fourth moments need complete rows); rows on a
        device are fitted and scored there."""
        return InputRows(device_arrays=True, missing_at_fit=not self.needs_fourth_moments)

    @property
    def needs_fourth_moments(self) -> bool:
        """Whether the Ledoit–Wolf intensity, and so the rows' fourth moments, are needed."""
        return isinstance(self.shrinkage, str)

    def for_rows(self, X, responsibilities) -> RegularisedGaussian:
        """The family with the fourth moments of the rows ``X`` under ``responsibilities``
        where Ledoit–Wolf's intensity needs them, else ``self``.

        Raises
        ------
        ValueError
            When ``X`` has missing entries (the moments need complete rows).
        """
        if not self.needs_fourth_moments:
            return self
        dtype = compute_dtype(np.asarray(X).dtype)
        with precision(dtype):
            moments = shrinkage.fourth_moments(
                jnp.asarray(X, dtype=dtype), jnp.asarray(responsibilities, dtype)
            )
            if bool(jnp.isnan(moments.stats.means).any()):
                raise ValueError(
                    "shrinkage='ledoit-wolf' needs fourth moments of complete rows, and X "
                    "contains NaN (missing values); impute them first, or give the intensity "
                    "as a float."
                )
        family = copy.copy(self)
        family.fourth_moments = as_numpy(moments)
        return family

    @property
    def unlabelled_loop(self) -> str:
        """``"gaussian"`` (the Gaussian's own EM loop) for the conjugate estimate with no
        regularising setting at all, else ``"em"``."""
        plain = (self.reg_alpha, self.reg_gamma, self.shrinkage, self.n_components) == (
            1,
            1,
            None,
            None,
        )
        return "gaussian" if plain else "em"

    def is_regularised(self, n_classes: int, n_features: int) -> bool:
        """Whether the point estimate departs from the conjugate one (RDA, shrinkage, a
        reduced rank), so that the conjugate posterior does not describe it."""
        reduced = self.n_components is not None and self.n_components < min(
            n_classes - 1, n_features
        )
        return bool(
            self.reg_alpha != 1 or self.reg_gamma != 1 or self.shrinkage is not None or reduced
        )

    def exact_posterior_refusal(self, value) -> str | None:
        """Refuse a regularised point estimate (`is_regularised`) first, then as
        `GaussianFamily` does."""
        if self.is_regularised(*np.shape(value.feature_stats.means)):
            return (
                " has a regularised point estimate (reg_alpha, reg_gamma, shrinkage or a "
                "reduced n_components), which the conjugate posterior does not describe. For "
                "a posterior that shrinks, put the shrinkage in the prior instead "
                "(covariance_prior, degrees_of_freedom_prior) and leave these parameters at "
                "their defaults."
            )
        return super().exact_posterior_refusal(value)

    def posterior(self, prior, stats: GaussianStats):
        """The conjugate posterior of `GaussianFamily`, for unregularised settings only.

        Raises
        ------
        ValueError
            When the point estimate is regularised (`is_regularised`): the posterior of the
            story's prior does not describe it.
        """
        n_classes, n_features = np.shape(stats.means)
        if self.is_regularised(n_classes, n_features):
            raise ValueError(
                "A regularised Gaussian point estimate (reg_alpha, reg_gamma, shrinkage or a "
                "reduced n_components) has no conjugate posterior: the posterior of the "
                "story's prior does not describe it. Put the shrinkage in the prior instead "
                "(covariance_prior, degrees_of_freedom_prior)."
            )
        return super().posterior(prior, stats)

    # ------------------------------------------------------------ estimate
    def estimate(self, stats: GaussianStats, kind: str, frozen=None):
        """``(prior, parameters)``: `estimate_full_rank`, the means then reduced to
        ``n_components`` discriminant directions where that is below the maximum."""
        _, prior, params = self.estimate_full_rank(stats, kind, frozen)
        if self.covariance_type == "tied":
            params = self.reduce_rank(params, stats.counts)
        return prior, params

    def estimate_full_rank(self, stats: GaussianStats, kind: str, frozen=None):
        """``(ridge, prior, params)`` as NumPy arrays, the class means not reduced.

        The ridge and prior come from ``stats`` unless an EM over missing entries fixed them
        (``frozen``: ``(ridge, prior)``); then the point estimate, shrunk and moved toward
        the pooled covariance as set, the ridge added, e1071's floor applied.

        Raises
        ------
        ValueError
            When the ``"mean"`` estimate does not exist, a covariance is singular, or
            Ledoit–Wolf shrinkage has no fourth moments.
        """
        if frozen is None:
            ridge = self.ridge(stats)
            prior = self.prior(stats, ridge)
        else:  # EM keeps one prior throughout, or its objective would move under it
            ridge, prior = frozen
            dtype = stats.means.dtype
            ridge = np.asarray(ridge, dtype)
            prior = type(prior)(*(np.asarray(leaf, dtype) for leaf in prior))
        if kind == "mean" and not mean_exists(
            GaussianFamily.posterior(self, prior, stats), self.covariance_type
        ):
            raise ValueError(
                "estimate='mean' needs a posterior covariance mean, which does not exist for "
                f"degrees_of_freedom_prior={self.degrees_of_freedom_prior}; raise it or use "
                "estimate='map'."
            )
        with precision(np.asarray(stats.means).dtype):  # shrinkage and RDA run in JAX
            params = point_estimate(prior, stats, self.covariance_type, kind)
            params = self._regularise(params, prior, stats, kind)
            params = add_ridge(params, ridge, self.covariance_type)
            if self.variance_floor is not None:
                floored = e1071_floor.floor_variances(params.covariances, *self.variance_floor)
                params = params._replace(covariances=floored)
            self.check_positive_definite(params)
            params = GaussianParams(np.asarray(params.means), np.asarray(params.covariances))
        prior = type(prior)(*(np.asarray(leaf) for leaf in prior))
        return np.asarray(ridge), prior, params

    def shrinkage_intensity(self, n_classes: int, dtype):
        """The intensity used: one per class (``"full"``) or one (``"tied"``); None when
        ``shrinkage`` is not set.

        Raises
        ------
        ValueError
            For Ledoit–Wolf without the rows' fourth moments.
        """
        if self.shrinkage is None:
            return None
        tied = self.covariance_type == "tied"
        if self.needs_fourth_moments:
            if self.fourth_moments is None:
                raise ValueError(
                    "shrinkage='ledoit-wolf' needs the fourth moments of the training rows, "
                    "which this family was not given."
                )
            return shrinkage.ledoit_wolf_intensity(self.fourth_moments, pooled=tied)
        if tied:
            return jnp.asarray(self.shrinkage, dtype)
        return jnp.full(n_classes, self.shrinkage, dtype)

    def _regularise(self, params: GaussianParams, prior, stats: GaussianStats, kind: str):
        """Shrinkage and RDA applied to the covariances of ``params`` (before the ridge)."""
        covariances = params.covariances
        intensity = self.shrinkage_intensity(np.shape(params.means)[0], covariances.dtype)
        if intensity is not None:
            covariances = shrinkage.shrink_toward_identity(covariances, intensity)
        if self.covariance_type == "full" and (self.reg_alpha, self.reg_gamma) != (1, 1):
            pooled = stats._replace(
                scatter=np.asarray(blocked_stats.pooled_scatter(stats.scatter), stats.means.dtype)
            )
            pooled_covariance = point_estimate(prior, pooled, "tied", kind).covariances
            covariances = shrinkage.regularised_covariances(
                covariances, pooled_covariance, self.reg_alpha, self.reg_gamma
            )
        return params._replace(covariances=covariances)

    # ----------------------------------------------- discriminant coordinates
    def discriminant_coordinates(self, params: GaussianParams, counts):
        """Fisher's directions of full-rank tied ``params`` (`fisher.discriminant_coordinates`).

        Raises
        ------
        ValueError
            When ``n_components`` exceeds ``min(n_classes - 1, n_features)``.
        """
        means = np.asarray(params.means, dtype=np.float64)
        n_max = min(means.shape[0] - 1, means.shape[1])
        if self.n_components is not None and self.n_components > n_max:
            raise ValueError(
                f"n_components must be <= min(n_classes - 1, n_features) = {n_max}; got "
                f"{self.n_components}."
            )
        covariance = np.asarray(params.covariances, dtype=np.float64)
        return fisher.discriminant_coordinates(means, np.asarray(counts), covariance)

    def kept_components(self, n_classes: int, n_features: int) -> int:
        """How many discriminant directions the model keeps."""
        n_max = min(n_classes - 1, n_features)
        return n_max if self.n_components is None else self.n_components

    def reduce_rank(self, params: GaussianParams, counts, coordinates=None) -> GaussianParams:
        """``params`` with the class means constrained to ``n_components`` directions
        (unchanged at full rank); ``coordinates`` are computed when not given."""
        n_classes, n_features = np.shape(params.means)
        if coordinates is None and self.n_components is None:
            return params
        if coordinates is None:
            coordinates = self.discriminant_coordinates(params, counts)
        kept = self.kept_components(n_classes, n_features)
        if kept == min(n_classes - 1, n_features):
            return params
        means = np.asarray(params.means, dtype=np.float64)
        covariance = np.asarray(params.covariances, dtype=np.float64)
        reduced = fisher.reduced_rank_means(means, covariance, coordinates, kept)
        return params._replace(means=np.asarray(reduced, params.means.dtype))

    @property
    def scores_in_blocks(self) -> bool:
        """As `GaussianFamily`, but not with e1071's floor, whose densities are made over all
        the rows given at once (`e1071_floor.gaussian_log_likelihood`)."""
        return self.variance_floor is None

    # ------------------------------------------------------------ densities
    def score_blocks(self, params: GaussianParams, X, *, row_terms: bool = True):
        """As `GaussianFamily.score_blocks`; None with e1071's floor (`scores_in_blocks`)."""
        if self.variance_floor is not None:
            return None
        return super().score_blocks(params, X, row_terms=row_terms)

    def log_likelihood(self, params: GaussianParams, X, *, row_terms: bool = True):
        """As `GaussianFamily.log_likelihood`; with ``variance_floor``, e1071's floored
        product of independent normal densities."""
        if self.variance_floor is None:
            return super().log_likelihood(params, X, row_terms=row_terms)
        X = np.asarray(X)
        return e1071_floor.gaussian_log_likelihood(
            params.means, params.covariances, X, *self.variance_floor
        )
