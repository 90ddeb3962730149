r"""Multiple imputation by data augmentation over the rows being imputed.

A fit with no closed-form posterior of its own (one fitted by EM with unlabelled rows, or a
Gaussian model file written before fits kept their gappy rows) still has a posterior given
completed rows. Data augmentation (Tanner & Wong 1987; Schafer 1997, ch. 5) over the rows
passed is the Gibbs sampler of $p(\theta, k, x_m \mid x_o)$, started at the fitted
parameters: one sweep draws each unlabelled row's class $k \sim p(k \mid x_o, \theta)$,
completes every row $x_m \sim p(x_m \mid x_o, k, \theta)$, then draws $\theta$ from the
conjugate posterior of the completed, labelled rows. After `WARMUP_SWEEPS` sweeps, every
`SWEEPS_BETWEEN` sweeps keep one completed copy. The posterior is that of the rows passed
(with their labels, where given), under the fitted model's prior and columns: the prior is
the fit's, held through every sweep, and the rows' statistics are those of the model's
family with what it learned at fit (its categories), so every draw is a draw of the same
model. Rows count once each (no sample weights), and an unlabelled row's class is drawn
from its posterior as in any use of the model (``unlabeled_weight`` is a fitting setting).

Functions of the family and the fitted value, never of an estimator.
"""

from __future__ import annotations

import numpy as np

from bayesgen._precision import precision
from bayesgen.families.namespace import as_numpy
from bayesgen.inference import class_posterior, parameter_posterior
from bayesgen.inference.imputation import conditional_fill, label_weights, with_observed
from bayesgen.joint import batch_stats, log_joint, with_params

#: Data-augmentation sweeps discarded before the first kept copy.
WARMUP_SWEEPS = 20

#: Data-augmentation sweeps from one kept copy to the next.
SWEEPS_BETWEEN = 5


def _completed(X, filled):
    """``X`` with its missing entries taken from ``filled`` (a composite's groups each)."""
    if isinstance(X, dict):
        return {name: _completed(X[name], filled[name]) for name in X}
    return with_observed(np.asarray(X), np.asarray(filled))


def _drawn_labels(family, value, X, unknown: np.ndarray, rng) -> tuple[np.ndarray, int]:
    """A class index per row of ``X[unknown]`` from $p(k \\mid x_o, \\theta)$, and the number
    of those rows no class could give a positive probability (they take the prior)."""
    rows = {name: part[unknown] for name, part in X.items()} if isinstance(X, dict) else X[unknown]
    log_prior = np.log(value.class_probabilities)
    scores = log_joint(family, value, rows, row_terms=False)
    weights, n_impossible = class_posterior.from_joint(
        family,
        value.params,
        rows,
        class_posterior.overflowed_as_zero(scores, value.params),
        log_prior.astype(scores.dtype),
        log=False,
    )
    cumulative = np.cumsum(weights, axis=1)
    drawn = (rng.uniform(size=(weights.shape[0], 1)) * cumulative[:, -1:] > cumulative).sum(1)
    return np.minimum(drawn, weights.shape[1] - 1), n_impossible


def _next_draw(family, value, completed, R: np.ndarray, settings, rng, name: str):
    """$\\theta$ drawn from the conjugate posterior of the completed rows under the fitted
    prior (``value.feature_prior``, held through the chain: a prior resolved again from
    rows that the chain itself completed would follow its own imputations), as a value of
    the fitted model (its columns and classes)."""
    class_stats, feature_stats = batch_stats(family, completed, R)
    completed_value = value._replace(
        class_stats=class_stats, feature_stats=as_numpy(feature_stats), frozen=None, rows=None
    )
    reason = family.exact_posterior_refusal(completed_value)
    if reason is not None:
        raise ValueError(f"This {name}{reason}")
    draws = parameter_posterior.exact_draws(family, completed_value, settings.class_prior, rng, 1)
    sites = {site: drawn[0] for site, drawn in draws.items() if site != "class_prior"}
    drawn_prior = draws["class_prior"][0] if "class_prior" in draws else None
    return with_params(completed_value, family.params_from_sites(sites), drawn_prior)


def chain_copies(family, value, settings, X, labels, n_imputations: int, rng, *, name="model"):
    """``n_imputations`` completed copies of ``X`` from one data-augmentation chain (module
    docstring).

    Parameters
    ----------
    family : FeatureFamily
        With what the fit learned (`bayesgen.joint.family_of`).
    value : FittedJoint
        The fitted value the chain starts from.
    settings : FitSettings
        The fit's estimate and class-prior rule (the posterior's prior).
    X : array-like
        Rows as the family reads them (checked), NaN where an entry is missing; a
        composite's groups as a dict.
    labels : ndarray of shape (n_samples,)
        Each row's class index, -1 where it is unknown (drawn along the chain).
    n_imputations : int
    rng : numpy.random.Generator
    name : str, default="model"
        What a refusal calls the model ("This QDA" + the family's reason): a draw whose
        posterior has no closed form even on completed rows (a regularised estimate).

    Returns
    -------
    copies : list of n_imputations
        Completed copies of ``X`` as the family reads them, observed entries as given.
    n_impossible : int
        The most unlabelled rows one sweep gave probability zero under every class.
    """
    n_classes = len(value.classes)
    unknown = labels < 0
    labels = labels.copy()
    dtype = np.asarray(value.class_stats.counts).dtype
    total = WARMUP_SWEEPS + SWEEPS_BETWEEN * (n_imputations - 1) + 1
    copies, n_impossible = [], 0
    with precision(dtype):
        for sweep in range(total):
            if unknown.any():
                labels[unknown], impossible = _drawn_labels(family, value, X, unknown, rng)
                n_impossible = max(n_impossible, impossible)
            R = label_weights(labels, n_classes).astype(dtype)
            completed = _completed(X, conditional_fill(family, value.params, X, R, "sample", rng))
            if sweep >= WARMUP_SWEEPS and (sweep - WARMUP_SWEEPS) % SWEEPS_BETWEEN == 0:
                copies.append(completed)
                if len(copies) == n_imputations:
                    break
            value = _next_draw(family, value, completed, R, settings, rng, name)
    return copies, n_impossible
