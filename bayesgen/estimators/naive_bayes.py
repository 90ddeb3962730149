"""Naive Bayes for counts and binary features: ``BernoulliNB``, ``MultinomialNB``, ``PoissonNB``."""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np
import scipy.sparse as sp
from scipy.special import gammaln

from bayesgen import stories
from bayesgen.estimators import count_data
from bayesgen.estimators.count_nb import (
    COMMON_PARAMETERS_DOC,
    CountNB,
    check_concentration,
    pseudo_log_density,
)
from bayesgen.families import bernoulli, multinomial, poisson
from bayesgen.families.estimates import pseudo_counts
from bayesgen.families.linear import LinearLogLikelihood
from bayesgen.inference import sampling
from bayesgen.validation import check_features, check_positive


def _log(probabilities) -> np.ndarray:
    with np.errstate(divide="ignore"):  # a drawn probability may underflow to 0
        return np.log(np.asarray(probabilities))


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


class BernoulliNB(CountNB):
    model_name = "bernoulli-nb"
    __doc__ = (
        """Naive Bayes for binary features: the Beta–Bernoulli story.

    .. math::

        \\pi \\sim \\mathrm{Dirichlet}, \\quad \\theta_{kj} \\sim \\mathrm{Beta}(\\alpha, \\alpha),
        \\quad y \\sim \\mathrm{Categorical}(\\pi), \\quad
        x_j \\mid y = k \\sim \\mathrm{Bernoulli}(\\theta_{kj}).

    Absent features count too (the Bernoulli event model). The default
    ``estimate="mean"`` is Laplace smoothing :math:`(O_{kj}+\\alpha)/(N_k+2\\alpha)`, the
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
        :math:`\\log\\theta_{kj}` (``-inf`` where a maximum-likelihood estimate is 0).
"""
    )
    _family = bernoulli
    _binary_features = True

    def __init__(
        self,
        *,
        alpha=1.0,
        binarize=None,
        estimate="mean",
        fit_prior=True,
        class_prior=None,
        max_iter=100,
        tol=1e-6,
        n_init=1,
        unlabeled_weight=1.0,
        n_classes=None,
        random_state=None,
    ):
        self.alpha = alpha
        self.binarize = binarize
        self.estimate = estimate
        self.fit_prior = fit_prior
        self.class_prior = class_prior
        self.max_iter = max_iter
        self.tol = tol
        self.n_init = n_init
        self.unlabeled_weight = unlabeled_weight
        self.n_classes = n_classes
        self.random_state = random_state

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

    def _family_stats(self, counts, sums, missing_counts):
        return bernoulli.BernoulliStats(counts, sums, missing_counts)

    def _prior(self, dtype):
        alpha = jnp.asarray(check_concentration(self.alpha, "alpha", self.n_features_in_), dtype)
        return bernoulli.Beta(alpha, alpha)

    def _store_parameters(self, stats):
        theta = bernoulli.point_estimate(self._prior(stats.counts.dtype), stats, self.estimate)
        self.feature_count_ = np.asarray(stats.feature_counts)
        self.feature_log_prob_ = np.asarray(jnp.log(theta))

    def _parameters(self):
        return np.exp(self.feature_log_prob_)

    def _row_term(self, X):
        return None

    def _sampling_sites(self):
        return {"feature_probs": np.exp(self.feature_log_prob_)}

    def _mixture_mode(self, weights, probabilities):
        return (np.sum(weights * probabilities, axis=1) > 0.5).astype(float)

    def _draw(self, probabilities, rng):
        return (rng.random(probabilities.shape) < probabilities).astype(float)

    def _story_part(self):
        # Site "feature_probs": theta, shape (n_classes, n_features).
        return stories.bernoulli_part(self._prior(None), self.classes_.shape[0])

    def _concentration(self):
        return check_concentration(self.alpha, "alpha", self.n_features_in_)

    def _feature_log_prior(self) -> float:
        theta = self._parameters()
        pseudo = pseudo_counts(self._concentration(), self.estimate)
        return pseudo_log_density(pseudo, theta) + pseudo_log_density(pseudo, 1.0 - theta)

    def _beta_posterior(self) -> bernoulli.Beta:
        stats = self._fitted_stats()
        return bernoulli.posterior(self._prior(stats.counts.dtype), stats)

    def _parameter_posterior_draws(self, key, num_samples):
        return {"feature_probs": bernoulli.sample_params(key, self._beta_posterior(), num_samples)}

    def _set_parameters(self, sites):
        self.feature_log_prob_ = _log(sites["feature_probs"])

    def _predictive_log_likelihood(self, X, dtype):
        # Features are independent a posteriori: the Beta–Bernoulli predictive of a row is
        # the Bernoulli likelihood at the posterior-mean probabilities.
        ones, zeros = (np.asarray(c) for c in self._beta_posterior())
        mean = self._with_parameters({"feature_probs": ones / (ones + zeros)})
        return mean._log_likelihood(X, dtype)


class MultinomialNB(CountNB):
    model_name = "multinomial-nb"
    __doc__ = (
        """Naive Bayes for counts: the Dirichlet–multinomial story.

    .. math::

        \\theta_k \\sim \\mathrm{Dirichlet}(\\alpha), \\quad y \\sim \\mathrm{Categorical}(\\pi),
        \\quad x \\mid y = k, L \\sim \\mathrm{Multinomial}(L, \\theta_k),

    with :math:`L` the row total (conditioned on, not modelled). The default
    ``estimate="mean"`` is additive smoothing, the posterior mean, and equals
    scikit-learn's ``MultinomialNB(alpha=alpha)``. Non-integer non-negative values (tf-idf)
    are accepted for fitting and prediction; the log-likelihood then uses ``gammaln`` in
    the multinomial coefficient, which :meth:`predict_joint_log_proba` and
    :meth:`score_samples` include.

    Parameters
    ----------
    alpha : float or array-like of shape (n_features,), default=1.0
        Dirichlet concentration (pseudo-count of every feature).
"""
        + COMMON_PARAMETERS_DOC
        + _ATTRIBUTES_DOC
        + """    feature_log_prob_ : ndarray of shape (n_classes, n_features)
        :math:`\\log\\theta_{kj}` (``-inf`` where a maximum-likelihood estimate is 0).
"""
    )
    _family = multinomial

    def __init__(
        self,
        *,
        alpha=1.0,
        estimate="mean",
        fit_prior=True,
        class_prior=None,
        max_iter=100,
        tol=1e-6,
        n_init=1,
        unlabeled_weight=1.0,
        n_classes=None,
        random_state=None,
    ):
        self.alpha = alpha
        self.estimate = estimate
        self.fit_prior = fit_prior
        self.class_prior = class_prior
        self.max_iter = max_iter
        self.tol = tol
        self.n_init = n_init
        self.unlabeled_weight = unlabeled_weight
        self.n_classes = n_classes
        self.random_state = random_state

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = False  # at fit; prediction integrates NaN out
        return tags

    def _family_stats(self, counts, sums, missing_counts):
        if bool(jnp.any(missing_counts > 0)):
            raise ValueError(
                "X contains NaN: MultinomialNB cannot be fitted with missing counts (with the "
                "observed words renormalised, the likelihood has no closed-form maximum). "
                "predict_proba and score_samples accept NaN."
            )
        return multinomial.MultinomialStats(counts, sums)

    def _log_likelihood(self, X, dtype, *, row_terms=True):
        filled, missing = count_data.split_missing(X)
        log_likelihood = super()._log_likelihood(filled, dtype, row_terms=row_terms)
        if missing is None:
            return log_likelihood
        # Missing words are integrated out by conditioning on the observed ones: their
        # counts follow theta renormalised over the observed words.
        observed_mass = 1.0 - count_data.row_products(missing, np.exp(self.feature_log_prob_))
        totals = count_data.row_totals(filled)[:, None]
        with np.errstate(divide="ignore", invalid="ignore"):
            correction = np.where(totals > 0, -totals * np.log(observed_mass), 0.0)
        return log_likelihood + correction

    def _prior(self, dtype):
        return jnp.asarray(check_concentration(self.alpha, "alpha", self.n_features_in_), dtype)

    def _store_parameters(self, stats):
        theta = multinomial.point_estimate(self._prior(stats.counts.dtype), stats, self.estimate)
        self.feature_count_ = np.asarray(stats.feature_counts)
        self.feature_log_prob_ = np.asarray(jnp.log(theta))

    def _parameters(self):
        return np.exp(self.feature_log_prob_)

    def _row_term(self, X):
        return count_data.multinomial_coefficients(X)

    def _sampling_sites(self):
        return {"feature_probs": np.exp(self.feature_log_prob_)}

    def _imputation_rates(self, X):
        """Expected count of each word given the class and the observed words.

        The story conditions on row totals, so a missing count has no distribution of its
        own; it is imputed as if the document went on at the pace of its observed words:
        :math:`L_o \\theta_{kj} / \\sum_{l \\in o} \\theta_{kl}`, a Poisson rate (``mean``
        imputes the mode of the class mixture, ``sample`` a Poisson draw).
        """
        filled, missing = count_data.split_missing(X)
        theta = np.exp(self.feature_log_prob_)
        observed_mass = 1.0 - count_data.row_products(missing, theta)  # (n, K)
        totals = count_data.row_totals(filled)[:, None]
        with np.errstate(divide="ignore", invalid="ignore"):
            pace = np.where(observed_mass > 0, totals / observed_mass, 0.0)
        return pace[:, :, None] * theta[None, :, :]

    def sample(self, n_samples=1, *, y=None, random_state=None, lengths=None):
        """Synthetic count rows: the story run forward with the fitted parameters.

        As :meth:`GenerativeClassifier.sample`. The story conditions on the row totals
        rather than modelling them, so they are given: ``lengths`` (an int for every row,
        or one per row); by default the mean row total of the training data, rounded.
        """
        rows = len(y) if y is not None and np.ndim(y) else n_samples
        if lengths is None:
            mean_total = self.feature_count_.sum() / self.class_count_.sum()
            lengths = int(round(float(mean_total)))
        if isinstance(rows, (int, np.integer)) and rows >= 1:
            lengths = np.broadcast_to(np.asarray(lengths), (rows,))
        return sampling.sample(self, n_samples, y=y, random_state=random_state, lengths=lengths)

    def _story_part(self, lengths=None):
        # Site "feature_probs": theta, shape (n_classes, n_features).
        return stories.multinomial_part(self._prior(None), self.classes_.shape[0], lengths)

    def _concentration(self):
        return check_concentration(self.alpha, "alpha", self.n_features_in_)

    def _dirichlet_posterior(self):
        stats = self._fitted_stats()
        return multinomial.posterior(self._prior(stats.counts.dtype), stats)

    def _parameter_posterior_draws(self, key, num_samples):
        draws = multinomial.sample_params(key, self._dirichlet_posterior(), num_samples)
        return {"feature_probs": draws}

    def _set_parameters(self, sites):
        self.feature_log_prob_ = _log(sites["feature_probs"])

    def _predictive_log_likelihood(self, X, dtype):
        """The Dirichlet–multinomial :math:`p(x \\mid k, L, \\mathcal D)` of each row.

        With :math:`a = \\alpha + C_k` and :math:`A = \\sum_j a_j`:
        :math:`\\log\\frac{L!}{\\prod_j x_j!} + \\log\\Gamma(A) - \\log\\Gamma(A + L)
        + \\sum_j [\\log\\Gamma(a_j + x_j) - \\log\\Gamma(a_j)]`. Missing words are
        integrated out as in prediction: the observed words of a row are
        Dirichlet–multinomial with their own concentrations (the aggregation property), so
        :math:`A` runs over the observed words and :math:`L` is their total.
        """
        filled, missing = count_data.split_missing(X)
        concentration = np.asarray(self._dirichlet_posterior(), dtype=np.float64)
        total = np.broadcast_to(concentration.sum(axis=1), (X.shape[0], concentration.shape[0]))
        if missing is not None:
            total = total - count_data.row_products(missing, concentration)
        lengths = count_data.row_totals(filled)[:, None]
        log_likelihood = (
            gammaln(total)
            - gammaln(total + lengths)
            + count_data.rising_factorial_sums(filled, concentration)
            + count_data.multinomial_coefficients(filled)[:, None]
        )
        return log_likelihood.astype(dtype)

    def story(self, X=None, y=None, *, lengths=None, n_samples=None):
        """Run the Dirichlet–multinomial story (a NumPyro model) with this model's prior.

        As :meth:`GenerativeClassifier.story`; the row totals come from ``X`` when it is
        given, otherwise from ``lengths`` (array of shape (n_samples,)), which the story
        does not model.
        """
        if X is None and lengths is None:
            raise ValueError("MultinomialNB.story needs X or lengths (the row totals to draw).")
        if X is None and y is None and n_samples is None:
            n_samples = len(lengths)
        lengths = None if lengths is None else jnp.asarray(lengths)
        self._run_story(X, y, self._story_part(lengths), n_samples)


class PoissonNB(CountNB):
    model_name = "poisson-nb"
    __doc__ = (
        """Naive Bayes with Poisson counts and Gamma-distributed rates.

    .. math::

        \\lambda_{kj} \\sim \\mathrm{Gamma}(\\alpha, \\beta), \\quad
        y \\sim \\mathrm{Categorical}(\\pi), \\quad
        x_j \\mid y = k \\sim \\mathrm{Poisson}(\\lambda_{kj}).

    The log-likelihood :math:`\\sum_j x_j\\log\\lambda_{kj} - \\Lambda_k - \\sum_j \\log
    x_j!` subtracts :math:`\\Lambda_k = \\sum_j \\lambda_{kj}`, the expected document
    length of class :math:`k`: the document-length correction of
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
        rate is :math:`(S_{kj} + \\alpha) / (N_k + \\beta)`.
"""
        + COMMON_PARAMETERS_DOC
        + _ATTRIBUTES_DOC
        + """    rates_ : ndarray of shape (n_classes, n_features)
        :math:`\\lambda_{kj}`.
"""
    )
    _family = poisson

    def __init__(
        self,
        *,
        alpha=1.0,
        beta=1.0,
        estimate="mean",
        fit_prior=True,
        class_prior=None,
        max_iter=100,
        tol=1e-6,
        n_init=1,
        unlabeled_weight=1.0,
        n_classes=None,
        random_state=None,
    ):
        self.alpha = alpha
        self.beta = beta
        self.estimate = estimate
        self.fit_prior = fit_prior
        self.class_prior = class_prior
        self.max_iter = max_iter
        self.tol = tol
        self.n_init = n_init
        self.unlabeled_weight = unlabeled_weight
        self.n_classes = n_classes
        self.random_state = random_state

    def _check_hyperparameters(self):
        super()._check_hyperparameters()
        check_positive(self.beta, "beta")

    def _family_stats(self, counts, sums, missing_counts):
        return poisson.PoissonStats(counts, sums, missing_counts)

    def _prior(self, dtype):
        shape = check_concentration(self.alpha, "alpha", self.n_features_in_)
        return poisson.Gamma(jnp.asarray(shape, dtype), jnp.asarray(self.beta, dtype))

    def _store_parameters(self, stats):
        rates = poisson.point_estimate(self._prior(stats.counts.dtype), stats, self.estimate)
        self.feature_count_ = np.asarray(stats.feature_sums)
        self.rates_ = np.asarray(rates)

    def _parameters(self):
        return self.rates_

    def _row_term(self, X):
        return -count_data.log_factorial_sums(X)

    def _sampling_sites(self):
        return {"rates": self.rates_}

    def _story_part(self):
        # Site "rates": lambda, shape (n_classes, n_features).
        return stories.poisson_part(self._prior(None), self.classes_.shape[0])

    def _feature_log_prior(self) -> float:
        # Gamma(a, b): (a - 1) log(rate) - b rate is the log prior of "map"; "mean" is the
        # mode under Gamma(a + 1, b).
        if self.estimate == "mle":
            return 0.0
        shape = pseudo_counts(
            check_concentration(self.alpha, "alpha", self.n_features_in_), self.estimate
        )
        return pseudo_log_density(shape, self.rates_) - float(self.beta * np.sum(self.rates_))

    def _gamma_posterior(self) -> poisson.Gamma:
        stats = self._fitted_stats()
        return poisson.posterior(self._prior(stats.counts.dtype), stats)

    def _parameter_posterior_draws(self, key, num_samples):
        return {"rates": poisson.sample_params(key, self._gamma_posterior(), num_samples)}

    def _set_parameters(self, sites):
        self.rates_ = np.asarray(sites["rates"])

    def _predictive_log_likelihood(self, X, dtype):
        """The negative-binomial :math:`p(x \\mid k, \\mathcal D)` of each row.

        With the posterior :math:`\\mathrm{Gamma}(a, b)` of a rate,
        :math:`\\log p(x_j) = \\log\\Gamma(a + x_j) - \\log\\Gamma(a) - \\log x_j!
        + a\\log\\frac{b}{b+1} - x_j\\log(b+1)`, summed over the observed features.
        """
        filled, missing = count_data.split_missing(X)
        shape, rate = (np.asarray(p, dtype=np.float64) for p in self._gamma_posterior())
        per_feature = shape * (np.log(rate) - np.log1p(rate))
        zeros = np.zeros_like(shape)
        form = LinearLogLikelihood(
            weights=-np.log1p(rate),
            bias=per_feature.sum(axis=1),
            zero_weights=zeros,
            zero_bias=zeros[:, 0],
            feature_bias=per_feature,
            feature_zero_bias=zeros,
        )
        row_term = -count_data.log_factorial_sums(filled)
        log_likelihood = count_data.evaluate(form, filled, row_term, missing)
        log_likelihood = log_likelihood + count_data.rising_factorial_sums(filled, shape)
        return log_likelihood.astype(dtype)
