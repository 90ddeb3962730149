r"""The histogram family's share of a story: a cell per value, the value uniform within it."""

from __future__ import annotations

import jax.numpy as jnp
import numpyro
import numpyro.distributions as dist

from bayesgen import registry
from bayesgen.stories.common import StoryPart
from bayesgen.stories.discrete import categorical_part


@registry.register_story_part("histogram")
def histogram_part(family, prior, n_classes: int) -> StoryPart:
    r"""Per column ``j``: ``"category_probs_j"`` ~ Dirichlet over its cells, ``"X_j"`` the
    cell ~ Categorical and, when drawing, ``"X_j_position"`` ~ Uniform(0, 1) within it.

    Observed values (``X`` holds the values; NaN is missing and its factor dropped) add
    the log density of the uniform within their cell, $-\log |c|$, as a factor
    ``"X_j_cell_size"``: ``family`` (a fitted `HistogramFamily`) maps values to cells.
    """
    cells = categorical_part(family.block_concentrations(prior), n_classes)
    cell_codes, log_sizes = family.story_cells()

    def features(thetas, labels, X):
        codes = None if X is None else cell_codes(X)
        for j, theta in enumerate(thetas):
            cell = dist.Categorical(probs=theta[labels])
            if codes is None:
                numpyro.sample(f"X_{j}", cell)
                numpyro.sample(f"X_{j}_position", dist.Uniform(0.0, 1.0))
                continue
            present = codes[:, j] >= 0
            observed = jnp.where(present, codes[:, j], 0)
            numpyro.sample(f"X_{j}", cell.mask(present), obs=observed)
            numpyro.factor(f"X_{j}_cell_size", jnp.where(present, -log_sizes[j][observed], 0.0))

    return StoryPart(cells.parameters, features)
