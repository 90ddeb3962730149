"""What the count naive-Bayes estimators share: hyperparameters, class prior, data passes."""

from __future__ import annotations

import copy

import numpy as np

from bayesgen import registry
from bayesgen.estimators.base import GenerativeClassifier
from bayesgen.estimators.sklearn_names import ClassLogPriorNames
from bayesgen.families.estimates import check_estimate_kind
from bayesgen.inference.semi_supervised import EM_ITERATION_DOC, EM_PARAMETERS_DOC
from bayesgen.validation import check_counts

COMMON_PARAMETERS_DOC = (
    """
    estimate : {"mean", "map", "mle"}, default="mean"
        Point estimate of the feature parameters: the posterior mean (additive smoothing
        with ``alpha``), the posterior mode, or maximum likelihood (which may give zero
        probabilities; a row impossible under every class then gets the class prior,
        with a warning).
    fit_prior : bool, default=True
        Estimate the class probabilities as the training frequencies (their maximum
        likelihood, also the posterior mode under a uniform Dirichlet prior), as
        scikit-learn does; if False they are uniform.
    class_prior : array-like of shape (n_classes,), optional
        Known class probabilities, used as they are.
"""
    + EM_ITERATION_DOC
    + EM_PARAMETERS_DOC
)


class NaiveBayesClassPrior(ClassLogPriorNames, GenerativeClassifier):
    """The naive-Bayes hyperparameters ``estimate``, ``fit_prior`` and ``class_prior``.

    The class probabilities are the training frequencies (``fit_prior=True``, as in
    scikit-learn), uniform (``fit_prior=False``), or given (``class_prior``).
    """

    _class_prior_argument = "class_prior"

    def _check_hyperparameters(self):
        check_estimate_kind(self.estimate)
        if not isinstance(self.fit_prior, (bool, np.bool_)):
            raise ValueError(f"fit_prior must be True or False; got {self.fit_prior!r}.")

    def _class_prior_settings(self):
        if self.class_prior is not None:
            return self.class_prior, 1.0, "mle"
        if not self.fit_prior:
            n_classes = self.classes_.shape[0]
            return np.full(n_classes, 1.0 / n_classes), 1.0, "mle"
        return None, 1.0, "mle"


class CountNB(NaiveBayesClassPrior):
    """Base of the naive-Bayes estimators over one discrete feature family.

    Every statistic, estimate, density, draw and imputation is the family's
    (`bayesgen.families.protocol.FeatureFamily`); a subclass supplies the family
    built from its hyperparameters (``_feature_family``), the story's parameter site
    (``_site``), and how the parameters are kept as fitted attributes
    (``_store_parameters(stats, params)``, ``_parameters()``, ``_set_parameters(sites)``).
    """

    _binary_features = False
    _site = "feature_probs"

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.input_tags.positive_only = True
        # As for scikit-learn's naive Bayes: the shared checks' Gaussian blobs are not counts.
        tags.classifier_tags.poor_score = True
        tags.input_tags.allow_nan = True
        return tags

    def _check_X(self, X, *, reset):
        return check_counts(self, X, reset=reset, binary=self._binary_features)

    def _family_X(self, X):
        """``X`` as the family reads it (category codes for ``CategoricalNB``)."""
        return X

    def _feature_stats(self, X, responsibilities, dtype):
        return self._feature_family().suff_stats(self._family_X(X), responsibilities, dtype)

    def _merge_feature_stats(self, previous, new):
        return self._feature_family().merge(previous, new)

    def _update_parameters(self):
        stats = self._fitted_stats()
        family = self._feature_family()
        self._store_parameters(
            stats, family.point_estimate(family.prior(stats), stats, self.estimate)
        )

    def _log_likelihood(self, X, dtype, *, row_terms=True):
        params = np.asarray(self._parameters(), dtype=dtype)
        family = self._feature_family()
        return family.log_likelihood(params, self._family_X(X), row_terms=row_terms)

    def _impute_rows(self, X, class_weights, method, rng):
        """Most probable value under the class mixture, or a draw given a drawn class."""
        family = self._feature_family()
        return family.conditional(self._parameters(), X, class_weights, method, rng)

    def _features_from_draws(self, draws):
        return np.rint(draws["X"]).astype(np.int64)

    def _sampling_sites(self):
        return {self._site: self._parameters()}

    def _sampling_family(self):
        return self._feature_family()

    def _story_part(self, **options):
        family = self._feature_family()
        prior = family.prior_for(self.n_features_in_)
        return registry.story_part(family.name)(family, prior, self.classes_.shape[0], **options)

    # ------------------------------------------------------------------ posterior
    def _fitted_stats(self):
        """The stored statistics (NumPy arrays, in their own precision)."""
        return self._stats

    def _posterior(self):
        """The family's conjugate posterior given the stored statistics."""
        stats = self._fitted_stats()
        family = self._feature_family()
        return family.posterior(family.prior(stats), stats)

    def _with_parameters(self, sites):
        drawn = copy.copy(self)
        drawn._set_parameters(sites)
        return drawn

    def _feature_log_prior(self) -> float:
        stats = self._fitted_stats()
        family = self._feature_family()
        return family.log_prior(family.prior(stats), self._parameters(), kind=self.estimate)

    def _parameter_posterior_draws(self, key, num_samples):
        draws = self._feature_family().sample_params(key, self._posterior(), num_samples)
        return {self._site: draws}

    def _predictive_log_likelihood(self, X, dtype):
        family = self._feature_family()
        log_likelihood = family.predictive_log_likelihood(self._posterior(), self._family_X(X))
        return np.asarray(log_likelihood).astype(dtype)

    def _parameter_dims(self, features):
        return {self._site: ("class", "feature")}, {"feature": features}
