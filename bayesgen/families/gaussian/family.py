r"""The Gaussian family behind the `FeatureFamily` contract.

$x \mid y = k \sim \mathcal N(\mu_k, \Sigma_k)$ with a Normal–Inverse-Wishart prior
(Normal–Inverse-Gamma per coordinate for ``"diag"`` and ``"spherical"``). Every method
delegates to the pure functions of this package; the object holds only hyperparameters.

A missing entry (NaN) cannot be skipped in the statistics of a full or tied covariance (the
features of a class are dependent), so a fit on rows with missing entries is an EM over
them (``missing_needs_em``). A diagonal or spherical covariance could skip them, but the
estimators run the same EM for every type (today's behaviour, kept), so the flag is True
for all four.
"""

from __future__ import annotations

import copy
from typing import ClassVar

import numpy as np

from bayesgen.families import class_prior
from bayesgen.families.gaussian import far_rows, missing, missing_conditionals, predictive
from bayesgen.families.gaussian.completed_stats import completed_stats
from bayesgen.families.gaussian.likelihood import log_likelihood
from bayesgen.families.gaussian.posterior import (
    GaussianParams,
    NormalInverseWishart,
    add_ridge,
    check_gaussian_estimate_kind,
    mean_exists,
    point_estimate,
    posterior,
    sample_params,
)
from bayesgen.families.gaussian.prior import (
    covariance_log_prior,
    log_prior,
    mean_log_prior,
    resolve_prior,
)
from bayesgen.families.gaussian.scores import score_blocks as complete_score_blocks
from bayesgen.families.gaussian.stats import (
    GaussianStats,
    check_covariance_type,
    merge,
    suff_stats,
    total_variances,
)
from bayesgen.families.namespace import is_tracer, namespace, tree_leaves
from bayesgen.families.protocol import FeatureFamily, NoClosedForm, as_numbers
from bayesgen.validation import as_real_array, check_positive_values

_COVARIANCE_DIMS = {
    "full": ("class", "feature", "feature2"),
    "tied": ("feature", "feature2"),
    "diag": ("class", "feature"),
    "spherical": ("class",),
}


class GaussianFamily(FeatureFamily):
    """Gaussian class densities with full, tied, diagonal or spherical covariance.

    Parameters
    ----------
    covariance_type : {"full", "tied", "diag", "spherical"}, default="full"
    mean_prior : array-like of shape (n_features,), optional
        $m_0$; default: the mean of all rows.
    mean_precision_prior : float, default=1.0
        $\\kappa_0$.
    degrees_of_freedom_prior : float, optional
        $\\nu_0$; default `default_dof`.
    covariance_prior : array-like, optional
        $\\Psi_0$; default: the covariance of all rows plus the ridge.
    reg_covar : float, default=1e-6
        Ridge relative to each feature's variance over all rows (see `ridge`).

    Examples
    --------
    >>> import numpy as np
    >>> from bayesgen.families.gaussian import GaussianFamily
    >>> family = GaussianFamily("diag")
    >>> X = np.array([[0.0, 1.0], [2.0, 3.0], [4.0, 4.0], [5.0, 7.0]], dtype=np.float32)
    >>> R = np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0], [0.0, 1.0]], dtype=np.float32)
    >>> stats = family.suff_stats(X, R)
    >>> params = family.point_estimate(family.prior(stats), stats, "mle")
    >>> family.log_likelihood(params, X).shape
    (4, 2)
    """

    name = "gaussian"
    estimator = "GaussianNB"
    missing_needs_em: ClassVar[bool] = True
    scores_in_blocks: ClassVar[bool] = True  # scores.py; gappy rows by observed blocks

    HYPERPARAMETERS: ClassVar[tuple[str, ...]] = (
        "covariance_type",
        "mean_prior",
        "mean_precision_prior",
        "degrees_of_freedom_prior",
        "covariance_prior",
        "reg_covar",
    )
    """The names of the constructor's arguments, as estimators spell them."""

    column_values = "numbers"
    column_preference = 20

    def __init__(
        self,
        covariance_type: str = "full",
        *,
        mean_prior=None,
        mean_precision_prior=1.0,
        degrees_of_freedom_prior=None,
        covariance_prior=None,
        reg_covar=1e-6,
    ):
        check_covariance_type(covariance_type)
        self.covariance_type = covariance_type
        self.mean_prior = mean_prior
        self.mean_precision_prior = mean_precision_prior
        self.degrees_of_freedom_prior = degrees_of_freedom_prior
        self.covariance_prior = covariance_prior
        self.reg_covar = reg_covar

    def check(self) -> GaussianFamily:
        """This family, once ``reg_covar`` (>= 0), ``mean_precision_prior`` (> 0) and the
        prior's arrays (real numbers) are checked (its covariance type is checked when it is
        made)."""
        check_positive_values(self.reg_covar, "reg_covar", allow_zero=True)
        check_positive_values(self.mean_precision_prior, "mean_precision_prior")
        for name in ("mean_prior", "covariance_prior"):  # shapes are checked when fitted
            if getattr(self, name) is not None:
                as_real_array(getattr(self, name), name)
        return self

    @classmethod
    def of(cls, owner) -> GaussianFamily:
        """The family with the hyperparameters `HYPERPARAMETERS` read off ``owner``."""
        return cls(**{name: getattr(owner, name) for name in cls.HYPERPARAMETERS})

    # ----------------------------------------------------------- statistics
    def suff_stats(self, X, responsibilities, dtype=None) -> GaussianStats:
        """`suff_stats` of complete rows, in ``dtype``.

        A NaN entry makes its classes' statistics NaN: rows with missing entries need EM
        (``missing_needs_em``), whose E-step completes them.
        """
        if dtype is not None:
            X = X.astype(dtype, copy=False) if isinstance(X, np.ndarray) else X.astype(dtype)
            if isinstance(X, np.ndarray):
                responsibilities = np.asarray(responsibilities)
            else:
                responsibilities = namespace(X).asarray(responsibilities, dtype)
        return suff_stats(X, responsibilities, self.covariance_type)

    def merge(self, a: GaussianStats, b: GaussianStats) -> GaussianStats:
        """Statistics of the union of two disjoint batches."""
        return merge(a, b, self.covariance_type)

    def ridge(self, stats: GaussianStats):
        """Per-feature ridge: ``reg_covar`` times each feature's variance over all rows.

        A positive ``reg_covar`` is raised to at least ``n_features`` machine epsilons of
        the statistics' dtype; ``"spherical"`` uses the mean variance (a scalar).
        """
        xp = namespace(stats)
        variances = total_variances(stats, self.covariance_type)
        if self.covariance_type == "spherical":
            variances = xp.mean(variances)
        if self.reg_covar == 0:
            return xp.zeros_like(variances)
        # A feature constant over all rows still gets a ridge, on the scale of the others.
        fallback = xp.max(variances)
        fallback = xp.where(fallback > 0, fallback, xp.ones_like(fallback))
        variances = xp.where(variances > 0, variances, fallback)
        n_features = stats.means.shape[1]
        relative = max(self.reg_covar, n_features * np.finfo(stats.means.dtype).eps)
        return relative * variances

    # ------------------------------------------------------ prior, posterior
    def prior(self, stats: GaussianStats, ridge=None) -> NormalInverseWishart:
        """The prior, defaults resolved from ``stats`` (the ridge from `ridge`)."""
        if ridge is None:
            ridge = self.ridge(stats)
        return resolve_prior(
            stats,
            ridge,
            self.covariance_type,
            mean_prior=self.mean_prior,
            mean_precision_prior=self.mean_precision_prior,
            degrees_of_freedom_prior=self.degrees_of_freedom_prior,
            covariance_prior=self.covariance_prior,
        )

    def exact_posterior_refusal(self, value) -> str | None:
        """Refuse a value fitted by EM over missing entries (its ``frozen``) that kept no
        rows: its statistics are EM's expectations, whose conjugate update is not the
        posterior (`bayesgen.inference.gappy_posterior` draws from the rows it keeps)."""
        if value.frozen is not None and value.rows is None:
            return (
                " was fitted on rows with missing values (by EM), so its posterior has no "
                "closed form; use posterior(method='nuts', X=X, y=y) with the training rows, "
                "and pass that InferenceData to predict_proba_draws (or fit again: a "
                "GaussianDA's fit keeps the rows its posterior needs)."
            )
        return super().exact_posterior_refusal(value)

    def posterior(self, prior: NormalInverseWishart, stats: GaussianStats):
        """The conjugate Normal–Inverse-Wishart posterior (a class axis on each field)."""
        return posterior(prior, stats, self.covariance_type)

    def point_estimate(
        self, prior, stats: GaussianStats, kind: str, *, ridge=None, regularise=None
    ) -> GaussianParams:
        """``"mle"``, ``"map"``, ``"mean"`` or ``"unbiased"`` parameters with the ridge added.

        Parameters
        ----------
        prior : NormalInverseWishart
        stats : GaussianStats
        kind : {"mle", "map", "mean", "unbiased"}
        ridge : Array, optional
            Default `ridge` of ``stats``.
        regularise : callable, optional
            ``GaussianParams -> GaussianParams`` applied before the ridge (an estimator's
            regularised covariance).
        """
        params = point_estimate(prior, stats, self.covariance_type, kind)
        if regularise is not None:
            params = regularise(params)
        ridge = self.ridge(stats) if ridge is None else ridge
        return add_ridge(params, ridge, self.covariance_type)

    def log_prior(self, prior: NormalInverseWishart, params: GaussianParams, kind: str = "map"):
        """$\\log p(\\mu, \\Sigma)$, the story's parameter density (0 for ``"mle"`` and
        ``"unbiased"``, which ignore the prior).

        ``"map"`` and ``"mean"`` both use the NIW density itself.
        """
        if kind in ("mle", "unbiased"):
            return 0.0
        return log_prior(prior, params, self.covariance_type)

    def sub_class_log_prior(self, prior: NormalInverseWishart, params: GaussianParams, kind):
        """`log_prior` split by class, ``(n_classes,)``: each class's mean and covariance
        (what a mixture's EM compares class by class).

        Raises
        ------
        NoClosedForm
            For ``"tied"``: one covariance serves every class.
        """
        n_classes = np.shape(params.means)[0]
        if kind in ("mle", "unbiased"):
            return np.zeros(n_classes)
        if self.covariance_type == "tied":
            raise NoClosedForm("a tied covariance's prior is not split by class")
        prior = type(prior)(*(np.asarray(leaf) for leaf in prior))
        means, covariances = np.asarray(params.means), np.asarray(params.covariances)
        return covariance_log_prior(prior, covariances, self.covariance_type) + mean_log_prior(
            prior, means, covariances, self.covariance_type
        )

    def check_positive_definite(self, params: GaussianParams) -> None:
        """Raise a ``ValueError`` when a covariance of ``params`` is singular."""
        xp = namespace(params)
        covariances = params.covariances
        if self.covariance_type in ("full", "tied"):
            valid = _cholesky_exists(xp, covariances)
        else:
            valid = xp.all(covariances > 0)
        if not bool(valid):
            raise ValueError(
                "A fitted covariance is singular (a constant feature, or fewer rows than "
                "features in a class, or in a mixture's component) and "
                f"reg_covar={self.reg_covar} adds no ridge; use reg_covar > 0 (or, in a "
                "mixture, fewer components)."
            )

    # ------------------------------------------------------------ densities
    def log_likelihood(self, params: GaussianParams, X, *, row_terms: bool = True):
        """``(n_samples, n_classes)`` $\\log p(x_i \\mid k)$, NaN entries integrated out.

        Returns a NumPy array (the rows with missing entries are scored on the host). A
        finite row so far out that its quadratic form overflows has density 0 (``-inf``).
        """
        with np.errstate(over="ignore", invalid="ignore"):
            if _mostly_gappy(X) and _finite(params):
                # Every row by its observed block at once: scoring them as complete first
                # (to find the gappy ones) would be work thrown away.
                scores = np.empty((X.shape[0], np.shape(params.means)[0]), dtype=X.dtype)
                self._score_observed_blocks(params, scores, slice(None), X, row_terms)
                np.copyto(scores, -np.inf, where=np.isnan(scores))  # overflowed: density 0
                return scores
            complete = log_likelihood(params, X, self.covariance_type, row_terms=row_terms)
            return self.with_missing_rows(params, X, complete, row_terms=row_terms)

    def score_blocks(self, params: GaussianParams, X, *, row_terms: bool = True):
        """`log_likelihood` of complete NumPy rows a block at a time
        (`bayesgen.families.gaussian.scores.score_blocks`; a row with a missing entry
        scores NaN). None for rows on a device, traced parameters, or a table most of whose
        rows miss an entry (`log_likelihood` scores those by their observed blocks at
        once)."""
        if not isinstance(X, np.ndarray) or X.ndim != 2 or _mostly_gappy(X):
            return None
        if any(is_tracer(leaf) for leaf in tree_leaves(params)):
            return None
        means, covariances = (np.asarray(leaf) for leaf in params)
        return complete_score_blocks(
            means, covariances, X, self.covariance_type, row_terms=row_terms
        )

    def observed_log_likelihood(self, params: GaussianParams, X) -> np.ndarray:
        """`log_likelihood` of rows most of which miss some entry: every row scored by its
        observed block at once (a complete row is one block), with no pass scoring the
        rows as complete first. EM over missing entries scores so at every iteration."""
        result = np.empty((X.shape[0], np.shape(params.means)[0]), dtype=X.dtype)
        self._score_observed_blocks(params, result, np.arange(X.shape[0]), X, True)
        return result

    def with_missing_rows(
        self, params: GaussianParams, X, complete, *, row_terms: bool = True
    ) -> np.ndarray:
        """``complete`` (scores of ``X`` as if complete) with its NaN rows rescored.

        Scoring every row as complete first finds the rows with a missing entry without
        another pass over ``X``: their scores are NaN. Those get the density of their
        observed block (`missing`); ``row_terms=False`` as in `log_likelihood`: up to a
        term the same for every class of a row (which need not be the complete rows').
        """
        result = complete if isinstance(complete, np.ndarray) else np.array(complete)
        # A NaN anywhere in a row makes its sum NaN: one fast pass
        # (see class_posterior.unscored_rows).
        with np.errstate(invalid="ignore", over="ignore"):
            sums = result @ np.ones(result.shape[1], result.dtype)
        flagged = np.flatnonzero(np.isnan(sums))
        if flagged.size == 0:
            return result
        finite = _finite(params)
        if finite and 2 * flagged.size > X.shape[0]:
            # Most rows flagged (as when entries are missing at random): every row scored
            # by its observed block (a complete row is one block), from X itself, not a
            # copy of the flagged rows; the rows with a gap take those scores.
            X = np.asarray(X)
            gappy = np.flatnonzero(np.isnan(X).any(axis=1))
            scored = np.empty_like(result)
            self._score_observed_blocks(params, scored, slice(None), X, row_terms)
            result[gappy] = scored[gappy]
        else:
            rows = np.asarray(X[flagged])
            gappy = np.isnan(rows).any(axis=1)
            if gappy.any():
                self._score_observed_blocks(params, result, flagged[gappy], rows[gappy], row_terms)
        # With finite parameters, what is still NaN overflowed (inf - inf in a quadratic
        # form of a row far out): a density of 0. NaN parameters stay NaN.
        if finite:
            if flagged.size == result.shape[0]:
                np.copyto(result, -np.inf, where=np.isnan(result))
            else:
                still = result[flagged]
                result[flagged] = np.where(np.isnan(still), -np.inf, still)
        return result

    def _score_observed_blocks(self, params, result, incomplete, rows, row_terms) -> None:
        """``result[incomplete]``: the observed-block densities of the gappy ``rows``."""
        dtype = result.dtype
        means = np.asarray(params.means).astype(dtype)
        if self.covariance_type in ("diag", "spherical"):
            variances = np.broadcast_to(
                np.reshape(np.asarray(params.covariances), (means.shape[0], -1)), means.shape
            )
            result[incomplete] = missing.diagonal_log_likelihood(
                means, variances.astype(dtype), rows, row_terms=row_terms
            )
        else:
            covariances = np.asarray(params.covariances).astype(dtype)
            if self.covariance_type == "full":
                covariances = self.full_covariances(params).astype(dtype)
            result[incomplete] = missing.log_likelihood(
                means, covariances, rows, row_terms=row_terms
            )

    def limit_log_posterior(self, params: GaussianParams, X, log_class_prior) -> np.ndarray:
        """Rows so far out that every quadratic form overflows: classes ordered by the
        leading terms of the log joint (`far_rows.limit_log_posterior`)."""
        return far_rows.limit_log_posterior(
            np.asarray(params.means), self.full_covariances(params), X, log_class_prior
        )

    def full_covariances(self, params: GaussianParams) -> np.ndarray:
        """Every class's covariance as a ``(n_classes, n_features, n_features)`` array."""
        n_classes, n_features = np.shape(params.means)
        return missing.full_covariances(
            np.asarray(params.covariances), self.covariance_type, n_classes, n_features
        )

    def predictive_log_likelihood(self, posterior: NormalInverseWishart, X) -> np.ndarray:
        """The Student-t posterior predictive $\\log p(x \\mid k, D)$, NaN = missing."""
        student_t = predictive.predictive(posterior, self.covariance_type)
        return predictive.log_likelihood(student_t, X, self.covariance_type)

    # ---------------------------------------------------------------- draws
    def sample_params(self, key, posterior: NormalInverseWishart, num_samples: int):
        """``num_samples`` exact draws of (means, covariances) from ``posterior``."""
        return sample_params(key, posterior, self.covariance_type, num_samples)

    def draw_features(self, params: GaussianParams, classes, rng, **options) -> dict:
        """``{"X": rows}``, each Normal with its class's mean and covariance.

        Standard normal noise times a square root of the covariance: its Cholesky factor,
        or, for a covariance that is only semi-definite, the symmetric root from its
        eigenvalues (clipped at 0), so that a singular covariance still draws.
        """
        means = np.asarray(params.means, dtype=np.float64)
        variances = np.asarray(params.covariances, dtype=np.float64)
        noise = rng.standard_normal((classes.shape[0], means.shape[1]))
        if self.covariance_type == "tied":
            noise = noise @ square_root(variances).T
        elif self.covariance_type == "full":
            for k in np.unique(classes):
                rows = classes == k
                noise[rows] = noise[rows] @ square_root(variances[k]).T
        elif self.covariance_type == "diag":
            noise *= np.sqrt(variances[classes])
        else:
            noise *= np.sqrt(variances[classes])[:, None]
        dtype = np.result_type(np.asarray(params.means).dtype, np.float32)
        return {"X": (means[classes] + noise).astype(dtype)}

    def conditional(self, params: GaussianParams, X, class_weights, method: str, rng):
        """``X`` with its NaN entries filled given the observed ones.

        ``"mean"``: $\\sum_k p(k \\mid x_o)\\,\\mathbb E[x_m \\mid x_o, k]$;
        ``"sample"``: a class drawn from ``class_weights``, then $x_m$ from the
        Gaussian conditional of `conditional`.
        """
        means, filled = np.asarray(params.means), X.copy()
        if method == "mean" and self.covariance_type in ("diag", "spherical"):
            # Independent coordinates: a missing entry's conditional mean is its class mean.
            gaps = np.isnan(X)
            rows = np.flatnonzero(gaps.any(axis=1))
            mixed = class_weights[rows] @ means
            filled[rows] = np.where(gaps[rows], mixed, X[rows])
            return filled
        if method == "mean":
            covariances = np.asarray(params.covariances)
            if self.covariance_type != "tied":
                covariances = self.full_covariances(params)
            pieces = missing_conditionals.conditional_means(means, covariances, X, class_weights)
            for rows, index, values in pieces:
                filled[rows[:, None], index] = values
            return filled
        classes = class_prior.draw_classes(class_weights, rng)
        covariances = self.full_covariances(params)
        for rows, index, mean, lower in missing_conditionals.chosen_conditionals(
            means, covariances, X, classes
        ):
            filled[rows[:, None], index] = missing_conditionals.draw_from_factor(mean, lower, rng)
        return filled

    # ------------------------------------------------- columns of a table (MixedNB)
    def check_columns(self, X, *, owner="X", columns=None) -> np.ndarray:
        """Real numbers, NaN missing."""
        return as_numbers(X, owner, columns)

    def admits_column(self, column) -> bool:
        """Any numbers (not flags)."""
        return column.kind == "numbers"

    def column_log_evidence(self, column, class_index, n_classes: int) -> float:
        """Independent normals per class (`column_evidence.gaussian`); whole numbers are
        scored as integers, each value the mass of its unit interval."""
        from bayesgen.families import column_evidence  # imports SciPy: only when choosing

        return column_evidence.gaussian(
            column.values, class_index, n_classes, discrete=column.whole, reg_covar=self.reg_covar
        )

    def check_estimate(self, kind: str) -> None:
        """``"mle"``, ``"map"``, ``"mean"`` or ``"unbiased"``."""
        check_gaussian_estimate_kind(kind)

    def sites(self, params: GaussianParams) -> dict:
        """The story's sites ``"means"`` and ``"covariances"``."""
        return {"means": params.means, "covariances": params.covariances}

    def params_from_sites(self, sites: dict) -> GaussianParams:
        """`GaussianParams` from the sites ``"means"`` and ``"covariances"``."""
        return GaussianParams(np.asarray(sites["means"]), np.asarray(sites["covariances"]))

    def side_by_side(self, sites: dict) -> tuple[GaussianFamily, GaussianParams]:
        """As the protocol's; a tied covariance, one per draw, is repeated for the draw's
        classes, so the draws side by side are a ``"full"`` family (its other settings
        kept)."""
        if self.covariance_type != "tied":
            return super().side_by_side(sites)
        means = np.asarray(sites["means"])
        wide = copy.copy(self)
        wide.covariance_type = "full"
        covariances = np.repeat(np.asarray(sites["covariances"]), means.shape[1], axis=0)
        return wide, GaussianParams(means.reshape(-1, means.shape[-1]), covariances)

    def features_from_draws(self, draws: dict) -> np.ndarray:
        """The drawn features, as floats."""
        return np.asarray(draws["X"])

    def parameter_dims(self, features: list) -> tuple[dict, dict]:
        """Means by (class, feature); covariances as their type lays them out."""
        dims = {
            "means": ("class", "feature"),
            "covariances": _COVARIANCE_DIMS[self.covariance_type],
        }
        return dims, {"feature": list(features), "feature2": list(features)}

    def estimate(self, stats: GaussianStats, kind: str, frozen=None):
        """``(prior, parameters)`` with the ridge added; ``frozen`` is ``(ridge, prior)``.

        The prior and the ridge come from ``stats`` unless EM over missing entries fixed
        them (``frozen``). Raises a ``ValueError`` when the ``"mean"`` estimate does not
        exist or a covariance is singular.
        """
        if frozen is None:
            ridge = self.ridge(stats)
            prior = self.prior(stats, ridge)
        else:
            ridge, prior = frozen
        if kind == "mean" and not mean_exists(self.posterior(prior, stats), self.covariance_type):
            raise ValueError(
                "estimate='mean' needs a posterior covariance mean, which does not exist for "
                f"degrees_of_freedom_prior={self.degrees_of_freedom_prior}; raise it or use "
                "estimate='map'."
            )
        params = self.point_estimate(prior, stats, kind, ridge=ridge)
        self.check_positive_definite(params)
        return prior, params

    def expected_stats(
        self, params: GaussianParams, X: np.ndarray, responsibilities, *, with_log_likelihood=False
    ):
        """The E-step over missing entries: expected `GaussianStats` of the completed rows
        (`completed_stats`), and with ``with_log_likelihood`` the observed-data
        log-likelihood weighted by ``responsibilities``, as ``(stats, float)``."""
        return completed_stats(
            np.asarray(params.means),
            self.full_covariances(params),
            X,
            np.asarray(responsibilities),
            self.covariance_type,
            with_log_likelihood=with_log_likelihood,
        )


def _cholesky_exists(xp, covariances) -> bool:
    """Whether every matrix of ``covariances`` has a Cholesky factor (is positive definite).

    JAX returns NaN for a matrix that has none; NumPy raises.
    """
    if xp is not np:
        return bool(xp.all(xp.isfinite(xp.linalg.cholesky(covariances))))
    try:
        return bool(np.all(np.isfinite(np.linalg.cholesky(covariances))))
    except np.linalg.LinAlgError:
        return False


def square_root(covariance: np.ndarray) -> np.ndarray:
    """A matrix $L$ with $L L^\\top = \\Sigma$: the Cholesky factor, or for a
    semi-definite $\\Sigma$ the symmetric root from its eigenvalues clipped at 0."""
    try:
        return np.linalg.cholesky(covariance)
    except np.linalg.LinAlgError:
        values, vectors = np.linalg.eigh(covariance)
        return vectors * np.sqrt(np.clip(values, 0.0, None))


#: Rows from which `_mostly_gappy` judges a table (and fewest rows it judges at all).
GAPPY_PROBE_ROWS = 256


def _mostly_gappy(X) -> bool:
    """Whether ``X`` is a large NumPy table most of whose first rows miss some entry (as
    when entries are missing at random): then it is scored by observed blocks at once."""
    if not isinstance(X, np.ndarray) or X.ndim != 2 or X.shape[0] < 32 * GAPPY_PROBE_ROWS:
        return False
    probe = np.isnan(X[:GAPPY_PROBE_ROWS])
    # With few patterns, the observed blocks of complete rows would be scored by full
    # quadratic forms rather than the complete rows' own (linear, for a shared covariance).
    return 2 * np.count_nonzero(probe.any(axis=1)) > GAPPY_PROBE_ROWS and (
        missing.has_many_patterns(probe)
    )


def _finite(params) -> bool:
    """Whether every parameter is finite (a NaN one is a bug elsewhere, kept visible)."""
    return all(np.isfinite(np.asarray(leaf)).all() for leaf in params)
