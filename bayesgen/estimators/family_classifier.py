"""``FamilyClassifier``: a generative classifier over any class-density family."""

from __future__ import annotations

from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import validate_data

from bayesgen.estimators.hyperparameters import EM_KEYWORDS, NAIVE_BAYES_KEYWORDS
from bayesgen.estimators.naive_bayes_prior import NaiveBayesClassPrior
from bayesgen.families.component_mixture import MixtureFamily
from bayesgen.families.composite import CompositeFamily
from bayesgen.families.gaussian import GaussianFamily
from bayesgen.families.protocol import FeatureFamily
from bayesgen.inference.semi_supervised import UNLABELED_MARKER_DOC
from bayesgen.validation import _check_finite


def default_family() -> MixtureFamily:
    """Two diagonal Gaussian components per class."""
    return MixtureFamily(GaussianFamily("diag"), n_components=2)


class FamilyClassifier(NaiveBayesClassPrior):
    #: Registered (exported, whitelisted for model files) with no command-line name: a
    #: family is a value the command line has no syntax for.
    model_name = None
    min_classes = 1  # one class: the family's density of the whole table
    __doc__ = (
        r"""A generative classifier whose class densities are any feature family.

    $$
    \pi \sim \mathrm{Dirichlet}, \quad y \sim \mathrm{Categorical}(\pi), \quad
    x \mid y = k \sim p_{\text{family}}(x \mid \theta_k).
    $$

    The family is a value such as ``PoissonFamily()`` or, for classes with several
    clusters, ``MixtureFamily(leaf, n_components=M)`` over any leaf family (Poisson,
    Bernoulli, categorical, diagonal Gaussian, ...): a class density of the mixture is
    fitted by EM (`bayesgen.inference.mixture_family_em`), any other in closed form. The
    estimator is a view of its fitted joint (``joint_``), so every use of the density
    (``predict_proba``, ``score_samples``, ``sample``, ``impute``, model files) works for a
    new family with no code here.

    Parameters
    ----------
    family : FeatureFamily, optional
        The class densities; by default two diagonal Gaussian components per class
        (`default_family`). A mixture with ``n_components="auto"`` gets each class's count
        in fit (``n_components_``).
    estimate : {"map", "mle", "mean"}, default="map"
        The point estimate of the parameters (the M-step of EM). With ``"map"`` or
        ``"mle"`` EM never decreases its objective (``log_likelihood_history_``).
    fit_prior : bool, default=True
        Class probabilities from the training frequencies; if False uniform.
    class_prior : array-like of shape (n_classes,), optional
        Known class probabilities, used as they are.
    max_iter : int, default=100
        Most EM iterations of a mixture family.
    tol : float, default=1e-6
        EM stops when its objective changes by at most ``tol`` times its size.
    n_init : int, default=1
        Starts of a mixture family's EM from random memberships; the best is kept.
    random_state : None, int or numpy.random.RandomState
        Seeds the starts: the same value gives the same fit.
"""
        + """    unlabeled_weight : float, default=1.0
        The weight of an unlabelled row relative to a labelled one (EM over the classes).
    n_classes : int, optional
        Number of classes when no row is labelled (clustering).
"""
        + UNLABELED_MARKER_DOC
        + """
    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    class_count_, class_prior_ : ndarray of shape (n_classes,)
    joint_ : FittedJoint
        The fitted value (`bayesgen.joint`): ``family_`` and ``joint_`` are the model.
    family_ : FeatureFamily
        The family, with what the fit learned about the columns.
    n_iter_ : int
    converged_ : bool
    fitted_with_unlabeled_ : bool
        Whether the last fit had unlabelled rows (EM over them; no exact posterior then).
    log_likelihood_history_ : ndarray of shape (n_iter_,)
        A mixture family's EM objective per iteration (empty for a closed-form fit).
    n_components_ : ndarray of int of shape (n_classes,)
        Only for a mixture family with ``n_components="auto"``: each class's count, chosen
        by 3-fold held-out log-likelihood among 1 to 5 (the fewest within one standard
        error of the best; the candidates' EM starts from ``n_init`` random memberships).
    component_choice_ : ComponentChoice
        With ``n_components="auto"``: the chosen ``counts``, the ``candidates`` and each
        class's held-out mean log-likelihood per row, ``scores`` of shape
        (n_candidates, n_folds, n_classes).
    n_features_in_ : int

    Examples
    --------
    Every count is 1 or 8 half the time in both classes; only how the counts move together
    differs (class 1 flips the middle one). Naive Bayes sees no difference; two Poisson
    components per class see it:

    >>> import numpy as np
    >>> from bayesgen import FamilyClassifier, PoissonNB
    >>> from bayesgen.families.component_mixture import MixtureFamily
    >>> from bayesgen.families.poisson import PoissonFamily
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 2, 600)
    >>> high = rng.integers(0, 2, 600)
    >>> pattern = np.array([[0, 0, 0], [0, 1, 0]])[y]
    >>> X = rng.poisson(np.where((high[:, None] + pattern) % 2 == 1, 8.0, 1.0))
    >>> model = FamilyClassifier(family=MixtureFamily(PoissonFamily(), 2), random_state=0)
    >>> round(model.fit(X, y).score(X, y), 2), round(PoissonNB().fit(X, y).score(X, y), 2)
    (0.96, 0.62)
"""
    )

    hyperparameters = {"family": None, **NAIVE_BAYES_KEYWORDS, "estimate": "map", **EM_KEYWORDS}

    #: A family that cannot skip missing entries (a Gaussian leaf) fits them by EM.
    fits_missing_by_em = True
    # The counts a mixture's n_components="auto" chose in the last fit, and the report.
    _state_beside_value = ("n_components_", "component_choice_")

    def _base_family(self) -> FeatureFamily:
        family = default_family() if self.family is None else self.family
        if not isinstance(family, FeatureFamily):
            raise ValueError(
                "family must be a feature family (such as PoissonFamily() or "
                f"MixtureFamily(PoissonFamily(), 3)); got {type(family).__name__} {family!r:.60}."
            )
        if isinstance(getattr(family, "leaf", family), CompositeFamily):
            raise ValueError(
                "family must model every column alike; a CompositeFamily gives groups of "
                "columns their own families, which MixedNB(features={column: family}) fits."
            )
        counts = self.__dict__.get("n_components_")
        if counts is not None and getattr(family, "chooses_counts", False):
            return family.with_counts(counts)  # those "auto" chose in fit
        return family

    def _check_hyperparameters(self):
        super()._check_hyperparameters()
        self._base_family().check_estimate(self.estimate)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = False  # its check reads dense columns (check_columns)
        return tags

    def _needs_em(self) -> bool:
        return bool(getattr(self._base_family(), "statistics_need_parameters", False))

    @available_if(lambda self: not self._needs_em())
    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """As `GenerativeClassifier.partial_fit`; absent for a family fitted by EM (a
        mixture), whose memberships of earlier rows change with the parameters."""
        return super().partial_fit(X, y, classes=classes, sample_weight=sample_weight)

    def _check_X(self, X, *, reset):
        categories = self._base_family().column_values == "categories"
        X = validate_data(
            self,
            X,
            reset=reset,
            dtype=None if categories else "numeric",
            ensure_all_finite=False,
        )
        names = getattr(self, "feature_names_in_", None)
        X = self._base_family().check_columns(X, owner=type(self).__name__, columns=names)
        if X.dtype.kind in "fc":
            _check_finite(X, self, allow_nan=True)
        return X

    def fit(self, X, y, sample_weight=None):
        """Fit the class densities: by EM for a mixture family, else in closed form.

        As `GenerativeClassifier.fit`. Rows without a label are fitted by EM over the
        classes; with a family that is itself fitted by EM (a mixture), each M-step
        continues the components' EM from the current parameters on the new class weights
        (generalised EM: the objective never decreases; `bayesgen.inference.fit_rows.m_step`).

        Returns
        -------
        self
        """
        return super().fit(X, y, sample_weight=sample_weight)  # counts chosen afresh
