"""Fitting a family's value to weighted rows, and the M-step of EM over unlabelled rows.

Functions of the family, the value and the rows, with a model's settings as a value
(`FitOptions`), never an estimator: the plain fit (`fit_rows`), its EM over missing entries
(`fit_with_missing`), a mixture family's EM (`mixture_fit`), the M-step inside EM over
unlabelled rows (`m_step`) and the log prior that EM's objective adds (`objective_log_prior`).
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from bayesgen import joint
from bayesgen._precision import precision
from bayesgen.families import class_prior
from bayesgen.families.estimates import pseudo_counts
from bayesgen.inference import gaussian_em, mixture_family_em
from bayesgen.missing import has_missing


class FitOptions(NamedTuple):
    """A model's settings for fitting its value to rows.

    Attributes
    ----------
    classes : ndarray of shape (n_classes,)
    settings : FitSettings
        The point estimates of the feature parameters and class probabilities.
    max_iter, tol : int, float
        A mixture family's EM (its components') and the EM over missing entries of a family
        that is not a composite.
    missing : None, tuple or dict
        ``(estimate, tol, max_iter)`` of the EM over missing entries, a dict of them by
        column group for a composite; None where rows with missing entries are not fitted
        by EM over them (the family decides what NaN does).
    mixture_frozen : pytree, optional
        What a mixture family's leaf holds fixed through its EM (`mixture_family_em.fit`'s
        ``frozen``); None resolves it from the statistics.
    """

    classes: np.ndarray
    settings: joint.FitSettings
    max_iter: int = 100
    tol: float = 1e-6
    missing: Any = None
    mixture_frozen: Any = None


def needs_em(family) -> bool:
    """Whether the family's statistics need its parameters (a mixture): EM on every row at
    once."""
    return bool(getattr(family, "statistics_need_parameters", False))


def _missing_settings(options: FitOptions):
    """``group -> (estimate, tol, max_iter)`` of the EM over a group's missing entries."""
    table = options.missing
    return lambda group: table[group] if isinstance(table, dict) else table


def fit_with_missing(family, X, R: np.ndarray, options: FitOptions):
    """``(value, record)``: `bayesgen.joint.fit` for a family that cannot skip missing
    entries: EM over them where the rows miss some (`gaussian_em.missing_fit`, by column
    group for a composite), and what that EM held kept in the value (``frozen``).

    ``record`` is the `gaussian_em.MissingFit` of a family that is not a composite when its
    EM ran (its iterations), else None.
    """
    family, _ = family.learn(joint.rows_to_learn_from(family, X, R))
    encoded = family.encode(X)
    settings = _missing_settings(options)
    record = None
    with precision(R.dtype):
        if hasattr(family, "groups"):
            stats, frozen = gaussian_em.stats_with_missing(family, encoded, R, R.dtype, settings)
        else:
            fit = gaussian_em.missing_fit(family, encoded, R, R.dtype, lambda: settings(None))
            stats, frozen = fit.stats, fit.frozen
            record = fit if frozen is not None else None
    value = joint.from_stats(
        family,
        options.classes,
        class_prior.suff_stats(R),
        stats,
        options.settings,
        learned=family.learned(),
        frozen=frozen,
    )
    return value, record


def fit_rows(family, X, R: np.ndarray, options: FitOptions):
    """The value of a family that is not a mixture fitted to rows ``X`` with class weights
    ``R``: by EM over missing entries where the options say so and the family cannot skip
    them, else in closed form (`bayesgen.joint.fit`). ``family`` has what the rows teach it
    beyond its statistics (``family.for_rows``)."""
    family = family.for_rows(X, R)
    if family.missing_needs_em and options.missing is not None:
        return fit_with_missing(family, X, R, options)[0]
    return joint.fit(family, X, R, options.classes, options.settings)


def mixture_fit(family, X, R: np.ndarray, options: FitOptions, **start):
    """`mixture_family_em.fit` with the options, from ``start`` (``start`` memberships and
    ``n_init``/``random_state``, or ``start_params`` to continue a fit). A leaf that cannot
    skip missing entries completes them inside each M-step where the options fit them by
    EM."""
    leaf_stats = None
    if family.missing_needs_em and options.missing is not None:
        settings = _missing_settings(options)

        def leaf_stats(leaf, encoded, sub, dtype):
            # Inside the components' EM, whose own rule reports convergence.
            return gaussian_em.stats_with_missing(
                leaf, encoded, sub, dtype, settings, stop="relative"
            )

    return mixture_family_em.fit(
        family,
        X,
        R,
        options.classes,
        options.settings,
        max_iter=options.max_iter,
        tol=options.tol,
        leaf_stats=leaf_stats,
        frozen=options.mixture_frozen,
        **start,
    )


def completes_missing_entries(family, value, X, options: FitOptions) -> bool:
    """Whether an M-step completes the missing entries of ``X`` from the value's parameters
    (a family fitted by EM over them, with an E-step for them, ``expected_stats``), rather
    than refitting from scratch."""
    return bool(
        options.missing is not None
        and family.missing_needs_em
        and hasattr(family, "expected_stats")
        and value.frozen is not None
        and has_missing(X)
    )


def m_step(family, value, X, R: np.ndarray, options: FitOptions):
    """The value after the M-step of EM over unlabelled rows from ``value`` with class
    weights ``R``.

    A mixture family continues its components' EM from the value's parameters on the new
    class weights (generalised EM: each of its steps raises the expected complete
    log-likelihood plus the log prior, so the outer objective cannot decrease). A family
    fitted by EM over missing entries completes them from the value's parameters, under the
    prior and ridge that EM held: one EM over labels and missing entries at once. Any other
    family refits from the class weights (`fit_rows`).
    """
    if needs_em(family):  # over the columns the fit learned (its parameters are over them)
        learned = joint.family_of(family, value)
        return mixture_fit(learned, X, R, options, start_params=value.params).joint
    if not completes_missing_entries(family, value, X, options):
        return fit_rows(family, X, R, options)
    learned = joint.family_of(family, value)
    with precision(R.dtype):
        stats = learned.expected_stats(value.params, learned.encode(np.asarray(X)), R)
    return joint.from_stats(
        family,
        options.classes,
        class_prior.suff_stats(R),
        stats,
        options.settings,
        learned=value.learned,
        frozen=value.frozen,
    )


def objective_log_prior(family, value, settings: joint.FitSettings) -> float:
    """The log prior in EM's objective: the class prior's part (its Dirichlet pseudo-counts
    times $\\log \\pi$; none for fixed probabilities) plus the family's log density of the
    fitted parameters. ``family`` has what the fit learned (`bayesgen.joint.family_of`)."""
    rule = settings.class_prior
    class_part = 0.0
    if rule.fixed is None:
        pseudo = pseudo_counts(rule.concentration, rule.kind)
        with np.errstate(divide="ignore", invalid="ignore"):
            terms = np.where(pseudo == 0, 0.0, pseudo * np.log(value.class_probabilities))
        class_part = float(np.sum(terms))
    feature_part = family.log_prior(value.feature_prior, value.params, kind=settings.estimate)
    return class_part + float(feature_part)
