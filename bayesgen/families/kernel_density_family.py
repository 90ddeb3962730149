r"""The kernel density family behind the `FeatureFamily` contract: `KernelDensityFamily`.

A class density is a Gaussian kernel mixture over the training rows
(`bayesgen.families.kernel_density`, which holds the maths). In the contract's terms:

- the statistics are the weighted rows themselves (`KernelStats`); two batches merge by
  concatenation;
- what the "prior" resolves from the statistics is the smoothing: the bandwidth factors,
  the feature ridge and the kernel covariances $H_k$ (`KernelChoice`), as a Gaussian
  family resolves its ridge and its empirical-Bayes prior from the data. An EM may keep it
  fixed (``frozen``), as the self-training loop over unlabelled rows does;
- the parameters are the kernel centres, their class weights and $H_k$ (`KernelParams`).

There are no parameters under a prior, so there is no posterior (``has_exact_posterior``
is False) and the log prior of the EM objective is 0.
"""

from __future__ import annotations

import numbers
from typing import NamedTuple

import numpy as np

from bayesgen._precision import compute_dtype, precision
from bayesgen.families import gaussian
from bayesgen.families import kernel_density as kde
from bayesgen.families.class_prior import draw_classes
from bayesgen.families.gaussian import missing
from bayesgen.families.protocol import FeatureFamily, as_numbers
from bayesgen.validation import InputRows, check_positive_values


class KernelChoice(NamedTuple):
    """The smoothing a kernel density fit resolves from its rows.

    Attributes
    ----------
    bandwidth : ndarray of shape (n_classes,)
        The factor $h_k$ of each class (all equal for ``bandwidth_scope="shared"``).
    ridge : ndarray of shape (n_features,)
        What is added to the diagonal of every data covariance before scaling by $h_k^2$.
    kernel_covariances : ndarray of shape (n_classes, n_features, n_features)
        $H_k$, the ridge included.
    """

    bandwidth: np.ndarray
    ridge: np.ndarray
    kernel_covariances: np.ndarray


class KernelDensityFamily(FeatureFamily):
    """Gaussian kernel class densities: $p(x \\mid k) = \\sum_i \\tilde w_{ik}
    \\mathcal N(x; x_i, H_k)$.

    Parameters
    ----------
    bandwidth : {"scott", "silverman"} or float, default="scott"
        The factor rule of ``scipy.stats.gaussian_kde`` (``bw_method``), or the factor.
    bandwidth_scope : {"class", "shared"}, default="class"
        One kernel per class, or the pooled within-class covariance for all.
    reg_covar : float, default=1e-6
        Ridge relative to each feature's variance over all training rows.

    Examples
    --------
    >>> import numpy as np
    >>> from bayesgen.families.kernel_density_family import KernelDensityFamily
    >>> family = KernelDensityFamily()
    >>> X = np.array([[0.0, 1.0], [1.0, 0.5], [4.0, 4.0], [5.0, 3.0], [4.5, 5.0]])
    >>> R = np.array([[1.0, 0], [1, 0], [0, 1], [0, 1], [0, 1]])
    >>> choice, params = family.estimate(family.suff_stats(X, R, np.float64), "mle")
    >>> family.log_likelihood(params, X).shape
    (5, 2)
    """

    name = "kernel_density"
    site = "training_X"
    has_exact_posterior = False
    no_posterior = (
        "kernel density family has no parameter posterior: its class densities are kernel "
        "density estimates (the training rows themselves), with no parameters under a prior"
    )
    # No parameters for EM to maximise: unlabelled rows are fitted by self-training.
    unlabelled_loop = "self-training"
    # The statistics are the rows: a Dask fit would ship every row to the driver.
    merges_exactly = False
    column_values = "numbers"
    input_rows = InputRows(missing_at_fit=False)  # every training row is a kernel centre

    def __init__(self, bandwidth="scott", bandwidth_scope="class", reg_covar=1e-6):
        self.bandwidth = bandwidth
        self.bandwidth_scope = bandwidth_scope
        self.reg_covar = reg_covar

    def check(self) -> KernelDensityFamily:
        """This family, once ``bandwidth`` and ``bandwidth_scope`` are checked.

        Raises
        ------
        ValueError
            Naming the hyperparameter and what it held.
        """
        bandwidth = self.bandwidth
        if isinstance(bandwidth, str):
            valid = bandwidth in kde.BANDWIDTH_RULES
        else:
            number = isinstance(bandwidth, numbers.Real) and not isinstance(bandwidth, bool)
            valid = number and np.isfinite(bandwidth) and bandwidth > 0
        if not valid:
            raise ValueError(
                "bandwidth must be 'scott', 'silverman' or a positive number (the bw_method "
                f"factor of scipy.stats.gaussian_kde); got {bandwidth!r}."
            )
        if self.bandwidth_scope not in kde.BANDWIDTH_SCOPES:
            raise ValueError(
                f"bandwidth_scope must be one of {kde.BANDWIDTH_SCOPES} (one kernel per class, "
                f"or one for all); got {self.bandwidth_scope!r}."
            )
        check_positive_values(self.reg_covar, "reg_covar", allow_zero=True)
        return self

    # ----------------------------------------------------------- statistics
    def suff_stats(self, X, responsibilities, dtype=None) -> kde.KernelStats:
        """The rows and their class weights, in ``dtype``.

        Raises
        ------
        ValueError
            If ``X`` has a missing entry: every training row is a kernel centre.
        """
        X = np.asarray(X)
        dtype = X.dtype if dtype is None else dtype
        if np.isnan(X).any():
            raise ValueError(
                "X contains NaN: a kernel density cannot fit rows with missing values (every "
                "training row is a kernel centre); NaN is accepted only when predicting, "
                "where it is integrated out. Remove or impute those rows first."
            )
        return kde.KernelStats(np.asarray(X, dtype=dtype), np.asarray(responsibilities, dtype))

    def merge(self, a: kde.KernelStats, b: kde.KernelStats) -> kde.KernelStats:
        """The rows of both batches, one after the other."""
        return kde.KernelStats(
            np.concatenate([np.asarray(a.rows), np.asarray(b.rows)]),
            np.concatenate([np.asarray(a.weights), np.asarray(b.weights)]),
        )

    # ---------------------------------------------------------- smoothing
    def prior(self, stats: kde.KernelStats) -> KernelChoice:
        """The bandwidth factors, the ridge and the kernels of the weighted rows, in the
        rows' dtype (computed in float64).

        Raises
        ------
        ValueError
            If a kernel covariance is singular (only without a ridge).
        """
        dtype = np.asarray(stats.rows).dtype
        rows = np.asarray(stats.rows, dtype=np.float64)
        weights = np.asarray(stats.weights, dtype=np.float64)
        ridge = kde.feature_ridge(rows, weights.sum(axis=1), self.reg_covar, dtype)
        factors, kernels = kde.kernel_covariances(
            kde.KernelStats(rows, weights), self.bandwidth, self.bandwidth_scope, ridge
        )
        eigenvalues = np.linalg.eigvalsh(kernels)
        n_features = rows.shape[1]
        if not np.all(eigenvalues[:, 0] > n_features * np.finfo(dtype).eps * eigenvalues[:, -1]):
            raise ValueError(
                "A kernel covariance is singular (a constant feature, or fewer rows than "
                f"features in a class) and reg_covar={self.reg_covar} adds no ridge; use "
                "reg_covar > 0."
            )
        return KernelChoice(factors.astype(dtype), ridge.astype(dtype), kernels.astype(dtype))

    def point_estimate(self, prior: KernelChoice, stats: kde.KernelStats, kind: str):
        """The kernel centres and weights of ``stats`` with the kernels of ``prior``
        (``kind`` concerns the class probabilities only)."""
        return kde.KernelParams(
            np.asarray(stats.rows), np.asarray(stats.weights), prior.kernel_covariances
        )

    def estimate(self, stats: kde.KernelStats, kind: str, frozen=None):
        """``(smoothing, parameters)``; ``frozen`` is a `KernelChoice` kept as it is."""
        choice = self.prior(stats) if frozen is None else KernelChoice(*frozen)
        return choice, self.point_estimate(choice, stats, kind)

    def log_prior(self, prior, params, kind: str = "map") -> float:
        """0: the kernels are no parameters under a prior."""
        return 0.0

    # ------------------------------------------------------------ densities
    def log_likelihood(self, params: kde.KernelParams, X, *, row_terms: bool = True):
        """``(n_samples, n_classes)`` $\\log p(x \\mid k)$, NaN entries integrated out, in
        ``X``'s precision (float64 enabled for JAX where that is float64)."""
        X = np.asarray(X)
        dtype = compute_dtype(X.dtype)
        with precision(dtype):
            return kde.log_likelihood(params, X, dtype)

    # ---------------------------------------------------------------- story
    def story_prior(self, prior, n_features: int, params=None) -> kde.KernelParams:
        """The fitted centres and kernels: the story holds them fixed, drawing no
        parameter (a kernel density has none under a prior)."""
        return params

    # ---------------------------------------------------------------- draws
    def draw_features(self, params: kde.KernelParams, classes, rng, **options) -> dict:
        """A kernel centre from the class's weighted rows (``"kernel_center"``), then a
        Normal row around it with the class's kernel covariance (``"X"``)."""
        weights = np.asarray(params.training_weights, dtype=np.float64)
        covariances = np.asarray(params.kernel_covariances)
        centres = np.empty(classes.shape[0], dtype=np.int64)
        for k in np.unique(classes):
            rows = classes == k
            centres[rows] = rng.choice(
                weights.shape[0], size=int(rows.sum()), p=weights[:, k] / weights[:, k].sum()
            )
        kernels = gaussian.GaussianParams(np.zeros_like(covariances[:, :, 0]), covariances)
        noise = gaussian.GaussianFamily("full").draw_features(kernels, classes, rng)["X"]
        X = np.asarray(params.training_X)[centres] + noise
        return {"kernel_center": centres, "X": X.astype(noise.dtype)}

    def conditional(self, params: kde.KernelParams, X, class_weights, method: str, rng):
        """``X`` with its NaN filled from each class's kernel-mixture conditional
        (`bayesgen.families.kernel_density.conditional_missing`), mixed over
        ``class_weights`` (``"mean"``) or given a class drawn from them (``"sample"``)."""
        filled = X.copy()
        has_weight = np.asarray(params.training_weights, dtype=np.float64).sum(axis=0) > 0
        patterns, groups = missing.missing_patterns(X)
        classes = draw_classes(class_weights, rng) if method == "sample" else None
        for pattern, rows in zip(patterns, groups, strict=True):
            if not pattern.any():
                continue
            values = np.zeros((len(rows), pattern.sum()))
            for k in np.flatnonzero(has_weight):
                use = class_weights[rows, k] > 0 if method == "mean" else classes[rows] == k
                if not use.any():
                    continue
                chosen = rows[use]
                observed_values = X[np.ix_(chosen, ~pattern)]
                if method == "mean":
                    means = kde.conditional_missing(params, k, observed_values, pattern)
                    values[use] += class_weights[chosen, k][:, None] * means
                else:
                    values[use] = kde.conditional_missing(params, k, observed_values, pattern, rng)
            filled[np.ix_(rows, pattern)] = values
        return filled

    # ------------------------------------------------- columns of a table
    def check_columns(self, X: np.ndarray, *, owner: str = "X", columns=None) -> np.ndarray:
        """Real numbers; NaN is missing."""
        return as_numbers(X, owner, columns)

    def sites(self, params: kde.KernelParams) -> dict:
        """The story's deterministic sites ``"training_X"``, ``"training_weights"`` and
        ``"kernel_covariances"``."""
        return params._asdict()

    def params_from_sites(self, sites: dict) -> kde.KernelParams:
        """`KernelParams` from the three sites."""
        return kde.KernelParams(*(np.asarray(sites[name]) for name in kde.KernelParams._fields))

    def features_from_draws(self, draws: dict) -> np.ndarray:
        """The drawn rows, as floats."""
        return draws["X"]
