"""Mixture discriminant analysis: ``MixtureDA``, a Gaussian mixture density per class."""

from __future__ import annotations

import numpy as np
from sklearn.utils import check_random_state

from bayesgen.estimators.base import GenerativeClassifier
from bayesgen.estimators.fitted_attribute import fitted_attribute
from bayesgen.estimators.gaussian import NORMAL_WISHART_KEYWORDS
from bayesgen.estimators.hyperparameters import EM_KEYWORDS
from bayesgen.families import gaussian
from bayesgen.families.component_mixture import (
    MixtureFamily,
)
from bayesgen.families.gaussian.group_tied import GroupTiedGaussian
from bayesgen.families.gaussian_mixture import GaussianMixtureFamily
from bayesgen.inference import mixture_start
from bayesgen.inference.semi_supervised import EM_PARAMETERS_DOC
from bayesgen.missing import at_column_means, has_missing
from bayesgen.validation import (
    warn_few_complete_rows,
)

INIT_PARAMS = ("kmeans", "random")


class MixtureDA(GenerativeClassifier):
    model_name = "mixture-da"
    # The counts of the fit (fixed or chosen), so that set_params cannot change what the
    # fitted value means; and the automatic choice's report.
    _state_beside_value = ("n_components_", "component_choice_")
    min_classes = 1  # one class: a Gaussian mixture of the whole table
    __doc__ = (
        r"""Mixture discriminant analysis: a mixture of Gaussians as each class's density.

    $$
    p(x \mid k) = \sum_{m=1}^{M_k} w_{km}\,\mathcal N(x; \mu_{km}, \Sigma_{km}),
    \qquad p(k \mid x) \propto \pi_k\, p(x \mid k).
    $$

    Each class's mixture is fitted by EM on that class's rows, weighted by the
    responsibilities $R_{ik}$ (one-hot times the sample weight; soft when ``y`` has
    unlabelled rows): with $\gamma_{ikm} \propto w_{km}\,\mathcal N(x_i; \mu_{km},
    \Sigma_{km})$ normalised over $m$, the M-step is the Gaussian point estimate
    from $N_{km} = \sum_i R_{ik}\gamma_{ikm}$, $\bar x_{km}$ and the centred
    scatter weighted by $R_{ik}\gamma_{ikm}$, and $w_{km} \propto N_{km}$
    (``"map"``: the Normal–Inverse-Wishart mode per component and the
    Dirichlet(``weight_concentration_prior``) mode of $w_k$). Missing entries (NaN)
    join the same EM through their exact expected statistics, and are integrated out when
    predicting. The model is a view of its fitted value ``joint_``: a mixture family per
    class over Gaussian leaves (``bayesgen.families.component_mixture.MixtureFamily``, fitted
    by ``bayesgen.inference.mixture_family_em``). The generative story is
    [`bayesgen.stories.mixture.mixture_story`][bayesgen.stories.mixture_story].
    With ``n_components=1`` this is [`bayesgen.GaussianDA`][bayesgen.GaussianDA] (``"tied"`` then
    means
    one covariance per class, i.e. GaussianDA's ``"full"``).

    Parameters
    ----------
    n_components : int, sequence of int or "auto", default=2
        Gaussian components per class $M_k$; one value for every class, or one per
        class in the order of ``classes_``. Each class needs at least that many rows with
        positive weight. ``"auto"``: each class's $M_k$ among 1 to 5, chosen by 3-fold
        held-out log-likelihood of its rows (the fewest within one standard error of the
        best; `bayesgen.inference.component_count`), reported in ``component_choice_``.
    covariance_type : {"full", "tied", "diag", "spherical"}, default="full"
        As in ``sklearn.mixture.GaussianMixture``, within each class: a covariance per
        component, one covariance shared by a class's components, diagonal per component,
        or one variance per component.
    estimate : {"mle", "map"}, default="mle"
        Maximum likelihood, or the posterior mode under the Normal–Inverse-Wishart prior
        of each component and the Dirichlet prior of each class's weights.
    init_params : {"kmeans", "random"}, default="kmeans"
        How each class's EM starts: from ``sklearn.cluster.KMeans`` on the class's rows
        (weighted by their responsibilities; missing entries at the column means), or from
        random memberships (as ``GaussianMixture(init_params="random")``).
    n_init_components : int, default=1
        Starts of each class's EM; each class keeps its run of highest objective.
    priors : array-like of shape (n_classes,), optional
        Known class probabilities; when given they are used as they are, not estimated.
    reg_covar : float, default=1e-6
        Ridge added to every covariance, relative to each feature's variance over all
        training rows ($\Sigma + \lambda\,\mathrm{diag}(v)$, as in ``GaussianDA``;
        the spherical type uses the mean variance). ``0`` disables it.
    class_concentration_prior : float, default=1.0
        Concentration of the symmetric Dirichlet prior on the class probabilities.
    weight_concentration_prior : float, default=1.0
        Concentration $\beta$ of the symmetric Dirichlet prior on each class's
        component weights (used by ``"map"``; 1 leaves the weights at their MLE).
    mean_prior, mean_precision_prior, degrees_of_freedom_prior, covariance_prior
        The Normal–Inverse-Wishart prior $(m_0, \kappa_0, \nu_0, \Psi_0)$ of every
        component, with ``GaussianDA``'s meaning and defaults (the mean and covariance of
        all training rows; $\nu_0 = d + 2$, or 3 for diag/spherical).
    max_iter : int, default=100
        Most EM iterations (of each class's EM, and of the EM over unlabelled rows).
    tol : float, default=1e-6
        EM stops when its objective changes by at most ``tol`` times its size; with
        missing entries, when it is within ``tol`` times its size of the limit Aitken's
        extrapolation predicts from its last three values (`bayesgen.inference.em`).
"""
        + EM_PARAMETERS_DOC.lstrip("\n")
        + r"""
    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    class_count_ : ndarray of shape (n_classes,)
        Weighted number of training rows per class.
    class_prior_ : ndarray of shape (n_classes,)
    n_components_ : ndarray of int of shape (n_classes,)
        $M_k$. ``M = max(M_k)`` sizes the arrays below; a class's components past
        its own $M_k$ have weight 0 (and parameters that are never used).
    weights_ : ndarray of shape (n_classes, M)
    means_ : ndarray of shape (n_classes, M, n_features)
    covariances_ : ndarray
        ``(n_classes, M, n_features, n_features)`` full, ``(n_classes, n_features,
        n_features)`` tied, ``(n_classes, M, n_features)`` diag, ``(n_classes, M)``
        spherical; the ridge is included.
    prior_ : NormalInverseWishart
        The component prior with its defaults resolved from the training data.
    ridge_ : ndarray of shape (n_features,), or a scalar for ``"spherical"``
    suff_stats_ : GaussianStats
        The components' (expected) statistics at convergence, ``n_classes * M`` of them.
    n_iter_ : int
    converged_ : bool
    fitted_with_unlabeled_ : bool
        Whether the last fit had unlabelled rows (EM over them; no exact posterior then).
    log_likelihood_history_ : ndarray of shape (n_iter_,)
        The objective per EM iteration, summed over classes: $\sum_k \sum_i R_{ik}
        \log p(x_{i,o} \mid k)$ (plus the log prior of the weights, means and covariances
        for ``"map"``, the weights' Dirichlet without its normalising constant); it never
        decreases. With unlabelled rows it is the objective of the
        EM over them (``GaussianDA``'s).
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (n_features_in_,)
    component_choice_ : ComponentChoice
        With ``n_components="auto"``: the chosen ``counts``, the ``candidates`` and each
        class's held-out mean log-likelihood per row, ``scores`` of shape
        (n_candidates, n_folds, n_classes).
    joint_ : FittedJoint
        The fitted value: the mixture family's statistics, prior and parameters (its leaf's
        over the ``n_classes * M`` components), and the ridge and prior EM held.

    Examples
    --------
    Two blobs per class, interleaved along the first axis, so that each class's mean and
    covariance alone (QDA) barely separate them:

    >>> import numpy as np
    >>> from bayesgen import QDA, MixtureDA
    >>> rng = np.random.default_rng(0)
    >>> centres = np.array([[-7.5, 0], [2.5, 0], [-2.5, 0], [7.5, 0]])
    >>> blob = rng.integers(0, 4, 400)
    >>> X, y = centres[blob] + rng.normal(size=(400, 2)), blob // 2
    >>> model = MixtureDA(random_state=0).fit(X, y)
    >>> float(model.score(X, y)), float(QDA().fit(X, y).score(X, y))
    (0.995, 0.5325)
    >>> np.sort(model.means_[:, :, 0], axis=1).round(1)
    array([[-7.3,  2.4],
           [-2.7,  7.5]])
"""
    )

    hyperparameters = {
        "n_components": 2,
        "covariance_type": "full",
        "estimate": "mle",
        "init_params": "kmeans",
        "n_init_components": 1,
        "priors": None,
        "reg_covar": 1e-6,
        "class_concentration_prior": 1.0,
        "weight_concentration_prior": 1.0,
        **NORMAL_WISHART_KEYWORDS,
        **EM_KEYWORDS,
    }

    # ------------------------------------------------------------ the family
    def _check_hyperparameters(self):
        gaussian.check_covariance_type(self.covariance_type)
        if self.estimate not in ("mle", "map"):
            raise ValueError(
                f"estimate must be 'mle' or 'map' for {type(self).__name__} (EM maximises "
                f"the likelihood or the posterior density); got {self.estimate!r}."
            )
        if self.init_params not in INIT_PARAMS:
            raise ValueError(f"init_params must be one of {INIT_PARAMS}; got {self.init_params!r}.")
        if isinstance(self.n_components, str):
            if self.n_components != "auto":
                raise ValueError(
                    "n_components must be an integer >= 1, a sequence of them (one per "
                    f"class) or 'auto'; got {self.n_components!r}."
                )
        else:
            try:
                MixtureFamily(gaussian.GaussianFamily(), self.n_components).check()
            except ValueError:
                raise ValueError(
                    "n_components must be an integer >= 1, a sequence of them (one per "
                    f"class) or 'auto'; got {self.n_components!r}."
                ) from None
        super()._check_hyperparameters()

    def _class_prior_settings(self):
        return self.priors, self.class_concentration_prior, self.estimate

    def _gaussian(self) -> gaussian.GaussianFamily:
        """The Gaussian family of the hyperparameters (its covariance type as given)."""
        return gaussian.GaussianFamily.of(self)

    def _is_auto(self) -> bool:
        return isinstance(self.n_components, str) and self.n_components == "auto"

    def _base_family(self) -> GaussianMixtureFamily:
        """A mixture per class over Gaussian components: the counts of the fit once there
        is one (``n_components_``), else those asked for (``"auto"`` is chosen in fit,
        `FitByEM._family_with_counts`)."""
        counts = self.__dict__.get("n_components_")
        if counts is not None:
            counts = tuple(np.asarray(counts).tolist())
        else:
            counts = self.n_components
        return self._family_for(counts)

    def _family_for(self, counts) -> GaussianMixtureFamily:
        """The mixture with ``counts`` components per class (or ``"auto"``); ``"tied"``
        shares one covariance among a class's components (`GroupTiedGaussian`)."""
        leaf = self._gaussian()
        if self.covariance_type == "tied":
            settings = {
                name: getattr(self, name)
                for name in gaussian.GaussianFamily.HYPERPARAMETERS
                if name != "covariance_type"
            }
            leaf = GroupTiedGaussian(MixtureFamily(leaf, counts).size, **settings)
        return GaussianMixtureFamily(leaf, counts, self.weight_concentration_prior)

    def _em_frozen(self, family, X, R: np.ndarray):
        """The components' ridge and prior, held through EM
        (`bayesgen.inference.mixture_start.held_ridge_and_prior`)."""
        return mixture_start.held_ridge_and_prior(self._gaussian(), X, R)

    def fit(self, X, y, sample_weight=None):
        """Fit the class mixtures (see the class docstring); the counts are fixed, or with
        ``"auto"`` chosen, once per call, before any restart of EM over unlabelled rows.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            NaN marks a missing entry.
        y : array-like of shape (n_samples,)
            Labels; ``unlabeled_marker`` marks an unlabelled row.
        sample_weight : array-like of shape (n_samples,), optional

        Returns
        -------
        MixtureDA
        """
        return super().fit(X, y, sample_weight=sample_weight)  # counts chosen afresh

    def _fit_by_em(self, family, X, R: np.ndarray, value) -> None:
        if value is None and "n_components_" not in self.__dict__ and not self._is_auto():
            self.n_components_ = self._given_counts(R)
            family = self._base_family()
        family = self._family_with_counts(family, X, R)
        self._check_rows_per_component(R)
        if has_missing(X):
            self._warn_few_complete_rows(family, X, R)
        super()._fit_by_em(family, X, R, value)

    def _given_counts(self, R: np.ndarray) -> np.ndarray:
        """Each class's $M_k$ as ``n_components`` gives it."""
        n_classes = R.shape[1]
        counts = np.asarray(self.n_components, dtype=int)
        if counts.ndim == 1 and counts.shape != (n_classes,):
            raise ValueError(
                f"n_components must have one entry per class ({n_classes}: "
                f"{self.classes_.tolist()}); got {counts.shape[0]} entries."
            )
        return np.broadcast_to(counts, (n_classes,)).copy()

    def _check_rows_per_component(self, R: np.ndarray) -> None:
        counts = np.asarray(self.n_components_)
        rows = np.count_nonzero(R > 0, axis=0)
        for k in np.flatnonzero(rows < counts):
            raise ValueError(
                f"n_components={counts[k]} for class {self.classes_[k]!r} needs at least "
                f"{counts[k]} rows of that class with positive weight (one per component); "
                f"found {rows[k]}."
            )

    def _candidate_start(self, family, X, R: np.ndarray, rng) -> dict:
        """A candidate count's one start, as `_em_starts` makes them (k-means or random
        memberships within each class, from ``rng``)."""
        start = mixture_start.initial_memberships(
            at_column_means(X), R, family.active(R.shape[1]), self.init_params, rng
        )
        return {"start": start}

    def _warn_few_complete_rows(self, family, X, R: np.ndarray) -> None:
        """Warn (`FewRowsWarning`) when a class's full covariances are never seen whole:
        fewer complete rows than features per covariance ("full": each component has its
        own; "tied": one per class), under an estimate without a prior to keep them proper."""
        if self.covariance_type not in ("full", "tied") or self.estimate != "mle":
            return
        components = None
        if self.covariance_type == "full":
            components = family.active(R.shape[1]).sum(axis=1)
        warn_few_complete_rows(
            self,
            X,
            R,
            "use estimate='map' (the prior keeps every covariance proper), fewer "
            "components, or covariance_type='diag'.",
            components,
        )

    def _em_starts(self, X, R: np.ndarray) -> list:
        """``n_init_components`` starting memberships (n, K, M): k-means on each class's
        rows (weighted by their responsibilities; missing entries at the column means), or
        random memberships, from one generator seeded by ``random_state``."""
        active = self._base_family().active(R.shape[1])
        rng = check_random_state(self.random_state)
        filled = at_column_means(X)
        return [
            mixture_start.initial_memberships(filled, R, active, self.init_params, rng)
            for _ in range(self.n_init_components)
        ]

    # ------------------------------------------------------ fitted attributes
    weights_ = fitted_attribute(
        lambda self, value: np.asarray(value.params.weights),
        doc="$w_{km}$, shape (n_classes, M).",
    )
    means_ = fitted_attribute(
        lambda self, value: self._base_family().sites(value.params)["means"],
        doc="$\\mu_{km}$, shape (n_classes, M, n_features).",
    )
    covariances_ = fitted_attribute(
        lambda self, value: self._base_family().sites(value.params)["covariances"],
        doc="The components' covariances, laid out as ``covariance_type`` says.",
    )
    prior_ = fitted_attribute(
        lambda self, value: value.feature_prior.leaves,
        doc="The components' Normal–Inverse-Wishart prior, its defaults resolved.",
    )
    ridge_ = fitted_attribute(
        lambda self, value: np.asarray(value.frozen[0]),
        doc="The ridge added to every covariance.",
    )
    suff_stats_ = fitted_attribute(
        lambda self, value: value.feature_stats.leaves,
        doc="The components' (expected) statistics, ``n_classes * M`` of them.",
    )
