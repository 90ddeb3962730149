"""``CategoricalNB``: naive Bayes over features whose values are categories of any kind."""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np
from sklearn.utils.validation import validate_data

from bayesgen.estimators.count_nb import COMMON_PARAMETERS_DOC, CountNB
from bayesgen.families import categorical
from bayesgen.families.categorical import CategoricalFamily, CategoricalStats
from bayesgen.validation import _check_finite, _column_name, check_positive


class CategoricalNB(CountNB):
    model_name = "categorical-nb"
    __doc__ = (
        """Naive Bayes for categorical features: a Dirichlet–categorical story per feature.

    $$
    \\theta_{kj} \\sim \\mathrm{Dirichlet}(\\alpha \\mathbf 1), \\quad
    y \\sim \\mathrm{Categorical}(\\pi), \\quad
    x_j \\mid y = k \\sim \\mathrm{Categorical}(\\theta_{kj}).
    $$

    Categories may be any hashable values (ints, strings, ...), learned per feature in
    ``fit`` (and extended by ``partial_fit``). By default each feature also has one
    category for every value not seen in training, so a new value at prediction time gets
    its posterior-predictive probability $\\alpha / (N_k + \\alpha (C_j + 1))$ under
    ``estimate="mean"`` instead of an error. This extra category makes the smoothed
    probabilities $(n + \\alpha)/(N + \\alpha (C_j + 1))$ differ slightly from the
    usual $(n + \\alpha)/(N + \\alpha C_j)$ of scikit-learn's ``CategoricalNB`` and R's
    e1071 ``naiveBayes(laplace=alpha)``; ``unseen_category=False`` gives theirs.

    Parameters
    ----------
    alpha : float, default=1.0
        Dirichlet concentration of every category (additive smoothing).
    min_categories : int or array-like of shape (n_features,), optional
        As in scikit-learn: the features are then read as its ``CategoricalNB`` reads them,
        as non-negative integer codes $0, \\dots, C_j - 1$ with $C_j$ = max(largest code
        + 1, ``min_categories[j]``), so codes never seen in training still count among the
        categories (a value of ``None`` in the array leaves that feature's categories as
        learned).
    unseen_category : bool, default=True
        Keep the extra category of unseen values (above). With False the smoothing is
        $(n + \\alpha)/(N + \\alpha C_j)$ and a value not seen in training is an error
        at prediction time.
"""
        + COMMON_PARAMETERS_DOC
        + """
    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    class_count_ : ndarray of shape (n_classes,)
    class_prior_ : ndarray of shape (n_classes,)
    categories_ : list of ndarray
        The categories of each feature seen in training (all codes up to $C_j - 1$ with
        ``min_categories``).
    n_categories_ : ndarray of shape (n_features,)
        $C_j$, the number of categories of each feature, the unseen category not counted.
    category_count_ : list of ndarray of shape (n_classes, n_categories_j)
        Weighted per-class count of each category.
    feature_log_prob_ : list of ndarray of shape (n_classes, n_categories_j + 1)
        $\\log\\theta_{kj}$; the last column is the category of unseen values (absent
        with ``unseen_category=False``).
    n_features_in_ : int
"""
    )

    def __init__(
        self,
        *,
        alpha=1.0,
        min_categories=None,
        unseen_category=True,
        estimate="mean",
        fit_prior=True,
        class_prior=None,
        max_iter=100,
        tol=1e-6,
        n_init=1,
        unlabeled_weight=1.0,
        n_classes=None,
        unlabeled_marker=-1,
        random_state=None,
    ):
        self.alpha = alpha
        self.min_categories = min_categories
        self.unseen_category = unseen_category
        self.estimate = estimate
        self.fit_prior = fit_prior
        self.class_prior = class_prior
        self.max_iter = max_iter
        self.tol = tol
        self.n_init = n_init
        self.unlabeled_weight = unlabeled_weight
        self.n_classes = n_classes
        self.unlabeled_marker = unlabeled_marker
        self.random_state = random_state

    def _check_hyperparameters(self):
        super()._check_hyperparameters()
        check_positive(self.alpha, "alpha")
        if not isinstance(self.unseen_category, (bool, np.bool_)):
            raise ValueError(
                f"unseen_category must be True or False; got {self.unseen_category!r}."
            )

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
        else:
            categorical.check_hashable(X, "CategoricalNB", lambda j: _column_name(self, j))
        return X

    # ------------------------------------------------------------------ encoding
    @property
    def n_categories_(self) -> np.ndarray:
        """$C_j$ per feature: the categories of ``categories_`` (the unseen one not counted)."""
        return np.array([len(known) for known in self.categories_], dtype=np.int64)

    def _extra(self) -> int:
        """1 with the category of unseen values at the end of every block, else 0."""
        return 1 if self.unseen_category else 0

    def _feature_family(self) -> CategoricalFamily:
        sizes = [len(c) + self._extra() for c in self.categories_]
        return CategoricalFamily(alpha=self.alpha, sizes=sizes, unseen=self.unseen_category)

    def _layout(self):
        return self._feature_family().layout()

    def _codes(self, X) -> np.ndarray:
        """Category codes ``0..C_j``; ``C_j`` for values not seen in training, -1 if missing."""
        codes = categorical.encode(self.categories_, X)
        if not self.unseen_category:
            unseen = np.argwhere(codes == self.n_categories_)
            if unseen.size:
                row, column = unseen[0]
                raise ValueError(
                    f"CategoricalNB(unseen_category=False): X has the value {X[row, column]!r} "
                    f"at row {row}, {_column_name(self, column)}, which training did not see; "
                    "use unseen_category=True to give such values a probability."
                )
        return codes

    _family_X = _codes

    def _extend_categories(self, X, reset):
        if reset:
            learned = [categorical.learn_categories(column) for column in X.T]
            self.categories_ = self._with_min_categories(learned)
            return
        before = self.categories_
        self.categories_ = self._with_min_categories(
            [
                categorical.merge_categories(known, column)
                for known, column in zip(before, X.T, strict=True)
            ]
        )
        if any(len(a) != len(b) for a, b in zip(before, self.categories_, strict=True)):
            counts = categorical.relay_category_counts(
                self._stats.category_counts, before, self.categories_, self.unseen_category
            )
            self._stats = CategoricalStats(self._stats.counts, counts)

    def _with_min_categories(self, categories: list) -> list:
        """``categories`` as the codes ``0..C_j - 1`` of scikit-learn, with ``min_categories``."""
        return categorical.with_min_categories(
            categories, self.min_categories, lambda j: _column_name(self, j)
        )

    # ------------------------------------------------------------------ hooks
    def _feature_stats(self, X, responsibilities, dtype):
        # Only rows with positive weight define categories: a zero weight removes the row.
        weighted = np.asarray(jnp.sum(responsibilities, axis=1)) > 0
        # A model without statistics is a fresh fit: it learns its categories anew.
        self._extend_categories(X[weighted], reset=not hasattr(self, "_stats"))
        return super()._feature_stats(X, responsibilities, dtype)

    def _add_rows(self, X, responsibilities, *, reset):
        if reset:
            vars(self).pop("_stats", None)
        super()._add_rows(X, responsibilities, reset=reset)

    def _store_parameters(self, stats, theta):
        family = self._feature_family()
        counts = np.asarray(stats.category_counts)
        self.category_count_ = [
            block[:, : len(known)]
            for block, known in zip(family.blocks(counts), self.categories_, strict=True)
        ]
        self.feature_log_prob_ = family.blocks(np.asarray(jnp.log(theta)))

    def _parameters(self):
        return np.exp(np.concatenate(self.feature_log_prob_, axis=1))

    def _sampling_sites(self):
        # Drawing the "unseen" category would give no value to return, so synthetic rows
        # are drawn given a seen category: its probability is spread over the others.
        if not self.unseen_category:
            return {
                f"category_probs_{j}": np.exp(log_theta)
                for j, log_theta in enumerate(self.feature_log_prob_)
            }
        sites = {}
        for j, log_theta in enumerate(self.feature_log_prob_):
            seen = np.exp(log_theta[:, :-1])
            seen = seen / seen.sum(axis=1, keepdims=True)
            sites[f"category_probs_{j}"] = np.concatenate([seen, np.zeros_like(seen[:, :1])], 1)
        return sites

    def _impute_rows(self, X, class_weights, method, rng):
        """Most probable seen category under the class mixture, or a draw given a class."""
        codes = self._codes(X)
        filled_codes = super()._impute_rows(codes, class_weights, method, rng)
        filled = X.astype(object)
        for j, known in enumerate(self.categories_):
            rows = np.flatnonzero(codes[:, j] < 0)
            filled[rows, j] = known[filled_codes[rows, j]]
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
        blocks = self._feature_family().blocks(columns)
        return {f"category_probs_{j}": block for j, block in enumerate(blocks)}

    def _parameter_posterior_draws(self, key, num_samples):
        draws = self._feature_family().sample_params(key, self._posterior(), num_samples)
        return self._blocks(np.asarray(draws))

    def _set_parameters(self, sites):
        with np.errstate(divide="ignore"):  # a drawn probability may underflow to 0
            self.feature_log_prob_ = [
                np.log(np.asarray(sites[f"category_probs_{j}"]))
                for j in range(len(self.categories_))
            ]

    def _parameter_dims(self, features):
        dims, coords = {}, {}
        for j, known in enumerate(self.categories_):
            dims[f"category_probs_{j}"] = ("class", f"category_{j}")
            unseen = ["<unseen>"] if self.unseen_category else []
            coords[f"category_{j}"] = [str(value) for value in known] + unseen
        return dims, coords
