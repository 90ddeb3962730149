r"""The chi-square tail of a Gaussian class: exact novelty for one class.

Given class $k$, the observed block $x_o$ of a row ($d_o$ entries) is
$\mathcal N(\mu_{k,o}, \Sigma_{k,oo})$, so its squared Mahalanobis distance

$$
D_k^2(x_o) = (x_o - \mu_{k,o})^\top \Sigma_{k,oo}^{-1} (x_o - \mu_{k,o})
\sim \chi^2_{d_o},
$$

and, the density being a decreasing function of $D_k^2$ for a fixed pattern,
$P_k(\log p(X_o \mid k) \le \log p(x_o \mid k)) = P(\chi^2_{d_o} \ge D_k^2)$. For a model of
one class this is the tail probability of `bayesgen.inference.novelty` in closed form.
With several classes it is only the tail *given* the class: averaging it over
$p(k \mid x_o)$, or taking it under the most probable class, is not uniform under the
mixture (``docs/novelty.md`` measures how far off), which is why the estimators' tail
probability ranks $\log p(x_o)$ itself.
"""

from __future__ import annotations

import numpy as np
from scipy.stats import chi2

from bayesgen.families.gaussian.missing import observed_block_forms


def chi_square_tail(means, covariances, X) -> np.ndarray:
    """$P(\\chi^2_{d_o} \\ge D_k^2(x_o))$ of every row and class (module docstring).

    Parameters
    ----------
    means : ndarray of shape (n_classes, n_features)
    covariances : ndarray of shape (n_classes, n_features, n_features)
        Full matrices (`bayesgen.families.gaussian.missing.full_covariances`).
    X : ndarray of shape (n_samples, n_features)
        NaN marks a missing entry; a row with every entry missing gets 1.

    Returns
    -------
    ndarray of shape (n_samples, n_classes)
    """
    X = np.asarray(X, dtype=np.float64)
    squared, _, n_observed = observed_block_forms(
        np.asarray(means, dtype=np.float64), np.asarray(covariances, dtype=np.float64), X
    )
    tail = chi2.sf(squared, np.maximum(n_observed, 1)[:, None])
    return np.where(n_observed[:, None] > 0, tail, 1.0)
