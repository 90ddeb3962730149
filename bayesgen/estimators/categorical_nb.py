"""``CategoricalNB``: naive Bayes over features whose values are categories of any kind."""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np
import pandas as pd
import scipy.sparse as sp
from sklearn.utils.validation import validate_data

from bayesgen import stories
from bayesgen.estimators import count_data
from bayesgen.estimators.count_nb import COMMON_PARAMETERS_DOC, CountNB
from bayesgen.families import categorical
from bayesgen.inference.imputation import _draw_classes
from bayesgen.validation import _check_finite, _column_name, check_positive


def _unhashable(value) -> bool:
    try:
        hash(value)
    except TypeError:
        return True
    return False


def _learn_categories(column: np.ndarray) -> np.ndarray:
    """Distinct values, sorted when they can be, else in order of appearance."""
    unique = pd.unique(pd.Series(column, dtype=object).dropna())
    try:
        return np.asarray(sorted(unique), dtype=object)
    except TypeError:
        return np.asarray(unique, dtype=object)


def _merge_categories(known: np.ndarray, column: np.ndarray) -> np.ndarray:
    new = _learn_categories(column)
    unseen = new[pd.Index(known).get_indexer(new) < 0]
    return _learn_categories(np.concatenate([known, unseen])) if unseen.size else known


class CategoricalNB(CountNB):
    model_name = "categorical-nb"
    __doc__ = (
        """Naive Bayes for categorical features: a Dirichlet–categorical story per feature.

    .. math::

        \\theta_{kj} \\sim \\mathrm{Dirichlet}(\\alpha \\mathbf 1), \\quad
        y \\sim \\mathrm{Categorical}(\\pi), \\quad
        x_j \\mid y = k \\sim \\mathrm{Categorical}(\\theta_{kj}).

    Categories may be any hashable values (ints, strings, ...), learned per feature in
    ``fit`` (and extended by ``partial_fit``). Each feature also has one category for
    every value not seen in training, so a new value at prediction time gets its
    posterior-predictive probability :math:`\\alpha / (N_k + \\alpha (C_j + 1))` under
    ``estimate="mean"`` instead of an error. (This extra category makes the smoothed
    probabilities differ slightly from scikit-learn's ``CategoricalNB``, which has none.)

    Parameters
    ----------
    alpha : float, default=1.0
        Dirichlet concentration of every category (additive smoothing).
"""
        + COMMON_PARAMETERS_DOC
        + """
    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    class_count_ : ndarray of shape (n_classes,)
    class_prior_ : ndarray of shape (n_classes,)
    categories_ : list of ndarray
        The categories of each feature seen in training.
    category_count_ : list of ndarray of shape (n_classes, n_categories_j)
        Weighted per-class count of each category.
    feature_log_prob_ : list of ndarray of shape (n_classes, n_categories_j + 1)
        :math:`\\log\\theta_{kj}`; the last column is the category of unseen values.
    n_features_in_ : int
"""
    )
    _family = categorical

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

    def _check_hyperparameters(self):
        super()._check_hyperparameters()
        check_positive(self.alpha, "alpha")

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = False
        tags.input_tags.positive_only = False
        tags.input_tags.categorical = True
        tags.input_tags.allow_nan = True
        return tags

    def _check_X(self, X, *, reset):
        X = validate_data(self, X, reset=reset, dtype=None, ensure_all_finite=False)
        # NaN and None are missing values: their feature is left out of the row's likelihood.
        if X.dtype.kind in "fc":
            _check_finite(X, self, allow_nan=True)
        elif X.dtype == object:
            for row, column in zip(
                *np.nonzero(np.frompyfunc(_unhashable, 1, 1)(X).astype(bool)), strict=False
            ):
                raise TypeError(
                    f"CategoricalNB: every category must be hashable (argument must be a string "
                    f"or a number, for instance); X has a {type(X[row, column]).__name__} at "
                    f"row {row}, {_column_name(self, column)}."
                )
        return X

    # ------------------------------------------------------------------ encoding
    def _layout(self):
        sizes = np.array([len(c) + 1 for c in self.categories_])
        offsets = np.concatenate([[0], np.cumsum(sizes)[:-1]])
        return sizes, offsets, np.repeat(np.arange(len(sizes)), sizes)

    def _codes(self, X) -> np.ndarray:
        """Category codes ``0..C_j``; ``C_j`` for values not seen in training, -1 if missing."""
        codes = np.empty(X.shape, dtype=np.int64)
        for j, known in enumerate(self.categories_):
            column = pd.Series(X[:, j], dtype=object)
            found = pd.Index(known).get_indexer(column)
            codes[:, j] = np.where(column.isna(), -1, np.where(found < 0, len(known), found))
        return codes

    def _one_hot(self, X) -> sp.csr_matrix:
        """The side-by-side one-hot encoding; a missing value has no entry in its block."""
        sizes, offsets, _ = self._layout()
        codes = self._codes(X)
        rows, features = np.nonzero(codes >= 0)
        columns = codes[rows, features] + offsets[features]
        data = np.ones(columns.shape[0])
        shape = (X.shape[0], int(sizes.sum()))
        return sp.csr_matrix((data, (rows, columns)), shape=shape)

    def _extend_categories(self, X, reset):
        if reset:
            self.categories_ = [_learn_categories(X[:, j]) for j in range(X.shape[1])]
            return
        old_offsets, old_categories = self._layout()[1], self.categories_
        self.categories_ = [_merge_categories(c, X[:, j]) for j, c in enumerate(old_categories)]
        if all(len(a) == len(b) for a, b in zip(old_categories, self.categories_, strict=True)):
            return
        _, new_offsets, _ = self._layout()
        counts = np.zeros((self._stats.counts.shape[0], self._layout()[0].sum()))
        old = np.asarray(self._stats.category_counts)
        for j, (before, after) in enumerate(zip(old_categories, self.categories_, strict=True)):
            where = pd.Index(after).get_indexer(before) + new_offsets[j]
            counts[:, where] = old[:, old_offsets[j] : old_offsets[j] + len(before)]
        self._stats = categorical.CategoricalStats(self._stats.counts, counts.astype(old.dtype))

    # ------------------------------------------------------------------ hooks
    def _feature_stats(self, X, responsibilities, dtype):
        # Only rows with positive weight define categories: a zero weight removes the row.
        weighted = np.asarray(jnp.sum(responsibilities, axis=1)) > 0
        self._extend_categories(X[weighted], reset=self._fresh_fit)
        sums = count_data.class_sums(responsibilities, self._one_hot(X).astype(dtype))
        counts = jnp.sum(responsibilities, axis=0)
        return categorical.CategoricalStats(counts, jnp.asarray(sums, dtype))

    def _add_rows(self, X, responsibilities, *, reset):
        self._fresh_fit = reset
        super()._add_rows(X, responsibilities, reset=reset)

    def _store_parameters(self, stats):
        sizes, offsets, segment_ids = self._layout()
        theta = categorical.point_estimate(
            jnp.asarray(self.alpha, stats.counts.dtype),
            stats,
            self.estimate,
            jnp.asarray(segment_ids),
            len(self.categories_),
        )
        log_theta = np.asarray(jnp.log(theta))
        counts = np.asarray(stats.category_counts)
        self.category_count_ = [
            counts[:, o : o + s - 1] for o, s in zip(offsets, sizes, strict=True)
        ]
        self.feature_log_prob_ = [
            log_theta[:, o : o + s] for o, s in zip(offsets, sizes, strict=True)
        ]

    def _parameters(self):
        return np.exp(np.concatenate(self.feature_log_prob_, axis=1))

    def _log_likelihood(self, X, dtype, *, row_terms=True):
        form = categorical.linear_form(jnp.asarray(self._parameters(), dtype=dtype))
        return count_data.evaluate(form, self._one_hot(X).astype(dtype))

    def _story_part(self):
        # Sites "category_probs_j", shape (n_classes, C_j + 1), and "X_j" per feature j.
        concentrations = [jnp.full(int(size), float(self.alpha)) for size in self._layout()[0]]
        return stories.categorical_part(concentrations, self.classes_.shape[0])

    def _sampling_sites(self):
        # Drawing the "unseen" category would give no value to return, so synthetic rows
        # are drawn given a seen category: its probability is spread over the others.
        sites = {}
        for j, log_theta in enumerate(self.feature_log_prob_):
            seen = np.exp(log_theta[:, :-1])
            seen = seen / seen.sum(axis=1, keepdims=True)
            sites[f"category_probs_{j}"] = np.concatenate([seen, np.zeros_like(seen[:, :1])], 1)
        return sites

    def _impute_rows(self, X, class_weights, method, rng):
        """Most probable seen category under the class mixture, or a draw given a class."""
        filled = X.astype(object)
        missing = pd.isna(pd.DataFrame(X)).to_numpy()
        chosen = _draw_classes(class_weights, rng) if method == "sample" else None
        for j, known in enumerate(self.categories_):
            rows = np.flatnonzero(missing[:, j])
            if rows.size == 0:
                continue
            seen = np.exp(self.feature_log_prob_[j][:, :-1])
            seen = seen / seen.sum(axis=1, keepdims=True)  # (n_classes, C_j)
            if method == "mean":
                codes = np.argmax(class_weights[rows] @ seen, axis=1)
            else:
                cumulative = np.cumsum(seen[chosen[rows]], axis=1)
                codes = (rng.random((rows.size, 1)) > cumulative).sum(axis=1)
                codes = np.minimum(codes, len(known) - 1)
            filled[rows, j] = known[codes]
        return filled

    def _features_from_draws(self, draws):
        columns = [known[draws[f"X_{j}"]] for j, known in enumerate(self.categories_)]
        return np.stack(columns, axis=1)

    def _story_features(self, X):
        """Category codes ``0..C_j`` (``C_j``: a value not seen in training)."""
        return jnp.asarray(self._codes(X))

    # ------------------------------------------------------------------ posterior
    def _blocks(self, columns: np.ndarray) -> dict:
        """Split (..., n_columns) per feature into the sites ``category_probs_j``."""
        sizes, offsets, _ = self._layout()
        return {
            f"category_probs_{j}": columns[..., o : o + size]
            for j, (o, size) in enumerate(zip(offsets, sizes, strict=True))
        }

    def _concentration(self):
        return np.asarray(float(self.alpha))

    def _concentration_posterior(self):
        stats = self._fitted_stats()
        return categorical.posterior(jnp.asarray(self.alpha, stats.counts.dtype), stats)

    def _parameter_posterior_draws(self, key, num_samples):
        _, _, segment_ids = self._layout()
        draws = categorical.sample_params(
            key,
            self._concentration_posterior(),
            jnp.asarray(segment_ids),
            len(self.categories_),
            num_samples,
        )
        return self._blocks(np.asarray(draws))

    def _set_parameters(self, sites):
        with np.errstate(divide="ignore"):  # a drawn probability may underflow to 0
            self.feature_log_prob_ = [
                np.log(np.asarray(sites[f"category_probs_{j}"]))
                for j in range(len(self.categories_))
            ]

    def _predictive_log_likelihood(self, X, dtype):
        # Features are independent a posteriori: the predictive of a row is the categorical
        # likelihood at the posterior-mean probabilities of each feature.
        concentration = np.asarray(self._concentration_posterior())
        means = {
            site: block / block.sum(axis=-1, keepdims=True)
            for site, block in self._blocks(concentration).items()
        }
        return self._with_parameters(means)._log_likelihood(X, dtype)

    def _parameter_dims(self, features):
        dims, coords = {}, {}
        for j, known in enumerate(self.categories_):
            dims[f"category_probs_{j}"] = ("class", f"category_{j}")
            coords[f"category_{j}"] = [str(value) for value in known] + ["<unseen>"]
        return dims, coords
