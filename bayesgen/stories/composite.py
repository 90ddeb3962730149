"""The story of `bayesgen.families.composite.CompositeFamily`: column groups side by side.

Given the class, each group of columns follows its own family's story part, independently
of the others (naive Bayes across the groups): ``MixedNB``'s story, and inside a mixture
per class (`bayesgen.stories.component_mixture`) ``LatentClassNB``'s. The parts are joined
by `bayesgen.stories.combined_part`, so every site is named ``"<group>/<site>"``.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from bayesgen import registry
from bayesgen.stories.common import StoryPart, combined_part


@registry.register_story_part("composite")
def composite_part(family, prior: dict, n_classes: int) -> StoryPart:
    """Every group's part under its story prior (``family.groups[name]``'s `story_prior`
    of ``prior[name]``), joined.

    Parameters
    ----------
    family : CompositeFamily
    prior : dict
        Each group's fitted prior, by group name.
    n_classes : int
    """
    parts = {}
    for name, (group_family, columns) in family.groups.items():
        group_prior = group_family.story_prior(prior[name], len(columns))
        part = registry.story_part(group_family.story_name)
        parts[name] = part(group_family, jax.tree.map(jnp.asarray, group_prior), n_classes)
    return combined_part(parts)
