"""``LDA`` and ``QDA(covariance_estimator=...)``: covariances from any scikit-learn estimator.

As in scikit-learn's discriminant analysis, the estimator is fitted to each class's rows on
their own (it centres them). ``QDA`` keeps each class's covariance; for ``LDA`` the shared
covariance is their average weighted by the class probabilities, $\\Sigma = \\sum_k
\\pi_k \\hat\\Sigma_k$. The estimator needs the rows, not only their statistics, so such a model
is fitted by ``fit`` alone (no ``partial_fit``, no unlabelled rows, no missing values) and
has no conjugate posterior.
"""

from __future__ import annotations

import copy

import numpy as np
from sklearn.base import clone

from bayesgen._lazy import lazy_module
from bayesgen._precision import precision
from bayesgen.families import gaussian
from bayesgen.families.gaussian import GaussianParams
from bayesgen.inference.semi_supervised import unlabeled_rows

jnp = lazy_module("jax.numpy")

COVARIANCE_ESTIMATOR_DOC = """
    covariance_estimator : estimator, optional
        A scikit-learn covariance estimator (``sklearn.covariance.LedoitWolf()``, ``OAS()``,
        ...: anything with ``fit`` and a ``covariance_``). When given it replaces the
        point estimate of the shared covariance: it is fitted to each class's rows and the
        class covariances are averaged with the class probabilities as weights, as
        scikit-learn's ``LinearDiscriminantAnalysis(solver="lsqr")`` does; ``reg_covar``'s
        ridge is added. The class means follow ``estimate`` (the class means themselves
        under ``"mle"``). Only ``fit`` is supported then (rows are needed, not statistics),
        without unlabelled rows, missing values or ``shrinkage``, and the model has no
        parameter posterior. The object given is not fitted itself: a copy is
        (``sklearn.base.clone``, or a deep copy of an object without ``get_params``).
"""


QDA_COVARIANCE_ESTIMATOR_DOC = """
    covariance_estimator : estimator, optional
        A scikit-learn covariance estimator (``sklearn.covariance.LedoitWolf()``, ``OAS()``,
        ...: anything with ``fit`` and a ``covariance_``). When given, each class's
        covariance is the estimator fitted to that class's rows, as in scikit-learn's
        ``QuadraticDiscriminantAnalysis(solver="eigen")``; ``reg_covar``'s ridge is added
        and the class means follow ``estimate``. Only ``fit`` is supported then, without
        unlabelled rows, missing values or ``shrinkage``, and the model has no parameter
        posterior. The object given is not fitted itself: a copy is.
"""


def check_rows(estimator, X, y, sample_weight) -> None:
    """Refuse, before any fitting, what a covariance estimator cannot be fitted from or
    would silently override."""
    if sample_weight is not None:
        raise ValueError(
            "covariance_estimator does not take sample weights (scikit-learn's covariance "
            "estimators have none); fit without sample_weight or without the estimator."
        )
    if not hasattr(estimator.covariance_estimator, "fit"):
        raise ValueError(
            "covariance_estimator must be a scikit-learn covariance estimator (with fit and "
            f"covariance_); got {estimator.covariance_estimator!r}."
        )
    if estimator.shrinkage is not None:
        raise ValueError(
            f"covariance_estimator and shrinkage={estimator.shrinkage!r} are both set; only "
            "one of the two can be (as in scikit-learn): the estimator's covariance would "
            "replace the shrunk one."
        )
    if (estimator.reg_alpha, estimator.reg_gamma) != (1, 1):
        raise ValueError(
            f"covariance_estimator and reg_alpha={estimator.reg_alpha!r}, "
            f"reg_gamma={estimator.reg_gamma!r} are both set; the estimator's covariances "
            "would replace the regularised ones. Leave reg_alpha and reg_gamma at 1."
        )
    if (
        y is not None
        and unlabeled_rows(np.ravel(np.asarray(y, dtype=object)), estimator.unlabeled_marker).any()
    ):
        raise ValueError(
            "covariance_estimator cannot be fitted with unlabelled rows (y = -1 or None)."
        )
    try:
        values = np.asarray(X, dtype=np.float64)
    except (TypeError, ValueError):
        values = None  # fit's own validation names what is wrong with X
    if values is not None and np.isnan(values).any():
        raise ValueError(
            "covariance_estimator needs complete rows, and X contains NaN (missing values); "
            "impute them first."
        )


def _fitted_copy(covariance_estimator, rows: np.ndarray):
    """A fitted copy of ``covariance_estimator`` (the user's object stays unfitted) and its
    ``covariance_``.

    Raises
    ------
    ValueError
        When the fitted copy has no ``covariance_``.
    """
    if hasattr(covariance_estimator, "get_params"):
        fitted = clone(covariance_estimator)
    else:  # scikit-learn accepts any object with fit and covariance_
        fitted = copy.deepcopy(covariance_estimator)
    fitted.fit(rows)
    covariance = getattr(fitted, "covariance_", None)
    if covariance is None:
        raise ValueError(
            f"covariance_estimator {type(covariance_estimator).__name__} has no covariance_ "
            "attribute after fit; it must be a covariance estimator such as "
            "sklearn.covariance.LedoitWolf()."
        )
    return np.atleast_2d(np.asarray(covariance, dtype=np.float64))


def install(estimator, X: np.ndarray, y: np.ndarray) -> None:
    """Replace the fitted covariances by the estimator's (a shared one for ``"tied"``, the
    class-probability average of the class fits; one per class for ``"full"``). ``X`` and
    ``y`` passed `check_rows`."""
    n_features = X.shape[1]
    ridge = np.diag(np.broadcast_to(estimator.ridge_, (n_features,)))
    per_class = np.stack(
        [
            _fitted_copy(estimator.covariance_estimator, X[y == label])
            for label in estimator.classes_
        ]
    )
    tied = estimator.covariance_type == "tied"
    if tied:
        covariance = np.einsum("k,kij->ij", estimator.class_prior_, per_class) + ridge
    else:
        covariance = per_class + ridge
    dtype = estimator.covariances_.dtype
    # The means of the point estimate ``estimate`` names (the class means under "mle").
    means = gaussian.point_estimate(
        estimator.prior_, estimator.suff_stats_, estimator.covariance_type, estimator.estimate
    ).means
    with precision(dtype):
        params = GaussianParams(jnp.asarray(means, dtype), jnp.asarray(covariance, dtype))
        family = estimator.family_
        family.check_positive_definite(params)
        if tied:
            counts = estimator.suff_stats_.counts
            estimator._set_discriminant_coordinates(family, params, counts)
            params = family.reduce_rank(params, counts)
    estimator.means_ = np.asarray(params.means)
    estimator.covariances_ = np.asarray(params.covariances)
