"""The documentation of ``GaussianDA``'s regularisation, and reading its settings.

The regularised estimate itself is the family's
(`bayesgen.families.gaussian.regularised.RegularisedGaussian`).
"""

from __future__ import annotations

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
