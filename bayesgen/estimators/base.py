"""The scikit-learn face of every generative classifier, written once.

A subclass supplies a feature family through four hooks (its statistics, how two batches
of statistics merge, how parameters follow from them, and the per-class log-likelihood);
this class turns labels and sample weights into the responsibilities matrix, keeps the
class counts, and derives every prediction from the joint log-likelihood
``log p(y = k) + log p(x | y = k)``.
"""

from __future__ import annotations

import warnings

import jax
import jax.numpy as jnp
import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_consistent_length, check_is_fitted

from bayesgen import stories
from bayesgen._precision import compute_dtype, precision
from bayesgen.estimators import imputation, synthetic
from bayesgen.estimators.validation import (
    check_class_probabilities,
    check_features,
    check_labels,
    check_weights,
)
from bayesgen.families import class_prior


def _responsibilities(class_index: np.ndarray, weights: np.ndarray, n_classes: int):
    """One-hot rows times sample weights, (n_samples, n_classes); NumPy, so no per-n compile."""
    responsibilities = np.zeros((class_index.shape[0], n_classes), dtype=weights.dtype)
    responsibilities[np.arange(class_index.shape[0]), class_index] = weights
    return responsibilities


def _logsumexp_rows(values: np.ndarray) -> np.ndarray:
    """Row-wise log-sum-exp, shape (n, 1); -inf for a row of -inf (no warnings)."""
    largest = np.max(values, axis=1, keepdims=True)
    shift = np.where(np.isfinite(largest), largest, 0.0)
    with np.errstate(divide="ignore"):
        return np.log(np.sum(np.exp(values - shift), axis=1, keepdims=True)) + shift


def _log_posterior(joint_log_likelihood: np.ndarray, log_class_prior: np.ndarray):
    """Normalise each row; a row impossible under every class gets the class prior.

    NumPy rather than a jitted kernel: an (n, K) normalisation would otherwise be
    compiled anew for every number of rows.
    """
    log_evidence = _logsumexp_rows(joint_log_likelihood)
    impossible = np.isneginf(log_evidence)
    with np.errstate(invalid="ignore"):
        log_posterior = joint_log_likelihood - log_evidence
    return np.where(impossible, log_class_prior, log_posterior), int(np.sum(impossible))


def _to_numpy(tree):
    return jax.tree.map(np.asarray, tree)


def _to_jax(tree, dtype):
    return jax.tree.map(lambda leaf: jnp.asarray(leaf, dtype=dtype), tree)


class GenerativeClassifier(ClassifierMixin, BaseEstimator):
    """Base class of the generative classifiers: fitting and prediction over one joint.

    Subclasses implement ``_check_hyperparameters``, ``_feature_stats``,
    ``_merge_feature_stats``, ``_update_parameters`` and ``_log_likelihood(X, dtype, *,
    row_terms)`` (which may leave out terms that depend on the row only when
    ``row_terms`` is false, as they cancel from p(y | x)), describe
    their class prior through ``_class_prior_settings`` and their share of the generative
    story through ``_story_part``, and may override ``_check_X`` (the default accepts
    dense, finite, numeric arrays) and ``_story_features``.
    """

    def _check_X(self, X, *, reset: bool):
        return check_features(self, X, reset=reset)

    # ------------------------------------------------------------------ fitting
    def fit(self, X, y, sample_weight=None):
        """Fit the model from labelled rows in closed form.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
            Class labels (any sortable type: ints, strings, ...).
        sample_weight : array-like of shape (n_samples,), optional
            Non-negative row weights; a weight of ``w`` counts as ``w`` copies of the row.

        Returns
        -------
        self
        """
        self._check_hyperparameters()
        X = self._check_X(X, reset=True)
        if y is None:
            raise ValueError(
                f"{type(self).__name__} requires y to be passed, but the target y is None."
            )
        y = check_labels(y)
        check_consistent_length(X, y)
        classes, class_index = np.unique(y, return_inverse=True)
        if classes.shape[0] < 2:
            raise ValueError(
                f"y has {classes.shape[0]} class ({classes.tolist()}); a classifier needs at "
                "least two classes."
            )
        weights = check_weights(sample_weight, X)
        weighted_counts = np.bincount(class_index, weights=weights, minlength=classes.shape[0])
        if np.count_nonzero(weighted_counts > 0) < 2:
            raise ValueError(
                "sample_weight leaves fewer than two classes with positive total weight; a "
                "classifier needs at least two classes."
            )
        self.classes_ = classes
        self._add_rows(X, class_index, weights, reset=True)
        return self

    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """Add a batch of labelled rows to the fitted statistics.

        The statistics are exact sums, so fitting all rows at once equals calling
        ``partial_fit`` on any split of them (up to rounding).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        classes : array-like of shape (n_classes,), optional
            Every class that will ever appear; required on the first call.
        sample_weight : array-like of shape (n_samples,), optional

        Returns
        -------
        self
        """
        first_call = not hasattr(self, "classes_")
        if first_call:
            if classes is None:
                raise ValueError("classes must be passed on the first call to partial_fit.")
            self._check_hyperparameters()
            all_classes = np.unique(check_labels(classes))
            if all_classes.shape[0] < 2:
                raise ValueError(
                    f"classes has {all_classes.shape[0]} class; a classifier needs at least two."
                )
        elif classes is not None and not np.array_equal(np.unique(classes), self.classes_):
            raise ValueError(
                f"classes={np.unique(classes).tolist()} differs from the classes of the first "
                f"call, {self.classes_.tolist()}."
            )
        else:
            all_classes = self.classes_
        X = self._check_X(X, reset=first_call)
        y = check_labels(y)
        check_consistent_length(X, y)
        unknown = np.setdiff1d(y, all_classes)
        if unknown.size:
            raise ValueError(
                f"y contains labels {unknown.tolist()} that are not in classes "
                f"{all_classes.tolist()}."
            )
        weights = check_weights(sample_weight, X)
        self.classes_ = all_classes
        self._add_rows(X, np.searchsorted(all_classes, y), weights, reset=first_call)
        return self

    def _add_rows(self, X, class_index, weights, *, reset):
        dtype = compute_dtype(X.dtype)
        if not reset:
            dtype = compute_dtype(dtype, self.class_count_.dtype)
        with precision(dtype):
            responsibilities = jnp.asarray(
                _responsibilities(class_index, weights.astype(dtype), self.classes_.shape[0])
            )
            counts = class_prior.suff_stats(responsibilities)
            features = self._feature_stats(X, responsibilities, dtype)
            if not reset:
                counts = class_prior.merge(_to_jax(self._class_stats, dtype), counts)
                previous = _to_jax(self._stats, dtype)
                features = self._merge_feature_stats(previous, features)
            self._class_stats = _to_numpy(counts)
            self._stats = _to_numpy(features)
            self.class_count_ = self._class_stats.counts
            self._update_parameters()
            self.class_prior_ = self._estimate_class_prior()

    def _estimate_class_prior(self) -> np.ndarray:
        fixed, concentration, kind = self._class_prior_settings()
        n_classes = self.classes_.shape[0]
        if fixed is not None:
            name = getattr(self, "_class_prior_argument", "priors")
            fixed = check_class_probabilities(fixed, n_classes, name)
            return fixed.astype(self.class_count_.dtype)
        prior = class_prior.Dirichlet(jnp.full(n_classes, concentration, self.class_count_.dtype))
        return np.asarray(class_prior.point_estimate(prior, self._class_stats, kind))

    # ------------------------------------------------------------------- story
    def _class_index(self, y) -> jnp.ndarray:
        y = np.asarray(y)
        unknown = np.setdiff1d(y, self.classes_)
        if unknown.size:
            raise ValueError(
                f"y contains labels {unknown.tolist()} not in classes_ {self.classes_.tolist()}."
            )
        return jnp.asarray(np.searchsorted(self.classes_, y))

    def story(self, X=None, y=None, *, n_samples=None):
        """Run this model's generative story, a NumPyro model, with its fitted prior.

        The story draws the class probabilities (site ``"class_prior"``, absent when they
        are fixed), the family's parameters (sites named like the fitted attributes, see
        ``docs/models.md``), then per row the label ``"y"`` and the features ``"X"``. Use it
        with NumPyro's handlers (``substitute`` fitted values, ``condition``, ``trace``),
        ``Predictive`` or ``MCMC``. It runs in the caller's JAX precision (enable x64
        around it for float64).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features), optional
            Observed features; ``None`` draws them.
        y : array-like of shape (n_samples,), optional
            Observed labels, values from ``classes_``; ``None`` draws them.
        n_samples : int, optional
            Number of rows to draw when neither ``X`` nor ``y`` is given.
        """
        self._run_story(X, y, self._story_part(), n_samples)

    def _run_story(self, X, y, part, n_samples):
        check_is_fitted(self)
        if X is not None:
            X = self._story_features(self._check_X(X, reset=False))
        labels = None if y is None else self._class_index(y)
        stories.classifier_story(
            X, labels, **self._story_class_prior(), part=part, n_samples=n_samples
        )

    def _story_features(self, X):
        """The features as the story observes them: a dense array in the caller's precision."""
        return jnp.asarray(X.toarray() if sp.issparse(X) else X)

    def sample(self, n_samples=1, *, y=None, random_state=None):
        """Synthetic rows from the fitted model: its story run forward.

        The fitted parameters are substituted into :meth:`story` and NumPyro's
        ``Predictive`` draws the labels (unless given) and the features, so the rows come
        from exactly the model that classifies.

        Parameters
        ----------
        n_samples : int, default=1
            Number of rows (ignored when ``y`` is an array of labels).
        y : label or array-like of labels, optional
            Generate given these classes: one label for all rows, or one per row.
        random_state : None, int or numpy.random.RandomState
            The same value gives the same rows.

        Returns
        -------
        X : ndarray (or DataFrame for ``MixedNB`` fitted on one) of shape (n_samples, n_features)
            Floats for Gaussian features, integers for counts and 0/1 features, the
            original values for categories.
        y : ndarray of shape (n_samples,)
            Labels from ``classes_``.

        Raises
        ------
        ValueError
            If ``n_samples < 1`` or ``y`` holds a label not in ``classes_``.
        """
        return synthetic.sample(self, n_samples, y=y, random_state=random_state)

    def impute(self, X, *, method="mean", y=None, random_state=None):
        """Fill the missing (NaN) entries of ``X`` from the model; observed ones are kept.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        method : {"mean", "sample"}, default="mean"
            ``"mean"``: continuous features get :math:`\\mathbb E[x_m \\mid x_o]`, the
            class-conditional means mixed over :math:`p(k \\mid x_o)`; discrete features
            get their most probable value under that mixture. ``"sample"``: a draw of the
            class, then of the missing entries given the class and the observed ones.
        y : array-like of shape (n_samples,), optional
            Known labels to condition on instead of mixing over the classes.
        random_state : None, int or numpy.random.RandomState
            For ``method="sample"``.

        Returns
        -------
        ndarray of shape (n_samples, n_features)
        """
        return imputation.impute(self, X, method=method, y=y, random_state=random_state)

    def _features_from_draws(self, draws: dict):
        """The features of the story's draws, as ``sample`` returns them."""
        return draws["X"]

    def _story_class_prior(self) -> dict:
        """The class-prior arguments of a story: its Dirichlet, or the fixed probabilities."""
        fixed, concentration, _ = self._class_prior_settings()
        n_classes = self.classes_.shape[0]
        return {
            "class_prior": class_prior.Dirichlet(jnp.full(n_classes, concentration)),
            "fixed_class_prior": None if fixed is None else jnp.asarray(self.class_prior_),
        }

    # --------------------------------------------------------------- prediction
    def _prepare(self, X):
        check_is_fitted(self)
        X = self._check_X(X, reset=False)
        return X, compute_dtype(X.dtype)

    def predict_joint_log_proba(self, X) -> np.ndarray:
        """Joint log-probabilities ``log p(x, y = k)`` of each row and class.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            Columns in the order of ``classes_``.
        """
        return self._joint(X, row_terms=True)

    def _joint(self, X, *, row_terms: bool) -> np.ndarray:
        """``log p(x, k)``; without ``row_terms`` only up to a per-row constant."""
        X, dtype = self._prepare(X)
        with precision(dtype):
            log_likelihood = np.asarray(self._log_likelihood(X, dtype, row_terms=row_terms))
        return log_likelihood + self._log_class_prior(log_likelihood.dtype)

    def _log_class_prior(self, dtype) -> np.ndarray:
        with np.errstate(divide="ignore"):  # a class with probability 0 gets -inf
            return np.log(self.class_prior_).astype(dtype)

    def predict_log_proba(self, X) -> np.ndarray:
        """Log posterior class probabilities ``log p(y = k | x)``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            A row with probability zero under every class (possible when a point
            estimate has zero probabilities: ``estimate="mle"``, or ``"map"`` with
            ``alpha <= 1``) gets the class prior, with a warning.
        """
        return self._posterior_log_proba(X)

    def _posterior_log_proba(self, X) -> np.ndarray:
        joint = self._joint(X, row_terms=False)
        log_posterior, n_impossible = _log_posterior(joint, self._log_class_prior(joint.dtype))
        if n_impossible:
            warnings.warn(
                f"{n_impossible} row(s) of X have probability zero under every class (a point "
                "estimate with zero probabilities: estimate='mle', or 'map' with alpha <= 1); "
                "their class probabilities are the class prior.",
                UserWarning,
                stacklevel=3,
            )
        return log_posterior

    def predict_proba(self, X) -> np.ndarray:
        """Posterior class probabilities ``p(y = k | x)``, normalised in log space.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            Rows sum to one; columns in the order of ``classes_``.
        """
        return np.exp(self.predict_log_proba(X))

    def predict(self, X) -> np.ndarray:
        """The most probable class of each row (the Bayes rule under 0-1 loss).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,)
            Labels from ``classes_``.
        """
        log_posterior = self._posterior_log_proba(X)
        return self.classes_[np.argmax(log_posterior, axis=1)]

    def decision_function(self, X) -> np.ndarray:
        """Discriminant scores: joint log-probabilities, or the log-odds for two classes.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,) or (n_samples, n_classes)
            For two classes ``log p(x, classes_[1]) - log p(x, classes_[0])``, as in
            scikit-learn's discriminant analysis; otherwise ``predict_joint_log_proba``.
        """
        joint = self.predict_joint_log_proba(X)
        if joint.shape[1] == 2:
            return joint[:, 1] - joint[:, 0]
        return joint

    def score_samples(self, X) -> np.ndarray:
        """Log marginal density ``log p(x) = logsumexp_k [log pi_k + log p(x | k)]``.

        Low values flag inputs that no class explains well.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,)
        """
        return _logsumexp_rows(self.predict_joint_log_proba(X))[:, 0]
