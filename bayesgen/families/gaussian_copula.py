r"""Numeric columns jointly Gaussian on their normal scores: a Gaussian copula per class.

Each column $j$ is mapped by a fixed, strictly increasing, piecewise-linear map $T_j$ to a
normal score $z_j = T_j(x_j)$, and the scores of a class are Gaussian (a full covariance by
default, Normal–Inverse-Wishart prior, `bayesgen.families.gaussian`):

$$
z = T(x), \quad z \mid y = k \sim \mathcal N(\mu_k, \Sigma_k), \quad
\log p(x \mid k) = \log \mathcal N(T(x); \mu_k, \Sigma_k) + \sum_j \log T_j'(x_j).
$$

$T_j$ is learned once from the training column (`learn_scores`): each distinct value owns
the cell between the midpoints to its neighbours, and $T_j$ maps the cells' bounds to
$\Phi^{-1}$ of the share of the entries below them, linearly in between, and goes on
straight beyond the first and last bounds with the slopes of the first and last pieces
(up to ``n_knots`` bounds). A standard normal score falls in a value's cell as often as
the value occurs in the column, so the training scores are close to standard normal and a
class's Gaussian on them keeps the dependence between columns that a Gaussian on the raw
values loses to skew and bounds (the radius, perimeter and area of a cell; a population and
its logarithm). What it approximates: the map is the column's, not each class's, so a
column of few values (a 1-7 scale) keeps each class's frequencies only roughly, and a
value held by many rows gets a cell of high density, not a point mass (the histogram
family has both). The Jacobian $T_j'(x_j)$ is the slope of the piece $x_j$ lies on (at a
knot, the piece that starts there); it is the same for every class, so it changes
$\log p(x)$ but no class posterior.

Every use of a Gaussian carries over through $T$, exactly: missing entries (NaN) are
integrated out on the scores (a marginal of a Gaussian), a conditional draw or an
imputation by sampling is the Gaussian one mapped back by $T^{-1}$, and the conditional
mean of a missing entry is $\mathbb E[T_j^{-1}(z_j)]$ under its Gaussian conditional, in
closed form (`expected_value`: $T_j^{-1}$ is linear on each piece). Posterior draws,
NUTS and the story are the Gaussian family's on the scores plus the Jacobian factor.

A column-only family: ``MixedNB(features={c: "gaussian_copula" for c in numbers})`` puts
those columns in one group, and ``LatentClassNB`` over such a group is a mixture of
Gaussian copulas per class (`bayesgen.TableSynthesizer`'s third column treatment).
"""

from __future__ import annotations

import copy
from typing import ClassVar

import numpy as np
from scipy import special

from bayesgen.families.gaussian.family import GaussianFamily
from bayesgen.families.gaussian.missing_conditionals import conditionals
from bayesgen.families.protocol import FeatureFamily, as_numbers, refuse_entries

__all__ = ["GaussianCopulaFamily", "expected_value", "learn_scores"]


def learn_scores(column: np.ndarray, n_knots: int) -> tuple[np.ndarray, np.ndarray]:
    """``(knots, scores)`` of one column's map to normal scores (module docstring).

    Each distinct observed value $v_i$ owns the cell between the midpoints to its
    neighbours (the first and last cells as wide on the outside as on the inside); the
    knots are the cells' bounds and their scores $\\Phi^{-1}$ of the share of the entries
    below, counted as $(\\#\\text{below} + \\tfrac12) / (n + 1)$ so that the two tails
    beyond the first and last bounds keep $\\tfrac{1}{2(n + 1)}$ each. A standard normal
    score then falls in $v_i$'s cell with probability $c_i / (n + 1)$, and a value drawn
    there is nearer to $v_i$ than to any other training value. With more than ``n_knots``
    bounds, those nearest to ``n_knots`` evenly spaced ranks are kept (the first and last
    always; fewer where values repeat, as ranks then jump). Values a floating-point step
    apart share a piece. A column of one distinct value has the knot ``[v]`` and the score
    ``[0]`` (the map is then $x - v$).

    Raises
    ------
    ValueError
        If the column has no observed value.
    """
    if isinstance(n_knots, bool) or not isinstance(n_knots, (int, np.integer)) or n_knots < 2:
        raise ValueError(f"n_knots must be an integer >= 2; got {n_knots!r}.")
    values = column[~np.isnan(column)]
    if values.size == 0:
        raise ValueError("it has no observed value to learn its normal scores from")
    unique, counts = np.unique(values, return_counts=True)
    unique = unique.astype(np.float64)
    if unique.size > 1:
        middles = (unique[1:] + unique[:-1]) / 2
        bounds = np.r_[2 * unique[0] - middles[0], middles, 2 * unique[-1] - middles[-1]]
        below = np.r_[0, np.cumsum(counts)]
        # Values a floating-point step apart have no midpoint between them: their cells
        # merge into one piece.
        apart = np.r_[True, np.diff(bounds) > 0]
        bounds, below = bounds[apart], np.r_[below[apart][:-1], values.size]
        if bounds.size > n_knots:
            targets = np.linspace(0, values.size, n_knots)
            above = np.clip(np.searchsorted(below, targets), 1, below.size - 1)
            nearer_below = targets - below[above - 1] <= below[above] - targets
            keep = np.unique(np.where(nearer_below, above - 1, above))
            bounds, below = bounds[keep], below[keep]
        if bounds.size > 1:
            return bounds, special.ndtri((below + 0.5) / (values.size + 1))
    return unique[:1], np.zeros(1)


def _pieces(knots: np.ndarray, scores: np.ndarray):
    """Each piece's slope dz/dx, the first and last slopes extending the ends."""
    if knots.size == 1:
        return np.ones(1)
    return np.diff(scores) / np.diff(knots)


def _to_scores(x: np.ndarray, knots: np.ndarray, scores: np.ndarray) -> np.ndarray:
    slopes = _pieces(knots, scores)
    # np.interp on one knot answers its score even for NaN: a missing entry stays missing.
    z = np.where(np.isnan(x), np.nan, np.interp(x, knots, scores))
    z = np.where(x < knots[0], scores[0] + (x - knots[0]) * slopes[0], z)
    return np.where(x > knots[-1], scores[-1] + (x - knots[-1]) * slopes[-1], z)


def _to_values(z: np.ndarray, knots: np.ndarray, scores: np.ndarray) -> np.ndarray:
    slopes = _pieces(knots, scores)
    x = np.interp(z, scores, knots) if knots.size > 1 else knots[0] + z
    x = np.where(z < scores[0], knots[0] + (z - scores[0]) / slopes[0], x)
    return np.where(z > scores[-1], knots[-1] + (z - scores[-1]) / slopes[-1], x)


def _log_slopes(z: np.ndarray, knots: np.ndarray, scores: np.ndarray) -> np.ndarray:
    """$\\log T'$ at the values whose scores are ``z`` (0 where ``z`` is NaN)."""
    slopes = np.log(_pieces(knots, scores))
    piece = np.clip(np.searchsorted(scores, z, side="right") - 1, 0, slopes.size - 1)
    return np.where(np.isnan(z), 0.0, slopes[piece])


def expected_value(mean, variance, knots: np.ndarray, scores: np.ndarray) -> np.ndarray:
    """$\\mathbb E[T^{-1}(z)]$ for $z \\sim \\mathcal N(\\text{mean}, \\text{variance})$,
    elementwise: $T^{-1}$ is $a_i + b_i z$ on each piece $[s_i, s_{i+1})$, so the
    expectation is $\\sum_i a_i P_i + b_i \\mathbb E[z; \\text{piece}_i]$ with the normal's
    probabilities and partial means of the pieces (the two unbounded ends included)."""
    mean, sd = np.asarray(mean, np.float64), np.sqrt(np.asarray(variance, np.float64))
    if knots.size == 1:
        return knots[0] + mean
    inverse = 1.0 / _pieces(knots, scores)
    bounds = np.r_[-np.inf, scores[1:-1], np.inf]  # first and last pieces run on
    slope = inverse
    intercept = knots[:-1] - scores[:-1] * inverse
    shape = mean.shape
    mean, sd = mean.reshape(-1, 1), sd.reshape(-1, 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        a = (bounds[:-1] - mean) / sd
        b = (bounds[1:] - mean) / sd
    mass = special.ndtr(b) - special.ndtr(a)
    density = np.exp(-0.5 * a**2) - np.exp(-0.5 * b**2)
    partial_mean = mean * mass + sd * density / np.sqrt(2 * np.pi)
    return (intercept * mass + slope * partial_mean).sum(axis=1).reshape(shape)


class GaussianCopulaFamily(GaussianFamily):
    """A class's numeric columns jointly Gaussian on their normal scores (module docstring).

    Parameters
    ----------
    covariance_type : {"full", "tied", "diag", "spherical"}, default="full"
        The covariance of the scores (`GaussianFamily`); ``"full"`` keeps the
        dependence between the columns.
    n_knots : int, default=1024
        Most knots of each column's map to normal scores: fewer give a smoother map,
        more follow the training column more closely (every distinct value's cell up to
        this; with 64 knots a detector told breast cancer's synthetic rows apart at AUC
        0.517, with every value's 0.507, against 0.493 for real rows).
    mean_prior, mean_precision_prior, degrees_of_freedom_prior, covariance_prior, reg_covar
        The Normal–Inverse-Wishart prior and the ridge of the scores' Gaussian
        (`GaussianFamily`).
    knots, scores : list of ndarray, optional
        What `learn` found per column; set by fitting.
    """

    name = "gaussian_copula"
    scores_in_blocks = False  # encode and log_jacobian copy all the rows given
    estimator = None
    column_family = True
    merges_exactly = False  # the map is learned from the rows
    HYPERPARAMETERS: ClassVar[tuple[str, ...]] = (*GaussianFamily.HYPERPARAMETERS, "n_knots")

    def __init__(
        self,
        covariance_type: str = "full",
        *,
        n_knots=1024,
        mean_prior=None,
        mean_precision_prior=1.0,
        degrees_of_freedom_prior=None,
        covariance_prior=None,
        reg_covar=1e-6,
        knots=None,
        scores=None,
    ):
        super().__init__(
            covariance_type,
            mean_prior=mean_prior,
            mean_precision_prior=mean_precision_prior,
            degrees_of_freedom_prior=degrees_of_freedom_prior,
            covariance_prior=covariance_prior,
            reg_covar=reg_covar,
        )
        self.n_knots = n_knots
        self.knots, self.scores = knots, scores

    def check(self) -> GaussianCopulaFamily:
        """This family, once ``n_knots`` (an integer >= 2) and the Gaussian's settings are
        checked."""
        if isinstance(self.n_knots, bool) or not isinstance(self.n_knots, (int, np.integer)):
            raise ValueError(f"n_knots must be an integer >= 2; got {self.n_knots!r}.")
        if self.n_knots < 2:
            raise ValueError(f"n_knots must be an integer >= 2; got {self.n_knots!r}.")
        super().check()
        return self

    @classmethod
    def of(cls, owner) -> GaussianCopulaFamily:
        """The family of the settings ``owner`` has (`settings_read`)."""
        return FeatureFamily.of.__func__(cls, owner)

    @classmethod
    def settings_read(cls) -> set[str]:
        """The Gaussian's settings and ``n_knots`` (not the learned maps)."""
        return set(cls.HYPERPARAMETERS)

    def admits_column(self, column) -> bool:
        """False: the family is used where ``features=`` names it (a group of columns, not
        one column's choice by evidence)."""
        return False

    column_log_evidence = FeatureFamily.column_log_evidence

    def check_columns(self, X, *, owner="X", columns=None) -> np.ndarray:
        """Real numbers (NaN missing); ±inf is refused."""
        X = as_numbers(X, owner, columns)
        refuse_entries(np.isinf(X), X, columns, f"{owner} models finite numbers")
        return X

    # ------------------------------------------------------------ the map
    def learn(self, X, stats=None):
        """Every column's map, learned once: a family that holds them keeps them (rows
        added later are scored and counted through the same maps)."""
        if self.knots is not None:
            return self, stats
        self.check()
        knots, scores = [], []
        for j, column in enumerate(np.asarray(X, np.float64).T):
            try:
                k, s = learn_scores(column, int(self.n_knots))
            except ValueError as error:
                raise ValueError(
                    f"The gaussian_copula family cannot model its column {j}: {error}."
                ) from None
            knots.append(k)
            scores.append(s)
        return self.with_learned(knots=knots, scores=scores), None

    def learned(self) -> dict:
        """``{"knots": ..., "scores": ...}``."""
        return {"knots": self.knots, "scores": self.scores}

    def with_learned(self, *, knots=None, scores=None) -> GaussianCopulaFamily:
        """This family over the given maps."""
        widened = copy.copy(self)
        widened.knots = None if knots is None else [np.asarray(k, np.float64) for k in knots]
        widened.scores = None if scores is None else [np.asarray(s, np.float64) for s in scores]
        return widened

    def _maps(self):
        if self.knots is None:
            raise ValueError("The gaussian_copula family has not learned its maps; fit it first.")
        return zip(self.knots, self.scores, strict=True)

    def encode(self, X) -> np.ndarray:
        """The normal scores $T(x)$ (NaN kept), in ``X``'s float precision."""
        X = np.asarray(X)
        dtype = X.dtype if X.dtype in (np.float32, np.float64) else np.float64
        columns = [_to_scores(X[:, j].astype(np.float64), *m) for j, m in enumerate(self._maps())]
        return np.stack(columns, axis=1).astype(dtype) if columns else X.astype(dtype)

    def decode(self, values) -> np.ndarray:
        """The values $T^{-1}(z)$ of scores, in their float precision."""
        values = np.asarray(values)
        dtype = values.dtype if values.dtype in (np.float32, np.float64) else np.float64
        Z = values.astype(np.float64)
        columns = [_to_values(Z[:, j], *m) for j, m in enumerate(self._maps())]
        return (np.stack(columns, axis=1) if columns else Z).astype(dtype)

    def log_jacobian(self, Z) -> np.ndarray:
        """``(n_samples,)`` $\\sum_j \\log T_j'(x_j)$ over each row's observed entries, from
        their scores ``Z``."""
        Z = np.asarray(Z, np.float64)
        total = np.zeros(Z.shape[0])
        for j, m in enumerate(self._maps()):
            total += _log_slopes(Z[:, j], *m)
        return total

    # ------------------------------------------------------------ densities
    def log_likelihood(self, params, X, *, row_terms: bool = True):
        """``(n_samples, n_classes)`` $\\log p(x_i \\mid k)$ of rows given as scores
        (`encode`), NaN entries integrated out; ``row_terms=False`` leaves out the
        Jacobian with the Gaussian's own row terms."""
        scores = super().log_likelihood(params, X, row_terms=row_terms)
        if not row_terms:
            return scores
        return scores + self.log_jacobian(X)[:, None].astype(scores.dtype)

    def score_blocks(self, params, X, *, row_terms: bool = True):
        """None: ``encode`` copies every row it is given (as `scores_in_blocks` says), so
        the rows reach `log_likelihood` in chunks instead."""
        return None

    def observed_log_likelihood(self, params, X) -> np.ndarray:
        """`GaussianFamily.observed_log_likelihood` plus the Jacobian."""
        scores = super().observed_log_likelihood(params, X)
        return scores + self.log_jacobian(X)[:, None].astype(scores.dtype)

    def expected_stats(self, params, X, responsibilities, *, with_log_likelihood=False):
        """`GaussianFamily.expected_stats` of the scores; the log-likelihood, when asked
        for, with each row's Jacobian weighted by its class weights (EM's history is then
        the model's own log-likelihood)."""
        result = super().expected_stats(
            params, X, responsibilities, with_log_likelihood=with_log_likelihood
        )
        if not with_log_likelihood:
            return result
        stats, value = result
        weights = np.asarray(responsibilities, np.float64).sum(axis=1)
        return stats, value + float(weights @ self.log_jacobian(X))

    def predictive_log_likelihood(self, posterior, X) -> np.ndarray:
        """The Student-t posterior predictive of the scores plus the Jacobian."""
        scores = super().predictive_log_likelihood(posterior, X)
        return scores + self.log_jacobian(X)[:, None].astype(scores.dtype)

    # ---------------------------------------------------------------- draws
    def features_from_draws(self, draws: dict) -> np.ndarray:
        """The drawn values: the scores of site ``"X"`` mapped back."""
        return self.decode(np.asarray(draws["X"]))

    def mean(self, params) -> np.ndarray:
        """``(n_classes, n_features)``: each class's mean value $\\mathbb E[T_j^{-1}(z_j)]$."""
        means = np.asarray(params.means, np.float64)
        variances = np.diagonal(self.full_covariances(params), axis1=-2, axis2=-1)
        return np.stack(
            [expected_value(means[:, j], variances[:, j], *m) for j, m in enumerate(self._maps())],
            axis=1,
        )

    def conditional(self, params, X, class_weights, method: str, rng):
        """Scores ``X`` with their NaN entries filled: ``"sample"`` as the Gaussian's (a
        class from the weights, then its conditional draw); ``"mean"``, the scores of
        $\\sum_k w_k \\mathbb E[T_j^{-1}(z_j) \\mid z_o, k]$, the conditional mean of each
        missing value (`expected_value` under each class's conditional normal)."""
        if method != "mean":
            return super().conditional(params, X, class_weights, method, rng)
        filled = np.array(X, dtype=np.float64, copy=True)
        means = np.asarray(params.means, np.float64)
        maps = list(self._maps())
        for rows, index, mean, covariance in conditionals(
            means, self.full_covariances(params), np.asarray(X, np.float64)
        ):
            variance = np.diagonal(covariance, axis1=-2, axis2=-1)  # (K, rows, m)
            values = np.empty(mean.shape)
            for position in range(index.shape[1]):
                for column in np.unique(index[:, position]):
                    at = index[:, position] == column
                    values[:, at, position] = expected_value(
                        mean[:, at, position], variance[:, at, position], *maps[column]
                    )
            mixed = np.einsum("rk,krm->rm", class_weights[rows], values)
            for position in range(index.shape[1]):
                column = index[:, position]
                for j in np.unique(column):
                    at = column == j
                    filled[rows[at], j] = _to_scores(mixed[at, position], *maps[j])
        return filled.astype(np.asarray(X).dtype)

    def story_slopes(self):
        """Per column, ``(scores, log slopes)`` of its map, for the story's Jacobian."""
        return [(s, np.log(_pieces(k, s))) for k, s in self._maps()]
