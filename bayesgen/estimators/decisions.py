r"""Decisions from the joint model: changed class proportions and unequal error costs.

A mixin of `bayesgen.estimators.base.GenerativeClassifier`.

**Label shift** (``004_dce6e695048eec0f.txt``, "Changed class proportions"): when the
class densities $p(x \mid k)$ stay fixed and the proportions change from $\pi$
to $\pi'$, $p'(k \mid x) \propto (\pi'_k / \pi_k)\, p(k \mid x)$; a generative
model makes the correction by replacing $\pi$ and keeping $p(x \mid k)$. When
$\pi'$ is unknown, it is the maximum-likelihood mixture weight of the target inputs
under the fixed class densities, found by EM (Saerens, Latinne & Decaestecker 2002;
`bayesgen.inference.label_shift`).

**Costs** (``001_8fd34bf03af75598.txt`` §1.3 and §2.2): with $C_{kj}$ the cost of
predicting $j$ when the truth is $k$, the Bayes decision minimises the
posterior expected cost $\sum_k C_{kj}\,p(k \mid x)$.
"""

from __future__ import annotations

import copy
import numbers
import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.validation import check_is_fitted

from bayesgen._precision import precision
from bayesgen.inference import label_shift
from bayesgen.inference.label_shift import PriorAdaptation
from bayesgen.validation import check_class_probabilities, check_positive


def check_cost(cost, n_classes: int) -> np.ndarray:
    """A finite, non-negative (n_classes, n_classes) cost matrix."""
    cost = np.asarray(cost, dtype=np.float64)
    if cost.shape != (n_classes, n_classes):
        raise ValueError(
            f"cost must have shape (n_classes, n_classes) = ({n_classes}, {n_classes}), with "
            f"cost[k, j] the cost of predicting class j when the truth is k; got shape "
            f"{cost.shape}."
        )
    if not np.all(np.isfinite(cost)):
        raise ValueError("cost must be finite; it has NaN or infinite entries.")
    if np.any(cost < 0):
        raise ValueError(f"cost must be non-negative; its smallest entry is {cost.min()}.")
    return cost


def _check_max_iter(max_iter) -> int:
    if isinstance(max_iter, bool) or not isinstance(max_iter, numbers.Integral) or max_iter < 1:
        raise ValueError(f"max_iter must be an integer >= 1; got {max_iter!r}.")
    return int(max_iter)


class ClassPriorDecisions:
    """``with_class_prior``, ``adapt_class_prior`` and the expected-cost decision."""

    def with_class_prior(self, prior):
        """A copy of this fitted model with the class probabilities replaced.

        The class densities $p(x \\mid k)$ are kept, so the new class probabilities
        are exactly $p'(k \\mid x) \\propto (\\pi'_k / \\pi_k)\\, p(k \\mid x)$. The
        copy's ``priors`` (``class_prior`` for naive Bayes) is set to ``prior``, so it is
        a fixed class prior from now on (also in ``posterior`` and in a refit). This model
        is not modified.

        Parameters
        ----------
        prior : array-like of shape (n_classes,)
            New class probabilities in the order of ``classes_``: non-negative, summing
            to one.

        Returns
        -------
        estimator
            A fitted copy.
        """
        check_is_fitted(self)
        prior = check_class_probabilities(prior, self.classes_.shape[0], "prior")
        shifted = copy.deepcopy(self)
        shifted.set_params(**{getattr(self, "_class_prior_argument", "priors"): prior})
        shifted.class_prior_ = prior.astype(self.class_prior_.dtype)
        for estimator in getattr(shifted, "estimators_", {}).values():  # MixedNB's groups
            estimator.class_prior_ = shifted.class_prior_
        return shifted

    def adapt_class_prior(self, X_target, *, max_iter=1000, tol=1e-6):
        """A copy whose class probabilities are re-estimated on unlabelled target inputs.

        EM with the class densities held fixed (Saerens, Latinne & Decaestecker 2002):
        the E-step computes $p(k \\mid x_i)$ under the current $\\pi$, the
        M-step sets $\\pi_k$ to their mean. It maximises the target inputs'
        log-likelihood $\\sum_i \\log \\sum_k \\pi_k\\, p(x_i \\mid k)$, starting
        from the fitted ``class_prior_``. Missing features (NaN) are integrated out.

        Parameters
        ----------
        X_target : array-like of shape (n_samples, n_features)
            Inputs from the shifted population, without labels.
        max_iter : int, default=1000
        tol : float, default=1e-6
            Stop when no class probability moves by more than ``tol``.

        Returns
        -------
        estimator
            A fitted copy (see `with_class_prior`) with the attribute
            ``class_prior_adaptation_``, a `PriorAdaptation`.

        Warns
        -----
        sklearn.exceptions.ConvergenceWarning
            If ``max_iter`` iterations do not converge.
        """
        check_is_fitted(self)
        max_iter = _check_max_iter(max_iter)
        tol = check_positive(tol, "tol", allow_zero=True)
        X, dtype = self._prepare(X_target)
        with precision(dtype):
            log_likelihood = np.asarray(self._log_likelihood(X, dtype, row_terms=True))
        state = label_shift.class_prior_em(
            log_likelihood, self.class_prior_.astype(np.float64), max_iter=max_iter, tol=tol
        )
        (prior, moved), history, converged = state.payload, state.history, state.converged
        if not converged:
            warnings.warn(
                f"adapt_class_prior did not converge in max_iter={max_iter} iterations (the "
                f"class probabilities still moved by {moved:.2e}); raise max_iter.",
                ConvergenceWarning,
                stacklevel=2,
            )
        adapted = self.with_class_prior(prior / prior.sum())
        adapted.class_prior_adaptation_ = PriorAdaptation(
            len(history), converged, np.asarray(history)
        )
        return adapted

    def _least_expected_cost(self, log_posterior: np.ndarray, cost) -> np.ndarray:
        """Index of the class of least posterior expected cost, per row."""
        cost = check_cost(cost, self.classes_.shape[0])
        expected = np.exp(log_posterior) @ cost  # [i, j] = sum_k p(k | x_i) C[k, j]
        return np.argmin(expected, axis=1)
