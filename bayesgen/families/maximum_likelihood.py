"""The estimate side of a family whose parameters have no conjugate prior: `MaximumLikelihood`."""

from __future__ import annotations

from bayesgen.families.protocol import NoClosedForm


class MaximumLikelihood:
    """Mix in before `FeatureFamily` for a family fitted by maximum likelihood only, whose
    statistics are sums (`bayesgen.families.gamma.GammaFamily`,
    `bayesgen.families.beta.BetaFamily`): no prior, the one estimate ``"mle"``, a log prior
    of 0 in the EM objective, no posterior to draw from, and batches merged by adding
    their statistics. Its ``name`` is the family's, in the messages."""

    has_exact_posterior = False

    def merge(self, a, b):
        """Statistics of the union of two disjoint batches (they are sums)."""
        return type(a)(*(x + y for x, y in zip(a, b, strict=True)))

    def prior(self, stats):
        """None: maximum likelihood has no prior."""
        return None

    def prior_for(self, n_features: int, dtype=None):
        """None: maximum likelihood has no prior."""
        return None

    def check_estimate(self, kind: str) -> None:
        """Only ``"mle"``: the parameters have no conjugate prior to take a mode or mean of."""
        if kind != "mle":
            raise ValueError(
                f"the {self.name} family is fitted by maximum likelihood only: use "
                f"estimate='mle'; got {kind!r}."
            )

    def log_prior(self, prior, params, kind: str = "mle") -> float:
        """0: maximum likelihood."""
        self.check_estimate(kind)
        return 0.0

    def sample_params(self, key, posterior, num_samples: int):
        """No posterior: the family is fitted by maximum likelihood."""
        raise NoClosedForm(
            f"the {self.name} family has no posterior draws (maximum likelihood only)"
        )
