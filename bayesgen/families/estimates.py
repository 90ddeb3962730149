"""The kinds of point estimate every family offers, and the log prior each is the mode of."""

from __future__ import annotations

import numbers

import numpy as np

ESTIMATE_KINDS = ("mle", "map", "mean")
"""``"mle"``: maximum likelihood (the prior is ignored); ``"map"``: the posterior mode;
``"mean"``: the posterior mean."""


def check_estimate_kind(kind: str) -> None:
    """Raise a ``ValueError`` unless ``kind`` is one of `ESTIMATE_KINDS`."""
    if kind not in ESTIMATE_KINDS:
        raise ValueError(f"estimate must be one of {ESTIMATE_KINDS}; got {kind!r}.")


def pseudo_counts(concentration, kind: str):
    """The pseudo-counts $a$ of the log prior $\\sum a \\log\\theta$ whose mode
    a Dirichlet, Beta or Gamma point estimate of ``kind`` is.

    ``"mle"``: none (0); ``"map"``: $\\alpha - 1$; ``"mean"``: $\\alpha$, since
    the posterior mean $(\\alpha + c)/\\sum(\\alpha + c)$ is the mode under a prior with
    one more pseudo-count. EM over unlabelled rows climbs the log-likelihood plus this log
    prior (``bayesgen.estimators.semi_supervised``).
    """
    check_estimate_kind(kind)
    concentration = np.asarray(concentration, dtype=np.float64)
    if kind == "mle":
        return np.zeros_like(concentration)
    return concentration - 1.0 if kind == "map" else concentration


def check_concentration(value, name: str, n_features: int) -> np.ndarray:
    """A positive scalar or (n_features,) array, returned as an (n_features,) array.

    Raises
    ------
    ValueError
        Naming ``name``, for a wrong shape or a value that is not positive and finite.
    """
    if isinstance(value, numbers.Real) and not isinstance(value, bool):
        array = np.asarray(float(value))
    else:
        try:
            array = np.asarray(value, dtype=np.float64)
        except (TypeError, ValueError):
            raise ValueError(
                f"{name} must be a positive number or an array of shape ({n_features},) of "
                f"them; got {value!r}."
            ) from None
        if array.shape != (n_features,):
            found = f"{value!r}" if array.ndim == 0 else f"shape {array.shape}"
            raise ValueError(
                f"{name} must be a positive number or an array of shape ({n_features},); got "
                f"{found}."
            )
    if not np.all(np.isfinite(array)) or np.any(array <= 0):
        raise ValueError(f"{name} must be positive and finite; got {value!r}.")
    return np.broadcast_to(array, (n_features,))


def check_scalar_concentration(value, name: str) -> None:
    """`check_concentration` of ``value`` when it is one number (or no array at all); an
    array is checked against the columns when the family is fitted."""
    if np.ndim(value) == 0:
        check_concentration(value, name, 1)


def pseudo_log_density(pseudo, probabilities) -> float:
    """$\\sum a \\log p$, with $0 \\log 0 = 0$ (``pseudo`` broadcasts).

    The log prior (up to a constant) of Dirichlet, Beta and Gamma families with
    pseudo-counts $a$ from `pseudo_counts`.
    """
    probabilities = np.asarray(probabilities)
    pseudo = np.broadcast_to(pseudo, probabilities.shape)
    with np.errstate(divide="ignore", invalid="ignore"):
        return float(np.sum(np.where(pseudo == 0, 0.0, pseudo * np.log(probabilities))))
