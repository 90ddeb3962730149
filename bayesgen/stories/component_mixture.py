"""The story of `bayesgen.families.component_mixture.MixtureFamily`: a mixture of any leaf.

$$
w_k \\sim \\mathrm{Dirichlet}(\\beta), \\quad
c_i \\mid y_i \\sim \\mathrm{Categorical}(w_{y_i}), \\quad
x_i \\mid y_i, c_i \\sim p_{\\text{leaf}}(x \\mid \\theta_{y_i M + c_i}),
$$

the leaf's own story part over the ``K M`` sub-classes inside
`bayesgen.stories.latent_class.latent_class_part` (observed rows are scored by the
closed-form mixture, so the story has no discrete latent site).
"""

from __future__ import annotations

from bayesgen import registry
from bayesgen.stories.latent_class import latent_class_part


@registry.register_story_part("mixture")
def mixture_family_part(family, prior, n_classes: int, **options):
    """The weights' Dirichlet, then the leaf's part over ``n_classes * n_components`` classes.

    ``options`` go to the leaf's part (the multinomial's ``lengths``).
    """
    leaf = family.leaf
    n_pairs = n_classes * family.size
    inner = registry.story_part(leaf.story_name)(leaf, prior.leaves, n_pairs, **options)
    return latent_class_part(
        inner, n_classes, family.size, family.weight_concentration, family.active(n_classes)
    )
