"""Gaussian discriminant analysis: ``GaussianDA``, the general Gaussian classifier."""

from __future__ import annotations

import warnings
from types import MappingProxyType

import numpy as np

from bayesgen import joint
from bayesgen._precision import compute_dtype, precision
from bayesgen.estimators import gaussian_regularised
from bayesgen.estimators.base import GenerativeClassifier
from bayesgen.estimators.fisher_projection import FisherProjection
from bayesgen.estimators.fitted_attribute import fitted_attribute
from bayesgen.estimators.hyperparameters import EM_KEYWORDS
from bayesgen.families import gaussian
from bayesgen.families.gaussian import shrinkage
from bayesgen.families.gaussian.regularised import RegularisedGaussian
from bayesgen.families.namespace import as_jax, as_numpy
from bayesgen.inference.semi_supervised import EM_PARAMETERS_DOC
from bayesgen.validation import (
    FewRowsWarning,
    caller_stacklevel,
    warn_few_complete_rows,
)
from bayesgen.wide_data import check_covariance_cost

#: The normal–inverse-Wishart prior of a Gaussian's mean and covariance (``estimate``
#: ``"map"`` and ``"mean"``), shared with `bayesgen.MixtureDA`'s components.
NORMAL_WISHART_KEYWORDS = MappingProxyType(
    {
        "mean_prior": None,
        "mean_precision_prior": 1.0,
        "degrees_of_freedom_prior": None,
        "covariance_prior": None,
    }
)

#: Every hyperparameter of `GaussianDA` but ``covariance_type``, which its presets fix.
GAUSSIAN_KEYWORDS = MappingProxyType(
    {
        "estimate": "mle",
        "priors": None,
        "reg_covar": 1e-6,
        "class_concentration_prior": 1.0,
        **NORMAL_WISHART_KEYWORDS,
        "reg_alpha": 1.0,
        "reg_gamma": 1.0,
        "shrinkage": None,
        **EM_KEYWORDS,
        "max_iter": 200,
    }
)

_PARAMETERS_DOC = (
    """
    estimate : {"mle", "map", "mean", "unbiased"}, default="mle"
        Point estimate used for prediction: maximum likelihood (the textbook classifier,
        prior ignored), the posterior mode, the posterior mean, or ``"unbiased"``: the
        class means and the unbiased sample covariances, with divisors $N - K$ (pooled,
        ``"tied"``), $N_k - 1$ (per class) and $N_k - 1$ per feature (``"diag"``), and
        the class frequencies as class probabilities. ``"unbiased"`` ignores the prior
        and reproduces R's ``MASS::lda``, ``MASS::qda`` and e1071's Gaussian
        ``naiveBayes``.
    priors : array-like of shape (n_classes,), optional
        Known class probabilities; when given they are used as they are, not estimated.
    reg_covar : float, default=1e-6
        Ridge added to every covariance, relative to each feature's variance over all
        training rows: $\\Sigma + \\lambda\\,\\mathrm{diag}(v)$ with $v_j$
        the variance of feature $j$ and $\\lambda$ = ``reg_covar`` (the
        $\\Sigma + \\lambda I$ of the seeds, made invariant to feature units; the
        spherical type uses the mean variance). It keeps singular covariances (a constant
        feature, fewer rows than features) usable. A positive value is raised to at least
        ``n_features`` times the machine epsilon of the computation; ``0`` disables the
        ridge, and a singular covariance is then an error.
    class_concentration_prior : float, default=1.0
        Concentration $\\alpha$ of the symmetric Dirichlet prior on the class
        probabilities. With 1 the ``"map"`` estimate equals the class frequencies.
    mean_prior : array-like of shape (n_features,), optional
        $m_0$, prior location of the class means; default: the mean of all rows.
    mean_precision_prior : float, default=1.0
        $\\kappa_0$, the number of pseudo-observations behind ``mean_prior``.
    degrees_of_freedom_prior : float, optional
        $\\nu_0$; default ``n_features + 2`` for ``"full"``/``"tied"`` and 3 for
        ``"diag"``/``"spherical"``, the smallest values with a finite prior mean.
    covariance_prior : array-like, optional
        $\\Psi_0$, the prior scale: ``(n_features, n_features)`` for ``"full"`` and
        ``"tied"``, ``(n_features,)`` for ``"diag"``, a float for ``"spherical"``.
        Default: the covariance of all rows (plus the ridge), which is then also the
        prior mean of each class covariance.
"""
    + gaussian_regularised.REGULARISATION_DOC.lstrip("\n")
    + """    max_iter : int, default=200
        Most EM iterations when ``X`` has missing values (NaN) at fit time, or ``y`` has
        unlabelled rows.
    tol : float, default=1e-6
        EM over missing entries stops when its objective is within ``tol`` times its size
        of the limit Aitken's extrapolation predicts from its last three values; EM over
        unlabelled rows when the objective changes by at most ``tol`` times its size
        (`bayesgen.inference.em`).
"""
    + EM_PARAMETERS_DOC
)

_ATTRIBUTES_DOC = (
    """
    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        Class labels, sorted.
    class_count_ : ndarray of shape (n_classes,)
        Weighted number of training rows per class.
    class_prior_ : ndarray of shape (n_classes,)
        Class probabilities used for prediction.
    means_ : ndarray of shape (n_classes, n_features)
    covariances_ : ndarray
        Shaped as in ``sklearn.mixture.GaussianMixture``: ``(n_classes, n_features,
        n_features)`` full, ``(n_features, n_features)`` tied, ``(n_classes, n_features)``
        diag, ``(n_classes,)`` spherical. The ridge is included.
    prior_ : NormalInverseWishart
        The prior with every default resolved from the training data.
    suff_stats_ : GaussianStats
        Class counts, class means and centred scatter: everything the fit depends on.
    n_iter_ : int
        EM iterations run; 1 when ``X`` had no missing values (the closed-form fit is a
        single pass). For ``estimate="mle"`` and ``"map"``, EM over missing entries takes a
        SQUAREM extrapolation after every two EM steps and counts (and records) only those
        it keeps: the same fixed point in fewer iterations (`bayesgen.inference.squarem`).
    converged_ : bool
    fitted_with_unlabeled_ : bool
        Whether the last fit had unlabelled rows (EM over them; no exact posterior then).
    log_likelihood_history_ : ndarray of shape (n_iter_,)
        The EM objective per iteration: the observed-data log-likelihood of the training
        rows (plus the log prior for ``estimate="map"``); it never decreases, except with a
        regularised covariance, whose M-step is not a maximisation.
    ridge_ : ndarray of shape (n_features,), or a scalar for ``"spherical"``
        What was added to the diagonal of every covariance.
    fitted_with_missing_ : bool
        Whether ``X`` had missing values at fit time, so that the fit is EM over them: the
        statistics are expected ones, ``prior_`` and ``ridge_`` those EM fixed at its start
        (kept when the parameters are derived again), and there is no closed-form posterior.
    fourth_moments_ : FourthMoments or None
        The fourth moments of the training rows behind the Ledoit–Wolf intensity
        (``shrinkage="ledoit-wolf"``; merged by ``partial_fit``); None otherwise.
"""
    + gaussian_regularised.REGULARISATION_ATTRIBUTES_DOC.lstrip("\n")
    + """    n_features_in_ : int
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Only when ``X`` had string column names.
"""
)


def _parameter_writer(field: str):
    """Setting ``means_`` or ``covariances_`` puts the array into ``joint_.params``."""

    def write(estimator, value) -> None:
        params = estimator.joint_.params._replace(**{field: np.asarray(value)})
        estimator.joint_ = joint.with_params(estimator.joint_, params)

    return write


class GaussianDA(FisherProjection, GenerativeClassifier):
    model_name = "gaussian-da"
    _state_beside_value = (
        "ridge_",
        "shrinkage_",
        "fourth_moments_",
        "scalings_",
        "xbar_",
        "explained_variance_ratio_",
    )
    #: One class is the table's own density (imputation, sampling, scores without labels);
    #: the presets LDA and QDA refuse it, as scikit-learn's discriminant analysis does.
    min_classes = 1
    fits_missing_by_em = True
    __doc__ = (
        """Gaussian discriminant analysis: a Gaussian density per class.

    The generative story ([`bayesgen.stories.gaussian_story`][bayesgen.stories.gaussian_story])
    draws the class
    probabilities from a Dirichlet, the class means and covariances from a
    Normal–Inverse-Wishart prior, then each row's label and its features given the label.
    Fitting is closed-form from sufficient statistics.

    Parameters
    ----------
    covariance_type : {"full", "tied", "diag", "spherical"}, default="full"
        One covariance per class (QDA), one shared covariance (LDA), diagonal per class
        (Gaussian naive Bayes), or one variance per class.
"""
        + _PARAMETERS_DOC
        + _ATTRIBUTES_DOC
        + """
    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from bayesgen import GaussianDA
    >>> X, y = load_iris(return_X_y=True)
    >>> model = GaussianDA(covariance_type="tied").fit(X, y)
    >>> float(model.score(X, y))
    0.98
"""
    )

    hyperparameters = {"covariance_type": "full", **GAUSSIAN_KEYWORDS}

    # ------------------------------------------------------------ the value
    means_ = fitted_attribute(
        lambda self, value: value.params.means,
        _parameter_writer("means"),
        doc="The class means, shape (n_classes, n_features).",
    )
    covariances_ = fitted_attribute(
        lambda self, value: value.params.covariances,
        _parameter_writer("covariances"),
        doc="The covariances, laid out as ``covariance_type`` says (the ridge included).",
    )
    prior_ = fitted_attribute(
        lambda self, value: value.feature_prior,
        doc="The Normal-Inverse-Wishart prior, every default resolved.",
    )
    suff_stats_ = fitted_attribute(
        lambda self, value: value.feature_stats,
        doc="The `GaussianStats` the fit rests on.",
    )
    fitted_with_missing_ = fitted_attribute(
        lambda self, value: value.frozen is not None,
        doc="Whether the fit was EM over missing entries (which held ``frozen``).",
    )

    def _base_family(self) -> RegularisedGaussian:
        """The family with this estimator's hyperparameters, e1071's floor (GaussianNB's
        ``threshold``) and the fourth moments Ledoit–Wolf shrinkage estimates from."""
        return RegularisedGaussian.of(
            self,
            variance_floor=self._floor(),
            fourth_moments=self.__dict__.get("fourth_moments_"),
        )

    # ------------------------------------------------------------------ hooks
    def _check_hyperparameters(self):
        gaussian.check_gaussian_estimate_kind(self.estimate)
        super()._check_hyperparameters()

    def _class_prior_settings(self):
        # "unbiased" is about the covariances; its class probabilities are the frequencies.
        kind = "mle" if self.estimate == "unbiased" else self.estimate
        return self.priors, self.class_concentration_prior, kind

    def _add_rows(self, X, responsibilities, *, reset):
        """`GenerativeClassifier._add_rows`, with what a Gaussian fit keeps beside its value (the
        fourth moments Ledoit–Wolf shrinkage needs, Fisher's coordinates) and in it (the rows
        behind a gappy fit's posterior, ``joint_.rows``); EM over missing entries records
        its iterations."""
        if reset:
            # Wide data: refuse at once rather than run for hours (wide_data.py).
            check_covariance_cost(self.covariance_type, len(self.classes_), X.shape[1])
            self.n_iter_, self.converged_ = 1, True  # the closed-form fit: one pass
            self.log_likelihood_history_ = np.empty(0)
        if self._base_family().needs_fourth_moments:
            self._add_fourth_moments(X, responsibilities, reset=reset)
        elif reset:
            self.fourth_moments_ = None
        super()._add_rows(X, responsibilities, reset=reset)
        if reset:
            self._keep_rows(X, responsibilities)
        elif self.joint_.rows is not None:  # rows added to a fit that kept its rows
            kept = self.joint_.rows
            added = (np.asarray(X, dtype=np.float64), np.asarray(responsibilities, np.float64))
            rows = joint.KeptRows(*(np.concatenate(pair) for pair in zip(kept, added, strict=True)))
            self.joint_ = self.joint_._replace(rows=rows)
        self._after_estimate()

    def _keep_rows(self, X, responsibilities) -> None:
        """Keep the rows behind the posterior of a fit by EM over missing entries (warning
        where a class's covariance is never seen whole); forget those of an earlier fit
        otherwise, or when the statistics were merged from blocks (``X`` None)."""
        rows = None
        if X is not None and self.fitted_with_missing_:
            rows = joint.KeptRows(
                np.array(X, dtype=np.float64), np.array(responsibilities, dtype=np.float64)
            )
            self._warn_few_complete_rows(X, np.asarray(responsibilities))
        self.joint_ = self.joint_._replace(rows=rows)

    def _add_fourth_moments(self, X, responsibilities, *, reset) -> None:
        """``fourth_moments_`` of the rows so far, which the Ledoit–Wolf intensity needs."""
        dtype = compute_dtype(X.dtype)
        if not reset and getattr(self, "fourth_moments_", None) is None:
            raise ValueError(
                "shrinkage='ledoit-wolf' was set after the first partial_fit call, whose rows "
                "were not kept; fit again with the shrinkage set from the start."
            )
        moments = self._base_family().for_rows(X, responsibilities).fourth_moments
        if not reset:
            with precision(dtype):
                moments = shrinkage.merge_fourth_moments(
                    as_jax(self.fourth_moments_, dtype), as_jax(moments, dtype)
                )
        self.fourth_moments_ = as_numpy(moments)

    def _after_estimate(self) -> None:
        """Record what the estimate used (``ridge_``, ``shrinkage_``: read off the family
        that made it, so that ``set_params`` alone does not change them), warn about
        classes resting on the ridge, and set Fisher's coordinates (``"tied"``)."""
        value = self.joint_
        family = self._feature_family()
        self.ridge_ = (
            np.asarray(value.frozen[0])
            if value.frozen is not None
            else np.asarray(family.ridge(value.feature_stats))
        )
        if self.shrinkage is None:
            self.__dict__.pop("shrinkage_", None)
        else:
            dtype = np.asarray(value.params.covariances).dtype
            with precision(dtype):
                intensity = family.shrinkage_intensity(np.shape(value.params.means)[0], dtype)
                self.shrinkage_ = (
                    float(intensity) if np.ndim(intensity) == 0 else np.asarray(intensity)
                )
        counts = np.asarray(value.class_stats.counts)
        self._warn_few_rows(counts, self.n_features_in_)
        if self.covariance_type != "tied":  # no coordinates, nor those of an earlier fit
            for name in ("scalings_", "xbar_", "explained_variance_ratio_"):
                self.__dict__.pop(name, None)
            return
        params = value.params
        if family.kept_components(*np.shape(params.means)) < min(
            len(self.classes_) - 1, self.n_features_in_
        ):  # the means are reduced: the coordinates come from the full-rank estimate
            _, _, params = family.estimate_full_rank(
                value.feature_stats, self.estimate, value.frozen
            )
        self._set_discriminant_coordinates(family, params, value.feature_stats.counts)

    def _set_discriminant_coordinates(self, family, params, counts) -> None:
        """``scalings_``, ``xbar_`` and ``explained_variance_ratio_`` of full-rank tied
        ``params``."""
        coordinates = family.discriminant_coordinates(params, counts)
        kept = family.kept_components(*np.shape(params.means))
        total = np.sum(coordinates.eigenvalues)
        ratios = (
            coordinates.eigenvalues / total
            if total > 0
            else np.zeros(coordinates.eigenvalues.shape[0])
        )
        self.scalings_ = coordinates.scalings
        self.xbar_ = coordinates.center
        self.explained_variance_ratio_ = ratios[:kept]

    def _refit_parameters(self):
        """Recompute the parameters from the stored statistics (after ``set_params``),
        under the prior the fit held; the class probabilities are kept."""
        value = self.joint_
        with precision(value.feature_stats.means.dtype):
            prior, params = self._base_family().estimate(
                value.feature_stats, self.estimate, value.frozen
            )
        self.joint_ = value._replace(feature_prior=prior, params=params)
        self._after_estimate()

    def _warn_few_complete_rows(self, X, responsibilities: np.ndarray) -> None:
        """Warn (`FewRowsWarning`) when a class's full covariance is never seen whole: fewer
        of its rows are complete than there are features.

        EM over the missing entries then estimates the covariance from blocks of it, and on
        small classes (wine: about 40 rows, 13 features, a fifth of the entries missing) it
        drifts onto the ridge: the class density is nearly singular and its probabilities
        overconfident (test log loss 14.7 against LDA's 0.17 on the issue's split).
        """
        if self.covariance_type != "full" or self.estimate not in ("mle", "unbiased"):
            return  # a prior ("map", "mean") keeps each covariance proper
        if self._is_regularised():
            return
        warn_few_complete_rows(
            self,
            X,
            responsibilities,
            "use reg_alpha to move it toward the pooled covariance (RDACV chooses reg_alpha "
            "by cross-validation), LDA, or GaussianNB.",
        )

    def _warn_few_rows(self, counts, n_features: int) -> None:
        """Warn (`FewRowsWarning`) when a class's own covariance rests on the ridge alone.

        With fewer rows than features a class's sample covariance is singular; under
        ``"mle"`` or ``"unbiased"`` only ``reg_covar`` makes it invertible, and the model of
        that class is then mostly the ridge (R's ``qda`` refuses such a class).
        """
        if self.covariance_type != "full" or self.estimate not in ("mle", "unbiased"):
            return
        counts = np.asarray(counts)
        # A class without rows yet (a partial_fit chunk) has no covariance to speak of.
        few = np.flatnonzero((counts > 0) & (counts < n_features))
        if few.size == 0 or self._is_regularised():
            return
        names = ", ".join(f"{str(self.classes_[k])!r} ({float(counts[k]):g} rows)" for k in few[:5])
        warnings.warn(
            f"{type(self).__name__}: class {names}{' ...' if few.size > 5 else ''} has fewer "
            f"rows than the {n_features} features, so its covariance is singular and only "
            f"the ridge reg_covar={self.reg_covar} makes it invertible; use estimate='map' "
            "(the prior keeps it proper), a larger reg_covar, or shrinkage.",
            FewRowsWarning,
            stacklevel=caller_stacklevel(),
        )

    def _is_regularised(self) -> bool:
        """Whether the point estimate departs from the conjugate one (RDA, shrinkage, a
        reduced rank)."""
        return self._base_family().is_regularised(len(self.classes_), self.n_features_in_)

    def _floor(self):
        """``(threshold, eps)`` of R's e1071 floor, or None (GaussianNB's ``threshold``)."""
        return None

    def _keep_value(self, value, X, responsibilities) -> None:
        """`FitByEM._keep_value`, with what ``_add_rows`` keeps beside the value: the fourth
        moments of the rows (Ledoit–Wolf), the rows behind a gappy fit's posterior, and
        ``ridge_``, ``shrinkage_`` and Fisher's coordinates of the value; statistics merged
        from blocks (``X`` None) carry no fourth moments and no rows."""
        if X is not None and self._base_family().needs_fourth_moments:
            self._add_fourth_moments(X, responsibilities, reset=True)
        else:
            self.fourth_moments_ = None
        self.joint_ = value
        self._keep_rows(X, responsibilities)
        self._after_estimate()
