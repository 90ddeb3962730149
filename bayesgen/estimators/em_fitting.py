"""Fitting by EM: a family whose statistics need its parameters (a mixture), rows with
missing entries where the family cannot skip them, and the M-step inside EM over
unlabelled rows.

A mixin of `bayesgen.estimators.base.GenerativeClassifier`. A view whose family cannot
skip missing entries (``missing_needs_em``) fits rows with some by EM over them when it
declares ``fits_missing_by_em`` (its settings: ``_missing_em_settings``); otherwise the
family decides what NaN does. The loops are the inference layer's, over the family and
the value (`bayesgen.inference.mixture_family_em`, `bayesgen.inference.gaussian_em`).
"""

from __future__ import annotations

import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from bayesgen import joint
from bayesgen._precision import compute_dtype, precision
from bayesgen.families import class_prior
from bayesgen.families.estimates import pseudo_counts
from bayesgen.inference import gaussian_em, mixture_family_em
from bayesgen.missing import has_missing


class FitByEM:
    """The EM paths of a fit (see the module docstring)."""

    #: Whether rows with missing entries are fitted by EM over them (module docstring).
    fits_missing_by_em = False

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
        """`bayesgen.joint.fit` for a family that cannot skip missing entries: EM over them
        where the rows miss some (`bayesgen.inference.gaussian_em.missing_fit`, by column
        group for a composite), and what that EM held fixed kept in the value
        (``frozen``). A family of its own records the EM's iterations (``n_iter_``,
        ``converged_``, ``log_likelihood_history_``)."""
        family, _ = family.learn(joint.rows_to_learn_from(family, X, R))
        encoded = family.encode(X)
        with precision(R.dtype):
            if hasattr(family, "groups"):
                stats, frozen = gaussian_em.stats_with_missing(
                    family, encoded, R, R.dtype, self._missing_em_settings
                )
            else:
                fit = gaussian_em.missing_fit(
                    family, encoded, R, R.dtype, lambda: self._missing_em_settings(None)
                )
                stats, frozen = fit.stats, fit.frozen
                if frozen is not None:
                    self.n_iter_, self.converged_ = fit.n_iter, fit.converged
                    self.log_likelihood_history_ = fit.history
        return joint.from_stats(
            family,
            self.classes_,
            class_prior.suff_stats(R),
            stats,
            self._fit_settings(),
            learned=family.learned(),
            frozen=frozen,
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

    def _em_m_step(self, X, responsibilities) -> None:
        """The M-step of EM over unlabelled rows (`bayesgen.estimators.semi_supervised_fit`).

        A family fitted by an EM of its own (a mixture) continues that EM from the current
        parameters on the new class weights (generalised EM): each of its steps raises the
        expected complete log-likelihood plus the log prior, so the outer objective cannot
        decrease. A family that fits missing entries by EM completes them from the current
        parameters (`_completes_missing_entries`); any other family refits from the class
        weights in closed form.
        """
        by_em = self._fits_by_em()
        if not by_em and not self._completes_missing_entries(X):
            self._add_rows(X, responsibilities, reset=True)
            return
        value = self.joint_
        R = np.asarray(responsibilities).astype(compute_dtype(X.dtype), copy=False)
        if by_em:  # over the columns the fit learned (its parameters are over them)
            family = joint.family_of(self._base_family(), value)
            self.joint_ = self._mixture_em(family, X, R, start_params=value.params).joint
            return
        family = joint.family_of(self._base_family(), value)
        # One E-step of the missing entries under the current parameters and the prior the
        # fit's EM held: one EM over labels and missing entries at once.
        with precision(R.dtype):
            stats = family.expected_stats(value.params, np.asarray(X), R)
        self._install_stats(
            class_prior.suff_stats(R), stats, learned=value.learned, frozen=value.frozen
        )

    def _completes_missing_entries(self, X) -> bool:
        """Whether an M-step inside EM over unlabelled rows completes the missing entries
        of ``X`` from the current parameters (a family that fits them by EM and has an
        E-step for them, ``expected_stats``), rather than refitting from scratch."""
        family = self._base_family()
        return bool(
            self.fits_missing_by_em
            and family.missing_needs_em
            and hasattr(family, "expected_stats")
            and getattr(self.__dict__.get("joint_"), "frozen", None) is not None
            and has_missing(X)
        )

    def _fit_by_em(self, family, X, R: np.ndarray, value) -> None:
        """A family whose statistics need its parameters (component memberships) is fitted
        by EM on all the rows at once (`bayesgen.inference.mixture_family_em`)."""
        if value is not None:
            raise ValueError(
                f"{type(self).__name__} with a {family.name} family cannot add rows with "
                "partial_fit: the memberships of earlier rows change with the parameters, so "
                "EM needs every row at once; call fit on all the rows."
            )
        fitted = self._mixture_em(family, X, R, start=self._em_starts(X, R))
        self.joint_ = fitted.joint
        self.n_iter_, self.converged_ = fitted.n_iter, fitted.converged
        self.log_likelihood_history_ = fitted.history
        if not fitted.converged:
            warnings.warn(
                f"EM of the class mixtures did not converge in max_iter={self.max_iter} "
                f"iterations (tol={self.tol}); raise max_iter or tol.",
                ConvergenceWarning,
                stacklevel=5,
            )

    def _mixture_em(self, family, X, R: np.ndarray, **start):
        """`bayesgen.inference.mixture_family_em.fit` with this model's settings, from
        ``start`` (starting memberships, or ``start_params`` to continue a fit)."""
        leaf_stats = None
        if family.missing_needs_em and self.fits_missing_by_em:  # EM inside each M-step

            def leaf_stats(leaf, encoded, sub, dtype):
                # Inside the components' EM, whose own rule reports convergence.
                return gaussian_em.stats_with_missing(
                    leaf, encoded, sub, dtype, self._missing_em_settings, stop="relative"
                )

        return mixture_family_em.fit(
            family,
            X,
            R,
            self.classes_,
            self._fit_settings(),
            max_iter=self.max_iter,
            tol=self.tol,
            n_init=self.n_init,
            random_state=self.random_state,
            leaf_stats=leaf_stats,
            frozen=self._em_frozen(family, X, R),
            **start,
        )

    def _em_log_prior(self) -> float:
        """The log prior in the EM objective: the class prior's part plus the family's."""
        fixed, concentration, kind = self._class_prior_settings()
        class_part = 0.0
        if fixed is None:
            pseudo = pseudo_counts(concentration, kind)
            with np.errstate(divide="ignore", invalid="ignore"):
                terms = np.where(pseudo == 0, 0.0, pseudo * np.log(self.class_prior_))
            class_part = float(np.sum(terms))
        return class_part + self._feature_log_prior()

    def _feature_log_prior(self) -> float:
        """The family's log prior density of the fitted parameters (the EM objective's)."""
        family = self._feature_family()
        return family.log_prior(self.joint_.feature_prior, self.joint_.params, kind=self.estimate)
