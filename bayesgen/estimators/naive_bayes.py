"""Naive Bayes for counts and binary features: ``BernoulliNB``, ``MultinomialNB``, ``PoissonNB``."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from sklearn.utils.validation import check_is_fitted

from bayesgen.estimators.fitted_attribute import fitted_attribute
from bayesgen.estimators.hyperparameters import EM_KEYWORDS, NAIVE_BAYES_KEYWORDS
from bayesgen.estimators.naive_bayes_prior import (
    COMMON_PARAMETERS_DOC,
    NaiveBayesClassPrior,
    log_parameters,
)
from bayesgen.families.bernoulli import BernoulliFamily
from bayesgen.families.multinomial import MultinomialFamily
from bayesgen.families.namespace import jax_numpy
from bayesgen.families.poisson import PoissonFamily
from bayesgen.validation import check_features, check_positive

_ATTRIBUTES_DOC = """
    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    class_count_ : ndarray of shape (n_classes,)
        Weighted number of training rows per class.
    class_prior_ : ndarray of shape (n_classes,)
    feature_count_ : ndarray of shape (n_classes, n_features)
        Weighted per-class sums of each feature (``R^T X``).
    n_features_in_ : int
"""


class BernoulliNB(NaiveBayesClassPrior):
    model_name = "bernoulli-nb"
    __doc__ = (
        """Naive Bayes for binary features: the Beta–Bernoulli story.

    $$
    \\pi \\sim \\mathrm{Dirichlet}, \\quad \\theta_{kj} \\sim \\mathrm{Beta}(\\alpha, \\alpha),
    \\quad y \\sim \\mathrm{Categorical}(\\pi), \\quad
    x_j \\mid y = k \\sim \\mathrm{Bernoulli}(\\theta_{kj}).
    $$

    Absent features count too (the Bernoulli event model). The default
    ``estimate="mean"`` is Laplace smoothing $(O_{kj}+\\alpha)/(N_k+2\\alpha)$, the
    posterior mean, and equals scikit-learn's ``BernoulliNB(alpha=alpha)``.

    Parameters
    ----------
    alpha : float or array-like of shape (n_features,), default=1.0
        Beta prior pseudo-counts of ones and of zeros.
    binarize : float, optional
        If given, values above it become 1 and the rest 0. If None the data must already
        be 0/1 or boolean; anything else is an error.
"""
        + COMMON_PARAMETERS_DOC
        + _ATTRIBUTES_DOC
        + """    feature_log_prob_ : ndarray of shape (n_classes, n_features)
        $\\log\\theta_{kj}$ (``-inf`` where a maximum-likelihood estimate is 0).
"""
    )

    hyperparameters = {"alpha": 1.0, "binarize": None, **NAIVE_BAYES_KEYWORDS, **EM_KEYWORDS}

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.positive_only = self.binarize is None
        return tags

    def _check_hyperparameters(self):
        super()._check_hyperparameters()
        if self.binarize is not None:
            check_positive(self.binarize, "binarize", allow_zero=True)

    def _check_X(self, X, *, reset):
        if self.binarize is None:
            return super()._check_X(X, reset=reset)
        X = check_features(self, X, reset=reset, accept_sparse=("csr", "csc"), allow_nan=True)
        # NaN stays NaN (missing), everything else becomes 0 or 1.
        if sp.issparse(X):
            X = X.copy()
            X.data = np.where(np.isnan(X.data), np.nan, X.data > self.binarize).astype(X.dtype)
            X.eliminate_zeros()
            return X
        return np.where(np.isnan(X), np.nan, X > self.binarize).astype(X.dtype)

    def _observed_values(self, missing):
        """Every 0/1 value of the observed entries (NaN where ``missing``), or None if many.

        ``tail_probability`` then uses the exact law of $\\log p(x_o)$.
        """
        from bayesgen.inference.novelty import MAX_CONFIGURATIONS

        observed = np.flatnonzero(~missing)
        if 2**observed.size > MAX_CONFIGURATIONS:
            return None
        values = np.full((2**observed.size, missing.shape[0]), np.nan)
        values[:, observed] = np.arange(2**observed.size)[:, None] >> np.arange(observed.size) & 1
        return values

    feature_count_ = fitted_attribute(lambda self, value: value.feature_stats.feature_counts)
    feature_log_prob_ = fitted_attribute(log_parameters)

    def _base_family(self) -> BernoulliFamily:
        return BernoulliFamily(alpha=self.alpha)


class MultinomialNB(NaiveBayesClassPrior):
    model_name = "multinomial-nb"
    __doc__ = (
        """Naive Bayes for counts: the Dirichlet–multinomial story.

    $$
    \\theta_k \\sim \\mathrm{Dirichlet}(\\alpha), \\quad y \\sim \\mathrm{Categorical}(\\pi),
    \\quad x \\mid y = k, L \\sim \\mathrm{Multinomial}(L, \\theta_k),
    $$

    with $L$ the row total (conditioned on, not modelled). The default
    ``estimate="mean"`` is additive smoothing, the posterior mean, and equals
    scikit-learn's ``MultinomialNB(alpha=alpha)``. Non-integer non-negative values (tf-idf)
    are accepted for fitting and prediction; the log-likelihood then uses ``gammaln`` in
    the multinomial coefficient, which
    [`predict_joint_log_proba`][bayesgen.MultinomialNB.predict_joint_log_proba] and
    [`score_samples`][bayesgen.MultinomialNB.score_samples] include.

    Parameters
    ----------
    alpha : float or array-like of shape (n_features,), default=1.0
        Dirichlet concentration (pseudo-count of every feature).
"""
        + COMMON_PARAMETERS_DOC
        + _ATTRIBUTES_DOC
        + """    feature_log_prob_ : ndarray of shape (n_classes, n_features)
        $\\log\\theta_{kj}$ (``-inf`` where a maximum-likelihood estimate is 0).
"""
    )

    hyperparameters = {"alpha": 1.0, **NAIVE_BAYES_KEYWORDS, **EM_KEYWORDS}

    feature_count_ = fitted_attribute(lambda self, value: value.feature_stats.feature_counts)
    feature_log_prob_ = fitted_attribute(log_parameters)

    def _base_family(self) -> MultinomialFamily:
        return MultinomialFamily(alpha=self.alpha)

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
        lengths=None,
    ):
        """Synthetic count rows: the story run forward with the fitted parameters.

        As `GenerativeClassifier.sample`. The story conditions on the row totals
        rather than modelling them, so they are given: ``lengths`` (an int for every row,
        or one per row); by default the mean row total of the training data, rounded.

        Raises
        ------
        ValueError
            With ``given``: the law of the other counts given some of them depends on the
            row total, which this story does not model, so there is no exact conditional
            to draw from.
        """
        if given is not None:
            raise ValueError(
                "MultinomialNB.sample does not take given: its story conditions on the row "
                "totals instead of modelling them, so the other counts given some of them "
                "have no law of the model's own. Use PoissonNB (independent counts) or "
                "MixedNB for conditional draws."
            )
        if rounding is not None:
            raise ValueError(
                "MultinomialNB.sample does not take rounding: its rows are counts with the "
                "totals given (lengths), which rounding each column to its training grid "
                "would change; the counts it draws are whole numbers already."
            )
        check_is_fitted(self)
        if lengths is None:
            mean_total = self.feature_count_.sum() / self.class_count_.sum()
            lengths = int(round(float(mean_total)))
        options = {"lengths": lengths}
        return self._sample(
            n_samples,
            y,
            random_state,
            method,
            options,
            support=support,
            missing=missing,
            rounding=rounding,
        )

    def _tail_stratum(self, X) -> np.ndarray:
        """Each row's observed total $L_o$, on which its density conditions.

        ``tail_probability`` compares a row only with rows of the same pattern and total
        (`bayesgen.inference.novelty`).
        """
        X = self._check_X(X, reset=False)
        X = X.toarray() if sp.issparse(X) else np.asarray(X)
        return np.nansum(X, axis=1)

    def _tail_reference(self, n_draws, missing, total, rng) -> np.ndarray:
        """``n_draws`` rows of the story given the observed total and pattern.

        Given class $k$, the observed counts are $\\mathrm{Multinomial}(L_o, \\theta_{k,o}
        / \\sum_{j \\in o} \\theta_{kj})$; missing entries are NaN. A non-integer
        total (tf-idf) is rounded: the story has no such rows.
        """
        theta = np.exp(np.asarray(self.feature_log_prob_, dtype=np.float64))[:, ~missing]
        theta /= theta.sum(axis=1, keepdims=True)
        generator = np.random.default_rng(rng.randint(2**31 - 1))  # draws several pvals at once
        classes = generator.choice(len(self.classes_), size=n_draws, p=self.class_prior_)
        rows = np.full((n_draws, missing.shape[0]), np.nan)
        rows[:, ~missing] = generator.multinomial(int(round(float(total))), theta[classes])
        return rows

    def story(self, X=None, y=None, *, lengths=None, n_samples=None):
        """Run the Dirichlet–multinomial story (a NumPyro model) with this model's prior.

        As `GenerativeClassifier.story`; the row totals come from ``X`` when it is
        given, otherwise from ``lengths`` (array of shape (n_samples,)), which the story
        does not model.
        """
        check_is_fitted(self)
        if X is None and lengths is None:
            raise ValueError("MultinomialNB.story needs X or lengths (the row totals to draw).")
        if X is None and y is None and n_samples is None:
            n_samples = len(lengths)
        lengths = None if lengths is None else jax_numpy().asarray(lengths)
        self._run_story(X, y, self._story_part(lengths=lengths), n_samples)


class PoissonNB(NaiveBayesClassPrior):
    model_name = "poisson-nb"
    __doc__ = (
        """Naive Bayes with Poisson counts and Gamma-distributed rates.

    $$
    \\lambda_{kj} \\sim \\mathrm{Gamma}(\\alpha, \\beta), \\quad
    y \\sim \\mathrm{Categorical}(\\pi), \\quad
    x_j \\mid y = k \\sim \\mathrm{Poisson}(\\lambda_{kj}).
    $$

    The log-likelihood $\\sum_j x_j\\log\\lambda_{kj} - \\Lambda_k - \\sum_j \\log
    x_j!$ subtracts $\\Lambda_k = \\sum_j \\lambda_{kj}$, the expected document
    length of class $k$: the document-length correction of
    ``001_8fd34bf03af75598.txt`` §3.4. Without it long documents would favour classes with
    high word rates; with it, a document is compared with the length each class expects,
    so (unlike the multinomial model) its length itself is evidence. Non-integer
    non-negative values are accepted (``gammaln`` replaces the factorial).

    Parameters
    ----------
    alpha : float or array-like of shape (n_features,), default=1.0
        Gamma prior shape (pseudo-counts added to every feature's sum).
    beta : float, default=1.0
        Gamma prior rate (pseudo-rows added to every class's count); the posterior-mean
        rate is $(S_{kj} + \\alpha) / (N_k + \\beta)$.
"""
        + COMMON_PARAMETERS_DOC
        + _ATTRIBUTES_DOC
        + """    rates_ : ndarray of shape (n_classes, n_features)
        $\\lambda_{kj}$.
"""
    )

    hyperparameters = {"alpha": 1.0, "beta": 1.0, **NAIVE_BAYES_KEYWORDS, **EM_KEYWORDS}

    feature_count_ = fitted_attribute(lambda self, value: value.feature_stats.feature_sums)
    rates_ = fitted_attribute(lambda self, value: value.params)

    def _base_family(self) -> PoissonFamily:
        return PoissonFamily(alpha=self.alpha, beta=self.beta)
