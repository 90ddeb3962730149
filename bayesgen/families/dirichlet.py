r"""Point estimates of Dirichlet-distributed probability vectors from counts.

Shared by the class prior, the multinomial and categorical features, and the Bernoulli
features (a Beta is the two-category Dirichlet). With prior concentration $\alpha$
and counts $c$, the posterior is $\mathrm{Dirichlet}(\alpha + c)$ and

- ``"mle"``: $c / \sum c$;
- ``"mean"``: $(\alpha + c) / \sum (\alpha + c)$, additive (Laplace) smoothing;
- ``"map"``: $(\alpha + c - 1)_+ / \sum (\alpha + c - 1)_+$. A concentration below
  one puts the mode on the boundary, hence the clipping; when every entry is at most one
  the density has no single mode and the posterior mean is returned instead.

An all-zero count vector has no maximum-likelihood estimate; it gets the uniform vector.
Probability vectors may be laid side by side in one axis (the categories of several
features), with ``segment_ids`` saying which vector each entry belongs to.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from bayesgen.families.estimates import check_estimate_kind
from bayesgen.families.namespace import namespace, segment_sum

if TYPE_CHECKING:
    from jax import Array


def _segment_total(xp, weights, segment_ids, num_segments: int | None):
    if segment_ids is None:
        if weights.shape[-1] == 2:
            # Two categories (a Beta): the sum a + b that the reduction makes, without
            # NumPy's reduction over an axis of length 2 (several times slower).
            return weights[..., :1] + weights[..., 1:]
        return xp.sum(weights, axis=-1, keepdims=True)
    totals = segment_sum(xp, weights.T, segment_ids, num_segments).T
    return totals[..., segment_ids]


def point_estimate(
    concentration: Array,
    counts: Array,
    kind: str,
    segment_ids: Array | None = None,
    num_segments: int | None = None,
) -> Array:
    """Probability vectors estimated from counts under a Dirichlet prior.

    Parameters
    ----------
    concentration : Array broadcastable to ``counts``
        Prior concentration $\\alpha$ (ignored for ``"mle"``).
    counts : Array of shape (..., n_entries)
        Weighted counts $c$.
    kind : {"mle", "map", "mean"}
    segment_ids : Array of int of shape (n_entries,), optional
        Which probability vector each entry of the last axis belongs to; by default the
        whole last axis is one vector.
    num_segments : int, optional
        Number of vectors, with ``segment_ids``.

    Returns
    -------
    Array of the shape of ``counts``
        Each vector sums to one.
    """
    check_estimate_kind(kind)
    xp = namespace(concentration, counts, segment_ids)
    posterior = concentration + counts
    if kind == "mle":
        has_counts = _segment_total(xp, counts, segment_ids, num_segments) > 0
        weights = xp.where(has_counts, counts, xp.ones_like(counts))
    elif kind == "mean":
        weights = posterior
    else:
        weights = xp.clip(posterior - 1.0, 0.0, None)
        has_mode = _segment_total(xp, weights, segment_ids, num_segments) > 0
        weights = xp.where(has_mode, weights, posterior)
    return weights / _segment_total(xp, weights, segment_ids, num_segments)
