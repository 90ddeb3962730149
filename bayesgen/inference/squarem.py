r"""SQUAREM steps for EM over missing entries: the point two EM steps point to, further on.

EM is a fixed-point iteration $\theta \mapsto F(\theta)$, here on the expected statistics
(class counts, means and scatter; over missing entries alone the counts do not move).
With many entries missing it converges slowly, along a nearly fixed direction. SQUAREM
(Varadhan and Roland 2008, scheme S3) takes two EM steps, $r = F(\theta_0) - \theta_0$ and
$v = F(F(\theta_0)) - 2F(\theta_0) + \theta_0$, and proposes

$$
\theta' = \theta_0 + 2a\,r + a^2 v, \qquad a = \|r\| / \|v\|,
$$

which for $a = 1$ is $F(F(\theta_0))$, and for a linear $F$ with one slow direction
lands on the fixed point. $a$ is capped by a bound that grows fourfold each time it binds,
from 1, and is halved towards 1 while the proposal has a scatter that is not positive
semidefinite or a negative count (no estimate could come from it). The driver
(`bayesgen.inference.em.run_extrapolated`) takes an EM step from $\theta'$ and keeps it
only if its objective does not fall, so the fixed point and the objective's monotone
rise are EM's own.
"""

from __future__ import annotations

import numpy as np

from bayesgen.families.gaussian import GaussianStats

HALVINGS = 4
"""Times the step length is halved towards 1 for a feasible proposal before giving up."""

GROWTH = 4.0
"""What the cap on the step length is multiplied by each time it binds."""


class Extrapolation:
    """The SQUAREM proposal for payloads ``(GaussianStats, frozen)``; keeps its step cap.

    Parameters
    ----------
    covariance_type : {"full", "tied", "diag", "spherical"}
        The layout of the statistics' scatter.
    """

    def __init__(self, covariance_type: str):
        self.covariance_type = covariance_type
        self.step_cap = 1.0

    def __call__(self, theta0, theta1, theta2):
        """The proposal ``(GaussianStats, frozen)`` from three successive EM payloads, or
        None where it would be ``theta2`` (a step length of 1) or is infeasible."""
        stats = [theta[0] for theta in (theta0, theta1, theta2)]
        x0, x1, x2 = (self._coordinates(s) for s in stats)
        r, v = x1 - x0, x2 - 2.0 * x1 + x0
        r_norm, v_norm = np.linalg.norm(r), np.linalg.norm(v)
        if not (np.isfinite(r_norm) and np.isfinite(v_norm)) or v_norm == 0.0:
            return None
        length = min(r_norm / v_norm, self.step_cap)
        if length == self.step_cap:
            self.step_cap *= GROWTH
        for _ in range(HALVINGS):
            if length <= 1.0:
                return None
            proposal = _combine(stats, length)
            if self._feasible(proposal):
                return proposal, theta2[1]
            length = 0.5 * (length + 1.0)
        return None

    def _coordinates(self, stats) -> np.ndarray:
        """Counts as shares of all rows, means, and scatter per row of the class (the scale
        of a covariance), flat: the space in which the step length is measured. The
        counts move only in a mixture's EM (over components); over missing entries alone
        they are fixed."""
        counts = np.asarray(stats.counts, dtype=np.float64)
        shares = counts / max(float(np.sum(counts)), 1.0)
        scatter = np.asarray(stats.scatter, dtype=np.float64)
        if self.covariance_type == "tied":
            per_row = scatter / max(float(np.sum(counts)), 1.0)
        else:
            shape = (-1,) + (1,) * (scatter.ndim - 1)
            per_row = scatter / np.maximum(counts, 1.0).reshape(shape)
        return np.concatenate([shares, np.ravel(stats.means), np.ravel(per_row)])

    def _feasible(self, stats) -> bool:
        scatter = np.asarray(stats.scatter, dtype=np.float64)
        finite = np.isfinite(scatter).all() and np.isfinite(stats.means).all()
        if not (finite and np.all(np.asarray(stats.counts) >= 0.0)):
            return False
        if self.covariance_type in ("diag", "spherical"):
            return bool(np.all(scatter >= 0.0))
        eigenvalues = np.linalg.eigvalsh(scatter)
        # A singular scatter (a constant feature, fewer rows than features) stays singular
        # along its null space: rounding there is not a negative variance.
        floor = -1e-10 * np.max(np.abs(eigenvalues), axis=-1, keepdims=True)
        return bool(np.all(eigenvalues >= floor))


def _combine(stats, length: float) -> GaussianStats:
    """$\\theta_0 + 2a r + a^2 v$ on the counts, the means and the scatter."""
    s0, s1, s2 = stats

    def point(a0, a1, a2):
        a0, a1, a2 = (np.asarray(a) for a in (a0, a1, a2))
        return (a0 + 2.0 * length * (a1 - a0) + length**2 * (a2 - 2.0 * a1 + a0)).astype(
            a2.dtype, copy=False
        )

    return GaussianStats(
        point(s0.counts, s1.counts, s2.counts),
        point(s0.means, s1.means, s2.means),
        point(s0.scatter, s1.scatter, s2.scatter),
    )
