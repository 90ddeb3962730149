r"""The generative stories, written in NumPyro: the executable definition of each model.

Every classifier in bayesgen is one of these programs: draw the class probabilities and the
class-conditional parameters from their conjugate priors, then for every row draw a label
and the features given the label. Site names match the fitted parameters (``class_prior``,
``means``, ``covariances``, ``feature_probs``, ``rates``, ...), so fitted values plug in
with ``numpyro.handlers.substitute`` and the story runs with ``Predictive`` and ``MCMC``.
The tests check that its log density equals the closed-form joint log-likelihood plus log
prior computed by the families.
"""

import importlib as _importlib
import pkgutil as _pkgutil

from bayesgen import registry as _registry
from bayesgen.stories.common import StoryPart, classifier_story, combined_part
from bayesgen.stories.discrete import (
    bernoulli_part,
    bernoulli_story,
    categorical_part,
    categorical_story,
    multinomial_part,
    multinomial_story,
    poisson_part,
    poisson_story,
)
from bayesgen.stories.gaussian import gaussian_part, gaussian_story
from bayesgen.stories.kernel_density import kernel_density_part, kernel_density_story
from bayesgen.stories.mixture import mixture_part, mixture_story

__all__ = [
    "StoryPart",
    "part",
    "bernoulli_part",
    "bernoulli_story",
    "categorical_part",
    "categorical_story",
    "classifier_story",
    "combined_part",
    "gaussian_part",
    "gaussian_story",
    "kernel_density_part",
    "kernel_density_story",
    "mixture_part",
    "mixture_story",
    "multinomial_part",
    "multinomial_story",
    "poisson_part",
    "poisson_story",
]

# Every story module, so that each family's story part has registered itself.
for _module in _pkgutil.iter_modules(__path__, __name__ + "."):
    _importlib.import_module(_module.name)


def part(name: str):
    """The story part registered for the family ``name``: ``part(family, prior, n_classes)``.

    Raises
    ------
    ValueError
        If no story module registers one.
    """
    return _registry.story_part(name)
