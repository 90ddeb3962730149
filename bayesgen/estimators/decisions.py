r"""Decisions from the joint model: changed class proportions, unequal error costs, abstaining.

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

**Abstaining** (Chow 1970): one more action, at cost $c$ whatever the truth, taken when
every class's expected cost exceeds $c$ (`bayesgen.inference.abstention`).
"""

from __future__ import annotations

import copy
import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.validation import check_is_fitted

from bayesgen import joint
from bayesgen._precision import precision
from bayesgen.inference import abstention, label_shift
from bayesgen.inference.label_shift import PriorAdaptation
from bayesgen.validation import (
    as_real_array,
    caller_stacklevel,
    check_class_probabilities,
    check_count,
    check_positive,
)


def check_cost(cost, n_classes: int) -> np.ndarray:
    """A finite, non-negative (n_classes, n_classes) cost matrix."""
    cost = as_real_array(cost, "cost")
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


class ClassPriorDecisions:
    """``with_class_prior``, ``adapt_class_prior`` and ``predict``, the Bayes decision."""

    def predict(
        self,
        X,
        *,
        cost=None,
        method="plugin",
        reject=None,
        reject_novelty=None,
        abstain_label=None,
    ) -> np.ndarray:
        """The Bayes decision for each row: the most probable class, the cheapest, or none.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        cost : array-like of shape (n_classes, n_classes), optional
            ``cost[k, j]`` is the cost of predicting class ``j`` when the truth is ``k``
            (classes in the order of ``classes_``; finite, non-negative). The prediction
            is then the class of least posterior expected cost
            $\\arg\\min_j \\sum_k C_{kj}\\, p(k \\mid x)$ (``001_8fd34bf03af75598.txt``
            §1.3, §2.2). ``None`` is 0-1 loss, the most probable class; ``1 - I`` gives
            the same decisions.
        method : {"plugin", "predictive"}, default="plugin"
            Which class probabilities to decide with; see `predict_proba`.
        reject : float, optional
            The cost $c$ of abstaining. Without ``cost``, $c \\in (0, 1)$ relative to an
            error's cost 1, and a row is abstained on where its most probable class has
            $p(k \\mid x) < 1 - c$ (Chow's rule). With ``cost``, $c > 0$ on the cost
            matrix's scale, and a row is abstained on where even the cheapest class has
            posterior expected cost $\\min_j \\sum_k C_{kj}\\, p(k \\mid x) > c$. Both are
            the action of least expected cost when abstaining costs $c$ whatever the
            truth (see `bayesgen.inference.abstention`); a tie goes to the class.
        reject_novelty : float, optional
            A level $\\alpha \\in (0, 1)$: also abstain on the rows whose novelty tail
            probability ``tail_probability(X)`` (the chance that a row from the fitted
            model is less probable than this one) is below $\\alpha$, whatever the class
            probabilities say: inputs that no class explains. Needs an estimator with
            ``tail_probability`` (computed with ``random_state=0``, so that ``predict``
            gives the same answer every time).
        abstain_label : scalar, optional
            The label of an abstained row. The default is the label ``fit`` reads as
            unlabelled: -1 for integer and floating classes (the result keeps their
            dtype), None for strings, booleans and other objects (the result is an object
            array). A label equal to a class is a ValueError.

        Returns
        -------
        ndarray of shape (n_samples,)
            Labels from ``classes_``, and ``abstain_label`` where the decision abstains.

        Raises
        ------
        ValueError
            For ``reject`` or ``reject_novelty`` out of range, NaN or not a number, a bad
            ``cost``, or an ``abstain_label`` equal to a class.
        TypeError
            For ``reject_novelty`` on an estimator without ``tail_probability``.
        """
        if reject is None and reject_novelty is None:
            log_posterior = self.predict_log_proba(X, method=method)
            if cost is None:
                return self.classes_[np.argmax(log_posterior, axis=1)]
            return self.classes_[self._least_expected_cost(log_posterior, cost)]
        check_is_fitted(self)
        if cost is not None:
            cost = check_cost(cost, self.classes_.shape[0])
        if reject is not None:
            reject = abstention.check_reject(reject, with_cost=cost is not None)
        if reject_novelty is not None:
            reject_novelty = abstention.check_novelty_level(reject_novelty)
            if not hasattr(self, "tail_probability"):
                raise TypeError(
                    f"reject_novelty needs the novelty tail probability, and a "
                    f"{type(self).__name__} has no tail_probability."
                )
        label = abstention.abstain_label_for(self.classes_, abstain_label)
        proba = self.predict_proba(X, method=method)
        actions = abstention.bayes_actions(proba, cost, reject)
        if reject_novelty is not None:
            # A fixed seed for the reference rows keeps predict deterministic.
            novel = np.asarray(self.tail_probability(X, random_state=0)) < reject_novelty
            actions[novel] = abstention.ABSTAIN
        return abstention.labelled(self.classes_, actions, label)

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
        max_iter = check_count(max_iter, "max_iter")
        tol = check_positive(tol, "tol", allow_zero=True)
        X, dtype = self._prepare(X_target)
        with precision(dtype):
            log_likelihood = np.asarray(
                joint.log_likelihood(self._feature_family(), self.joint_.params, X, dtype)
            )
        state = label_shift.class_prior_em(
            log_likelihood, self.class_prior_.astype(np.float64), max_iter=max_iter, tol=tol
        )
        (prior, moved), history, converged = state.payload, state.history, state.converged
        if not converged:
            warnings.warn(
                f"adapt_class_prior did not converge in max_iter={max_iter} iterations (the "
                f"class probabilities still moved by {moved:.2e}); raise max_iter.",
                ConvergenceWarning,
                stacklevel=caller_stacklevel(),
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
