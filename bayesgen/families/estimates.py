"""The kinds of point estimate every family offers."""

from __future__ import annotations

import numpy as np

ESTIMATE_KINDS = ("mle", "map", "mean")
"""``"mle"``: maximum likelihood (the prior is ignored); ``"map"``: the posterior mode;
``"mean"``: the posterior mean."""


def check_estimate_kind(kind: str) -> None:
    """Raise a ``ValueError`` unless ``kind`` is one of :data:`ESTIMATE_KINDS`."""
    if kind not in ESTIMATE_KINDS:
        raise ValueError(f"estimate must be one of {ESTIMATE_KINDS}; got {kind!r}.")


def pseudo_counts(concentration, kind: str):
    """The pseudo-counts :math:`a` of the log prior :math:`\\sum a \\log\\theta` whose mode
    a Dirichlet, Beta or Gamma point estimate of ``kind`` is.

    ``"mle"``: none (0); ``"map"``: :math:`\\alpha - 1`; ``"mean"``: :math:`\\alpha`, since
    the posterior mean :math:`(\\alpha + c)/\\sum(\\alpha + c)` is the mode under a prior with
    one more pseudo-count. EM over unlabelled rows climbs the log-likelihood plus this log
    prior (``bayesgen.estimators.semi_supervised``).
    """
    check_estimate_kind(kind)
    concentration = np.asarray(concentration, dtype=np.float64)
    if kind == "mle":
        return np.zeros_like(concentration)
    return concentration - 1.0 if kind == "map" else concentration
