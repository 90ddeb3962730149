r"""Label shift: the class probabilities of a new population by EM, the densities fixed.

When the class densities $p(x \mid k)$ stay fixed and only the class probabilities
change, the new $\pi'$ is the maximum-likelihood mixture weight of the target inputs,

$$
\pi' = \arg\max_\pi \sum_i \log \sum_k \pi_k\, p(x_i \mid k),
$$

found by EM (Saerens, Latinne & Decaestecker 2002): the E-step computes
$p(k \mid x_i)$ under the current $\pi$, the M-step sets $\pi_k$ to
their mean. Unlike the other EMs, it stops when no class probability moves by more than
``tol`` (the driver's ``converged=``), not on the objective's relative change.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from bayesgen.inference import em
from bayesgen.inference.log_space import log_evidence


class PriorAdaptation(NamedTuple):
    """How the label-shift EM of ``adapt_class_prior`` converged.

    Attributes
    ----------
    n_iter : int
        EM iterations run.
    converged : bool
    log_likelihood_history : ndarray of shape (n_iter,)
        $\\sum_i \\log \\sum_k \\pi_k\\, p(x_i \\mid k)$ of the target inputs after
        each iteration; it never decreases.
    """

    n_iter: int
    converged: bool
    log_likelihood_history: np.ndarray


def log_mixture(log_likelihood: np.ndarray, log_prior: np.ndarray):
    """Per-row $\\log p(x)$ and log responsibilities under weights ``exp(log_prior)``.

    Parameters
    ----------
    log_likelihood : ndarray of shape (n_samples, n_classes)
        $\\log p(x_i \\mid k)$.
    log_prior : ndarray of shape (n_classes,)

    Returns
    -------
    log_evidence : ndarray of shape (n_samples,)
    log_responsibilities : ndarray of shape (n_samples, n_classes)
    """
    joint = log_likelihood + log_prior
    evidence = log_evidence(joint)
    with np.errstate(invalid="ignore"):
        return evidence[:, 0], joint - evidence


def class_prior_em(log_likelihood: np.ndarray, prior: np.ndarray, *, max_iter: int, tol: float):
    """Run the label-shift EM from ``prior``.

    Parameters
    ----------
    log_likelihood : ndarray of shape (n_samples, n_classes)
        $\\log p(x_i \\mid k)$ of the target inputs under the fixed densities.
    prior : ndarray of shape (n_classes,)
        The starting class probabilities.
    max_iter : int
    tol : float
        Stop when no class probability moves by more than ``tol``.

    Returns
    -------
    EMState
        ``payload`` is ``(class probabilities, largest move of the last iteration)``;
        ``history`` the target inputs' log-likelihood after each iteration.
    """

    def step(payload):
        prior, _ = payload
        with np.errstate(divide="ignore"):
            _, log_responsibilities = log_mixture(log_likelihood, np.log(prior))
        updated = np.mean(np.exp(log_responsibilities), axis=0)
        with np.errstate(divide="ignore"):
            evidence, _ = log_mixture(log_likelihood, np.log(updated))
        moved = float(np.max(np.abs(updated - prior)))
        return (updated, moved), float(np.sum(evidence))

    return em.run(
        (prior, np.inf),
        step,
        tol=tol,
        max_iter=max_iter,
        converged=lambda _, payload: payload[1] <= tol,
    )
