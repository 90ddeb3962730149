r"""Complement naive Bayes scores (Rennie et al. 2003) as a family: `ComplementWeights`.

The statistics are the multinomial family's (class counts and $C = R^\top X$), so sample
weights, chunks and merges work as there; the "parameters" are each class's weights from
the counts of every *other* class,

$$
\hat\theta_{\bar k j} = \frac{\alpha + \sum_{l \ne k} C_{lj}}
{\sum_{j'} (\alpha + \sum_{l \ne k} C_{lj'})}, \qquad
w_{kj} = -\log\hat\theta_{\bar k j}
$$

(``norm``: $w_{kj} = \log\hat\theta_{\bar kj} / \sum_{j'} \log\hat\theta_{\bar kj'}$),
and a row scores $x \cdot w_k$. That score is **no log density** of $x$ given $k$: the
family has no posterior, no prior term, no draws and no story, and it is not registered
(no class-level ``name``), so no table column is ever given it.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from bayesgen.families.estimates import check_concentration
from bayesgen.families.protocol import FeatureFamily
from bayesgen.validation import InputRows


class ComplementWeights(FeatureFamily):
    """Complement naive Bayes weights over the multinomial statistics (module docstring).

    Parameters
    ----------
    alpha : float or array-like of shape (n_features,), default=1.0
        Additive smoothing of the complement counts.
    norm : bool, default=False
        Normalise each class's weights by their sum (Rennie et al.'s second variant).
    """

    has_exact_posterior = False
    no_posterior = (
        "complement weights are no density of x given the class, so they have no "
        "posterior (not even by NUTS, which needs the story)"
    )
    is_density = False
    input_rows = InputRows(counts=True, missing=False)  # the weights do not marginalise NaN

    def __init__(self, alpha=1.0, norm=False):
        self.alpha = alpha
        self.norm = norm
        self.name = "complement"  # an instance's: a class-level name would register it

    def _counts(self):
        # Imported here: importing it at the top would register the multinomial family
        # before the modules alphabetically between (the order of MixedNB's column groups).
        from bayesgen.families.multinomial import MultinomialFamily

        return MultinomialFamily(alpha=self.alpha)

    def suff_stats(self, X, responsibilities, dtype):
        """The multinomial family's: class counts and ``R^T X``."""
        return self._counts().suff_stats(X, responsibilities, dtype)

    def merge(self, a, b):
        """The multinomial family's merge (sums)."""
        return self._counts().merge(a, b)

    def prior(self, stats):
        """The smoothing $\\alpha$ per feature, in the statistics' precision."""
        return self._counts().prior(stats)

    def point_estimate(self, prior, stats, kind: str) -> np.ndarray:
        """The weights $w$, shape (n_classes, n_features); ``kind`` plays no part."""
        feature_counts = np.asarray(stats.feature_counts)
        alpha = check_concentration(self.alpha, "alpha", feature_counts.shape[1])
        complement = feature_counts.sum(axis=0) + alpha - feature_counts
        logged = np.log(complement / complement.sum(axis=1, keepdims=True))
        if self.norm:
            return logged / logged.sum(axis=1, keepdims=True)
        return -logged

    def log_prior(self, prior, params, kind: str = "map") -> float:
        """0: the weights are the mode of no prior."""
        return 0.0

    def log_likelihood(self, params, X, *, row_terms: bool = True):
        """The scores $x \\cdot w_k$, (n_samples, n_classes), for dense or sparse ``X``."""
        scores = X @ np.asarray(params).T
        return np.asarray(scores.toarray() if sp.issparse(scores) else scores)
