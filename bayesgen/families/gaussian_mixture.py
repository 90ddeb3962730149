r"""`GaussianMixtureFamily`: a Gaussian mixture per class, with mixture discriminant
analysis's story and sites.

The mixture family (`bayesgen.families.component_mixture.MixtureFamily`) over a Gaussian
leaf, or over `bayesgen.families.gaussian.group_tied.GroupTiedGaussian` for components that
share their class's covariance. Fitting, scores, draws and conditionals are the mixture
family's; what differs is its story (`bayesgen.stories.mixture.mixture_part`, registered as
``"gaussian-mixture"``): its sites are laid out per class and component, as
``MixtureDA``'s fitted attributes are,

- ``"weights"`` (n_classes, M), ``"means"`` (n_classes, M, n_features);
- ``"covariances"`` (n_classes, M, ...) as the covariance type lays one out, or
  (n_classes, n_features, n_features) once per class for ``"tied"``,

rather than the generic mixture's ``"component_weights"`` and leaf sites over the
$K M$ (class, component) pairs.
"""

from __future__ import annotations

import copy

import numpy as np

from bayesgen.families.component_mixture import MixtureFamily, MixtureFamilyParams
from bayesgen.families.gaussian.group_tied import GroupTiedGaussian
from bayesgen.families.gaussian.posterior import GaussianParams


class GaussianMixtureFamily(MixtureFamily):
    """A mixture of Gaussian components per class, with ``MixtureDA``'s story.

    Parameters are those of `MixtureFamily`; ``leaf`` is a `GaussianFamily` or a
    `GroupTiedGaussian` (``"tied"``).

    Examples
    --------
    >>> from bayesgen.families.gaussian import GaussianFamily
    >>> family = GaussianMixtureFamily(GaussianFamily("diag"), n_components=3)
    >>> family.name, family.covariance_type
    ('gaussian-mixture', 'diag')
    """

    #: Registered under its own name, so that a model file keeps its class and its story
    #: part (`bayesgen.stories.mixture.mixture_part` with these sites) is found by it.
    name = "gaussian-mixture"

    @property
    def covariance_type(self) -> str:
        """The components' covariance type, ``"tied"`` for a group-tied leaf."""
        return "tied" if isinstance(self.leaf, GroupTiedGaussian) else self.leaf.covariance_type

    def with_counts(self, counts) -> GaussianMixtureFamily:
        """`MixtureFamily.with_counts`; a group-tied leaf's groups become the new size."""
        resized = super().with_counts(counts)
        if isinstance(self.leaf, GroupTiedGaussian):
            resized.leaf = copy.copy(self.leaf)
            resized.leaf.group_size = resized.size
        return resized

    def story_prior(self, prior, n_features: int, params=None):
        """The components' Normal–Inverse-Wishart prior as fitted (the weights' Dirichlet is
        the family's ``weight_concentration``)."""
        return prior.leaves

    def sites(self, params: MixtureFamilyParams) -> dict:
        """The weights, means and covariances laid out per class and component."""
        weights = np.asarray(params.weights)
        n_classes, size = weights.shape
        covariances = np.asarray(params.leaves.covariances)
        if self.covariance_type == "tied":
            covariances = covariances[::size]
        else:
            covariances = covariances.reshape(n_classes, size, *covariances.shape[1:])
        means = np.asarray(params.leaves.means).reshape(n_classes, size, -1)
        return {"weights": weights, "means": means, "covariances": covariances}

    def sampling_sites(self, params: MixtureFamilyParams) -> dict:
        """Its `sites`: the story samples with the fitted parameters as they are."""
        return self.sites(params)

    def params_from_sites(self, sites: dict) -> MixtureFamilyParams:
        """The inverse of `sites`."""
        weights = np.asarray(sites["weights"])
        n_classes, size = weights.shape
        covariances = np.asarray(sites["covariances"])
        if self.covariance_type == "tied":
            covariances = np.repeat(covariances, size, axis=0)
        else:
            covariances = covariances.reshape(n_classes * size, *covariances.shape[2:])
        means = np.asarray(sites["means"]).reshape(n_classes * size, -1)
        return MixtureFamilyParams(weights, GaussianParams(means, covariances))
