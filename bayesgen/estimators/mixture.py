"""Mixture discriminant analysis: ``MixtureDA``, a Gaussian mixture density per class."""

from __future__ import annotations

import numbers
import warnings

import numpy as np
from scipy.special import logsumexp
from sklearn.cluster import KMeans
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from bayesgen._lazy import lazy_module
from bayesgen._precision import compute_dtype, precision
from bayesgen.estimators.base import GenerativeClassifier, _to_jax, _to_numpy
from bayesgen.families import gaussian
from bayesgen.families import mixture as mixture_family
from bayesgen.families.class_prior import draw_classes
from bayesgen.families.gaussian import missing
from bayesgen.families.mixture import MixtureParams
from bayesgen.inference import mixture_em
from bayesgen.inference.mixture_em import EMSettings
from bayesgen.inference.semi_supervised import EM_PARAMETERS_DOC
from bayesgen.validation import check_count, check_features, check_positive

jax = lazy_module("jax")
jnp = lazy_module("jax.numpy")

INIT_PARAMS = ("kmeans", "random")


class MixtureDA(GenerativeClassifier):
    model_name = "mixture-da"
    min_classes = 1  # one class: a Gaussian mixture of the whole table
    __doc__ = (
        r"""Mixture discriminant analysis: a mixture of Gaussians as each class's density.

    $$
    p(x \mid k) = \sum_{m=1}^{M_k} w_{km}\,\mathcal N(x; \mu_{km}, \Sigma_{km}),
    \qquad p(k \mid x) \propto \pi_k\, p(x \mid k).
    $$

    Each class's mixture is fitted by EM on that class's rows, weighted by the
    responsibilities $R_{ik}$ (one-hot times the sample weight; soft when ``y`` has
    unlabelled rows): with $\gamma_{ikm} \propto w_{km}\,\mathcal N(x_i; \mu_{km},
    \Sigma_{km})$ normalised over $m$, the M-step is the Gaussian point estimate
    from $N_{km} = \sum_i R_{ik}\gamma_{ikm}$, $\bar x_{km}$ and the centred
    scatter weighted by $R_{ik}\gamma_{ikm}$, and $w_{km} \propto N_{km}$
    (``"map"``: the Normal–Inverse-Wishart mode per component and the
    Dirichlet(``weight_concentration_prior``) mode of $w_k$). Missing entries (NaN)
    join the same EM through their exact expected statistics, and are integrated out when
    predicting. The generative story is
    [`bayesgen.stories.mixture.mixture_story`][bayesgen.stories.mixture_story].
    With ``n_components=1`` this is [`bayesgen.GaussianDA`][bayesgen.GaussianDA] (``"tied"`` then
    means
    one covariance per class, i.e. GaussianDA's ``"full"``).

    Parameters
    ----------
    n_components : int or sequence of int, default=2
        Gaussian components per class $M_k$; one value for every class, or one per
        class in the order of ``classes_``. Each class needs at least that many rows with
        positive weight.
    covariance_type : {"full", "tied", "diag", "spherical"}, default="full"
        As in ``sklearn.mixture.GaussianMixture``, within each class: a covariance per
        component, one covariance shared by a class's components, diagonal per component,
        or one variance per component.
    estimate : {"mle", "map"}, default="mle"
        Maximum likelihood, or the posterior mode under the Normal–Inverse-Wishart prior
        of each component and the Dirichlet prior of each class's weights.
    init_params : {"kmeans", "random"}, default="kmeans"
        How each class's EM starts: from ``sklearn.cluster.KMeans`` on the class's rows
        (weighted by their responsibilities; missing entries at the column means), or from
        random memberships (as ``GaussianMixture(init_params="random")``).
    n_init_components : int, default=1
        Starts of each class's EM; each class keeps its run of highest objective.
    priors : array-like of shape (n_classes,), optional
        Known class probabilities; when given they are used as they are, not estimated.
    reg_covar : float, default=1e-6
        Ridge added to every covariance, relative to each feature's variance over all
        training rows ($\Sigma + \lambda\,\mathrm{diag}(v)$, as in ``GaussianDA``;
        the spherical type uses the mean variance). ``0`` disables it.
    class_concentration_prior : float, default=1.0
        Concentration of the symmetric Dirichlet prior on the class probabilities.
    weight_concentration_prior : float, default=1.0
        Concentration $\beta$ of the symmetric Dirichlet prior on each class's
        component weights (used by ``"map"``; 1 leaves the weights at their MLE).
    mean_prior, mean_precision_prior, degrees_of_freedom_prior, covariance_prior
        The Normal–Inverse-Wishart prior $(m_0, \kappa_0, \nu_0, \Psi_0)$ of every
        component, with ``GaussianDA``'s meaning and defaults (the mean and covariance of
        all training rows; $\nu_0 = d + 2$, or 3 for diag/spherical).
    max_iter : int, default=100
        Most EM iterations (of each class's EM, and of the EM over unlabelled rows).
    tol : float, default=1e-6
        EM stops when its objective changes by at most ``tol`` times its size.
"""
        + EM_PARAMETERS_DOC.lstrip("\n")
        + r"""
    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    class_count_ : ndarray of shape (n_classes,)
        Weighted number of training rows per class.
    class_prior_ : ndarray of shape (n_classes,)
    n_components_ : ndarray of int of shape (n_classes,)
        $M_k$. ``M = max(M_k)`` sizes the arrays below; a class's components past
        its own $M_k$ have weight 0 (and parameters that are never used).
    weights_ : ndarray of shape (n_classes, M)
    means_ : ndarray of shape (n_classes, M, n_features)
    covariances_ : ndarray
        ``(n_classes, M, n_features, n_features)`` full, ``(n_classes, n_features,
        n_features)`` tied, ``(n_classes, M, n_features)`` diag, ``(n_classes, M)``
        spherical; the ridge is included.
    prior_ : NormalInverseWishart
        The component prior with its defaults resolved from the training data.
    ridge_ : ndarray of shape (n_features,), or a scalar for ``"spherical"``
    suff_stats_ : GaussianStats
        The components' (expected) statistics at convergence, ``n_classes * M`` of them.
    n_iter_ : int
    converged_ : bool
    fitted_with_unlabeled_ : bool
        Whether the last fit had unlabelled rows (EM over them; no exact posterior then).
    log_likelihood_history_ : ndarray of shape (n_iter_,)
        The objective per EM iteration, summed over classes: $\sum_k \sum_i R_{ik}
        \log p(x_{i,o} \mid k)$ (plus the log prior of the weights, means and covariances
        for ``"map"``); it never decreases. With unlabelled rows it is the objective of the
        EM over them (``GaussianDA``'s).
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (n_features_in_,)

    Examples
    --------
    Two blobs per class, interleaved along the first axis, so that each class's mean and
    covariance alone (QDA) barely separate them:

    >>> import numpy as np
    >>> from bayesgen import QDA, MixtureDA
    >>> rng = np.random.default_rng(0)
    >>> centres = np.array([[-7.5, 0], [2.5, 0], [-2.5, 0], [7.5, 0]])
    >>> blob = rng.integers(0, 4, 400)
    >>> X, y = centres[blob] + rng.normal(size=(400, 2)), blob // 2
    >>> model = MixtureDA(random_state=0).fit(X, y)
    >>> float(model.score(X, y)), float(QDA().fit(X, y).score(X, y))
    (0.995, 0.5325)
    >>> np.sort(model.means_[:, :, 0], axis=1).round(1)
    array([[-7.3,  2.4],
           [-2.7,  7.5]])
"""
    )

    def __init__(
        self,
        *,
        n_components=2,
        covariance_type="full",
        estimate="mle",
        init_params="kmeans",
        n_init_components=1,
        priors=None,
        reg_covar=1e-6,
        class_concentration_prior=1.0,
        weight_concentration_prior=1.0,
        mean_prior=None,
        mean_precision_prior=1.0,
        degrees_of_freedom_prior=None,
        covariance_prior=None,
        max_iter=100,
        tol=1e-6,
        n_init=1,
        unlabeled_weight=1.0,
        n_classes=None,
        unlabeled_marker=-1,
        random_state=None,
    ):
        self.n_components = n_components
        self.covariance_type = covariance_type
        self.estimate = estimate
        self.init_params = init_params
        self.n_init_components = n_init_components
        self.priors = priors
        self.reg_covar = reg_covar
        self.class_concentration_prior = class_concentration_prior
        self.weight_concentration_prior = weight_concentration_prior
        self.mean_prior = mean_prior
        self.mean_precision_prior = mean_precision_prior
        self.degrees_of_freedom_prior = degrees_of_freedom_prior
        self.covariance_prior = covariance_prior
        self.max_iter = max_iter
        self.tol = tol
        self.n_init = n_init
        self.unlabeled_weight = unlabeled_weight
        self.n_classes = n_classes
        self.unlabeled_marker = unlabeled_marker
        self.random_state = random_state

    # ------------------------------------------------------------------ hooks
    def _check_hyperparameters(self):
        gaussian.check_covariance_type(self.covariance_type)
        if self.estimate not in ("mle", "map"):
            raise ValueError(
                f"estimate must be 'mle' or 'map' for {type(self).__name__} (EM maximises "
                f"the likelihood or the posterior density); got {self.estimate!r}."
            )
        if self.init_params not in INIT_PARAMS:
            raise ValueError(f"init_params must be one of {INIT_PARAMS}; got {self.init_params!r}.")
        counts = self.n_components
        for value in counts if np.ndim(counts) == 1 else [counts]:
            if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1:
                raise ValueError(
                    "n_components must be an integer >= 1 or a sequence of them, one per "
                    f"class; got {counts!r}."
                )
        check_count(self.n_init_components, "n_init_components")
        check_count(self.max_iter, "max_iter")
        check_positive(self.reg_covar, "reg_covar", allow_zero=True)
        check_positive(self.class_concentration_prior, "class_concentration_prior")
        check_positive(self.weight_concentration_prior, "weight_concentration_prior")
        check_positive(self.mean_precision_prior, "mean_precision_prior")
        check_positive(self.tol, "tol", allow_zero=True)

    def _class_prior_settings(self):
        return self.priors, self.class_concentration_prior, self.estimate

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        return tags

    def _check_X(self, X, *, reset):
        # NaN is a missing value: integrated out when predicting, EM when fitting.
        return check_features(self, X, reset=reset, allow_nan=True)

    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """Fit on a first batch; a second call is an error.

        A mixture's statistics are not sums over rows: each batch would need the
        memberships $\\gamma_{ikm}$ of every earlier row under the final
        parameters, so EM needs all rows at once. The first call fits like
        [`fit`][bayesgen.MixtureDA.fit].

        Raises
        ------
        ValueError
            On any call after the first (or after ``fit``).
        """
        if hasattr(self, "classes_"):
            self._check_X(X, reset=False)  # a wrong feature count is reported first
            raise ValueError(
                f"{type(self).__name__} cannot add rows with partial_fit: a Gaussian "
                "mixture's EM needs every row at once (its component memberships change "
                "with the parameters, so statistics of earlier batches cannot be updated); "
                "call fit on all the rows."
            )
        return super().partial_fit(X, y, classes=classes, sample_weight=sample_weight)

    def _component_counts(self, responsibilities: np.ndarray) -> np.ndarray:
        n_classes = self.classes_.shape[0]
        if np.ndim(self.n_components) == 0:
            counts = np.full(n_classes, int(self.n_components))
        else:
            counts = np.asarray(self.n_components, dtype=int)
            if counts.shape != (n_classes,):
                raise ValueError(
                    f"n_components must have one entry per class ({n_classes}: "
                    f"{self.classes_.tolist()}); got {len(counts)} entries."
                )
        rows = np.count_nonzero(responsibilities > 0, axis=0)
        for k in np.flatnonzero(rows < counts):
            raise ValueError(
                f"n_components={counts[k]} for class {self.classes_[k]!r} needs at least "
                f"{counts[k]} rows of that class with positive weight (one per component); "
                f"found {rows[k]}."
            )
        return counts

    def _resolve_prior(self, X, responsibilities, dtype):
        """Ridge and prior from the class-level statistics, as GaussianDA resolves them.

        They depend on the rows' total weights only, which EM over unlabelled rows keeps,
        so every EM iteration climbs one objective. Missing entries count at column means.
        """
        padded, responsibilities = mixture_em.pad_rows(mixture_em.filled(X), responsibilities)
        stats = gaussian.suff_stats(padded, responsibilities, self.covariance_type)
        # NumPy from here: eager JAX would compile each small step anew for every shape.
        _, covariance = gaussian.total_moments(stats, self.covariance_type)
        covariance = np.asarray(covariance)
        variances = np.diagonal(covariance) if covariance.ndim == 2 else covariance
        if self.covariance_type == "spherical":
            variances = np.mean(variances)
        if self.reg_covar == 0:
            ridge = np.zeros_like(variances)
        else:
            fallback = np.max(variances)  # a constant feature gets the others' scale
            variances = np.where(variances > 0, variances, fallback if fallback > 0 else 1.0)
            eps = X.shape[1] * np.finfo(dtype).eps
            ridge = max(self.reg_covar, eps) * variances
        ridge = jnp.asarray(ridge, dtype)
        return ridge, gaussian.GaussianFamily.of(self).prior(stats, ridge)

    def _em_m_step(self, X, responsibilities):
        """The M-step of EM over unlabelled rows: each class's EM from the current parameters."""
        dtype = compute_dtype(X.dtype)
        with precision(dtype):
            self._install_stats(*self._batch_stats(X, responsibilities, dtype, warm=True))

    def _feature_stats(self, X, responsibilities, dtype, *, warm=False):
        X = np.asarray(X, dtype=dtype)
        if not warm:
            self.n_components_ = self._component_counts(np.asarray(responsibilities))
            self._active = np.arange(self.n_components_.max()) < self.n_components_[:, None]
        ridge, prior = self._resolve_prior(X, responsibilities, dtype)
        self.ridge_, self.prior_ = np.asarray(ridge), _to_numpy(prior)
        settings = EMSettings(
            prior,
            ridge,
            jnp.asarray(self.weight_concentration_prior, dtype),
            jnp.asarray(self._active),
            float(self.tol),
            self.covariance_type,
            self.estimate,
            int(self.max_iter),
        )
        if warm:
            # Inside EM over unlabelled rows: continue each class's EM from the current
            # parameters, so that the outer objective cannot decrease (generalised EM).
            start = _to_jax(MixtureParams(self.weights_, self.means_, self.covariances_), dtype)
            stats, _, _ = mixture_em.run(X, responsibilities, None, settings, start=start)
            return stats
        return self._best_of_starts(X, np.asarray(responsibilities), settings)

    def _best_of_starts(self, X, responsibilities, settings):
        """Run each class's EM from ``n_init_components`` starts; keep each class's best."""
        rng = check_random_state(self.random_state)
        runs = []
        for _ in range(self.n_init_components):
            initial = self._initial_memberships(X, responsibilities, rng)
            runs.append(mixture_em.run(X, responsibilities, jnp.asarray(initial), settings))
        chosen = np.argmax([history[-1] for _, history, _ in runs], axis=0)
        n_iter = max(len(runs[r][1]) for r in chosen)
        n_classes, n_components = self._active.shape
        stats = [np.array(field) for field in runs[0][0]]
        history = np.zeros(n_iter)
        for k, r in enumerate(chosen):
            rows = slice(k * n_components, (k + 1) * n_components)
            for field, source in zip(stats, runs[r][0], strict=True):
                field[rows] = np.asarray(source)[rows]
            own = runs[r][1][:, k]  # a converged class keeps its last value
            history += np.concatenate([own, np.full(n_iter - own.size, own[-1])])
        self.n_iter_ = n_iter
        self.converged_ = all(runs[r][2] for r in chosen)
        self.log_likelihood_history_ = history
        if not self.converged_:
            warnings.warn(
                f"EM of the class mixtures did not converge in max_iter={self.max_iter} "
                f"iterations (tol={self.tol}); raise max_iter or tol.",
                ConvergenceWarning,
                stacklevel=5,
            )
        return gaussian.GaussianStats(*(jnp.asarray(field) for field in stats))

    def _initial_memberships(self, X, responsibilities, rng) -> np.ndarray:
        """Starting R_ik γ_ikm, (n_samples, n_classes * M): k-means or random per class."""
        n_classes, n_components = self._active.shape
        X = mixture_em.filled(X)
        initial = np.zeros((X.shape[0], n_classes, n_components), dtype=X.dtype)
        for k, count in enumerate(self.n_components_):
            rows = np.flatnonzero(responsibilities[:, k] > 0)
            weights = responsibilities[rows, k]
            if count == 1:
                membership = np.ones((rows.size, 1))
            elif self.init_params == "kmeans":
                with warnings.catch_warnings():
                    # Fewer distinct rows than components: k-means says so; EM copes.
                    warnings.simplefilter("ignore", ConvergenceWarning)
                    kmeans = KMeans(count, n_init=1, random_state=rng.randint(2**31 - 1))
                    labels = kmeans.fit(X[rows], sample_weight=weights).labels_
                membership = np.eye(count)[labels]
            else:
                membership = rng.uniform(size=(rows.size, count))
                membership /= membership.sum(axis=1, keepdims=True)
            initial[rows, k, :count] = weights[:, None] * membership
        return initial.reshape(X.shape[0], n_classes * n_components)

    def _merge_feature_stats(self, previous, new):  # partial_fit refuses a second batch
        raise ValueError(f"{type(self).__name__} cannot merge batches; call fit on all rows.")

    def _update_parameters(self):
        dtype = self._stats.means.dtype
        params = mixture_family.m_step(
            _to_jax(self._stats, dtype),
            _to_jax(self.prior_, dtype),
            jnp.asarray(self.ridge_, dtype),
            jnp.asarray(self.weight_concentration_prior, dtype),
            jnp.asarray(self._active),
            covariance_type=self.covariance_type,
            kind=self.estimate,
        )
        covariances = np.asarray(params.covariances)
        if self.covariance_type in ("full", "tied"):
            try:
                valid = np.isfinite(np.linalg.cholesky(covariances)).all()
            except np.linalg.LinAlgError:
                valid = False
        else:
            valid = np.all(covariances > 0)
        if not valid:
            raise ValueError(
                "A fitted component covariance is singular (a constant feature, or a "
                f"component with too few rows) and reg_covar={self.reg_covar} adds no ridge; "
                "use reg_covar > 0 or fewer components."
            )
        self.weights_, self.means_, self.covariances_ = (np.asarray(p) for p in params)
        self.suff_stats_ = self._stats

    def _params(self, dtype) -> MixtureParams:
        return _to_jax(MixtureParams(self.weights_, self.means_, self.covariances_), dtype)

    def _log_likelihood(self, X, dtype, *, row_terms=True):
        params = self._params(dtype)
        incomplete = np.isnan(X).any(axis=1)
        result = np.empty((X.shape[0], self.classes_.shape[0]), dtype=dtype)
        if (~incomplete).any():
            complete = X[~incomplete].astype(dtype)
            (padded,) = mixture_em.pad_rows(complete)  # one compile per band of sizes
            values = mixture_family.class_log_likelihood(params, padded, self.covariance_type)
            result[~incomplete] = np.asarray(values)[: complete.shape[0]]
        if not incomplete.any():
            return result
        # Rows with missing features: each component's observed-block density.
        component = mixture_family.missing_component_log_likelihood(
            params, X[incomplete].astype(dtype), self.covariance_type
        )
        with np.errstate(divide="ignore"):
            log_weights = np.log(self.weights_).astype(dtype)
        result[incomplete] = logsumexp(component + log_weights, axis=2)
        return result

    def _impute_rows(self, X, class_weights, method, rng):
        """Fill NaN from the mixture over classes and components of conditional Gaussians."""
        with precision(compute_dtype(X.dtype)):
            return self._impute_in_precision(X, class_weights, method, rng)

    def _impute_in_precision(self, X, class_weights, method, rng):
        params = self._params(X.dtype)
        component = mixture_family.missing_component_log_likelihood(params, X, self.covariance_type)
        with np.errstate(divide="ignore"):
            joint = component + np.log(self.weights_)
        membership = np.exp(joint - logsumexp(joint, axis=2, keepdims=True))
        weights = (class_weights[:, :, None] * membership).reshape(X.shape[0], -1)
        means = self.means_.reshape(weights.shape[1], -1)
        covariances = mixture_family.full_flat_covariances(params, self.covariance_type)
        filled = X.copy()
        patterns, groups = missing.missing_patterns(X)
        chosen = draw_classes(weights, rng) if method == "sample" else None
        for pattern, rows in zip(patterns, groups, strict=True):
            if not pattern.any():
                continue
            values = np.zeros((len(rows), pattern.sum()))
            for j in np.flatnonzero(weights[rows].any(axis=0)):
                mean, covariance = missing.conditional(means, covariances, X, rows, pattern, j)
                if method == "mean":
                    values += weights[rows, j][:, None] * mean
                    continue
                drawn = chosen[rows] == j
                if drawn.any():
                    lower = np.linalg.cholesky(covariance)
                    noise = rng.standard_normal((drawn.sum(), pattern.sum())) @ lower.T
                    values[drawn] = mean[drawn] + noise
            filled[np.ix_(rows, pattern)] = values
        return filled

    def _feature_log_prior(self) -> float:
        if self.estimate == "mle":
            return 0.0
        dtype = self.means_.dtype
        with precision(dtype):
            per_class = mixture_family.log_prior(
                self._params(dtype),
                _to_jax(self.prior_, dtype),
                jnp.asarray(self.weight_concentration_prior, dtype),
                jnp.asarray(self._active),
                covariance_type=self.covariance_type,
            )
            return float(jnp.sum(per_class))

    # ------------------------------------------------------------------ story
    def _sampling_sites(self):
        return {"weights": self.weights_, "means": self.means_, "covariances": self.covariances_}

    def _draw_features(self, classes, rng, **options) -> dict:
        """The story's draws in NumPy: each row's component from its class's weights, then a
        Gaussian row from the pair (class, component), flattened as ``k M + m``."""
        n_classes, n_components = self.weights_.shape
        component = draw_classes(np.asarray(self.weights_)[classes], rng)
        covariances, covariance_type = np.asarray(self.covariances_), self.covariance_type
        if covariance_type == "tied":  # one covariance per class, shared by its components
            covariances, covariance_type = np.repeat(covariances, n_components, axis=0), "full"
        else:
            covariances = covariances.reshape(n_classes * n_components, *covariances.shape[2:])
        params = gaussian.GaussianParams(
            np.asarray(self.means_).reshape(n_classes * n_components, -1), covariances
        )
        pairs = classes * n_components + component
        family = gaussian.GaussianFamily(covariance_type)
        return {"component": component, **family.draw_features(params, pairs, rng)}

    def _story_part(self):
        from bayesgen.stories.mixture import mixture_part

        # Sites "weights", "means", "covariances", named like the fitted attributes.
        return mixture_part(
            jax.tree.map(jnp.asarray, self.prior_),
            self.covariance_type,
            self.classes_.shape[0],
            self.weights_.shape[1],
            self.weight_concentration_prior,
        )

    # ------------------------------------------------------------------ posterior
    def _check_exact_posterior(self):
        raise ValueError(
            f"{type(self).__name__} has no closed-form posterior: a Gaussian mixture's "
            "parameters are not conjugate to its likelihood, so posterior(), "
            "predict_proba_draws() and predict_proba(method='predictive') do not apply; "
            "use predict_proba() (the EM point estimate)."
        )

    def posterior(self, num_samples=1000, *, method="exact", **kwargs):
        """Not available: neither exact draws nor NUTS apply to a mixture.

        There is no conjugate posterior; and NUTS on the story would face the component
        labels, exchangeable within each class (every relabelling is an equal mode, so the
        draws of ``means`` or ``weights`` do not summarise), or, for drawn rows, a discrete
        ``"component"`` site per row that NUTS cannot sample without enumeration.

        Raises
        ------
        ValueError
            Always (after checking that the model is fitted).
        """
        check_is_fitted(self)
        if method == "nuts":
            raise ValueError(
                f"posterior(method='nuts') is not supported for {type(self).__name__}: the "
                "components are exchangeable within each class (label switching makes every "
                "relabelling an equal mode), and a drawn row's component is a discrete site "
                "that NUTS cannot sample without enumeration."
            )
        self._check_exact_posterior()

    def _parameter_dims(self, features):
        self._check_exact_posterior()

    def _with_parameters(self, sites):
        self._check_exact_posterior()
