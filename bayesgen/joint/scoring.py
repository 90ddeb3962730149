r"""What a fitted joint says about rows: $\log p(x, k)$, and the joint under other parameters."""

from __future__ import annotations

import numpy as np

from bayesgen._precision import compute_dtype, precision
from bayesgen.device_arrays import is_device_array
from bayesgen.families.namespace import as_jax, as_numpy
from bayesgen.joint.fitting import family_of
from bayesgen.joint.value import FittedJoint


def log_class_probabilities(joint: FittedJoint, dtype=None) -> np.ndarray:
    """$\\log \\pi_k$, ``-inf`` for a class of probability 0."""
    with np.errstate(divide="ignore"):
        log_pi = np.log(joint.class_probabilities)
    return log_pi if dtype is None else log_pi.astype(dtype)


def log_likelihood(family, params, X, dtype, *, row_terms: bool = True):
    """``(n_samples, n_classes)`` $\\log p(x_i \\mid k, \\theta)$ of rows ``X`` under ``params``.

    Run inside ``precision(dtype)``. ``X`` is a ``family.check_columns`` result, encoded
    here: NumPy rows give a NumPy result with the parameters as NumPy arrays in ``dtype``;
    rows on a device (a ``jax.Array``) are scored there, with the parameters as JAX arrays.
    A row far out in every class's tail overflows its quadratic form: its density is 0
    (-inf), which the class probabilities handle.
    """
    if is_device_array(X):
        return family.log_likelihood(as_jax(params, dtype), X.astype(dtype), row_terms=row_terms)
    params = as_numpy(params, dtype)
    with np.errstate(over="ignore"):
        return family.log_likelihood(params, family.encode(X), row_terms=row_terms)


def score_blocks(family, params, X, dtype, *, row_terms: bool = True):
    """`log_likelihood` of NumPy rows a block of rows at a time
    (`FeatureFamily.score_blocks`), or None where the family does not score so or the rows
    are on a device. Run inside ``precision(dtype)``."""
    if is_device_array(X):
        return None
    return family.score_blocks(as_numpy(params, dtype), family.encode(X), row_terms=row_terms)


def log_joint(family, joint: FittedJoint, X, *, row_terms: bool = True) -> np.ndarray:
    """``(n_samples, n_classes)`` array of $\\log \\pi_k + \\log p(x_i \\mid k, \\theta)$.

    Parameters
    ----------
    family : FeatureFamily
    joint : FittedJoint
    X : array-like of shape (n_samples, n_features)
        Rows as the family reads them (``family.check_columns``); NaN entries are missing
        and integrated out.
    row_terms : bool, default=True
        False may leave out terms that depend on the row only (they cancel from
        $p(k \\mid x)$).

    Returns
    -------
    ndarray
        In the precision of the parameters.
    """
    family = family_of(family, joint)
    dtype = compute_dtype(np.asarray(joint.class_stats.counts).dtype)
    with precision(dtype):
        scores = np.asarray(log_likelihood(family, joint.params, X, dtype, row_terms=row_terms))
    return scores + log_class_probabilities(joint, scores.dtype)


def with_params(joint: FittedJoint, params, class_probabilities=None) -> FittedJoint:
    """``joint`` under other parameters (a posterior draw), its statistics unchanged.

    Parameters
    ----------
    joint : FittedJoint
    params : pytree
        The family's parameters, shaped as ``joint.params``.
    class_probabilities : array-like of shape (n_classes,), optional
        Other class probabilities (a draw of $\\pi$); by default the fitted ones.

    Returns
    -------
    FittedJoint
    """
    replaced = joint._replace(params=params)
    if class_probabilities is not None:
        replaced = replaced._replace(class_probabilities=np.asarray(class_probabilities))
    return replaced
