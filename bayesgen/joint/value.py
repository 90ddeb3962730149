r"""The fitted joint $p(x, y) = p(y)\,p(x \mid y)$ as a value: `FittedJoint`.

Everything a fit learns lives in one NamedTuple: the classes, the statistics of the labels
and of the features (sums, so two fits of disjoint rows merge exactly), the resolved prior,
the point estimate of the parameters, the class probabilities, what the family learned
about the columns (a categorical column's categories) and what the fit recorded of them
(ranges, missing cells, grids). The feature family object holds
only hyperparameters; a value and its family together are the model, and every function
of `bayesgen.joint` (and of the inference layer above it) takes both.

How the parameters follow from the statistics is `FitSettings`: the point estimate of the
feature parameters and the rule for the class probabilities (`ClassPriorRule`).
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from bayesgen.families import class_prior
from bayesgen.families.estimates import check_estimate_kind
from bayesgen.validation import check_class_probabilities


class ClassPriorRule(NamedTuple):
    """How the class probabilities $\\pi$ follow from the class counts.

    Attributes
    ----------
    fixed : array-like of shape (n_classes,) or None
        Known probabilities, used as they are (validated against the number of classes).
    concentration : float
        The Dirichlet prior's concentration $\\alpha$ on every class (when not fixed).
    kind : {"mle", "map", "mean"}
        The point estimate of $\\pi$ under $\\mathrm{Dirichlet}(\\alpha)$.
    name : str
        The argument that supplied ``fixed``, named in errors (``"priors"``).
    """

    fixed: Any = None
    concentration: float = 1.0
    kind: str = "mle"
    name: str = "priors"


class FitSettings(NamedTuple):
    """How a fit turns statistics into parameters.

    Attributes
    ----------
    estimate : {"mle", "map", "mean"}
        The point estimate of the feature parameters.
    class_prior : ClassPriorRule
        The rule for the class probabilities.
    """

    estimate: str = "mean"
    class_prior: ClassPriorRule = ClassPriorRule()


class KeptRows(NamedTuple):
    """The rows behind a posterior that the statistics do not give (a Gaussian fitted by EM
    over missing entries: EM's expected statistics are not sufficient for it).

    Attributes
    ----------
    X : ndarray of shape (n_samples, n_features)
        The rows, float64, NaN where missing.
    weights : ndarray of shape (n_samples, n_classes)
        Their class weights, float64.
    """

    X: np.ndarray
    weights: np.ndarray


class FittedJoint(NamedTuple):
    """A fitted generative classifier, as data.

    Attributes
    ----------
    classes : ndarray of shape (n_classes,)
        The labels, in the order of every class axis below.
    class_stats : ClassCounts
        Weighted class counts $N_k = \\sum_i R_{ik}$.
    class_probabilities : ndarray of shape (n_classes,)
        $\\pi$, from `ClassPriorRule`.
    feature_stats : pytree
        The family's sufficient statistics (its ``suff_stats``).
    feature_prior : pytree
        The family's prior with every hyperparameter resolved (its ``prior``).
    params : pytree
        The family's parameters (its ``point_estimate``, or a posterior draw put in by
        `bayesgen.joint.with_params`).
    learned : dict
        What the family learned about the columns (``family.learned()``), empty for most.
    frozen : pytree or None
        What an EM held fixed instead of resolving it from the statistics (the family's
        ``estimate(stats, kind, frozen)``: the ridge and prior of EM over missing entries,
        by column group for a composite); None for a closed-form fit. Kept through
        `bayesgen.joint.update`, so rows added later are estimated under it too.
    record : ColumnRecord or None
        What the fit recorded of its training columns (`bayesgen.training_range.
        ColumnRecord`: each column's range, missing cells and recorded grid), the rows
        the statistics came from; None for a value made from statistics alone. Kept
        through `bayesgen.joint.update`, whose caller merges the new rows' record
        (`bayesgen.training_range.merged`), since rows weigh in it as the caller
        weighed them.
    rows : KeptRows or None
        The rows a fit by EM over missing entries kept for its posterior
        (`bayesgen.inference.gappy_posterior`): ``n_samples * (n_features + n_classes)``
        values; None for every other fit. Kept through `bayesgen.joint.update`, whose
        caller adds the new rows.
    """

    classes: np.ndarray
    class_stats: class_prior.ClassCounts
    class_probabilities: np.ndarray
    feature_stats: Any
    feature_prior: Any
    params: Any
    learned: dict
    frozen: Any = None
    record: Any = None
    rows: KeptRows | None = None


def check_settings(settings: FitSettings, family=None) -> FitSettings:
    """``settings`` when both estimates are known kinds: the features' one a kind
    ``family`` makes (its ``check_estimate``: the Gaussian's ``"unbiased"`` too), the class
    probabilities' one of the shared kinds.

    Raises
    ------
    ValueError
        Naming the unknown kind.
    """
    if family is None:
        check_estimate_kind(settings.estimate)
    else:
        family.check_estimate(settings.estimate)
    check_estimate_kind(settings.class_prior.kind)
    return settings


def class_probabilities(rule: ClassPriorRule, stats: class_prior.ClassCounts) -> np.ndarray:
    """$\\pi$ from the class counts under ``rule``, in the counts' precision.

    Raises
    ------
    ValueError
        If fixed probabilities have the wrong length, are negative or do not sum to one.
    """
    counts = np.asarray(stats.counts)
    if rule.fixed is not None:
        fixed = check_class_probabilities(rule.fixed, counts.shape[0], rule.name)
        return fixed.astype(counts.dtype)
    prior = class_prior.Dirichlet(np.full(counts.shape[0], rule.concentration, counts.dtype))
    return np.asarray(class_prior.point_estimate(prior, class_prior.ClassCounts(counts), rule.kind))
