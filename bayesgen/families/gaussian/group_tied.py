r"""Gaussian components that share one covariance per group: `GroupTiedGaussian`.

The leaf of a mixture per class whose components share their class's covariance
(``MixtureDA(covariance_type="tied")``): the $K M$ sub-classes come in $K$ groups of
$M$ consecutive ones, and group $k$ has one covariance $\Sigma_k$, estimated from the
pooled scatter of its components as the Gaussian family's ``"tied"`` estimate of those $M$
(the ``"map"`` mode counts $M$ means, one per component). The parameters keep one
covariance per sub-class (each group's repeated), so every density, draw and conditional is
the full-covariance family's; only the estimate and the prior differ.

With one group this is ``GaussianFamily("tied")``, whose covariance every class shares.
"""

from __future__ import annotations

import numpy as np

from bayesgen.families.gaussian.family import GaussianFamily
from bayesgen.families.gaussian.posterior import GaussianParams, add_ridge, point_estimate
from bayesgen.families.gaussian.prior import covariance_log_prior, mean_log_prior
from bayesgen.families.gaussian.stats import GaussianStats
from bayesgen.families.protocol import NoClosedForm


class GroupTiedGaussian(GaussianFamily):
    """Full-covariance Gaussian sub-classes whose covariance is shared within groups.

    Parameters
    ----------
    group_size : int
        $M$: sub-classes ``k M, ..., k M + M - 1`` share one covariance.
    **settings
        The Gaussian family's prior and ridge (`GaussianFamily`), without
        ``covariance_type``.

    Examples
    --------
    >>> import numpy as np
    >>> from bayesgen.families.gaussian.group_tied import GroupTiedGaussian
    >>> rng = np.random.default_rng(0)
    >>> X, R = rng.normal(size=(40, 2)), np.eye(4)[rng.integers(0, 4, 40)]
    >>> family = GroupTiedGaussian(2)
    >>> _, params = family.estimate(family.suff_stats(X, R), "mle")
    >>> bool(np.allclose(params.covariances[0], params.covariances[1]))
    True
    """

    has_exact_posterior = False  # the shared covariance's posterior is not per sub-class

    def __init__(self, group_size: int = 1, **settings):
        super().__init__("full", **settings)
        self.group_size = group_size

    def _groups(self, n_sub_classes: int) -> int:
        if n_sub_classes % self.group_size:
            raise ValueError(
                f"{n_sub_classes} sub-classes do not split into groups of {self.group_size}."
            )
        return n_sub_classes // self.group_size

    def prior(self, stats: GaussianStats, ridge=None):
        """The ``"tied"`` prior, its defaults resolved from ``stats`` (their scatter pooled,
        as the tied family keeps it)."""
        pooled = GaussianStats(stats.counts, stats.means, np.sum(np.asarray(stats.scatter), axis=0))
        return self._tied().prior(pooled, self.ridge(stats) if ridge is None else ridge)

    def _tied(self) -> GaussianFamily:
        settings = {name: getattr(self, name) for name in GaussianFamily.HYPERPARAMETERS}
        return GaussianFamily(**{**settings, "covariance_type": "tied"})

    def point_estimate(
        self, prior, stats: GaussianStats, kind: str, *, ridge=None, regularise=None
    ):
        """Each group's ``"tied"`` estimate of its sub-classes, plus the ridge, its
        covariance repeated for each sub-class of the group."""
        if regularise is not None:
            raise ValueError("a group-tied covariance takes no regularise step.")
        counts, means, scatter = (np.asarray(field) for field in stats)
        groups, size = self._groups(counts.shape[0]), self.group_size
        ridge = self.ridge(stats) if ridge is None else np.asarray(ridge)
        prior = type(prior)(*(np.asarray(leaf) for leaf in prior))
        group_means, group_covariances = [], []
        for k in range(groups):
            block = slice(k * size, (k + 1) * size)
            pooled = GaussianStats(counts[block], means[block], scatter[block].sum(axis=0))
            params = add_ridge(point_estimate(prior, pooled, "tied", kind), ridge, "tied")
            group_means.append(np.asarray(params.means))
            group_covariances.append(np.asarray(params.covariances))
        covariances = np.repeat(np.stack(group_covariances), size, axis=0)
        return GaussianParams(np.concatenate(group_means), covariances)

    def posterior(self, prior, stats):
        """No per-sub-class conjugate posterior: the covariance is shared."""
        raise NoClosedForm("a group-tied covariance has no per-component conjugate posterior")

    def sub_class_log_prior(self, prior, params: GaussianParams, kind):
        """Each sub-class's mean term, and its group's covariance term on the group's
        first sub-class, ``(n_sub_classes,)``."""
        means, covariances = np.asarray(params.means), np.asarray(params.covariances)
        terms = np.zeros(means.shape[0])
        if kind in ("mle", "unbiased"):
            return terms
        prior = type(prior)(*(np.asarray(leaf) for leaf in prior))
        self._groups(means.shape[0])
        shared = covariances[:: self.group_size]
        terms[:: self.group_size] = covariance_log_prior(prior, shared, "tied")
        return terms + mean_log_prior(prior, means, covariances, "tied")

    def log_prior(self, prior, params: GaussianParams, kind: str = "map"):
        """One inverse-Wishart term per group, a normal term per sub-class's mean."""
        return float(np.sum(self.sub_class_log_prior(prior, params, kind)))

    def sites(self, params: GaussianParams) -> dict:
        """``"means"`` per sub-class and ``"covariances"`` per group."""
        return {
            "means": params.means,
            "covariances": np.asarray(params.covariances)[:: self.group_size],
        }

    def params_from_sites(self, sites: dict) -> GaussianParams:
        """The inverse of `sites`: each group's covariance repeated per sub-class."""
        covariances = np.repeat(np.asarray(sites["covariances"]), self.group_size, axis=0)
        return GaussianParams(np.asarray(sites["means"]), covariances)
