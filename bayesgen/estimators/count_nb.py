"""What the count naive-Bayes estimators share: hyperparameters, class prior, data passes."""

from __future__ import annotations

import copy
import numbers

import jax.numpy as jnp
import numpy as np

from bayesgen.estimators import count_data
from bayesgen.estimators.base import GenerativeClassifier, _to_jax
from bayesgen.estimators.semi_supervised import EM_ITERATION_DOC, EM_PARAMETERS_DOC
from bayesgen.families.estimates import check_estimate_kind, pseudo_counts
from bayesgen.inference.imputation import _draw_classes, poisson_mixture_mode
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


def check_concentration(value, name: str, n_features: int) -> np.ndarray:
    """A positive scalar or (n_features,) array, returned as an (n_features,) array."""
    if isinstance(value, numbers.Real) and not isinstance(value, bool):
        array = np.asarray(float(value))
    else:
        array = np.asarray(value, dtype=np.float64)
        if array.shape != (n_features,):
            raise ValueError(
                f"{name} must be a positive number or an array of shape ({n_features},); got "
                f"shape {array.shape}."
            )
    if not np.all(np.isfinite(array)) or np.any(array <= 0):
        raise ValueError(f"{name} must be positive and finite; got {value!r}.")
    return np.broadcast_to(array, (n_features,))


def pseudo_log_density(pseudo: np.ndarray, probabilities: np.ndarray) -> float:
    """:math:`\\sum a \\log p`, with :math:`0 \\log 0 = 0` (``pseudo`` broadcasts)."""
    pseudo = np.broadcast_to(pseudo, probabilities.shape)
    with np.errstate(divide="ignore", invalid="ignore"):
        return float(np.sum(np.where(pseudo == 0, 0.0, pseudo * np.log(probabilities))))


class NaiveBayesClassPrior(GenerativeClassifier):
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
    """Base of the count-data naive Bayes estimators (Bernoulli, multinomial, Poisson).

    Subclasses set the family module (``_family``) and implement ``_prior``,
    ``_store_parameters`` and ``_row_term``.
    """

    _binary_features = False

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

    def _feature_stats(self, X, responsibilities, dtype):
        # Missing entries are skipped: their factor leaves the likelihood, so the sums run
        # over observed entries and each feature keeps its own count of observed rows.
        filled, missing = count_data.split_missing(X)
        sums = count_data.class_sums(responsibilities, filled)
        if missing is None:
            missing_counts = np.zeros_like(sums)
        else:
            missing_counts = count_data.class_sums(responsibilities, missing)
        return self._family_stats(
            jnp.sum(responsibilities, axis=0),
            jnp.asarray(sums, dtype),
            jnp.asarray(missing_counts, dtype),
        )

    def _merge_feature_stats(self, previous, new):
        return self._family.merge(previous, new)

    def _update_parameters(self):
        stats = _to_jax(self._stats, self._stats.counts.dtype)
        self._store_parameters(stats)

    def _impute_rows(self, X, class_weights, method, rng):
        """Most probable value under the class mixture, or a draw given a drawn class."""
        rows, columns = np.nonzero(np.isnan(X))
        rates = self._imputation_rates(X)[rows, :, columns]  # (n_entries, n_classes)
        filled = X.copy()
        if method == "mean":
            filled[rows, columns] = self._mixture_mode(class_weights[rows], rates)
        else:
            chosen = _draw_classes(class_weights, rng)[rows]
            filled[rows, columns] = self._draw(rates[np.arange(len(rows)), chosen], rng)
        return filled

    def _imputation_rates(self, X):
        """(n_samples, n_classes, n_features) parameter of each entry's distribution."""
        parameters = self._parameters()
        return np.broadcast_to(parameters, (X.shape[0], *parameters.shape))

    def _mixture_mode(self, weights, rates):
        return poisson_mixture_mode(weights, rates)

    def _draw(self, rates, rng):
        return rng.poisson(rates).astype(float)

    def _features_from_draws(self, draws):
        return np.rint(draws["X"]).astype(np.int64)

    def _log_likelihood(self, X, dtype, *, row_terms=True):
        filled, missing = count_data.split_missing(X)
        form = self._family.linear_form(jnp.asarray(self._parameters(), dtype=dtype))
        row_term = self._row_term(filled) if row_terms else None
        return count_data.evaluate(form, filled, row_term, missing)

    # ------------------------------------------------------------------ posterior
    def _fitted_stats(self):
        """The stored statistics as JAX arrays in their own precision."""
        return _to_jax(self._stats, self._stats.counts.dtype)

    def _with_parameters(self, sites):
        drawn = copy.copy(self)
        drawn._set_parameters(sites)
        return drawn

    def _feature_log_prior(self) -> float:
        # Dirichlet/Beta families: sum a log(theta) with a = pseudo_counts(alpha, estimate).
        pseudo = pseudo_counts(self._concentration(), self.estimate)
        return pseudo_log_density(pseudo, self._parameters())

    def _parameter_dims(self, features):
        (site,) = self._sampling_sites()
        return {site: ("class", "feature")}, {"feature": features}
