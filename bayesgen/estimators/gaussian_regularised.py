"""``GaussianDA``'s regularised covariances (RDA, shrinkage) and reduced-rank class means.

These act on the point estimate only: the story, its prior and the conjugate posterior are
those of the unregularised model, so the exact posterior paths refuse a regularised fit.
"""

from __future__ import annotations

import numbers

import numpy as np

from bayesgen._lazy import lazy_module
from bayesgen.families.gaussian import fisher, shrinkage

jnp = lazy_module("jax.numpy")

SHRINKAGE_METHODS = ("ledoit-wolf",)

REGULARISATION_DOC = """
    reg_alpha : float in [0, 1], default=1.0
        Regularised discriminant analysis (Friedman 1989), ``covariance_type="full"``
        only: each class covariance becomes $\\alpha\\hat\\Sigma_k + (1-\\alpha)
        \\hat\\Sigma(\\gamma)$, a move toward the pooled covariance. ``1`` is QDA; ``0``
        with ``reg_gamma=1`` is LDA. Choose it by cross-validation with
        [`bayesgen.RDACV`][bayesgen.RDACV].
    reg_gamma : float in [0, 1], default=1.0
        With ``reg_alpha``: the pooled covariance used is $\\hat\\Sigma(\\gamma) =
        \\gamma\\hat\\Sigma + (1-\\gamma)\\hat\\sigma^2 I$, $\\hat\\sigma^2 =
        \\mathrm{tr}(\\hat\\Sigma)/d$. ``covariance_type="full"`` only (for ``"tied"``
        the same move is ``shrinkage=1 - reg_gamma``).
    shrinkage : None, "ledoit-wolf" or float in [0, 1], default=None
        Shrink each class covariance (``"full"``) or the pooled one (``"tied"``) toward
        $\\hat\\sigma^2 I$ with this intensity $s$: $(1-s)\\hat\\Sigma +
        s\\,\\hat\\sigma^2 I$. ``"ledoit-wolf"`` computes the intensity from the data
        (Ledoit and Wolf 2004, as ``sklearn.covariance.ledoit_wolf``; reported in
        ``shrinkage_``), which keeps the covariance invertible when a class has fewer rows
        than features. The target depends on the feature scales: standardise first.
"""

N_COMPONENTS_DOC = """
    n_components : int, optional
        The number of Fisher discriminant coordinates kept by `transform` (at most
        ``min(n_classes - 1, n_features)``, the default). Below that, the model is
        reduced-rank LDA: the class means are constrained to the first ``n_components``
        discriminant directions, so it classifies by the nearest class mean in those
        coordinates (with the log class priors), and sampling, densities and imputation
        use the same constrained means.
"""

REGULARISATION_ATTRIBUTES_DOC = """
    shrinkage_ : float or ndarray of shape (n_classes,)
        The shrinkage intensity used (``"full"``: one per class); only when ``shrinkage``
        is set.
    scalings_ : ndarray of shape (n_features, min(n_classes - 1, n_features))
        ``"tied"`` only: Fisher's discriminant directions $W$, with unit
        within-class variance ($W^\\top\\Sigma W = I$).
    xbar_ : ndarray of shape (n_features,)
        ``"tied"`` only: the count-weighted mean of the class means, the origin of
        `transform`.
    explained_variance_ratio_ : ndarray of shape (n_components,)
        ``"tied"`` only: each kept direction's share of the between-class variance.
"""


def _check_fraction(value, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not 0 <= value <= 1:
        raise ValueError(f"{name} must be a real number in [0, 1]; got {value!r}.")
    return float(value)


def check_regularisation(estimator) -> None:
    """Validate ``reg_alpha``, ``reg_gamma``, ``shrinkage`` and (``LDA``) ``n_components``."""
    covariance_type = estimator.covariance_type
    for name in ("reg_alpha", "reg_gamma"):
        value = _check_fraction(getattr(estimator, name), name)
        if value != 1 and covariance_type != "full":
            raise ValueError(
                f"{name} applies to covariance_type='full' (regularised discriminant "
                f"analysis); got {name}={value!r} with covariance_type={covariance_type!r}. "
                "For 'tied' use shrinkage=1 - reg_gamma."
            )
    shrink = estimator.shrinkage
    if shrink is not None:
        if isinstance(shrink, str):
            if shrink not in SHRINKAGE_METHODS:
                raise ValueError(
                    f"shrinkage must be None, 'ledoit-wolf' or a float in [0, 1]; got {shrink!r}."
                )
        else:
            _check_fraction(shrink, "shrinkage")
        if covariance_type not in ("full", "tied"):
            raise ValueError(
                "shrinkage applies to covariance_type='full' or 'tied' (a diagonal covariance "
                f"needs none); got covariance_type={covariance_type!r}."
            )
    n_components = rank(estimator)
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


def rank(estimator):
    """``n_components``: a parameter of ``LDA`` only, so absent from ``GaussianDA``.

    scikit-learn's estimator checks set ``n_components = 1`` on any estimator that has the
    attribute, which a per-class covariance cannot honour.
    """
    return getattr(estimator, "n_components", None)


def is_regularised(estimator) -> bool:
    """Whether the point estimate departs from the conjugate one (RDA, shrinkage, rank)."""
    reduced = rank(estimator) is not None and rank(estimator) < max_components(estimator)
    return bool(
        estimator.reg_alpha != 1
        or estimator.reg_gamma != 1
        or estimator.shrinkage is not None
        or reduced
    )


def max_components(estimator) -> int:
    """``min(n_classes - 1, n_features)``."""
    return min(estimator.classes_.shape[0] - 1, estimator.n_features_in_)


def needs_fourth_moments(estimator) -> bool:
    """Whether the Ledoit–Wolf intensity, and so the fourth moments, are needed."""
    return isinstance(estimator.shrinkage, str)


def regularise(estimator, params, pooled_covariance):
    """Apply shrinkage and RDA to the covariances of ``params`` (before the ridge).

    ``pooled_covariance`` is a thunk giving the pooled point estimate (only evaluated for
    RDA). Sets ``shrinkage_`` when ``shrinkage`` is set, and deletes a stale one otherwise.
    """
    covariances = params.covariances
    if estimator.shrinkage is not None:
        if needs_fourth_moments(estimator):
            intensity = shrinkage.ledoit_wolf_intensity(
                estimator.fourth_moments_, pooled=estimator.covariance_type == "tied"
            )
        elif estimator.covariance_type == "full":
            intensity = jnp.full(covariances.shape[0], estimator.shrinkage, covariances.dtype)
        else:
            intensity = jnp.asarray(estimator.shrinkage, covariances.dtype)
        covariances = shrinkage.shrink_toward_identity(covariances, intensity)
        estimator.shrinkage_ = (
            float(intensity) if estimator.covariance_type == "tied" else np.asarray(intensity)
        )
    elif hasattr(estimator, "shrinkage_"):
        del estimator.shrinkage_
    if estimator.covariance_type == "full" and (estimator.reg_alpha, estimator.reg_gamma) != (1, 1):
        covariances = shrinkage.regularised_covariances(
            covariances, pooled_covariance(), estimator.reg_alpha, estimator.reg_gamma
        )
    return params._replace(covariances=covariances)


def discriminant_coordinates(estimator, params, counts):
    """Set ``scalings_``, ``xbar_`` and ``explained_variance_ratio_``; reduce the means.

    ``params`` are the final tied parameters (ridge included); returns them with the class
    means constrained to ``n_components`` directions when that is below the maximum.
    """
    means = np.asarray(params.means, dtype=np.float64)
    covariance = np.asarray(params.covariances, dtype=np.float64)
    n_max = max_components(estimator)
    if rank(estimator) is not None and rank(estimator) > n_max:
        raise ValueError(
            f"n_components must be <= min(n_classes - 1, n_features) = {n_max}; got "
            f"{rank(estimator)}."
        )
    coordinates = fisher.discriminant_coordinates(means, np.asarray(counts), covariance)
    kept = n_max if rank(estimator) is None else rank(estimator)
    total = np.sum(coordinates.eigenvalues)
    ratios = coordinates.eigenvalues / total if total > 0 else np.zeros(n_max)
    estimator.scalings_ = coordinates.scalings
    estimator.xbar_ = coordinates.center
    estimator.explained_variance_ratio_ = ratios[:kept]
    if kept == n_max:
        return params
    reduced = fisher.reduced_rank_means(means, covariance, coordinates, kept)
    return params._replace(means=jnp.asarray(reduced, params.means.dtype))
