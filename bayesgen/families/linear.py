r"""Log-likelihoods that are linear in the data: the naive-Bayes count families.

For Bernoulli, multinomial, categorical (one-hot) and Poisson features,

$$
\log p(x \mid y = k) = \sum_j x_j W_{kj} + b_k + r(x),
$$

where $r(x)$ depends on the row only (a multinomial coefficient, Poisson
factorials) and cancels from $p(y \mid x)$. A missing feature (NaN) is integrated out
by dropping its factor: its term $x_j W_{kj}$ and its share of $b_k$.
Maximum-likelihood estimates may put
probability zero on an outcome, i.e. $W_{kj} = -\infty$; evaluating
$0 \cdot (-\infty)$ would give NaN, so the infinite parts are kept apart: class
$k$ is impossible for row $x$ exactly when $\sum_j x_j Z_{kj} + z_k > 0$.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from bayesgen.families.namespace import namespace

if TYPE_CHECKING:
    from jax import Array


class LinearLogLikelihood(NamedTuple):
    """The finite and the impossible parts of a linear log-likelihood.

    Attributes
    ----------
    weights : Array of shape (n_classes, n_features)
        $W_{kj}$ with infinite entries replaced by zero.
    bias : Array of shape (n_classes,)
        $b_k$, finite.
    zero_weights : Array of shape (n_classes, n_features)
        Non-negative $Z_{kj}$: positive where an occurrence of feature ``j`` has
        probability zero in class ``k``.
    zero_bias : Array of shape (n_classes,)
        $z_k$, added to $\\sum_j x_j Z_{kj}$ before the positivity test.
    feature_bias : Array of shape (n_classes, n_features), optional
        The share of $b_k$ that each feature contributes whenever it is observed
        ($b_k = \\sum_j$ ``feature_bias[k, j]``); a missing feature's share is
        taken out. ``None`` when the bias does not depend on which features are observed.
    feature_zero_bias : Array of shape (n_classes, n_features), optional
        The same for $z_k$.
    """

    weights: Array
    bias: Array
    zero_weights: Array
    zero_bias: Array
    feature_bias: Array | None = None
    feature_zero_bias: Array | None = None


def finite_log(probabilities: Array) -> tuple[Array, Array]:
    """``log p`` with zeros replaced by 0, and the indicator of those zeros."""
    xp = namespace(probabilities)
    is_zero = probabilities <= 0
    ones = xp.ones_like(probabilities)
    logs = xp.log(xp.where(is_zero, ones, probabilities))
    return xp.where(is_zero, xp.zeros_like(probabilities), logs), is_zero


def observed_counts(counts: Array, missing_counts: Array | None, shape) -> Array:
    """Per-class, per-feature weighted count of observed entries, of shape ``shape``.

    ``counts`` are the class counts $N_k$; ``missing_counts`` (or ``None``: nothing
    missing) the per-feature counts of missing entries to take out.
    """
    observed = namespace(counts).broadcast_to(counts[:, None], shape)
    return observed if missing_counts is None else observed - missing_counts


def add_missing_counts(a: Array | None, b: Array | None, shape) -> Array | None:
    """Sum of two batches' missing-entry counts, either of which may be ``None``."""
    if a is None and b is None:
        return None
    zeros = namespace(a, b).zeros(shape)
    return (zeros if a is None else a) + (zeros if b is None else b)
