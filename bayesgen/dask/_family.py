"""What the Dask driver needs to know about an estimator beyond its family's statistics.

The per-block statistics are the family's (`bayesgen.joint.batch_stats`, merged by
`bayesgen.joint.merge_batch_stats`), computed on a copy of the estimator on a worker, so
whatever a fit records on the estimator beside its value is lost there. The families
supported here need nothing beside it for a fit of complete rows: the count families, and
``GaussianDA`` without missing values and without fourth moments. The driver makes the
fitted value from the merged statistics (`bayesgen.joint.from_stats`) and hands it to the
estimator (``_keep_value``).
"""

from __future__ import annotations

import copy

from sklearn.base import clone

from bayesgen import registry
from bayesgen.estimators.base import GenerativeClassifier
from bayesgen.estimators.gaussian import GaussianDA
from bayesgen.missing import has_missing


def _merges_exactly(estimator) -> bool:
    """A view of a family whose block statistics merge exactly (``merges_exactly``)."""
    if not isinstance(estimator, GenerativeClassifier):
        return False
    try:  # the family of an unfitted copy: dask.fit fits anew, whatever a fit chose before
        family = clone(estimator)._base_family()
    except ValueError:  # a family chosen from the data (MixedNB's columns) in fit
        return False
    return family.merges_exactly and not getattr(family, "statistics_need_parameters", False)


def supported() -> str:
    """The registered estimators whose fit is a merge of block statistics, subclasses named
    beside their base: ``"GaussianDA (and LDA, ...), BernoulliNB, ..."``."""
    classes = []
    for cls in registry.estimators().values():
        try:
            supports = _merges_exactly(cls())
        except (TypeError, ValueError):
            supports = False
        if supports:
            classes.append(cls)
    names = []
    for cls in classes:
        if any(base in classes for base in cls.__mro__[1:]):
            continue
        children = [c.__name__ for c in classes if c is not cls and issubclass(c, cls)]
        names.append(f"{cls.__name__} (and {', '.join(children)})" if children else cls.__name__)
    names.append("FamilyClassifier over such a family")
    return ", ".join(names[:-1]) + " and " + names[-1]


def check_supported(estimator) -> None:
    """Refuse, naming the reason, an estimator whose fit is not a merge of block statistics."""
    if not _merges_exactly(estimator):
        raise ValueError(
            f"bayesgen.dask.fit supports {supported()}; got "
            f"{type(estimator).__name__}. Its fit needs "
            "more than a merge of per-block statistics (categories learnt from the data, "
            "per-group estimators, an inner EM, or the training rows themselves): fit it in "
            "memory, or with partial_fit over chunks where it supports that."
        )
    if isinstance(estimator, GaussianDA) and estimator._base_family().needs_fourth_moments:
        raise ValueError(
            "bayesgen.dask.fit does not support GaussianDA(shrinkage='ledoit-wolf'), whose "
            "fourth-moment statistics are kept outside the merged statistics; give the "
            "shrinkage intensity as a float, or fit in memory."
        )


def check_block(estimator, X) -> None:
    """Refuse what a block cannot contribute to exactly: missing Gaussian features."""
    if isinstance(estimator, GaussianDA) and has_missing(X):
        raise ValueError(
            "X contains NaN (missing values): a GaussianDA fitted on them needs EM over the "
            "missing entries of every row at once, which bayesgen.dask.fit does not run. "
            "Impute them (or drop those rows) first, or fit in memory."
        )


def worker_copy(estimator):
    """A shallow copy to compute block statistics on, leaving the driver's estimator alone."""
    return copy.copy(estimator)


def starts_with_frozen_prior(estimator) -> bool:
    """Whether in-memory EM starts as the Gaussian's jitted loop does
    (`bayesgen.inference.unlabelled_em`).

    That loop resolves the empirical-Bayes prior and the ridge once, from responsibilities
    with EM's row totals, and fits the start under them; the generic loop resolves them
    from the start's own responsibilities. The condition is the family's (``unlabelled_loop``).
    """
    if not isinstance(estimator, GaussianDA):
        return False
    return estimator._base_family().unlabelled_loop == "gaussian"
