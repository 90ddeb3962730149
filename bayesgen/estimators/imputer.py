"""``Imputer``: fill the missing entries of a table that has no class column."""

from __future__ import annotations

import numbers

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, TransformerMixin, clone
from sklearn.model_selection import KFold
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from bayesgen.estimators.registration import Registered
from bayesgen.inference import imputation

#: Rows of the table a candidate model is fitted to, whatever the labels would have been.
TABLE_CLASS = "table"


def _default_model():
    from bayesgen.estimators.gaussian import GaussianDA

    return GaussianDA(covariance_type="full", estimate="map")


def _rows(X, index):
    return X.iloc[index] if hasattr(X, "iloc") else np.asarray(X)[index]


def _table(X):
    """A DataFrame or a sparse matrix as it is (the model reads or refuses it), anything
    else as an array."""
    return X if hasattr(X, "iloc") or sp.issparse(X) else np.asarray(X)


def _one_class(X) -> np.ndarray:
    return np.full(np.shape(X)[0], TABLE_CLASS, dtype=object)


class Imputer(TransformerMixin, BaseEstimator, Registered):
    #: Exported and allowed in model files, with no command-line name: the command line
    #: fits a model without --target instead (``bayesgen fit`` then ``bayesgen impute``).
    model_name = None
    __doc__ = r"""Fill the missing entries of a table with no class column.

    The whole table is one class of a bayesgen model (by default a full-covariance
    Gaussian, ``GaussianDA(covariance_type="full", estimate="map")``, fitted by EM over
    the missing entries), and ``transform`` is that model's `impute`: each missing entry's
    conditional mean given the row's observed entries (``method="mean"``), or a draw from
    its conditional law (``"sample"``). A mixture model (``MixtureDA``, or
    ``FamilyClassifier`` over a ``MixtureFamily``) gives latent classes;
    ``MixtureDA(n_components="auto")`` chooses their number by held-out log-likelihood.
    With several candidate models the one of highest held-out log-likelihood is kept.

    Parameters
    ----------
    model : estimator or list of estimators, optional
        Unfitted bayesgen classifiers that take one class (``GaussianDA``, ``GaussianNB``,
        ``MixtureDA``, the count naive Bayes models, ``FamilyClassifier``). With a list,
        each is scored by the mean held-out $\log p(x_o)$ of its rows' observed entries
        over ``cv`` folds (one fold split for every candidate), and the best is refitted on
        every row.
    method : {"mean", "sample"}, default="mean"
        What ``transform`` fills in.
    cv : int, default=3
        Folds of the held-out comparison (used only with several candidates).
    random_state : None, int or numpy.random.RandomState
        Seeds the folds (one split shared by every candidate) and the draws of
        ``method="sample"``; None draws both from NumPy's global generator.

    Attributes
    ----------
    model_ : estimator
        The chosen model, fitted to every row as one class.
    cv_scores_ : ndarray of shape (n_candidates,)
        Mean held-out $\log p(x_o)$ per row of each candidate (only with several).
    n_features_in_ : int
        Number of columns seen in ``fit``.
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Set when ``X`` has column names.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.datasets import load_wine
    >>> from bayesgen import Imputer
    >>> X = load_wine().data
    >>> holes = X.copy()
    >>> holes[np.random.default_rng(0).random(X.shape) < 0.1] = np.nan
    >>> filled = Imputer().fit_transform(holes)
    >>> observed = ~np.isnan(holes)
    >>> bool(np.isnan(filled).any()), bool(np.all(filled[observed] == X[observed]))
    (False, True)
    """

    def __init__(self, model=None, *, method="mean", cv=3, random_state=None):
        self.model = model
        self.method = method
        self.cv = cv
        self.random_state = random_state

    def _candidates(self) -> list:
        models = self.model if isinstance(self.model, (list, tuple)) else [self.model]
        if not models:
            raise ValueError("model must be an estimator or a non-empty list of them; got [].")
        chosen = [_default_model() if model is None else model for model in models]
        for model in chosen:
            if not hasattr(model, "impute") or not hasattr(model, "score_samples"):
                raise ValueError(
                    "model must be a bayesgen classifier with impute and score_samples "
                    f"(GaussianDA, MixtureDA, GaussianNB, ...); got {type(model).__name__}."
                )
        return chosen

    def _check_parameters(self) -> None:
        imputation.check_method(self.method)
        if isinstance(self.cv, bool) or not isinstance(self.cv, numbers.Integral) or self.cv < 2:
            raise ValueError(f"cv must be an integer >= 2; got {self.cv!r}.")

    def fit(self, X, y=None):
        """Fit the model (or choose among the candidates) on every row of ``X`` as one class.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            NaN (or None) marks a missing entry.
        y : None
            Ignored; there is no class column.

        Returns
        -------
        self
        """
        self._check_parameters()
        X = _table(X)
        candidates = self._candidates()
        if len(candidates) > 1:
            seed = self._fold_seed()  # one split, shared by every candidate
            self.cv_scores_ = np.array(
                [self._held_out_score(model, X, seed) for model in candidates]
            )
            best = candidates[int(np.argmax(self.cv_scores_))]
        else:
            self.__dict__.pop("cv_scores_", None)
            best = candidates[0]
        self.model_ = clone(best).fit(X, _one_class(X))
        self.n_features_in_ = self.model_.n_features_in_
        names = getattr(self.model_, "feature_names_in_", None)
        if names is None:
            self.__dict__.pop("feature_names_in_", None)
        else:
            self.feature_names_in_ = names
        return self

    def _held_out_score(self, model, X, seed: int) -> float:
        folds = KFold(self.cv, shuffle=True, random_state=seed)
        scores = []
        for train, test in folds.split(np.zeros((np.shape(X)[0], 1))):
            fitted = clone(model).fit(_rows(X, train), _one_class(train))
            scores.append(np.mean(fitted.score_samples(_rows(X, test))))
        return float(np.mean(scores))

    def _fold_seed(self) -> int:
        """The folds' seed: ``random_state`` itself when it is an int, else one draw from
        it (None: NumPy's global generator, so the folds vary from fit to fit)."""
        if isinstance(self.random_state, numbers.Integral) and not isinstance(
            self.random_state, bool
        ):
            return int(self.random_state)
        try:
            return int(check_random_state(self.random_state).randint(2**31 - 1))
        except ValueError as error:
            raise ValueError(
                "random_state must be None, an int or a numpy.random.RandomState; got "
                f"{self.random_state!r}."
            ) from error

    def transform(self, X):
        """``X`` with every missing entry filled (see ``method``); observed entries kept.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, n_features), or a DataFrame for a DataFrame
        """
        check_is_fitted(self)
        return self.model_.impute(_table(X), method=self.method, random_state=self.random_state)

    def score_samples(self, X) -> np.ndarray:
        """$\\log p(x_o)$ of each row's observed entries under the fitted model."""
        check_is_fitted(self)
        return self.model_.score_samples(_table(X))

    def get_feature_names_out(self, input_features=None):
        """The input's column names (imputation keeps the columns)."""
        check_is_fitted(self)
        from sklearn.utils.validation import _check_feature_names_in

        return _check_feature_names_in(self, input_features)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        tags.requires_fit = True
        return tags
