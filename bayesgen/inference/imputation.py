"""Filling missing values from the model: p(x_missing | x_observed), mixed over the classes.

A family fills the missing entries of rows given their class weights
(`FeatureFamily.conditional`, `conditional_fill`); what is left is common to every model: the
methods, the class weights of known labels, and keeping the observed entries exactly as
given.
"""

from __future__ import annotations

import numpy as np

from bayesgen.missing import missing_entries
from bayesgen.validation import class_indices

METHODS = ("mean", "sample")


def check_method(method: str) -> str:
    """``method`` when it is one of `METHODS`, else a ValueError naming it."""
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}; got {method!r}.")
    return method


def label_weights(class_index: np.ndarray, n_classes: int) -> np.ndarray:
    """One-hot class weights ``(n_samples, n_classes)`` of rows whose class is known."""
    return np.eye(n_classes)[np.asarray(class_index)]


def known_label_weights(classes, y, n_rows: int) -> np.ndarray:
    """`label_weights` of the labels ``y``, one per row of ``n_rows``, from ``classes``.

    Raises
    ------
    ValueError
        For another number of labels, or labels not in ``classes``.
    """
    labels = np.asarray(y)
    if labels.shape != (n_rows,):
        raise ValueError(
            f"y must have one label per row of X, shape ({n_rows},); got {labels.shape}."
        )
    return label_weights(class_indices(classes, labels), len(classes))


def keep_observed(X: np.ndarray, filled: np.ndarray) -> np.ndarray:
    """``filled`` with every observed entry of ``X`` put back exactly as given."""
    missing = missing_entries(X)
    filled[~missing] = X[~missing]
    return filled


def conditional_fill(family, params, X, class_weights, method: str, rng):
    """``X`` with its missing entries filled by the family given the class weights under
    ``params`` (`FeatureFamily.conditional`, in the family's encoding and back); the
    observed entries are as the family gives them back (`with_observed` puts the given
    ones in place)."""
    return family.decode(family.conditional(params, family.encode(X), class_weights, method, rng))


def with_observed(X: np.ndarray, filled: np.ndarray) -> np.ndarray:
    """``filled`` (`conditional_fill` of ``X``) with every observed entry of ``X`` as given;
    an object array where the fill's type differs from ``X``'s."""
    if filled.dtype == X.dtype:
        return keep_observed(X, filled)
    missing = missing_entries(X)
    kept = X.astype(object)
    kept[missing] = filled[missing]
    return keep_observed(X, kept)
