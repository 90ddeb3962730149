r"""Categorical features with a Dirichlet prior per feature and class.

$$
\theta_{kj} \sim \mathrm{Dirichlet}(\alpha \mathbf 1_{C_j + 1}), \qquad
x_j \mid y = k \sim \mathrm{Categorical}(\theta_{kj}).
$$

Feature $j$ has the $C_j$ categories seen in training plus one more that
stands for every category not seen: a new value at prediction time gets its posterior
predictive probability $\alpha / (N_{kj} + \alpha (C_j + 1))$ under ``"mean"``.

The features are one-hot encoded side by side (``M = \sum_j (C_j + 1)`` columns), which
makes the log-likelihood linear in the encoding; ``segment_ids`` maps each column to its
feature so that each block is normalised on its own.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

import numpy as np
import pandas as pd
import scipy.sparse as sp

from bayesgen import sparse_rows
from bayesgen.families import class_prior, count_data, dirichlet, e1071_floor, numpy_draws
from bayesgen.families.estimates import pseudo_counts, pseudo_log_density
from bayesgen.families.linear import LinearLogLikelihood, finite_log
from bayesgen.families.namespace import jax_numpy, namespace
from bayesgen.families.protocol import FeatureFamily, column_label
from bayesgen.validation import check_positive_values

if TYPE_CHECKING:
    from jax import Array


class CategoricalStats(NamedTuple):
    """Sufficient statistics over the one-hot encoding.

    Attributes
    ----------
    counts : Array of shape (n_classes,)
        $N_k$.
    category_counts : Array of shape (n_classes, n_columns)
        Weighted count of each category of each feature per class (``R^T onehot(X)``).
    """

    counts: Array
    category_counts: Array


def learn_categories(column: np.ndarray) -> np.ndarray:
    """The distinct values of ``column`` (missing ones left out), sorted when they can be.

    Values that cannot be ordered with each other keep their order of appearance.

    Returns
    -------
    ndarray of object
    """
    unique = pd.unique(pd.Series(column, dtype=object).dropna())
    try:
        return np.asarray(sorted(unique), dtype=object)
    except TypeError:
        return np.asarray(unique, dtype=object)


def merge_categories(known: np.ndarray, column: np.ndarray) -> np.ndarray:
    """``known`` extended by the values of ``column`` it lacks (``known`` itself if none).

    Returns
    -------
    ndarray of object
    """
    new = learn_categories(column)
    unseen = new[pd.Index(known).get_indexer(new) < 0]
    return learn_categories(np.concatenate([known, unseen])) if unseen.size else known


def with_declared(declared, learned: np.ndarray) -> np.ndarray:
    """A column's ``declared`` categories (a pandas Categorical's), in their order, then the
    ``learned`` values they lack; ``learned`` itself when nothing is declared."""
    if declared is None:
        return learned
    declared = np.asarray(list(declared), dtype=object)
    extra = learned[pd.Index(declared).get_indexer(learned) < 0]
    return np.concatenate([declared, extra]) if extra.size else declared


def encode(categories, X: np.ndarray) -> np.ndarray:
    """Category codes of ``X``: ``0..C_j - 1`` for the known categories of feature ``j``.

    A value not among ``categories[j]`` gets ``C_j`` (the "unseen" category); a missing
    one (NaN or None) gets -1.

    Returns
    -------
    ndarray of int64, same shape as ``X``
    """
    codes = np.empty(X.shape, dtype=np.int64)
    for j, known in enumerate(categories):
        column = pd.Series(X[:, j], dtype=object)
        found = pd.Index(known).get_indexer(column)
        codes[:, j] = np.where(column.isna(), -1, np.where(found < 0, len(known), found))
    return codes


def with_min_categories(categories: list, min_categories, column_name=None) -> list:
    """``categories`` read as scikit-learn's integer codes ``0..C_j - 1``, with
    ``C_j = max(largest code + 1, min_categories[j])`` (a ``None`` leaves feature ``j``
    as learned; ``min_categories=None`` leaves every feature).

    ``column_name(j)`` names feature ``j`` in error messages.

    Raises
    ------
    ValueError
        For ``min_categories`` of another shape than one per feature, a negative or
        non-integer entry, or a feature whose categories are not non-negative integer codes.
    """
    if min_categories is None:
        return categories
    name = column_name or (lambda j: f"column {j}")
    given = np.asarray(min_categories, dtype=object)
    if given.ndim != 0 and given.shape != (len(categories),):
        raise ValueError(
            f"min_categories must be one integer or one per feature, shape "
            f"({len(categories)},); got shape {given.shape}."
        )
    minimum = np.broadcast_to(given, (len(categories),))
    padded = []
    for j, (known, least) in enumerate(zip(categories, minimum, strict=True)):
        if least is None:
            padded.append(known)
            continue
        if isinstance(least, bool) or not isinstance(least, (int, np.integer)) or least < 0:
            raise ValueError(
                f"min_categories must hold non-negative integers; got {least!r} for {name(j)}."
            )
        codes = [value for value in known if isinstance(value, (int, np.integer, float))]
        if len(codes) != len(known) or any(
            float(value) != int(value) or value < 0 for value in codes
        ):
            raise ValueError(
                f"CategoricalNB with min_categories reads {name(j)} as integer codes 0, 1, "
                f"... (as scikit-learn does); it holds {known.tolist()}."
            )
        size = max(int(max(codes, default=-1)) + 1, int(least))
        padded.append(np.asarray(range(size), dtype=object))
    return padded


def _unhashable(value) -> bool:
    try:
        hash(value)
    except TypeError:
        return True
    return False


def check_hashable(X: np.ndarray, owner: str, column_name) -> None:
    """Raise a ``TypeError`` at the first value of object array ``X`` that is not hashable
    (a category must be hashable); ``column_name(j)`` names column ``j``."""
    if X.dtype != object:
        return
    for row, column in zip(
        *np.nonzero(np.frompyfunc(_unhashable, 1, 1)(X).astype(bool)), strict=False
    ):
        raise TypeError(
            f"{owner}: every category must be hashable (argument must be a string or a "
            f"number, for instance); X has a {type(X[row, column]).__name__} at row {row}, "
            f"{column_name(column)}."
        )


def decode(categories, codes: np.ndarray) -> np.ndarray:
    """Values of category ``codes`` (inverse of `encode`); None for -1 and unseen codes.

    Returns
    -------
    ndarray of object, same shape as ``codes``
    """
    values = np.full(codes.shape, None, dtype=object)
    for j, known in enumerate(categories):
        found = (codes[:, j] >= 0) & (codes[:, j] < len(known))
        values[found, j] = known[codes[found, j]]
    return values


def relay_category_counts(counts: np.ndarray, before, after, unseen: bool = True) -> np.ndarray:
    """Side-by-side category counts laid out for the categories ``after`` ⊇ ``before``.

    ``counts`` (n_classes, sum_j (len(before[j]) + 1)) has one block per feature, the
    unseen category last (without ``unseen``, blocks of ``len(before[j])``); a category
    new in ``after`` starts at 0, and the unseen column starts at 0 too (training rows
    never fall in it).

    Returns
    -------
    ndarray of shape (n_classes, sum_j (len(after[j]) + 1)), dtype of ``counts``
    """
    counts = np.asarray(counts)
    extra = 1 if unseen else 0
    old_offsets = np.concatenate([[0], np.cumsum([len(c) + extra for c in before])[:-1]])
    new_offsets = np.concatenate([[0], np.cumsum([len(c) + extra for c in after])[:-1]])
    relaid = np.zeros((counts.shape[0], sum(len(c) + extra for c in after)))
    for j, (old, new) in enumerate(zip(before, after, strict=True)):
        where = pd.Index(new).get_indexer(old) + new_offsets[j]
        relaid[:, where] = counts[:, old_offsets[j] : old_offsets[j] + len(old)]
    return relaid.astype(counts.dtype)


def merge(a: CategoricalStats, b: CategoricalStats) -> CategoricalStats:
    """Statistics of the union of two disjoint batches (they are sums)."""
    return CategoricalStats(a.counts + b.counts, a.category_counts + b.category_counts)


def posterior(concentration: Array, stats: CategoricalStats) -> Array:
    """Posterior Dirichlet concentrations $\\alpha + c$ of every block.

    Returns
    -------
    Array of shape (n_classes, n_columns)
    """
    return concentration + stats.category_counts


def point_estimate(
    concentration: Array, stats: CategoricalStats, kind: str, segment_ids: Array, n_features: int
) -> Array:
    """Per-block category probabilities, shape (n_classes, n_columns); each block sums to one."""
    return dirichlet.point_estimate(
        concentration, stats.category_counts, kind, segment_ids, n_features
    )


def sample_params(
    key: Array,
    posterior_concentration: Array,
    segment_ids: Array,
    n_features: int,
    num_samples: int,
) -> Array:
    """Draws of every block, shape ``(num_samples, n_classes, n_columns)``.

    Independent Dirichlet draws per block, through normalised Gamma variates. ``key`` is a
    JAX key, or a NumPy generator (`bayesgen.families.numpy_draws`).
    """
    if numpy_draws.is_generator(key):
        return numpy_draws.dirichlet(key, posterior_concentration, num_samples, segment_ids)
    import jax
    import jax.numpy as jnp

    shape = (num_samples, *posterior_concentration.shape)
    gammas = jax.random.gamma(key, posterior_concentration, shape=shape)
    totals = jax.ops.segment_sum(jnp.moveaxis(gammas, -1, 0), segment_ids, n_features)
    return gammas / jnp.moveaxis(totals, 0, -1)[..., segment_ids]


def linear_form(theta: Array, log_theta: Array | None = None) -> LinearLogLikelihood:
    """$\\log p(x \\mid k) = \\mathrm{onehot}(x) \\cdot \\log\\theta_k$.

    ``log_theta``, when the caller holds the logarithms already, is used as it is (taking
    the logarithm of their exponential again would round).
    """
    if log_theta is None:
        log_theta, is_zero = finite_log(theta)
    else:
        is_zero = theta <= 0
        log_theta = namespace(log_theta).where(is_zero, 0.0, log_theta)
    zeros = namespace(theta).zeros(theta.shape[0], theta.dtype)
    return LinearLogLikelihood(log_theta, zeros, is_zero.astype(theta.dtype), zeros)


class FixedCodes:
    """Category codes of rows scored many times (an EM's iterations), with their one-hot
    encoding made once for each precision and layout (`CategoricalFamily.fixed_rows`).

    The encoding is a `bayesgen.sparse_rows.KeptRows`, so the ranges of rows its products
    are taken in are made once too. Building the encoding at every step took 0.34 s of
    `bayesgen.TableSynthesizer`'s fit of Fair and 0.38 s of randhie's, and cutting it into
    ranges 0.24 and 0.39 s more (docs/synthetic-data.md).

    Parameters
    ----------
    codes : ndarray of shape (n_samples, n_features)
        Codes as `CategoricalFamily.encode` gives them; they must not change while this
        object is in use.
    """

    def __init__(self, codes: np.ndarray):
        self.codes = np.asarray(codes)
        self._one_hot = {}

    @property
    def shape(self) -> tuple:
        """The codes' shape."""
        return self.codes.shape

    def one_hot(self, family: CategoricalFamily, dtype) -> sparse_rows.KeptRows:
        """``family.one_hot(codes, dtype)``, made at the first call for its layout."""
        key = (np.dtype(dtype), tuple(int(size) for size in family.sizes))
        if key not in self._one_hot:
            self._one_hot[key] = sparse_rows.KeptRows(family.one_hot(self.codes, dtype))
        return self._one_hot[key]


class CategoricalFamily(FeatureFamily):
    """The Dirichlet–categorical family behind [`bayesgen.CategoricalNB`][bayesgen.CategoricalNB].

    ``X`` holds category codes: ``0..C_j - 1`` for the categories seen in training,
    ``C_j`` for any other value, -1 for a missing one (its factor is dropped). Parameters
    are the probabilities of every block side by side, shape (n_classes, n_columns) with
    ``n_columns = sum(sizes)``; the prior and posterior are concentrations of that layout.

    Parameters
    ----------
    alpha : float, default=1.0
        Dirichlet concentration of every category.
    sizes : sequence of int
        ``C_j + 1`` for every feature ``j`` (its seen categories plus the unseen one), or
        ``C_j`` without ``unseen``.
    unseen : bool, default=True
        Whether the last category of every block stands for the values not seen in
        training. Without it the blocks hold the seen categories only, and the ``"mean"``
        estimate is the usual additive smoothing $(n + \alpha)/(N + \alpha C_j)$.
    categories : list of ndarray, optional
        The categories of each feature (what `learn` found); when given, ``sizes``
        follows from them.
    min_categories : int or array-like, optional
        Read by `learn` (`with_min_categories`).
    column_names : sequence of str, optional
        The features' names, for error messages.
    declared : sequence of (sequence or None), optional
        Per feature, the categories the data declare (a pandas ``Categorical``'s), learned
        in their order even where no row holds them, as R keeps a factor's levels; None
        for a feature without.
    probability_floor : (float, float), optional
        ``(threshold, eps)`` of R's e1071 floor in the density (``CategoricalNB``'s
        ``threshold`` and ``eps``); None: the model's own probabilities.
    """

    name = "categorical"
    sparse_class_weights = True  # count_data.class_sums
    slices_classes = True  # one (n_classes, n_columns) array of probabilities
    estimator = "CategoricalNB"
    column_values = "categories"
    merges_exactly = False  # blocks learn different categories
    column_preference = 30

    def check(self) -> CategoricalFamily:
        """This family, once ``alpha`` (a positive number) and the e1071 floor
        (``probability_floor``) are checked."""
        check_positive_values(self.alpha, "alpha")
        if self.probability_floor is not None:
            e1071_floor.check(*self.probability_floor)
        return self

    def admits_column(self, column) -> bool:
        """Categories (text, category, object), or whole numbers as unordered levels."""
        return column.kind == "categories" or (column.kind == "numbers" and column.whole)

    def column_log_evidence(self, column, class_index, n_classes: int) -> float:
        """The Dirichlet–categorical evidence (`column_evidence.categorical`); whole numbers
        have a level for every integer of their range."""
        from bayesgen.families import column_evidence  # imports SciPy: only when choosing

        if column.kind == "numbers":
            return column_evidence.categorical(
                column.values, class_index, n_classes, alpha=self.alpha, integer_range=True
            )
        codes = pd.factorize(pd.Series(column.values))[0].astype(float)
        codes[codes < 0] = np.nan
        return column_evidence.categorical(codes, class_index, n_classes, alpha=self.alpha)

    def __init__(
        self,
        alpha=1.0,
        sizes=(),
        unseen=True,
        categories=None,
        min_categories=None,
        column_names=None,
        declared=None,
        probability_floor=None,
    ):
        self.alpha = alpha
        self.probability_floor = probability_floor
        self.unseen = unseen
        self.categories = categories
        self.min_categories = min_categories
        self.column_names = column_names
        self.declared = declared
        if categories is not None:
            sizes = [len(known) + (1 if unseen else 0) for known in categories]
        self.sizes = sizes

    # ------------------------------------------------- columns of a table (MixedNB)
    @classmethod
    def of(cls, owner) -> CategoricalFamily:
        """The family of a ``CategoricalNB``'s settings (``alpha``, ``unseen_category``,
        ``min_categories``), before any category is learned."""
        return cls(
            alpha=owner.alpha,
            unseen=owner.unseen_category,
            min_categories=getattr(owner, "min_categories", None),
        )

    @classmethod
    def settings_read(cls) -> set[str]:
        """``alpha``, ``unseen_category`` and ``min_categories``."""
        return {"alpha", "unseen_category", "min_categories"}

    def check_columns(self, X, *, owner="X", columns=None) -> np.ndarray:
        """Any hashable values, as they are; NaN or None missing."""
        X = np.asarray(X)
        check_hashable(X, owner, lambda j: column_label(columns, j))
        return X

    def learn(self, X, stats=None):
        """The categories of ``X`` added to the known ones (all learned anew when
        ``stats`` is None), and ``stats`` re-laid for them."""
        if stats is None or self.categories is None:
            learned = [learn_categories(column) for column in X.T]
            if self.declared is not None:
                learned = [
                    with_declared(declared, known)
                    for declared, known in zip(self.declared, learned, strict=True)
                ]
            return self.with_learned(
                categories=with_min_categories(learned, self.min_categories, self._column)
            ), None
        merged = [
            merge_categories(known, column)
            for known, column in zip(self.categories, X.T, strict=True)
        ]
        merged = with_min_categories(merged, self.min_categories, self._column)
        if all(len(a) == len(b) for a, b in zip(self.categories, merged, strict=True)):
            return self, stats
        counts = relay_category_counts(stats.category_counts, self.categories, merged, self.unseen)
        return self.with_learned(categories=merged), CategoricalStats(stats.counts, counts)

    def learned(self) -> dict:
        """``{"categories": ...}``."""
        return {"categories": self.categories}

    def with_learned(self, *, categories=None) -> CategoricalFamily:
        """This family over ``categories``."""
        return CategoricalFamily(
            self.alpha,
            unseen=self.unseen,
            categories=categories,
            min_categories=self.min_categories,
            column_names=self.column_names,
            declared=self.declared,
            probability_floor=self.probability_floor,
        )

    def _column(self, j: int) -> str:
        """``column j ('name')``, or ``column j`` without names (error messages)."""
        if self.column_names is not None and j < len(self.column_names):
            return f"column {j} ({self.column_names[j]!r})"
        return f"column {j}"

    def encode(self, X) -> np.ndarray:
        """Category codes (`encode`); an unseen value without ``unseen`` is a ``ValueError``."""
        codes = encode(self.categories, X)
        if not self.unseen:
            unseen = np.argwhere(codes == np.array([len(known) for known in self.categories]))
            if unseen.size:
                row, column = unseen[0]
                raise ValueError(
                    f"X has the value {X[row, column]!r} at row {row}, {self._column(column)}, "
                    "which training did not see; use unseen_category=True to give such values "
                    "a probability."
                )
        return codes

    def decode(self, values) -> np.ndarray:
        """The categories of codes (`decode`)."""
        return decode(self.categories, values)

    def fixed_rows(self, X) -> FixedCodes:
        """Codes ``X`` as `FixedCodes`: their one-hot encoding is made once."""
        return FixedCodes(X)

    def sites(self, params) -> dict:
        """One site ``category_probs_j`` per feature, (..., n_classes, C_j + 1)."""
        return {f"category_probs_{j}": block for j, block in enumerate(self.blocks(params))}

    def params_from_sites(self, sites: dict):
        """The blocks side by side again."""
        blocks = [np.asarray(sites[f"category_probs_{j}"]) for j in range(len(self.sizes))]
        return np.concatenate(blocks, axis=-1)

    def sampling_sites(self, params) -> dict:
        """`sites`, the unseen category's probability spread over the seen ones: drawing
        it would give no value to return."""
        sites = self.sites(np.asarray(params))
        for j in range(len(self.sizes)):
            self._check_drawable(j)
        if not self.unseen:
            return sites
        for name, block in sites.items():
            seen = block[:, :-1] / block[:, :-1].sum(axis=1, keepdims=True)
            sites[name] = np.concatenate([seen, np.zeros_like(seen[:, :1])], 1)
        return sites

    def _check_drawable(self, j: int) -> None:
        """Refuse to draw feature ``j`` when training held none of its values: it has no
        category to return."""
        if self.sizes[j] - (1 if self.unseen else 0) < 1:
            raise ValueError(
                f"{self._column(j)} held no value in training, so the model has no category "
                "to draw or fill in for it; drop the column or fit on rows that hold it."
            )

    def features_from_draws(self, draws: dict) -> np.ndarray:
        """The drawn categories (sites ``X_j`` hold codes)."""
        columns = [known[draws[f"X_{j}"]] for j, known in enumerate(self.categories)]
        return np.stack(columns, axis=1)

    def parameter_dims(self, features: list) -> tuple[dict, dict]:
        """Each block by (class, category), categories named (``"<unseen>"`` last)."""
        dims, coords = {}, {}
        unseen = ["<unseen>"] if self.unseen else []
        for j, known in enumerate(self.categories):
            dims[f"category_probs_{j}"] = ("class", f"category_{j}")
            coords[f"category_{j}"] = [str(value) for value in known] + unseen
        return dims, coords

    def layout(self):
        """``(sizes, offsets, segment_ids)`` of the side-by-side one-hot encoding."""
        sizes = np.asarray(self.sizes, dtype=np.int64)
        offsets = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
        return sizes, offsets, np.repeat(np.arange(len(sizes)), sizes)

    def one_hot(self, codes, dtype=np.float64) -> sp.csr_matrix:
        """The side-by-side one-hot encoding, ones in ``dtype``; a missing value (-1) has no
        entry in its block. ``codes`` may be `FixedCodes`, which makes it once.

        Built as CSR directly: each row's entries are its observed codes shifted to their
        blocks, already in column order, so nothing is sorted (through COO this took a fifth
        of Fair's mixture fits).
        """
        if isinstance(codes, FixedCodes):
            return codes.one_hot(self, dtype)
        sizes, offsets, _ = self.layout()
        codes = np.asarray(codes)
        n_rows, n_features = codes.shape
        shape = (n_rows, int(sizes.sum()))
        observed = codes >= 0
        if observed.all():
            columns = (codes + offsets).ravel()
            indptr = np.arange(n_rows + 1) * n_features
        else:
            columns = (codes + offsets)[observed]
            indptr = np.zeros(n_rows + 1, dtype=np.int64)
            np.cumsum(observed.sum(axis=1), out=indptr[1:])
        return sp.csr_matrix((np.ones(columns.shape[0], dtype), columns, indptr), shape=shape)

    def blocks(self, columns) -> list:
        """Split (..., n_columns) into one (..., C_j + 1) array per feature."""
        _, offsets, _ = self.layout()
        return [columns[..., o : o + s] for o, s in zip(offsets, self.sizes, strict=True)]

    def block_concentrations(self, prior) -> list:
        """The prior concentration of each feature's Dirichlet, one array per feature."""
        jnp = jax_numpy()
        return [jnp.full(int(size), float(prior)) for size in self.sizes]

    def suff_stats(self, X, responsibilities, dtype) -> CategoricalStats:
        """Class counts and ``R^T onehot(codes)``."""
        xp = np if sp.issparse(responsibilities) else namespace(responsibilities)
        sums = count_data.class_sums(responsibilities, self.one_hot(X, dtype))
        counts = count_data.class_totals(responsibilities)
        return CategoricalStats(counts, xp.asarray(sums, dtype))

    def merge(self, a, b):
        """Statistics of the union of two disjoint batches."""
        return merge(a, b)

    def prior_for(self, n_features: int | None = None, dtype=None, *, xp=None):
        """The scalar concentration ``alpha`` (every block shares it; a JAX array unless
        ``xp`` names another namespace)."""
        xp = jax_numpy() if xp is None else xp
        return xp.asarray(self.alpha, dtype)

    def prior(self, stats):
        """The scalar concentration ``alpha`` in the statistics' precision."""
        return self.prior_for(dtype=stats.counts.dtype, xp=namespace(stats))

    def posterior(self, prior, stats):
        """Posterior concentrations of every block, shape (n_classes, n_columns)."""
        return posterior(prior, stats)

    def point_estimate(self, prior, stats, kind: str):
        """Per-block probabilities by ``"mle"``, ``"map"`` or ``"mean"``."""
        _, _, segment_ids = self.layout()
        segment_ids = namespace(prior, stats).asarray(segment_ids)
        return point_estimate(prior, stats, kind, segment_ids, len(self.sizes))

    def log_prior(self, prior, params, kind: str = "map") -> float:
        """$\\sum a \\log\\theta$, the log prior whose mode the ``kind`` estimate is."""
        return pseudo_log_density(pseudo_counts(prior, kind), np.asarray(params))

    def log_likelihood(self, params, X, *, row_terms: bool = True, log_params=None):
        """``(n_samples, n_classes)`` $\\log p(x \\mid k)$ of codes ``X``.

        ``log_params``: the logarithms of ``params``, when the caller keeps them (used as
        they are, see `linear_form`). With ``probability_floor`` ``(threshold, eps)``, a
        probability at most ``eps`` counts as ``threshold`` (R's e1071 floor,
        `bayesgen.families.e1071_floor`).
        """
        if self.probability_floor is not None:
            params = e1071_floor.floor_probabilities(params, *self.probability_floor)
            log_params = None
        return self._own_log_likelihood(params, X, log_params)

    def _own_log_likelihood(self, params, X, log_params=None):
        """`log_likelihood` without the floor."""
        params = np.asarray(params)
        one_hot = self.one_hot(X, params.dtype)
        return count_data.evaluate(linear_form(params, log_params), one_hot)

    def predictive_log_likelihood(self, posterior, X):
        """The Dirichlet–categorical predictive: features are independent a posteriori, so
        it is the categorical likelihood at each block's posterior-mean probabilities."""
        concentration = np.asarray(posterior)
        means = [block / block.sum(axis=-1, keepdims=True) for block in self.blocks(concentration)]
        return self._own_log_likelihood(np.concatenate(means, axis=-1), X)

    def sample_params(self, key, posterior, num_samples: int):
        """Posterior draws of every block, shape (num_samples, n_classes, n_columns)."""
        _, _, segment_ids = self.layout()
        if not numpy_draws.is_generator(key):
            segment_ids = jax_numpy().asarray(segment_ids)
        return sample_params(key, posterior, segment_ids, len(self.sizes), num_samples)

    def draw_features(self, params, classes, rng, **options) -> dict:
        """``{"X_j": codes}``: feature ``j``'s category drawn with the probabilities of each
        row's class (one uniform per entry).

        A category of probability 0 (the unseen one of the sampling sites) is never drawn:
        its cumulative sum equals the one before it, which the scaled uniform stays below.
        """
        draws = {}
        for j, block in enumerate(self.blocks(np.asarray(params, dtype=np.float64))):
            cumulative = np.cumsum(block[classes], axis=1)
            uniforms = rng.random((classes.shape[0], 1)) * cumulative[:, -1:]
            draws[f"X_{j}"] = (uniforms >= cumulative).sum(axis=1)
        return draws

    def conditional(self, params, X, class_weights, method: str, rng):
        """Codes with every -1 filled by a seen category.

        ``"mean"``: the most probable seen category under the class mixture; ``"sample"``:
        a class drawn from the weights, then a seen category given it (the unseen
        category has no value to return, so its probability is spread over the others).
        """
        filled = X.copy()
        chosen = class_prior.draw_classes(class_weights, rng) if method == "sample" else None
        for j, block in enumerate(self.blocks(np.asarray(params))):
            rows = np.flatnonzero(X[:, j] < 0)
            if rows.size == 0:
                continue
            self._check_drawable(j)
            seen = block[:, :-1] if self.unseen else block
            seen = seen / seen.sum(axis=1, keepdims=True)  # (n_classes, C_j)
            if method == "mean":
                codes = np.argmax(class_weights[rows] @ seen, axis=1)
            else:
                cumulative = np.cumsum(seen[chosen[rows]], axis=1)
                codes = (rng.random((rows.size, 1)) > cumulative).sum(axis=1)
                codes = np.minimum(codes, seen.shape[1] - 1)
            filled[rows, j] = codes
        return filled
