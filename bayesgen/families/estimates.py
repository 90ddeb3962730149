"""The kinds of point estimate every family offers."""

from __future__ import annotations

ESTIMATE_KINDS = ("mle", "map", "mean")
"""``"mle"``: maximum likelihood (the prior is ignored); ``"map"``: the posterior mode;
``"mean"``: the posterior mean."""


def check_estimate_kind(kind: str) -> None:
    """Raise a ``ValueError`` unless ``kind`` is one of :data:`ESTIMATE_KINDS`."""
    if kind not in ESTIMATE_KINDS:
        raise ValueError(f"estimate must be one of {ESTIMATE_KINDS}; got {kind!r}.")
