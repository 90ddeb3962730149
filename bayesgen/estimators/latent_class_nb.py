"""``LatentClassNB``: inside each class, a finite mixture of ``MixedNB`` components."""

from __future__ import annotations

import warnings

import numpy as np
from scipy.special import logsumexp
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from bayesgen._lazy import lazy_module
from bayesgen._precision import precision
from bayesgen.estimators.base import _to_numpy
from bayesgen.estimators.mixed_nb import MixedNB
from bayesgen.families.class_prior import draw_classes
from bayesgen.families.protocol import NoClosedForm
from bayesgen.inference import em, imputation
from bayesgen.inference.latent_class_start import INIT_PARAMS, initial_memberships
from bayesgen.validation import check_count, check_positive

jax = lazy_module("jax")
jnp = lazy_module("jax.numpy")


class LatentClassNB(MixedNB):
    model_name = "latent-class-nb"
    __doc__ = r"""A latent class model per class: a mixture of mixed-type naive Bayes components.

    $$
    p(x \mid k) = \sum_{m=1}^{M} w_{km} \prod_g p_g(x_{(g)} \mid \theta_{km}),
    \qquad p(k \mid x) \propto \pi_k\, p(x \mid k).
    $$

    Inside a class the columns are independent given a latent component $m$, but not
    given the class alone: the mixture keeps dependence between columns of any kinds
    (numbers, whole numbers, booleans, categories), the "mixture of products" used for
    synthetic census tables and multiple imputation of categorical data. Each component
    is a [`MixedNB`][bayesgen.MixedNB] over the same column families, so every registered
    column family works, missing entries (NaN) included (each family skips or integrates
    them).

    Fitted by EM on each class's rows: with responsibilities $R_{ik}$ (one-hot times the
    sample weight; soft for unlabelled rows) and memberships $\gamma_{ikm} \propto w_{km}
    p(x_i \mid k, m)$, the $K M$ pairs $(k, m)$ are the composite family's classes, with
    responsibilities $R_{ik}\gamma_{ikm}$: the M-step is MixedNB's fit on them, and
    $w_{km}$ is the mode of its Dirichlet(``weight_concentration_prior``) posterior. The
    objective $\sum_{ik} R_{ik} \log p(x_i \mid k)$ plus the log priors never decreases
    (``log_likelihood_history_``). With ``n_components=1`` this is ``MixedNB``. The story
    is `bayesgen.stories.latent_class.latent_class_part` around MixedNB's.

    Parameters
    ----------
    n_components : int, default=2
        Components $M$ per class. Each class needs at least that many rows of positive weight.
    init_params : {"kmeans", "random"}, default="kmeans"
        How each class's EM starts: k-means on the class's rows (numbers standardised,
        missing at 0, categories and booleans one-hot), or random memberships.
    n_init_components : int, default=1
        Starts of the EM; the run of highest objective is kept.
    weight_concentration_prior : float, default=1.0
        Concentration $\beta$ of the symmetric Dirichlet prior on each class's component
        weights (1 leaves them at their maximum-likelihood estimate).
    max_iter : int, default=100
        Most EM iterations (of the components' EM, and of the EM over unlabelled rows).
    tol : float, default=1e-6
        EM stops when its objective changes by at most ``tol`` times its size.
    alpha : float, default=2.0
        Prior pseudo-counts of the discrete families, as in ``MixedNB``; with
        ``estimate="map"``, 2 is add-one smoothing.
    estimate : {"map", "mle", "mean"}, default="map"
        The components' point estimate, as in ``MixedNB``. With ``"map"`` or ``"mle"`` the
        M-step maximises the objective, so EM never decreases it; ``"mean"`` (MixedNB's
        default) is not a mode of the Gaussian's prior term and may lower it slightly.
    features, fit_prior, class_prior, reg_covar, family_params
        The components' column families and their settings, as in ``MixedNB``.
    n_init, unlabeled_weight, n_classes, unlabeled_marker, random_state
        As in ``MixedNB``; ``random_state`` also seeds the starts.

    Attributes
    ----------
    classes_, class_count_, class_prior_, feature_families_, family_log_evidence_
        As in ``MixedNB``.
    weights_ : ndarray of shape (n_classes, n_components)
        $w_{km}$.
    n_iter_ : int
    converged_ : bool
    fitted_with_unlabeled_ : bool
        Whether the last fit had unlabelled rows (EM over them; no exact posterior then).
    log_likelihood_history_ : ndarray of shape (n_iter_,)
        The EM objective per iteration (with unlabelled rows: that of the EM over them).

    Examples
    --------
    Within each class, ``a`` and ``b`` move together; naive Bayes loses that, two
    components per class keep it:

    >>> import numpy as np, pandas as pd
    >>> from bayesgen import LatentClassNB
    >>> rng = np.random.default_rng(0)
    >>> z = rng.integers(0, 2, 600)
    >>> frame = pd.DataFrame({"a": 3.0 * z + rng.normal(size=600),
    ...                       "b": np.where(z == 1, "high", "low")})
    >>> y = rng.integers(0, 2, 600)
    >>> model = LatentClassNB(random_state=0).fit(frame, y)
    >>> drawn, _ = model.sample(2000, random_state=0)
    >>> bool(drawn.groupby("b")["a"].mean().diff().abs().iloc[-1] > 2.5)
    True
"""

    def __init__(
        self,
        *,
        n_components=2,
        init_params="kmeans",
        n_init_components=1,
        weight_concentration_prior=1.0,
        features=None,
        alpha=2.0,
        estimate="map",
        fit_prior=True,
        class_prior=None,
        reg_covar=1e-6,
        max_iter=100,
        tol=1e-6,
        n_init=1,
        unlabeled_weight=1.0,
        n_classes=None,
        unlabeled_marker=-1,
        random_state=None,
        family_params=None,
    ):
        self.n_components = n_components
        self.init_params = init_params
        self.n_init_components = n_init_components
        self.weight_concentration_prior = weight_concentration_prior
        super().__init__(
            features=features,
            alpha=alpha,
            estimate=estimate,
            fit_prior=fit_prior,
            class_prior=class_prior,
            reg_covar=reg_covar,
            max_iter=max_iter,
            tol=tol,
            n_init=n_init,
            unlabeled_weight=unlabeled_weight,
            n_classes=n_classes,
            unlabeled_marker=unlabeled_marker,
            random_state=random_state,
            family_params=family_params,
        )

    def _check_hyperparameters(self):
        super()._check_hyperparameters()
        check_count(self.n_components, "n_components")
        check_count(self.n_init_components, "n_init_components")
        check_count(self.max_iter, "max_iter")
        check_positive(self.tol, "tol", allow_zero=True)
        check_positive(self.weight_concentration_prior, "weight_concentration_prior")
        if self.init_params not in INIT_PARAMS:
            raise ValueError(f"init_params must be one of {INIT_PARAMS}; got {self.init_params!r}.")

    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """Fit on a first batch; a second call is an error (EM needs every row at once)."""
        if hasattr(self, "classes_"):
            self._check_X(X, reset=False)  # a wrong feature count is reported first
            raise ValueError(
                f"{type(self).__name__} cannot add rows with partial_fit: the component "
                "memberships of earlier rows change with the parameters, so EM needs every "
                "row at once; call fit on all the rows."
            )
        return super().partial_fit(X, y, classes=classes, sample_weight=sample_weight)

    def _merge_feature_stats(self, previous, new):
        raise ValueError(f"{type(self).__name__} cannot merge batches; call fit on all rows.")

    # ------------------------------------------------------------------ EM
    def _feature_stats(self, X, responsibilities, dtype):
        responsibilities = np.asarray(responsibilities)
        self._check_rows_per_class(responsibilities)
        rng = check_random_state(self.random_state)
        best = None
        for _ in range(self.n_init_components):
            run = self._run_em(X, responsibilities, self._start(X, responsibilities, rng), dtype)
            if best is None or run["history"][-1] > best["history"][-1]:
                best = run
        self._frozen, self._learned = best["frozen"], best["learned"]
        self.weights_ = best["weights"]
        self.log_likelihood_history_ = best["history"]
        self.n_iter_, self.converged_ = best["history"].size, best["converged"]
        if not self.converged_:
            warnings.warn(
                f"EM of the class mixtures did not converge in max_iter={self.max_iter} "
                f"iterations (tol={self.tol}); raise max_iter or tol.",
                ConvergenceWarning,
                stacklevel=6,
            )
        return best["stats"]

    def _check_rows_per_class(self, responsibilities) -> None:
        rows = np.count_nonzero(responsibilities > 0, axis=0)
        for k in np.flatnonzero(rows < self.n_components):
            raise ValueError(
                f"n_components={self.n_components} needs at least {self.n_components} rows "
                f"of class {self.classes_[k]!r} with positive weight; found {rows[k]}."
            )

    def _run_em(self, X, responsibilities, memberships, dtype) -> dict:
        """EM from ``memberships`` (n, K, M) on the one driver (`bayesgen.inference.em`):
        M-step, then E-step and objective, until its convergence rule or ``max_iter``."""

        def step(payload):
            memberships = payload[0]
            weighted = responsibilities[:, :, None] * memberships
            stats, weights = self._m_step(X, weighted, dtype)
            joint = self._component_log_likelihood(X, dtype) + _log(weights)
            log_density = logsumexp(joint, axis=2)
            data = np.sum(np.where(responsibilities > 0, responsibilities * log_density, 0.0))
            with np.errstate(invalid="ignore"):
                memberships = np.exp(joint - log_density[:, :, None])
            memberships = np.where(np.isfinite(memberships), memberships, 1 / weights.shape[1])
            objective = float(data) + self._component_log_prior(weights)
            return (memberships, stats, weights), objective

        state = em.run((memberships, None, None), step, tol=self.tol, max_iter=self.max_iter)
        _, stats, weights = state.payload
        return {
            "stats": stats,
            "weights": weights,
            "frozen": self._frozen,
            "learned": self._learned,
            "history": np.asarray(state.history),
            "converged": bool(state.converged),
        }

    def _m_step(self, X, weighted, dtype):
        """MixedNB's fit with the (k, m) pairs as classes; the weights' Dirichlet mode."""
        n_rows, n_classes, n_components = weighted.shape
        for name in ("_stats", "_frozen"):  # each M-step is a fresh fit of the components
            vars(self).pop(name, None)
        flat = jnp.asarray(weighted.reshape(n_rows, n_classes * n_components), dtype)
        stats = super()._feature_stats(X, flat, dtype)
        self._stats = _to_numpy(stats)
        super()._update_parameters()
        pseudo = weighted.sum(axis=0) + self.weight_concentration_prior - 1
        pseudo = np.maximum(pseudo, 0)
        weights = pseudo / pseudo.sum(axis=1, keepdims=True)
        return stats, weights

    def _component_log_prior(self, weights) -> float:
        """The components' log prior (MixedNB's) plus the weights' Dirichlet log density."""
        try:
            families = super()._feature_log_prior()
        except NoClosedForm:
            families = 0.0
        beta = self.weight_concentration_prior
        with np.errstate(divide="ignore", invalid="ignore"):
            terms = np.where(beta == 1, 0.0, (beta - 1) * _log(weights))
        return families + float(np.sum(terms))

    def _feature_log_prior(self) -> float:
        with precision(self.class_count_.dtype):
            return self._component_log_prior(self.weights_)

    def _start(self, X, responsibilities, rng) -> np.ndarray:
        """Initial memberships (n, K, M): k-means or random within each class's rows."""
        return initial_memberships(
            X.frame, responsibilities, self.n_components, self.init_params, rng
        )

    # ------------------------------------------------------------ densities
    def _component_log_likelihood(self, X, dtype, *, row_terms=True) -> np.ndarray:
        """$\\log p(x_i \\mid k, m)$, shape (n_samples, n_classes, n_components)."""
        flat = np.asarray(super()._log_likelihood(X, dtype, row_terms=row_terms))
        return flat.reshape(flat.shape[0], -1, self.n_components)

    def _log_likelihood(self, X, dtype, *, row_terms=True):
        joint = self._component_log_likelihood(X, dtype, row_terms=row_terms)
        return logsumexp(joint + _log(self.weights_).astype(joint.dtype), axis=2)

    def impute(self, X, *, method="mean", y=None, random_state=None):
        """Fill the missing entries from the model, observed ones kept.

        As `MixedNB.impute`, with the weights over the pairs (class, component):
        $p(k, m \\mid x_o) \\propto \\pi_k w_{km} p(x_o \\mid k, m)$ (given ``y``, over
        that class's components), so a missing column is filled from the components that
        the row's observed columns point to.
        """
        check_is_fitted(self)
        if method not in imputation.METHODS:
            raise ValueError(f"method must be one of {imputation.METHODS}; got {method!r}.")
        columns = self._check_X(X, reset=False)
        joint = self._component_log_likelihood(columns, np.float64) + _log(self.weights_)
        if y is None:
            joint = joint + _log(self.class_prior_)[:, None]
        else:
            known = np.eye(self.classes_.shape[0], dtype=bool)[np.asarray(self._class_index(y))]
            joint = np.where(known[:, :, None], joint, -np.inf)
        flat = joint.reshape(joint.shape[0], -1)
        pair_weights = np.exp(flat - logsumexp(flat, axis=1, keepdims=True))
        rng = np.random.default_rng(check_random_state(random_state).randint(2**31 - 1))
        composite = self._composite()
        encoded = composite.encode(self._values(columns, composite))
        imputed = composite.decode(
            composite.conditional(self._params, encoded, pair_weights, method, rng)
        )
        filled = columns.frame.copy()
        for family, positions in self._groups.items():
            for position, column in zip(positions, imputed[family].T, strict=True):
                observed = filled.iloc[:, position].notna().to_numpy()
                if observed.all():  # nothing to fill; a bool column keeps its dtype
                    continue
                filled.iloc[:, position] = np.where(observed, filled.iloc[:, position], column)
        return filled if self._fitted_on_frame else filled.to_numpy()

    # ------------------------------------------------------------------ story
    def _story_part(self):
        from bayesgen import stories
        from bayesgen.stories.latent_class import latent_class_part

        composite = self._composite()
        n_pairs = self.classes_.shape[0] * self.n_components
        _, priors = self._stats_and_priors(composite)
        parts = {}
        for family, (group_family, columns) in composite.groups.items():
            prior = group_family.story_prior(priors[family], len(columns))
            part = stories.part(family)
            parts[family] = part(group_family, jax.tree.map(jnp.asarray, prior), n_pairs)
        return latent_class_part(
            stories.combined_part(parts),
            self.classes_.shape[0],
            self.n_components,
            self.weight_concentration_prior,
        )

    def _sampling_sites(self):
        return {"component_weights": self.weights_, **super()._sampling_sites()}

    def _draw_features(self, classes, rng, **options) -> dict:
        """The story's draws in NumPy: each row's component from its class's weights, then
        its columns from the pair (class, component), flattened as ``k M + m``."""
        component = draw_classes(np.asarray(self.weights_)[classes], rng)
        pairs = classes * self.n_components + component
        composite = self._composite()
        params = composite.params_from_sites(super()._sampling_sites())
        return {"component": component, **composite.draw_features(params, pairs, rng, **options)}

    # ------------------------------------------------------------------ posterior
    @property
    def estimators_(self):
        """Not available: a group's columns are a mixture here, not one estimator."""
        raise AttributeError(
            "LatentClassNB has no estimators_: each class's columns are a mixture of "
            "components, which no single-family estimator models."
        )

    def _check_exact_posterior(self):
        raise ValueError(
            f"{type(self).__name__} has no closed-form posterior: a mixture's parameters are "
            "not conjugate to its likelihood, so posterior(), predict_proba_draws() and "
            "predict_proba(method='predictive') do not apply; use predict_proba() (the EM "
            "point estimate)."
        )

    def posterior(self, num_samples=1000, *, method="exact", **kwargs):
        """Not available: there is no conjugate posterior, and the components are
        exchangeable within each class (label switching), so NUTS draws do not summarise.

        Raises
        ------
        ValueError
            Always (after checking that the model is fitted).
        """
        check_is_fitted(self)
        self._check_exact_posterior()

    def _parameter_dims(self, features):
        self._check_exact_posterior()

    def _with_parameters(self, sites):
        self._check_exact_posterior()


def _log(values) -> np.ndarray:
    with np.errstate(divide="ignore"):
        return np.log(values)
