"""``ComplementNB``: Rennie et al.'s complement naive Bayes, a heuristic with no story."""

from __future__ import annotations

import numpy as np
from sklearn.utils.metaestimators import available_if

from bayesgen.estimators.fitted_attribute import fitted_attribute
from bayesgen.estimators.hyperparameters import check_flag
from bayesgen.estimators.naive_bayes_prior import NaiveBayesClassPrior
from bayesgen.families.complement import ComplementWeights
from bayesgen.inference import semi_supervised


class NoGenerativeStory(TypeError):
    """A use of the joint density asked of ComplementNB, which has no generative story."""


_NO_STORY = (
    "ComplementNB is a heuristic classifier, not a generative model: its weights come from "
    "the counts of the *other* classes, which describe no distribution of x given the "
    "class, so it has no story to {what}. Use MultinomialNB for a generative model of "
    "counts."
)


def _has_density(_estimator) -> bool:
    """``score_samples`` is absent (``hasattr`` is False): complement NB has no density."""
    return False


class ComplementNB(NaiveBayesClassPrior):
    """Complement naive Bayes (Rennie et al. 2003), as scikit-learn's ``ComplementNB``.

    A **heuristic**, not a generative model: each class's weights are estimated from the
    word counts of all *other* classes,

    $$
    \\hat\\theta_{\\bar k j} = \\frac{\\alpha + \\sum_{l \\ne k} C_{lj}}
    {\\sum_{j'} (\\alpha + \\sum_{l \\ne k} C_{lj'})}, \\qquad
    w_{kj} = -\\log\\hat\\theta_{\\bar k j}
    $$

    (with ``norm=True``, $w_{kj} = \\log\\hat\\theta_{\\bar kj} / \\sum_{j'}
    \\log\\hat\\theta_{\\bar kj'}$), and a row scores $x \\cdot w_k$. This corrects
    multinomial naive Bayes on unbalanced classes, but $\\exp(x \\cdot w_k)$ is no
    density of $x$ given $k$, so there is no generative story: ``sample``, ``story``,
    ``impute`` and the parameter posterior refuse with an error, ``score_samples`` is
    absent, and
    ``predict_proba`` is the softmax of the scores (as scikit-learn's), not a posterior
    probability. As in scikit-learn the class prior is fitted (``class_log_prior_``) but
    not used by the scores when there are two or more classes, which a classifier here
    always has.

    The statistics are the per-class feature sums ``R^T X`` of
    [`MultinomialNB`][bayesgen.MultinomialNB], so ``partial_fit`` and sample weights work
    as there; rows labelled as unlabelled (-1) are refused, since EM needs a likelihood.

    Parameters
    ----------
    alpha : float or array-like of shape (n_features,), default=1.0
        Additive smoothing of the complement counts.
    norm : bool, default=False
        Normalise each class's weights (the second normalisation of Rennie et al.).
    fit_prior : bool, default=True
        As in scikit-learn: only for ``class_prior_`` and ``class_log_prior_``.
    class_prior : array-like of shape (n_classes,), optional
        Known class probabilities, stored as ``class_prior_`` (not used by the scores).
    unlabeled_marker : int, float, str or None, default=-1
        The label of an unlabelled row, which ComplementNB refuses (it has no likelihood
        to fit them by EM); ``None`` makes -1 an ordinary class.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    class_count_ : ndarray of shape (n_classes,)
    class_prior_ : ndarray of shape (n_classes,)
    feature_count_ : ndarray of shape (n_classes, n_features)
        Weighted per-class sums of each feature (``R^T X``).
    feature_all_ : ndarray of shape (n_features,)
        The sums over all classes.
    feature_log_prob_ : ndarray of shape (n_classes, n_features)
        The weights $w_{kj}$ (scikit-learn's name; they are not log probabilities).
    n_features_in_ : int

    Examples
    --------
    >>> import numpy as np
    >>> from bayesgen import ComplementNB
    >>> X = np.array([[3, 0, 1], [2, 1, 0], [0, 4, 2], [1, 3, 3]])
    >>> ComplementNB().fit(X, [0, 0, 1, 1]).predict([[4, 0, 0]]).tolist()
    [0]
    """

    model_name = "complement-nb"
    n_classes = None  # no EM, so the classes are always those of the labels
    min_classes = 2  # its weights compare each class with the others
    #: The weights smooth the complement counts by ``alpha``: no other estimate is offered.
    estimate = "mean"

    hyperparameters = {
        "alpha": 1.0,
        "norm": False,
        "fit_prior": True,
        "class_prior": None,
        "unlabeled_marker": -1,
    }

    def _check_hyperparameters(self):
        self.check_shared()
        check_flag(self.norm, "norm")

    def fit(self, X, y, sample_weight=None):
        """Fit from labelled count rows; see `GenerativeClassifier.fit` (no unlabelled rows).

        Returns
        -------
        self
        """
        if y is not None:
            marker = semi_supervised.check_unlabeled_marker(self.unlabeled_marker)
            if semi_supervised.unlabeled_rows(np.ravel(np.asarray(y)), marker).any():
                raise ValueError(
                    "ComplementNB has no likelihood, so it cannot be fitted by EM on "
                    f"unlabelled rows (y = None, NaN or unlabeled_marker={marker!r}); drop "
                    "them, use MultinomialNB, or pass unlabeled_marker=None if that label is a "
                    "class."
                )
        return super().fit(X, y, sample_weight=sample_weight)

    # ------------------------------------------------------------ the value
    feature_count_ = fitted_attribute(lambda self, value: value.feature_stats.feature_counts)
    feature_all_ = fitted_attribute(
        lambda self, value: np.asarray(value.feature_stats.feature_counts).sum(axis=0)
    )
    feature_log_prob_ = fitted_attribute(lambda self, value: value.params)

    def _base_family(self) -> ComplementWeights:
        return ComplementWeights(alpha=self.alpha, norm=self.norm)

    def _log_class_prior(self, dtype) -> np.ndarray:
        # scikit-learn's ComplementNB leaves the prior out of its scores (n_classes >= 2).
        return np.zeros(self.classes_.shape[0], dtype=dtype)

    # ------------------------------------------------------------------ no story
    def _refuse(self, what: str):
        raise NoGenerativeStory(_NO_STORY.format(what=what))

    def story(self, X=None, y=None, *, n_samples=None):
        """Refused: complement naive Bayes has no generative story."""
        self._refuse("run")

    def sample(
        self,
        n_samples=1,
        *,
        y=None,
        given=None,
        support="model",
        missing=None,
        rounding=None,
        random_state=None,
        method="numpy",
    ):
        """Refused: complement naive Bayes has no generative story to sample from."""
        self._refuse("sample rows from")

    def impute(self, X, *, method="mean", y=None, random_state=None):
        """Refused: there is no $p(x \\mid k)$ to impute from."""
        self._refuse("impute missing values from")

    @available_if(_has_density)
    def score_samples(self, X):
        """Absent: the scores are no density, so there is no $\\log p(x)$."""
        self._refuse("give a density log p(x) from")

    def _check_model_posterior(self):
        self._refuse("give a parameter posterior from")

    def _story_part(self, **options):
        self._refuse("run")

    def _fit_unlabelled(self, X, y, unlabeled, weights):
        self._refuse("fit by EM")
