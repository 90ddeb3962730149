"""The scikit-learn face of every generative classifier, written once.

A subclass supplies a feature family through four hooks (its statistics, how two batches
of statistics merge, how parameters follow from them, and the per-class log-likelihood);
this class turns labels and sample weights into the responsibilities matrix, keeps the
class counts, and derives every prediction from the joint log-likelihood
``log p(y = k) + log p(x | y = k)``.
"""

from __future__ import annotations

import warnings
from typing import ClassVar

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_consistent_length, check_is_fitted, column_or_1d

from bayesgen._lazy import lazy_module
from bayesgen._precision import compute_dtype, precision
from bayesgen.estimators import semi_supervised_fit
from bayesgen.estimators.decisions import ClassPriorDecisions
from bayesgen.estimators.registration import Registered
from bayesgen.estimators.saving import ModelFileMixin
from bayesgen.estimators.uncertainty import PosteriorUses
from bayesgen.estimators.uses import GenerativeUses
from bayesgen.families import class_prior
from bayesgen.families.estimates import pseudo_counts
from bayesgen.families.namespace import is_numpy, tree_leaves, tree_map
from bayesgen.frames import column_schema
from bayesgen.inference import log_space, semi_supervised
from bayesgen.inference.log_space import log_evidence, normalise
from bayesgen.validation import (
    check_features,
    check_labels,
    check_weights,
    scoring_rows,
)

jax = lazy_module("jax")
jnp = lazy_module("jax.numpy")


def _responsibilities(class_index: np.ndarray, weights: np.ndarray, n_classes: int):
    """One-hot rows times sample weights, (n_samples, n_classes); NumPy, so no per-n compile."""
    responsibilities = np.zeros((class_index.shape[0], n_classes), dtype=weights.dtype)
    responsibilities[np.arange(class_index.shape[0]), class_index] = weights
    return responsibilities


#: Fit adds rows in chunks when one-hot responsibilities for all rows would hold more
#: (row, class) entries than this (256 MiB in float64); below it, one pass as always.
RESPONSIBILITY_ENTRIES = 2**25


def _row_chunks(n_rows: int, n_classes: int) -> list[slice]:
    """Row slices whose (rows x classes) responsibilities stay within the budget.

    Without them, 50,000 classes of one row each made a 50,000 x 50,000 matrix (18.6 GiB).
    """
    rows = max(1, RESPONSIBILITY_ENTRIES // max(1, n_classes))
    return [slice(start, min(start + rows, n_rows)) for start in range(0, n_rows, rows)]


PROBA_METHODS = ("plugin", "predictive")


def _to_numpy(tree):
    return tree_map(np.asarray, tree)


def _unscored_rows(joint: np.ndarray) -> np.ndarray:
    """Rows of ``joint`` no class could score: every entry -inf, or an overflow (NaN, +inf).

    A product with ones finds the rows with any non-finite entry in one fast pass (a
    reduction along the short class axis costs ten times more); only those are inspected.
    """
    with np.errstate(invalid="ignore", over="ignore"):
        suspect = np.flatnonzero(~np.isfinite(joint @ np.ones(joint.shape[1], joint.dtype)))
    unscored = np.zeros(joint.shape[0], dtype=bool)
    if suspect.size:
        rows = joint[suspect]
        unscored[suspect] = ~np.isfinite(np.max(rows, axis=1, initial=-np.inf)) | np.isnan(
            rows
        ).any(axis=1)
    return unscored


def _to_jax(tree, dtype):
    return jax.tree.map(lambda leaf: jnp.asarray(leaf, dtype=dtype), tree)


def _like_numpy(tree, dtype):
    """``tree``'s leaves as NumPy arrays in ``dtype``."""
    return tree_map(lambda leaf: np.asarray(leaf, dtype=dtype), tree)


def _like(tree, reference, dtype):
    """``tree``'s leaves in ``dtype``, NumPy when ``reference`` is NumPy data, else JAX.

    Stored statistics merge with a new batch's in the batch's namespace, so a plain
    ``partial_fit`` on NumPy data stays in NumPy (and compiles nothing).
    """
    if is_numpy(reference):
        return _like_numpy(tree, dtype)
    return _to_jax(tree, dtype)


class GenerativeClassifier(
    Registered,
    ModelFileMixin,
    GenerativeUses,
    PosteriorUses,
    ClassPriorDecisions,
    ClassifierMixin,
    BaseEstimator,
):
    """Base class of the generative classifiers: fitting and prediction over one joint.

    Every estimator is a view of its fitted value (`bayesgen.estimators.joint_view.JointView`,
    which implements ``_add_rows``, ``_install_stats``, ``_feature_stats``,
    ``_merge_feature_stats`` and ``_log_likelihood(X, dtype, *, row_terms)`` from the
    family); a subclass implements ``_check_hyperparameters``, describes its class prior
    through ``_class_prior_settings`` and may override ``_check_X`` (the default accepts
    dense, finite, numeric arrays) and ``_story_features``.
    """

    #: The fewest classes a fit takes: two, as scikit-learn's discriminant analysis. The
    #: naive Bayes classes take one, as scikit-learn's do: the model is then the density
    #: of that class (``score_samples``, ``sample``), and every prediction is that class.
    min_classes: ClassVar[int] = 2

    #: Fitted attributes a fit sets beside its value ``joint_`` (kept with it by EM restarts).
    _state_beside_value: ClassVar[tuple[str, ...]] = ()

    def _fitted_state(self) -> dict:
        """What the last fit learned: the value ``joint_`` and the attributes kept beside it
        (`_state_beside_value`), by name; an EM restart compares and keeps these."""
        names = ("joint_", *self._state_beside_value)
        return {name: self.__dict__[name] for name in names if name in self.__dict__}

    def _restore_fitted_state(self, state: dict) -> None:
        """Put back a `_fitted_state` (what another fit set beside it goes)."""
        for name in ("joint_", *self._state_beside_value):
            self.__dict__.pop(name, None)
        self.__dict__.update(state)

    def _check_X(self, X, *, reset: bool):
        return check_features(self, X, reset=reset)

    # ------------------------------------------------------------------ fitting
    def fit(self, X, y, sample_weight=None):
        """Fit the model: in closed form from labelled rows, by EM when some are unlabelled.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
            Class labels (any sortable type: ints, strings, ...). A row labelled
            ``unlabeled_marker`` (default -1, as in ``sklearn.semi_supervised``) or
            None/NaN is unlabelled: it enters through
            its mixture likelihood $\\sum_k \\pi_k\\, p(x \\mid k)$ and the model is
            fitted by EM (see ``max_iter``, ``tol``, ``n_init``, ``unlabeled_weight``);
            ``classes_`` come from the labelled rows. With no labelled row at all, EM
            clusters the rows into ``n_classes`` classes (with a warning).
        sample_weight : array-like of shape (n_samples,), optional
            Non-negative row weights; a weight of ``w`` counts as ``w`` copies of the row.

        Returns
        -------
        self
        """
        self._check_hyperparameters()
        training_columns = column_schema(X)
        X = self._check_X(X, reset=True)
        self._training_columns = training_columns  # what ``sample`` returns rows as
        if y is None:
            raise ValueError(
                f"{type(self).__name__} requires y to be passed, but the target y is None."
            )
        y = column_or_1d(y, warn=True)
        check_consistent_length(X, y)
        weights = check_weights(sample_weight, X)
        marker = getattr(self, "unlabeled_marker", -1)
        unlabeled = semi_supervised.marked_unlabeled(y, marker, stacklevel=3)
        if unlabeled.any():
            return semi_supervised_fit.fit(self, X, y, unlabeled, weights)
        y = check_labels(y)
        classes, class_index = np.unique(y, return_inverse=True)
        if classes.shape[0] < self.min_classes:
            raise ValueError(
                f"y has {classes.shape[0]} class ({classes.tolist()}); a classifier needs at "
                "least two classes."
            )
        semi_supervised.check_n_classes(self.n_classes, classes)
        weighted_counts = np.bincount(class_index, weights=weights, minlength=classes.shape[0])
        # Classes without weight would have no density: two with weight, unless one class.
        if np.count_nonzero(weighted_counts > 0) < min(2, classes.shape[0]):
            raise ValueError(
                "sample_weight leaves fewer than two classes with positive total weight; a "
                "classifier needs at least two classes."
            )
        self.classes_ = classes
        self.fitted_with_unlabeled_ = False
        self.n_iter_, self.converged_ = 1, True  # the closed-form fit: one pass
        self.log_likelihood_history_ = np.empty(0)
        self._add_labelled_rows(X, class_index, weights, classes.shape[0], reset=True)
        return self

    def _add_labelled_rows(self, X, class_index, weights, n_classes: int, *, reset: bool):
        """``_add_rows`` for labelled rows, a chunk of rows at a time when there are many
        classes (`_row_chunks`); the statistics are sums, so chunks merge exactly."""
        chunks = _row_chunks(X.shape[0], n_classes)
        if len(chunks) == 1:  # the usual case: all rows at once, X untouched
            self._add_rows(X, _responsibilities(class_index, weights, n_classes), reset=reset)
            return
        for number, rows in enumerate(chunks):
            responsibilities = _responsibilities(class_index[rows], weights[rows], n_classes)
            self._add_rows(X[rows], responsibilities, reset=reset and number == 0)

    @classmethod
    def _upgrade_saved_state(cls, state: dict) -> dict:
        """Translate the state a model file of an earlier layout saved.

        ``_fresh_fit`` told the statistics hooks whether a fit started afresh; a model
        without statistics now says so itself, and the flag is dropped.
        ``_fitted_semi_supervised`` is now ``fitted_with_unlabeled_``.
        """
        state = dict(state)
        state.pop("_fresh_fit", None)
        if "_fitted_semi_supervised" in state:
            state["fitted_with_unlabeled_"] = bool(state.pop("_fitted_semi_supervised"))
        return state

    @classmethod
    def from_statistics(cls, params: dict, classes, class_stats, feature_stats, **options):
        """A fitted estimator made from statistics computed elsewhere, as ``fit`` makes it.

        Parameters
        ----------
        params : dict
            Constructor arguments.
        classes : ndarray of shape (n_classes,)
        class_stats, feature_stats : pytrees
            The class counts and the family's statistics (``_batch_stats``' pair).
        **options
            ``attributes``: fitted attributes the statistics do not carry
            (``n_features_in_``, ``categories_``), set first; the rest go to
            ``_install_stats``.

        Returns
        -------
        estimator
        """
        estimator = cls(**params)
        estimator.classes_ = np.asarray(classes)
        vars(estimator).update(options.pop("attributes", {}))
        dtype = tree_leaves(class_stats)[0].dtype
        with precision(dtype):
            estimator._install_stats(
                _to_jax(class_stats, dtype), _to_jax(feature_stats, dtype), **options
            )
        return estimator

    def _em_log_prior(self) -> float:
        """The log prior in the EM objective: the class prior's part plus the family's."""
        fixed, concentration, kind = self._class_prior_settings()
        class_part = 0.0
        if fixed is None:
            pseudo = pseudo_counts(concentration, kind)
            with np.errstate(divide="ignore", invalid="ignore"):
                terms = np.where(pseudo == 0, 0.0, pseudo * np.log(self.class_prior_))
            class_part = float(np.sum(terms))
        return class_part + self._feature_log_prior()

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
            self._training_columns = column_schema(X)
            all_classes = np.unique(check_labels(classes))
            if all_classes.shape[0] < self.min_classes:
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
        class_index = np.searchsorted(all_classes, y)
        self._add_labelled_rows(X, class_index, weights, all_classes.shape[0], reset=first_call)
        return self

    def _batch_stats(self, X, responsibilities: np.ndarray, dtype, **options):
        """The statistics of one batch of rows: (class counts, the family's statistics).

        Run inside ``precision(dtype)``; both are pytrees (NumPy arrays on the plain path,
        see `bayesgen.families.namespace`). They depend on the batch only, which is what
        lets batches be processed anywhere (``bayesgen.dask``) and merged afterwards.
        ``options`` go to ``_feature_stats`` (an EM step's warm start).
        """
        responsibilities = responsibilities.astype(dtype, copy=False)
        counts = class_prior.suff_stats(responsibilities)
        return counts, self._feature_stats(X, responsibilities, dtype, **options)

    def _merge_stats(self, previous, new, dtype):
        """The statistics of the union of two disjoint batches, each a ``_batch_stats`` pair.

        ``previous`` may hold NumPy arrays (stored statistics): they are brought to ``dtype``
        and to the namespace of ``new``.
        """
        class_stats, feature_stats = new
        return (
            class_prior.merge(_like(previous[0], class_stats, dtype), class_stats),
            self._merge_feature_stats(_like(previous[1], feature_stats, dtype), feature_stats),
        )

    # --------------------------------------------------------------- prediction
    def _prepare(self, X):
        check_is_fitted(self)
        with scoring_rows():
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
            log_likelihood = self._chunked_log_likelihood(X, dtype, row_terms)
        log_prior = self._log_class_prior(log_likelihood.dtype)
        if not log_likelihood.flags.writeable:  # a view of a JAX buffer
            return log_likelihood + log_prior
        return np.add(log_likelihood, log_prior, out=log_likelihood)

    def _chunked_log_likelihood(self, X, dtype, row_terms: bool) -> np.ndarray:
        """``_log_likelihood`` of all rows, a chunk of rows at a time when rows x classes x
        features would exceed ``RESPONSIBILITY_ENTRIES`` (a family may hold a
        (rows, classes, features) intermediate): predicting for many classes stays bounded."""
        n_classes, n_features = self.classes_.shape[0], max(1, X.shape[1])
        chunks = _row_chunks(X.shape[0], n_classes * n_features)
        if len(chunks) == 1 or not isinstance(X, np.ndarray):
            return np.asarray(self._log_likelihood(X, dtype, row_terms=row_terms))
        return np.concatenate(
            [
                np.asarray(self._log_likelihood(X[rows], dtype, row_terms=row_terms))
                for rows in chunks
            ]
        )

    def _log_class_prior(self, dtype) -> np.ndarray:
        with np.errstate(divide="ignore"):  # a class with probability 0 gets -inf
            return np.log(self.class_prior_).astype(dtype)

    def predict_log_proba(self, X, *, method="plugin") -> np.ndarray:
        """Log posterior class probabilities ``log p(y = k | x)``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        method : {"plugin", "predictive"}, default="plugin"
            See `predict_proba`.

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            A row with probability zero under every class (possible when a point
            estimate has zero probabilities: ``estimate="mle"``, or ``"map"`` with
            ``alpha <= 1``) gets the class prior, with a warning.
        """
        if method not in PROBA_METHODS:
            raise ValueError(f"method must be one of {PROBA_METHODS}; got {method!r}.")
        if method == "predictive":
            return self._predictive_log_proba(X)
        return self._plugin_posterior(X, log=True)

    def _plugin_posterior(self, X, *, log: bool) -> np.ndarray:
        """``log p(k | x)`` (``log``) or ``p(k | x)`` under the point estimate."""
        joint = self._joint(X, row_terms=False)
        log_prior = self._log_class_prior(joint.dtype)
        unscored = _unscored_rows(joint)
        if unscored.any():
            limit = self._limit_log_posterior(X, unscored, log_prior)
            if limit is not None:
                joint = joint.copy()
                joint[unscored] = limit
        if log:
            n_impossible = int(np.count_nonzero(np.isneginf(log_space.row_max(joint))))
            posterior = normalise(joint, log_prior)
        else:
            if not joint.flags.writeable:
                joint = joint.copy()
            posterior, n_impossible = log_space.probabilities(joint, log_prior)
        if n_impossible:
            warnings.warn(
                f"{n_impossible} row(s) of X have probability zero under every class (a point "
                "estimate with zero probabilities: estimate='mle', or 'map' with alpha <= 1; or "
                "a row so far out that every class density underflows); their class "
                "probabilities are the class prior.",
                UserWarning,
                stacklevel=3,
            )
        return posterior

    def _limit_log_posterior(self, X, rows: np.ndarray, log_prior: np.ndarray):
        """``log p(k | x)`` of the ``rows`` of ``X`` that no class density could score in
        floating point (`FeatureFamily.limit_log_posterior`), or None where the model has
        no such limit (the rows then get the class prior, with a warning)."""
        return None

    def _predictive_log_proba(self, X) -> np.ndarray:
        """``log p(k | x, D)``: the parameters integrated out of the joint.

        The class probabilities and the class densities are independent a posteriori, so
        $p(k \\mid x, \\mathcal D) \\propto \\mathbb E[\\pi_k \\mid \\mathcal D]\\,
        p(x \\mid k, \\mathcal D)$.
        """
        check_is_fitted(self)
        self._check_exact_posterior()
        X, dtype = self._prepare(X)
        with precision(dtype):
            log_likelihood = np.asarray(self._predictive_log_likelihood(X, dtype))
        with np.errstate(divide="ignore"):
            log_prior = np.log(self._predictive_class_prior()).astype(log_likelihood.dtype)
        return normalise(log_likelihood + log_prior, log_prior)

    def predict_proba(self, X, *, method="plugin") -> np.ndarray:
        """Posterior class probabilities ``p(y = k | x)``, normalised in log space.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        method : {"plugin", "predictive"}, default="plugin"
            ``"plugin"``: under the fitted point estimate of the parameters (what
            scikit-learn computes). ``"predictive"``: the exact posterior predictive, with
            the parameters integrated out, $p(k \\mid x, \\mathcal D) \\propto
            \\mathbb E[\\pi_k \\mid \\mathcal D]\\,p(x \\mid k, \\mathcal D)$, where
            $p(x \\mid k, \\mathcal D)$ is a Student-t for Gaussians and
            Beta–Bernoulli, Dirichlet–multinomial, Dirichlet–categorical or negative
            binomial for the discrete families (cf. MASS ``predict.lda(method=
            "predictive")``). It is less confident than the plug-in where data are few.
            Missing features (NaN) are integrated out in both.

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            Rows sum to one; columns in the order of ``classes_``.
        """
        if method == "plugin":  # one pass less than exp(predict_log_proba)
            return self._plugin_posterior(X, log=False)
        return np.exp(self.predict_log_proba(X, method=method))

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
        return log_evidence(self.predict_joint_log_proba(X))[:, 0]
