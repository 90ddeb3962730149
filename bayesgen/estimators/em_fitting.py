"""Fitting by EM: a family whose statistics need its parameters (a mixture), and rows with
missing entries where the family cannot skip them.

A mixin of `bayesgen.estimators.base.GenerativeClassifier`. A view whose family cannot
skip missing entries (``missing_needs_em``) fits rows with some by EM over them when it
declares ``fits_missing_by_em`` (its settings: ``_missing_em_settings``); otherwise the
family decides what NaN does. The loops are the inference layer's, over the family and
the value (`bayesgen.inference.fit_rows`), with this model's settings as a value
(``_fit_options``).
"""

from __future__ import annotations

import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_random_state

from bayesgen import joint
from bayesgen.inference import component_count, fit_rows, gaussian_em
from bayesgen.missing import has_missing
from bayesgen.validation import FewRowsWarning, caller_stacklevel


class FitByEM:
    """The EM paths of a fit (see the module docstring)."""

    #: Whether rows with missing entries are fitted by EM over them, where the family
    #: cannot skip a missing entry (its ``missing_needs_em``).
    fits_missing_by_em = False

    #: What a mixture's ``n_components="auto"`` chose, with its report: made once per fit
    #: from scratch (restarts of EM over unlabelled rows reuse it), never by an earlier one.
    _component_choice = ("n_components_", "component_choice_")

    def _forget_component_choice(self) -> None:
        """Drop the counts an earlier fit chose (one that failed half-way included)."""
        for name in self._component_choice:
            self.__dict__.pop(name, None)

    def _fits_by_em(self) -> bool:
        return bool(getattr(self._base_family(), "statistics_need_parameters", False))

    def _needs_all_rows(self, X, reset: bool) -> bool:
        """Whether a fit must take the rows all at once, not a chunk at a time: a family
        fitted by EM (the memberships of earlier rows change with the parameters), and a
        fresh fit of rows with missing entries by EM over them."""
        if self._fits_by_em():
            return True
        return bool(
            reset
            and self.fits_missing_by_em
            and self._base_family().missing_needs_em
            and any(has_missing(part) for part in (X.values() if isinstance(X, dict) else [X]))
        )

    def _refuse_missing_rows(self, family, stats) -> None:
        """Refuse a batch of rows with missing entries added to a fit (``partial_fit``)
        where a family fits them by EM, which needs every row at once: its statistics are
        NaN there (no other pass over the rows)."""
        groups = getattr(family, "groups", None)
        parts = [("", family, stats)]
        if groups is not None:
            parts = [
                (f"the {name} columns of ", group, stats[name])
                for name, (group, _) in groups.items()
            ]
        for where, part, part_stats in parts:
            if part.missing_needs_em and gaussian_em.has_nan(part_stats):
                raise ValueError(
                    "X contains NaN: partial_fit cannot add rows with missing values to "
                    f"{where}a fitted {type(self).__name__} (EM needs every row at once); "
                    "use fit."
                )

    def _fit_with_missing(self, family, X, R: np.ndarray) -> joint.FittedJoint:
        """`bayesgen.inference.fit_rows.fit_with_missing` with this model's options; a
        family of its own records the EM's iterations (``n_iter_``, ``converged_``,
        ``log_likelihood_history_``)."""
        value, record = fit_rows.fit_with_missing(family, X, R, self._fit_options(X, R))
        if record is not None:
            self.n_iter_, self.converged_ = record.n_iter, record.converged
            self.log_likelihood_history_ = record.history
        return value

    def _fit_options(self, X, R: np.ndarray, family=None) -> fit_rows.FitOptions:
        """This model's settings for fitting its value (of ``family``, by default
        `_base_family`) to rows ``X`` with class weights ``R``
        (`bayesgen.inference.fit_rows.FitOptions`): the mixture leaf's frozen part from
        ``X`` and ``R`` (`_em_frozen`) where the family is a mixture."""
        family = self._base_family() if family is None else family
        missing = None
        if self.fits_missing_by_em:
            groups = getattr(getattr(family, "leaf", family), "groups", None)
            missing = (
                self._missing_em_settings(None)
                if groups is None
                else {
                    name: self._missing_em_settings(name)
                    for name, (group, _) in groups.items()
                    if group.missing_needs_em
                }
            )
        frozen = self._em_frozen(family, X, R) if fit_rows.needs_em(family) else None
        return fit_rows.FitOptions(
            self.classes_, self._fit_settings(), self.max_iter, self.tol, missing, frozen
        )

    def _missing_em_settings(self, group) -> tuple:
        """``(estimate, tol, max_iter)`` of the EM over a column group's missing entries."""
        return self.estimate, self.tol, self.max_iter

    def _em_frozen(self, family, X, R: np.ndarray):
        """What the mixture's leaf holds fixed during its EM (`mixture_family_em.fit`'s
        ``frozen``), or None to resolve it from the statistics."""
        return None

    def _em_starts(self, X, R: np.ndarray):
        """Starting memberships of a mixture family's EM (a list of (n, K, M) arrays), or
        None for ``n_init`` random ones (`bayesgen.inference.mixture_family_em.fit`)."""
        return None

    def _fit_by_em(self, family, X, R: np.ndarray, value) -> None:
        """A family whose statistics need its parameters (component memberships) is fitted
        by EM on all the rows at once (`bayesgen.inference.mixture_family_em`); a mixture
        with ``n_components="auto"`` first gets its counts (`_family_with_counts`)."""
        if value is not None:
            raise ValueError(
                f"{type(self).__name__} with a {family.name} family cannot add rows with "
                "partial_fit: the memberships of earlier rows change with the parameters, so "
                "EM needs every row at once; call fit on all the rows."
            )
        family = self._family_with_counts(family, X, R)
        fitted = self._mixture_em(family, X, R, start=self._em_starts(X, R))
        self.joint_ = fitted.joint
        self.n_iter_, self.converged_ = fitted.n_iter, fitted.converged
        self.log_likelihood_history_ = fitted.history
        if not fitted.converged:
            warnings.warn(
                f"EM of the class mixtures did not converge in max_iter={self.max_iter} "
                f"iterations (tol={self.tol}); raise max_iter or tol.",
                ConvergenceWarning,
                stacklevel=caller_stacklevel(),
            )

    def _family_with_counts(self, family, X, R: np.ndarray):
        """``family`` with each class's component count: for ``n_components="auto"`` those
        chosen once per fit (``n_components_``, with the report ``component_choice_``), else
        the family as it is."""
        if not getattr(family, "chooses_counts", False):
            return family
        if "n_components_" not in self.__dict__:
            self.component_choice_ = self._choose_components(family, X, R)
            self.n_components_ = self.component_choice_.counts
        return family.with_counts(self.n_components_)

    def _choose_components(self, family, X, R: np.ndarray) -> component_count.ComponentChoice:
        """Each class's count by held-out log-likelihood
        (`bayesgen.inference.component_count.choose_for_family`), from one generator seeded
        by ``random_state``; the candidates' fits start as `_candidate_start` says and warn
        nothing (the final fit does)."""
        rng = check_random_state(self.random_state)

        def fit(candidate, rows):
            X_rows, R_rows = X[rows], R[rows]
            start = self._candidate_start(candidate, X_rows, R_rows, rng)
            options = self._fit_options(X_rows, R_rows, candidate)
            return fit_rows.mixture_fit(candidate, X_rows, R_rows, options, **start).joint

        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            warnings.simplefilter("ignore", FewRowsWarning)
            return component_count.choose_for_family(
                family, X, R, fit, random_state=rng.randint(2**31 - 1)
            )

    def _candidate_start(self, family, X, R: np.ndarray, rng) -> dict:
        """How a candidate count's EM starts (`mixture_fit`'s ``start``, or ``n_init`` and
        ``random_state``): ``n_init`` random memberships drawn with ``rng``."""
        return {"n_init": self.n_init, "random_state": rng}

    def _mixture_em(self, family, X, R: np.ndarray, **start):
        """`bayesgen.inference.fit_rows.mixture_fit` with this model's options, from
        ``start`` (starting memberships, or ``n_init`` random ones)."""
        options = self._fit_options(X, R)
        return fit_rows.mixture_fit(
            family, X, R, options, n_init=self.n_init, random_state=self.random_state, **start
        )

    def _em_log_prior(self) -> float:
        """The log prior in the EM objective (`bayesgen.inference.fit_rows.objective_log_prior`)."""
        return fit_rows.objective_log_prior(
            self._feature_family(), self.joint_, self._fit_settings()
        )

    def _keep_value(self, value, X, responsibilities) -> None:
        """Keep ``value``, fitted elsewhere (EM over unlabelled rows) from rows ``X`` with
        class weights ``responsibilities`` (None for statistics merged from blocks), with
        what a fit sets beside its value."""
        self.joint_ = value
