"""``RDACV``: regularised discriminant analysis with (alpha, gamma) chosen by cross-validation.

The sufficient statistics of a fold do not depend on (alpha, gamma), so each fold is fitted
once and every grid point only recomputes the covariances from the stored statistics
(``_refit_parameters``) before it is scored: the cost is one fit per fold plus one
prediction per fold and grid point, where ``GridSearchCV`` refits at every grid point.
The scores are the same as ``GridSearchCV``'s with the same folds and scorer.
"""

from __future__ import annotations

import itertools
import warnings

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.exceptions import FitFailedWarning
from sklearn.metrics import check_scoring
from sklearn.model_selection import check_cv
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import check_is_fitted, column_or_1d

from bayesgen.estimators.gaussian import GaussianDA
from bayesgen.estimators.registration import Registered
from bayesgen.estimators.saving import ModelFileMixin
from bayesgen.inference import semi_supervised
from bayesgen.validation import caller_stacklevel, check_labels, check_weights

DEFAULT_GRID = (0.0, 0.25, 0.5, 0.75, 1.0)


def _best_has(name):
    return lambda self: hasattr(self.best_estimator_ if self._is_fitted() else self._base(), name)


def _check_grid(values, name) -> np.ndarray:
    grid = np.atleast_1d(np.asarray(values, dtype=float))
    if grid.ndim != 1 or grid.size == 0 or np.any((grid < 0) | (grid > 1) | np.isnan(grid)):
        raise ValueError(f"{name} must be a non-empty list of numbers in [0, 1]; got {values!r}.")
    return grid


class RDACV(Registered, ModelFileMixin, ClassifierMixin, BaseEstimator):
    """Regularised discriminant analysis with ``reg_alpha`` and ``reg_gamma`` cross-validated.

    Parameters
    ----------
    estimator : GaussianDA, optional
        The model to regularise, with ``covariance_type="full"``; its other settings
        (estimate, priors, ridge, shrinkage) are kept. Default ``GaussianDA()``.
    reg_alphas : sequence of float in [0, 1], default=(0, 0.25, 0.5, 0.75, 1)
        Candidate $\\alpha$ (1 is QDA; 0 with $\\gamma = 1$ is LDA).
    reg_gammas : sequence of float in [0, 1], default=(0, 0.25, 0.5, 0.75, 1)
        Candidate $\\gamma$.
    cv : int, cross-validation generator or iterable, default=5
        As in ``GridSearchCV`` (stratified folds for an integer).
    scoring : str or callable, default="neg_log_loss"
        A scikit-learn scorer; higher is better.

    Attributes
    ----------
    best_params_ : dict
        ``{"reg_alpha": ..., "reg_gamma": ...}`` of the best mean score (the first such
        grid point in the order ``reg_alphas`` x ``reg_gammas``).
    best_score_ : float
    best_estimator_ : GaussianDA
        Refitted on all rows with ``best_params_``; predictions delegate to it.
    cv_results_ : dict of ndarray
        ``"params"``, ``"param_reg_alpha"``, ``"param_reg_gamma"``, ``"split<i>_test_score"``,
        ``"mean_test_score"``, ``"std_test_score"``, ``"rank_test_score"``, laid out as
        ``GridSearchCV``'s.
    classes_ : ndarray of shape (n_classes,)
    n_features_in_ : int

    Examples
    --------
    >>> from sklearn.datasets import load_wine
    >>> from sklearn.pipeline import make_pipeline
    >>> from sklearn.preprocessing import StandardScaler
    >>> from bayesgen import RDACV
    >>> X, y = load_wine(return_X_y=True)
    >>> model = make_pipeline(StandardScaler(), RDACV()).fit(X, y)
    >>> model[-1].best_params_
    {'reg_alpha': 0.5, 'reg_gamma': 1.0}
    """

    model_name = "rda"

    def __init__(
        self,
        estimator=None,
        *,
        reg_alphas=DEFAULT_GRID,
        reg_gammas=DEFAULT_GRID,
        cv=5,
        scoring="neg_log_loss",
    ):
        self.estimator = estimator
        self.reg_alphas = reg_alphas
        self.reg_gammas = reg_gammas
        self.cv = cv
        self.scoring = scoring

    def _base(self) -> GaussianDA:
        base = GaussianDA() if self.estimator is None else self.estimator
        if not isinstance(base, GaussianDA) or base.covariance_type != "full":
            raise ValueError(
                f"estimator must be a GaussianDA with covariance_type='full'; got {base!r}."
            )
        if getattr(base, "covariance_estimator", None) is not None:
            raise ValueError(
                "estimator has a covariance_estimator, whose covariances replace the "
                "regularised ones RDACV searches; pass it without one."
            )
        return base

    def _is_fitted(self) -> bool:
        return hasattr(self, "best_estimator_")

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        return tags

    def fit(self, X, y, sample_weight=None):
        """Score every (alpha, gamma) by cross-validation, then refit the best on all rows.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
            Labels; unlabelled rows (None, NaN or ``estimator``'s ``unlabeled_marker``,
            default -1) are refused, as they cannot be scored.
        sample_weight : array-like of shape (n_samples,), optional
            Passed to every fit; the scores are unweighted, as ``GridSearchCV``'s.

        Returns
        -------
        self
        """
        base = self._base()
        alphas = _check_grid(self.reg_alphas, "reg_alphas")
        gammas = _check_grid(self.reg_gammas, "reg_gammas")
        y = column_or_1d(y, warn=True)
        if y.dtype.kind in "fc" and np.isinf(y).any():
            check_labels(y)  # the error for a non-finite label
        if semi_supervised.marked_unlabeled(y, base.unlabeled_marker).any():
            raise ValueError(
                f"y contains unlabelled rows (None, NaN or the estimator's unlabeled_marker="
                f"{base.unlabeled_marker!r}); RDACV scores labelled rows only. "
                "Fit GaussianDA(reg_alpha=..., reg_gamma=...) on them instead."
            )
        y = check_labels(y)
        classes = np.unique(y)
        if classes.shape[0] < 2:  # GaussianDA takes one (a table's density); RDA has no rule
            raise ValueError(
                f"y has {classes.shape[0]} class ({classes.tolist()}); a classifier needs at "
                "least two classes."
            )
        # Data no fit can use (no features, ...) is the caller's error, raised as GaussianDA
        # raises it, not a failed fold: one closed-form fit on all rows first.
        clone(base).fit(X, y, sample_weight=sample_weight)
        rows = np.asarray(X)
        weights = None if sample_weight is None else check_weights(sample_weight, rows)
        scorer = check_scoring(base, scoring=self.scoring)
        folds = list(check_cv(self.cv, y, classifier=True).split(rows, y))
        grid = list(itertools.product(alphas, gammas))
        scores = np.empty((len(grid), len(folds)))
        failures = []
        for f, (train, test) in enumerate(folds):
            model = clone(base).set_params(reg_alpha=1.0, reg_gamma=1.0)
            fit_weights = None if weights is None else weights[train]
            try:
                model.fit(_rows(X, train), y[train], sample_weight=fit_weights)
            except ValueError as error:  # a fold with one class, say: GridSearchCV goes on
                if len(failures) == len(folds) - 1:
                    raise  # every fold failed: the data are at fault, as GridSearchCV says
                failures.append(error)
                _warn_failed(f"fitting on fold {f}", error)
                scores[:, f] = np.nan
                continue
            for g, (alpha, gamma) in enumerate(grid):
                model.set_params(reg_alpha=float(alpha), reg_gamma=float(gamma))
                try:
                    model._refit_parameters()  # the fold's statistics, new covariances
                    scores[g, f] = scorer(model, _rows(X, test), y[test])
                except ValueError as error:
                    _warn_failed(f"scoring reg_alpha={alpha}, reg_gamma={gamma} on fold {f}", error)
                    scores[g, f] = np.nan
        self.cv_results_ = _results(grid, scores)
        best = int(np.argmin(self.cv_results_["rank_test_score"]))
        self.best_params_ = self.cv_results_["params"][best]
        self.best_score_ = float(self.cv_results_["mean_test_score"][best])
        self.best_estimator_ = clone(base).set_params(**self.best_params_)
        self.best_estimator_.fit(X, y, sample_weight=sample_weight)
        self.classes_ = self.best_estimator_.classes_
        self.n_features_in_ = self.best_estimator_.n_features_in_
        if hasattr(self.best_estimator_, "feature_names_in_"):
            self.feature_names_in_ = self.best_estimator_.feature_names_in_
        return self

    def predict(self, X, **kwargs):
        """Predict with ``best_estimator_``; see
        [`GaussianDA.predict`][bayesgen.GaussianDA.predict]."""
        check_is_fitted(self)
        return self.best_estimator_.predict(X, **kwargs)

    def predict_proba(self, X, **kwargs):
        """Class probabilities of ``best_estimator_``; see
        [`GaussianDA.predict_proba`][bayesgen.GaussianDA.predict_proba]."""
        check_is_fitted(self)
        return self.best_estimator_.predict_proba(X, **kwargs)

    def predict_log_proba(self, X, **kwargs):
        """Log class probabilities of ``best_estimator_``."""
        check_is_fitted(self)
        return self.best_estimator_.predict_log_proba(X, **kwargs)

    def decision_function(self, X):
        """Discriminant scores of ``best_estimator_``."""
        check_is_fitted(self)
        return self.best_estimator_.decision_function(X)

    def score_samples(self, X):
        """Log marginal density ``log p(x)`` under ``best_estimator_``."""
        check_is_fitted(self)
        return self.best_estimator_.score_samples(X)

    def tail_probability(self, X, **kwargs):
        """Tail probability of ``X`` under ``best_estimator_``; see
        [`GaussianDA.tail_probability`][bayesgen.GaussianDA.tail_probability]."""
        check_is_fitted(self)
        return self.best_estimator_.tail_probability(X, **kwargs)

    @available_if(_best_has("sample"))
    def sample(self, n_samples=1, **kwargs):
        """Synthetic rows from ``best_estimator_``; see
        [`GaussianDA.sample`][bayesgen.GaussianDA.sample]."""
        check_is_fitted(self)
        return self.best_estimator_.sample(n_samples, **kwargs)

    @available_if(_best_has("impute"))
    def impute(self, X, **kwargs):
        """Fill missing entries with ``best_estimator_``; see
        [`GaussianDA.impute`][bayesgen.GaussianDA.impute]."""
        check_is_fitted(self)
        return self.best_estimator_.impute(X, **kwargs)


def _warn_failed(what: str, error: Exception) -> None:
    """GridSearchCV's ``error_score=np.nan``: the score is NaN, with a warning."""
    warnings.warn(
        f"RDACV: {what} failed, so its score is NaN ({type(error).__name__}: {error})",
        FitFailedWarning,
        stacklevel=caller_stacklevel(),
    )


def _rows(X, index):
    """Rows of an array or a DataFrame."""
    return X.iloc[index] if hasattr(X, "iloc") else np.asarray(X)[index]


def _results(grid, scores) -> dict:
    mean = scores.mean(axis=1)
    # A NaN mean (a failed fold) ranks last, as in GridSearchCV.
    ranked = np.where(np.isnan(mean), -np.inf, mean)
    order = np.argsort(-ranked, kind="stable")
    rank = np.empty(len(grid), dtype=np.int32)
    # GridSearchCV's "min" ranking: ties share the best rank.
    rank[order] = np.searchsorted(-ranked[order], -ranked[order], side="left") + 1
    results = {
        "params": [{"reg_alpha": float(a), "reg_gamma": float(g)} for a, g in grid],
        "param_reg_alpha": np.array([a for a, _ in grid]),
        "param_reg_gamma": np.array([g for _, g in grid]),
    }
    for f in range(scores.shape[1]):
        results[f"split{f}_test_score"] = scores[:, f]
    results.update(mean_test_score=mean, std_test_score=scores.std(axis=1), rank_test_score=rank)
    return results
