r"""A mixture of components of any family per class: `MixtureFamily`.

Class $k$ has the density

$$
p(x \mid k) = \sum_{m=1}^{M} w_{km}\, p_{\text{leaf}}(x \mid \theta_{km}),
\qquad w_k \sim \mathrm{Dirichlet}(\beta),
$$

whose $K M$ components are "sub-classes" of the leaf family: with the memberships

$$
\gamma_{ikm} = \frac{w_{km}\, p(x_i \mid \theta_{km})}
{\sum_{m'} w_{km'}\, p(x_i \mid \theta_{km'})},
$$

the sub-classes' responsibilities $R_{ik}\gamma_{ikm}$ feed the leaf's own statistics, so
the M-step is the leaf's point estimate and the weights are the Dirichlet point estimate of
$N_{km} = \sum_i R_{ik}\gamma_{ikm}$. Any leaf works: Poisson or Bernoulli leaves give a
latent-class model of counts or flags, a categorical or composite leaf a latent-class model
of a table, a diagonal Gaussian leaf a Gaussian mixture. Missing entries are integrated
out exactly when the leaf skips them in its statistics (every naive-Bayes leaf); a leaf
whose features are dependent (a full covariance) completes them instead, in the same EM
(`bayesgen.inference.mixture_family_em`: the E-step gives each row's memberships from its
observed block and the leaf's expected statistics of the completed rows).

The statistics depend on the memberships, which depend on the parameters: the family is
fitted by EM (`bayesgen.inference.mixture_family_em`), and ``has_exact_posterior`` is
False. Component $m$ of class $k$ is sub-class $k M + m$ of the leaf's parameters.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from bayesgen.families import class_prior, dirichlet, in_place
from bayesgen.families.estimates import ESTIMATE_KINDS, check_concentration, pseudo_counts
from bayesgen.families.protocol import FeatureFamily, NoClosedForm

if TYPE_CHECKING:
    from jax import Array


class MixtureFamilyStats(NamedTuple):
    """Statistics of the components given the memberships.

    Attributes
    ----------
    component_counts : Array of shape (n_classes, n_components)
        $N_{km} = \\sum_i R_{ik}\\gamma_{ikm}$.
    leaves : pytree
        The leaf's statistics over the ``n_classes * n_components`` sub-classes.
    """

    component_counts: Array
    leaves: Any


class MixtureFamilyPrior(NamedTuple):
    """The Dirichlet prior on each class's weights and the leaf's prior.

    Attributes
    ----------
    weight_concentration : Array of shape (n_components,)
        $\\beta$.
    leaves : pytree
        The leaf's resolved prior.
    """

    weight_concentration: Array
    leaves: Any


class MixtureFamilyParams(NamedTuple):
    """Component weights and the components' leaf parameters.

    Attributes
    ----------
    weights : Array of shape (n_classes, n_components)
        $w_{km}$, each row summing to one.
    leaves : pytree
        The leaf's parameters over the ``n_classes * n_components`` sub-classes.
    """

    weights: Array
    leaves: Any


def _check_leaf(leaf) -> FeatureFamily:
    if not isinstance(leaf, FeatureFamily):
        raise ValueError(
            f"leaf must be a feature family (such as PoissonFamily()); got {type(leaf).__name__}."
        )
    if isinstance(leaf, MixtureFamily):
        raise ValueError("leaf must not itself be a MixtureFamily: mix its leaves instead.")
    return leaf


#: The component counts ``n_components="auto"`` compares for each class.
AUTO_CANDIDATES = (1, 2, 3, 4, 5)


def _check_components(n_components) -> tuple[int, ...]:
    """``n_components`` as a tuple: one count, or one per class; ``"auto"`` as the largest
    candidate (`AUTO_CANDIDATES`), the arrays' size until the choice is made."""
    if isinstance(n_components, str) and n_components == "auto":
        return (AUTO_CANDIDATES[-1],)
    counts = n_components if np.ndim(n_components) == 1 else [n_components]
    for value in counts:
        if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < 1:
            raise ValueError(
                "n_components must be an integer >= 1, a sequence of them (one per class) "
                f"or 'auto'; got {n_components!r}."
            )
    if len(counts) == 0:
        raise ValueError("n_components must not be an empty sequence.")
    return tuple(int(value) for value in counts)


class ClassRows(NamedTuple):
    """Rows that each have one class (labelled rows, whatever their weights), class by
    class: for `MixtureFamily.memberships` over a leaf that `slices_classes`, which scores
    each row under its own class's components only (`MixtureFamily.own_class_memberships`)
    instead of every class's: half the work for two classes. Made by the components' EM
    (`bayesgen.inference.mixture_family_em`)."""

    #: How many rows in all.
    n_rows: int
    #: Per class, the positions of its rows among all.
    index: list
    #: Per class, its rows as the leaf reads them (`FeatureFamily.fixed_rows`).
    rows: list


def _memberships_of(terms: np.ndarray):
    """``(gamma, log_likelihood)`` of (n, K, M) log terms (`MixtureFamily.memberships`)."""
    log_likelihood, shifted, total = _sum_over_components(terms)
    with np.errstate(invalid="ignore", divide="ignore"):
        gamma = np.divide(shifted, total, out=shifted)
    impossible = ~np.isfinite(log_likelihood)
    if impossible.any():
        gamma[impossible] = 1.0 / gamma.shape[2]
    return gamma, log_likelihood


def _sum_over_components(terms: np.ndarray):
    """``(log_sum, shifted, total)`` of (n, K, M) log terms over the components: the
    log-sum-exp (n, K), and ``exp(terms - peak)`` with its sum (n, K, 1), so memberships are
    ``shifted / total`` with one exponential per term. A class whose terms are all -inf
    has log-sum -inf. ``terms`` is overwritten by ``shifted`` (the E-step's largest array,
    n x K x M, made once)."""
    peak = np.max(terms, axis=2, keepdims=True)
    peak = np.where(np.isfinite(peak), peak, 0.0)
    shifted = np.exp(np.subtract(terms, peak, out=terms), out=terms)
    total = shifted.sum(axis=2, keepdims=True)
    with np.errstate(divide="ignore"):
        log_sum = (np.log(total) + peak)[:, :, 0]
    return log_sum, shifted, total


class MixtureFamily(FeatureFamily):
    """Class densities that are mixtures of ``n_components`` components of the ``leaf`` family.

    Parameters
    ----------
    leaf : FeatureFamily
        The family of each component (its hyperparameters are the components' prior).
    n_components : int, sequence of int or "auto", default=2
        Components per class, $M$; or one count $M_k$ per class (in the order of the
        classes), the arrays then sized by $M = \\max_k M_k$ with weight 0 on a class's
        components past its own $M_k$. ``"auto"``: each class's $M_k$ among
        `AUTO_CANDIDATES` (1 to 5), chosen when an estimator fits the family by 3-fold
        held-out log-likelihood of the class's rows (the fewest within one standard error
        of the best; `bayesgen.inference.component_count`).
    weight_concentration : float, default=1.0
        $\\beta$ of the Dirichlet prior on each class's weights.
    weight_estimate : {"map", "mle", "mean"}, optional
        The point estimate of the weights; by default the same as the components'
        (``LatentClassNB`` keeps the weights at their posterior mode whatever its
        components' estimate).

    Examples
    --------
    >>> import numpy as np
    >>> from bayesgen import joint
    >>> from bayesgen.families.component_mixture import MixtureFamily
    >>> from bayesgen.families.poisson import PoissonFamily
    >>> from bayesgen.inference import mixture_family_em
    >>> rng = np.random.default_rng(0)
    >>> X = rng.poisson(np.where(rng.random((200, 1)) < 0.5, 1.0, 9.0), (200, 3)).astype(float)
    >>> R = np.ones((200, 1))
    >>> family = MixtureFamily(PoissonFamily(), n_components=2)
    >>> fitted = mixture_family_em.fit(family, X, R, np.array(["all"]), random_state=0)
    >>> np.sort(fitted.joint.params.leaves.mean(axis=1)).round(0)
    array([1., 9.])
    """

    name = "mixture"
    has_exact_posterior = False
    no_posterior = (
        "mixture family has no closed-form posterior (a mixture's parameters are not "
        "conjugate to its likelihood), and posterior(method='nuts') is not supported either: "
        "the components are exchangeable within each class (label switching makes every "
        "relabelling an equal mode, so draws of the parameters do not summarise), and a "
        "drawn row's component is a discrete site that NUTS cannot sample without "
        "enumeration"
    )
    merges_exactly = False  # the memberships come from parameters fitted on all rows
    #: The statistics need the memberships, which need the parameters: fitted by EM.
    statistics_need_parameters = True

    def __init__(self, leaf=None, n_components=2, weight_concentration=1.0, weight_estimate=None):
        self.leaf = leaf
        self.n_components = n_components
        self.weight_concentration = weight_concentration
        self.weight_estimate = weight_estimate

    @property
    def size(self) -> int:
        """$M = \\max_k M_k$: the components axis of every array."""
        return max(_check_components(self.n_components))

    def active(self, n_classes: int) -> np.ndarray:
        """``(n_classes, M)`` booleans: the components each class has.

        Raises
        ------
        ValueError
            If ``n_components`` is a sequence of another length than ``n_classes``.
        """
        counts = _check_components(self.n_components)
        if np.ndim(self.n_components) == 1 and len(counts) != n_classes:
            raise ValueError(
                f"n_components must have one entry per class ({n_classes}); got "
                f"{len(counts)} entries."
            )
        counts = np.broadcast_to(np.asarray(counts), (n_classes,))
        return np.arange(max(counts)) < counts[:, None]

    def _like(self, leaf) -> MixtureFamily:
        """This mixture (of its own class) over another ``leaf``."""
        return type(self)(leaf, self.n_components, self.weight_concentration, self.weight_estimate)

    @property
    def chooses_counts(self) -> bool:
        """Whether ``n_components="auto"``: each class's count is chosen by held-out
        log-likelihood when the family is fitted (`bayesgen.inference.component_count`)."""
        return isinstance(self.n_components, str) and self.n_components == "auto"

    def with_counts(self, counts) -> MixtureFamily:
        """This mixture with ``counts`` components per class (one count, or one per class)."""
        counts = tuple(int(count) for count in np.atleast_1d(counts))
        return type(self)(self.leaf, counts, self.weight_concentration, self.weight_estimate)

    def _weight_kind(self, kind: str) -> str:
        if self.weight_estimate is not None:
            return self.weight_estimate
        return "mle" if kind == "unbiased" else kind

    def check(self) -> MixtureFamily:
        """This family, once its hyperparameters are checked.

        Raises
        ------
        ValueError
            For a leaf that is not a feature family (or is a mixture), ``n_components`` < 1,
            a non-positive ``weight_concentration`` or an unknown ``weight_estimate``.
        """
        _check_leaf(self.leaf).check()
        _check_components(self.n_components)
        check_concentration(self.weight_concentration, "weight_concentration", 1)
        if self.weight_estimate is not None and self.weight_estimate not in ESTIMATE_KINDS:
            raise ValueError(
                f"weight_estimate must be None or one of {ESTIMATE_KINDS}; got "
                f"{self.weight_estimate!r}."
            )
        return self

    @property
    def column_values(self) -> str:
        """The leaf's."""
        return self.leaf.column_values

    @property
    def missing_needs_em(self) -> bool:
        """The leaf's: a mixture of dependent features cannot skip missing entries."""
        return self.leaf.missing_needs_em

    # ----------------------------------------------------------- statistics
    def suff_stats(self, X, responsibilities, dtype=None, *, memberships=None):
        """Statistics of rows ``X`` with class weights ``responsibilities`` (n, K) and
        component ``memberships`` $\\gamma$ (n, K, M).

        Raises
        ------
        ValueError
            Without ``memberships``: they come from the parameters, so the family is fitted
            by EM (`bayesgen.inference.mixture_family_em.fit`).
        """
        if memberships is None:
            raise ValueError(
                "the mixture family's statistics need the component memberships, which come "
                "from its parameters: fit it by EM (bayesgen.inference.mixture_family_em.fit)."
            )
        counts, sub = self.sub_responsibilities(responsibilities, memberships, dtype)
        return MixtureFamilyStats(counts, self.leaf.suff_stats(X, sub, dtype))

    def sub_responsibilities(self, responsibilities, memberships, dtype=None):
        """``(component counts, sub-class responsibilities)``: $N_{km}$ (K, M) and
        $R_{ik}\\gamma_{ikm}$ as (n, K M), the rows the leaf's statistics are taken on."""
        R = np.asarray(responsibilities)
        dtype = R.dtype if dtype is None else dtype
        sub = (R[:, :, None] * np.asarray(memberships, dtype=dtype)).astype(dtype, copy=False)
        n, K, M = sub.shape
        return sub.sum(axis=0), sub.reshape(n, K * M)

    def merge(self, a, b):
        """Statistics of the union of two disjoint batches (under the same memberships rule)."""
        return MixtureFamilyStats(
            a.component_counts + b.component_counts, self.leaf.merge(a.leaves, b.leaves)
        )

    # ------------------------------------------------------ prior, estimate
    def prior(self, stats) -> MixtureFamilyPrior:
        """$\\mathrm{Dirichlet}(\\beta)$ on the weights; the leaf's prior of the sub-classes."""
        counts = np.asarray(stats.component_counts)
        concentration = np.full(counts.shape[1], self.weight_concentration, counts.dtype)
        return MixtureFamilyPrior(concentration, self.leaf.prior(stats.leaves))

    def point_estimate(self, prior, stats, kind: str) -> MixtureFamilyParams:
        """Weights: the Dirichlet ``kind`` estimate of $N_{km}$; components: the leaf's.

        Raises
        ------
        ValueError
            If ``stats`` hold another number of components per class than ``n_components``.
        """
        self.leaf.check_estimate(kind)
        weights = self._weights(prior.weight_concentration, self._component_counts(stats), kind)
        leaves = self.leaf.point_estimate(prior.leaves, stats.leaves, kind)
        return MixtureFamilyParams(weights, leaves)

    def _weights(self, concentration, counts: np.ndarray, kind: str) -> np.ndarray:
        """The Dirichlet ``kind`` estimate of each class's weights, 0 past its $M_k$."""
        weights = np.asarray(
            dirichlet.point_estimate(np.asarray(concentration), counts, self._weight_kind(kind))
        )
        active = self.active(counts.shape[0])
        if active.all():
            return weights
        weights = np.where(active, weights, 0.0)
        return weights / np.sum(weights, axis=1, keepdims=True)

    def estimate(self, stats, kind: str, frozen=None):
        """``(prior, parameters)``: the leaf's own estimate of the components (its ridge, its
        checks; ``frozen`` is the leaf's, what its EM over missing entries held fixed) and
        the Dirichlet ``kind`` estimate of the weights."""
        counts = self._component_counts(stats)
        leaf_prior, leaves = self.leaf.estimate(stats.leaves, kind, frozen)
        concentration = np.full(counts.shape[1], self.weight_concentration, counts.dtype)
        prior = MixtureFamilyPrior(concentration, leaf_prior)
        return prior, MixtureFamilyParams(self._weights(concentration, counts, kind), leaves)

    def _component_counts(self, stats) -> np.ndarray:
        counts = np.asarray(stats.component_counts)
        if counts.ndim != 2 or counts.shape[1] != self.size:
            raise ValueError(
                f"statistics of {counts.shape[-1]} components per class do not fit a mixture "
                f"of n_components={self.n_components}."
            )
        return counts

    def check_estimate(self, kind: str) -> None:
        """The leaf's kinds."""
        self.leaf.check_estimate(kind)

    def log_prior(self, prior, params, kind: str = "map") -> float:
        """The weights' Dirichlet term (the mode of which the ``kind`` estimate is) plus the
        leaf's (0 for a leaf without one: its estimate is then no mode of a prior)."""
        return float(np.sum(self.class_log_prior(prior, params, kind)))

    def class_log_prior(self, prior, params, kind: str = "map"):
        """`log_prior` split by class, ``(n_classes,)``, where the leaf splits its own by
        sub-class (``sub_class_log_prior``; a component past its class's $M_k$ then adds
        nothing); otherwise the total, a float.

        Classes' mixtures are independent given the rows' classes, so with a split each
        class's EM objective is its own, and restarts are compared class by class.
        """
        pseudo = pseudo_counts(prior.weight_concentration, self._weight_kind(kind))
        weights = np.asarray(params.weights, dtype=np.float64)
        active = self.active(weights.shape[0])
        pseudo = np.where(active, np.broadcast_to(pseudo, weights.shape), 0.0)
        with np.errstate(divide="ignore", invalid="ignore"):
            weight_terms = np.sum(np.where(pseudo == 0, 0.0, pseudo * np.log(weights)), axis=1)
        split = getattr(self.leaf, "sub_class_log_prior", None)
        try:
            if split is None:
                raise NoClosedForm(f"the {self.leaf.name} family's prior is not split by class")
            terms = np.asarray(split(prior.leaves, params.leaves, kind), dtype=np.float64)
            terms = np.where(active.ravel(), terms, 0.0).reshape(weights.shape)
            return weight_terms + np.sum(terms, axis=1)
        except NoClosedForm:
            pass
        try:
            leaf_term = float(self.leaf.log_prior(prior.leaves, params.leaves, kind))
        except NoClosedForm:
            leaf_term = 0.0
        return float(np.sum(weight_terms)) + leaf_term

    # ------------------------------------------------------------ densities
    def _component_log_likelihood(self, params, X, row_terms: bool, leaf=None) -> np.ndarray:
        """(n_samples, n_classes, n_components) array of
        $\\log w_{km} + \\log p(x_i \\mid \\theta_{km})$; ``leaf``: the leaf's
        log-likelihoods (n, K M) when the caller has them."""
        weights = np.asarray(params.weights)
        K, M = weights.shape
        own = leaf is None  # the leaf's array is this call's, not the caller's
        if own:
            leaf = self.leaf.log_likelihood(params.leaves, X, row_terms=row_terms)
        leaf = np.asarray(leaf)
        with np.errstate(divide="ignore"):
            log_weights = np.log(weights)
        terms = leaf.reshape(leaf.shape[0], K, M)
        terms = in_place.add_in_place(terms, log_weights) if own else terms + log_weights
        # A component of weight 0 adds nothing, whatever its own density says (-inf or NaN).
        absent = ~(weights > 0)
        if absent.any():
            terms[:, absent] = -np.inf
        return terms.astype(leaf.dtype, copy=False)

    def log_likelihood(self, params, X, *, row_terms: bool = True):
        """``(n_samples, n_classes)`` $\\log \\sum_m w_{km} p(x_i \\mid \\theta_{km})$; NaN
        entries are integrated out by the leaf."""
        return _sum_over_components(self._component_log_likelihood(params, X, row_terms))[0]

    def memberships(self, params, X, leaf_log_likelihood=None) -> tuple[np.ndarray, np.ndarray]:
        """``(gamma, log_likelihood)``: $\\gamma_{ikm}$ (n, K, M) and $\\log p(x_i \\mid k)$ (n, K).

        ``leaf_log_likelihood`` (n, K M): the leaf's log-likelihoods of ``X`` when the caller
        has them. A row impossible under every component of a class gets uniform
        memberships there. ``X`` may be `ClassRows` (`own_class_memberships`).
        """
        if isinstance(X, ClassRows):
            return self.own_class_memberships(params, X)
        terms = self._component_log_likelihood(params, X, True, leaf_log_likelihood)
        return _memberships_of(terms)

    def own_class_memberships(self, params, rows: ClassRows) -> tuple[np.ndarray, np.ndarray]:
        """`memberships` of rows that each have one class, each row scored under its own
        class's components only (a leaf that `slices_classes`): its memberships of the other
        classes are 0 and its log-likelihood there 0, which its class weights of 0 leave out
        of EM's statistics and objective. Its own class's are `memberships`' bit for bit."""
        weights = np.asarray(params.weights)
        K, M = weights.shape
        gamma = log_likelihood = None
        for k, (index, X) in enumerate(zip(rows.index, rows.rows, strict=True)):
            if index.size == 0:
                continue
            leaves = self.leaf.classes_of(params.leaves, np.arange(k * M, (k + 1) * M))
            own = MixtureFamilyParams(weights[k : k + 1], leaves)
            own_gamma, own_log_likelihood = _memberships_of(
                self._component_log_likelihood(own, X, True)
            )
            if gamma is None:
                gamma = np.zeros((rows.n_rows, K, M), own_gamma.dtype)
                log_likelihood = np.zeros((rows.n_rows, K), own_log_likelihood.dtype)
            gamma[index, k] = own_gamma[:, 0]
            log_likelihood[index, k] = own_log_likelihood[:, 0]
        if gamma is None:  # no row
            return np.zeros((rows.n_rows, K, M)), np.zeros((rows.n_rows, K))
        return gamma, log_likelihood

    # ---------------------------------------------------------------- draws
    def draw_features(self, params, classes, rng, **options) -> dict:
        """A component per row from its class's weights (site ``"component"``), then the
        leaf's features given it."""
        weights = np.asarray(params.weights, dtype=np.float64)
        M = weights.shape[1]
        component = class_prior.draw_classes(weights[np.asarray(classes)], rng)
        features = self.leaf.draw_features(
            params.leaves, np.asarray(classes) * M + component, rng, **options
        )
        return {"component": component, **features}

    def mean(self, params):
        """$E[x_j \\mid k] = \\sum_m w_{km} E[x_j \\mid \\theta_{km}]$, (n_classes, n_features)."""
        weights = np.asarray(params.weights)
        K, M = weights.shape
        means = np.asarray(self.leaf.mean(params.leaves))
        return np.einsum("km,kmj->kj", weights, means.reshape(K, M, -1))

    def conditional(self, params, X, class_weights, method: str, rng):
        """Missing entries given the observed ones, under the class-and-component mixture:
        the sub-class weights are $p(k \\mid x_o)\\,\\gamma_{ikm}(x_o)$."""
        gamma, _ = self.memberships(params, X)
        sub = np.asarray(class_weights)[:, :, None] * gamma
        n, K, M = sub.shape
        return self.leaf.conditional(params.leaves, X, sub.reshape(n, K * M), method, rng)

    def sample_params(self, key, posterior, num_samples: int):
        """No exact posterior: the memberships are latent."""
        raise NoClosedForm(
            "the mixture family has no exact posterior draws (its memberships are latent)"
        )

    # ---------------------------------------------------------- the story
    def prior_for(self, n_features: int, dtype=None):
        """The story's prior: $\\mathrm{Dirichlet}(\\beta)$ and the leaf's `prior_for`."""
        concentration = np.full(self.size, self.weight_concentration, dtype)
        return MixtureFamilyPrior(concentration, self.leaf.prior_for(n_features, dtype))

    def story_prior(self, prior, n_features: int, params=None):
        """The weights' prior and the leaf's story prior (given the leaves' parameters)."""
        leaves = None if params is None else params.leaves
        return MixtureFamilyPrior(
            prior.weight_concentration, self.leaf.story_prior(prior.leaves, n_features, leaves)
        )

    def sites(self, params) -> dict:
        """``"component_weights"`` and the leaf's sites (over the sub-classes)."""
        return {"component_weights": params.weights, **self.leaf.sites(params.leaves)}

    def params_from_sites(self, sites: dict) -> MixtureFamilyParams:
        """The inverse of `sites`."""
        return MixtureFamilyParams(
            np.asarray(sites["component_weights"]), self.leaf.params_from_sites(sites)
        )

    def sampling_sites(self, params) -> dict:
        """The weights and the leaf's sampling sites."""
        return {"component_weights": params.weights, **self.leaf.sampling_sites(params.leaves)}

    def parameter_dims(self, features: list) -> tuple[dict, dict]:
        """The weights by (class, component); the leaf's sites by (component class, ...)."""
        dims, coords = self.leaf.parameter_dims(features)
        return {"component_weights": ("class", "component"), **dims}, coords

    # ------------------------------------------------- columns of a table
    def check_columns(self, X, *, owner: str = "X", columns=None):
        """The leaf's column check."""
        return self.leaf.check_columns(X, owner=owner, columns=columns)

    def learn(self, X, stats=None):
        """The leaf widened to ``X``'s new values, and ``stats`` re-laid for it."""
        leaf, leaves = self.leaf.learn(X, None if stats is None else stats.leaves)
        relaid = None if stats is None else stats._replace(leaves=leaves)
        if leaf is self.leaf:
            return self, relaid
        return self._like(leaf), relaid

    def learned(self) -> dict:
        """The leaf's."""
        return self.leaf.learned()

    def with_learned(self, **learned) -> MixtureFamily:
        """This mixture over the leaf with ``learned`` put back."""
        return self._like(self.leaf.with_learned(**learned))

    def encode(self, X):
        """The leaf's encoding."""
        return self.leaf.encode(X)

    def decode(self, values):
        """The leaf's decoding."""
        return self.leaf.decode(values)

    def fixed_rows(self, X):
        """The leaf's `fixed_rows`."""
        return self.leaf.fixed_rows(X)

    def features_from_draws(self, draws: dict):
        """The leaf's."""
        return self.leaf.features_from_draws(draws)
