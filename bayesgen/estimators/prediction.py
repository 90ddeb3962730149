r"""Class predictions from the fitted joint: ``predict_proba``, ``decision_function``, log p(x).

A mixin of `bayesgen.estimators.base.GenerativeClassifier`. Every prediction comes from
the joint log-likelihood $\log \pi_k + \log p(x \mid k)$ of the fitted value ``joint_``
under its family, normalised in log space.
"""

from __future__ import annotations

import warnings

import numpy as np
from sklearn.utils.validation import check_is_fitted

from bayesgen._precision import compute_dtype, precision
from bayesgen.inference import class_posterior, parameter_posterior
from bayesgen.inference.log_space import log_evidence, normalise
from bayesgen.joint import log_likelihood, score_blocks
from bayesgen.validation import caller_stacklevel, scoring_rows

PROBA_METHODS = ("plugin", "predictive")


def warn_impossible(n_impossible: int) -> None:
    if n_impossible:
        warnings.warn(
            f"{n_impossible} row(s) of X have probability zero under every class (a point "
            "estimate with zero probabilities: estimate='mle', or 'map' with alpha <= 1; or "
            "a row so far out that every class density underflows); their class "
            "probabilities are the class prior.",
            UserWarning,
            stacklevel=caller_stacklevel(),
        )


class ClassPrediction:
    """``predict_proba``, ``predict_log_proba``, ``predict_joint_log_proba``,
    ``decision_function`` and ``score_samples``, written once for every family."""

    def _prepare(self, X):
        check_is_fitted(self)
        with scoring_rows():
            X = self._check_X(X, reset=False)
        return X, compute_dtype(X.dtype)

    def predict_joint_log_proba(self, X) -> np.ndarray:
        """Joint log-probabilities ``log p(x, y = k)`` of each row and class.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            Columns in the order of ``classes_``.
        """
        return self._joint(X, row_terms=True)

    def _joint(self, X, *, row_terms: bool) -> np.ndarray:
        """``log p(x, k)``; without ``row_terms`` only up to a per-row constant."""
        X, dtype = self._prepare(X)
        return self._checked_joint(X, dtype, row_terms)

    def _checked_joint(self, X, dtype, row_terms: bool, value=None) -> np.ndarray:
        """`_joint` of checked rows (`bayesgen.inference.class_posterior`), under ``value``
        (a posterior draw, `bayesgen.joint.with_params`) instead of ``joint_`` if given."""
        family = self._feature_family()
        params = (self.joint_ if value is None else value).params
        # A finite row far out in a class's tail may overflow (inf - inf): read as density 0.
        with precision(dtype), np.errstate(over="ignore", invalid="ignore"):
            scores = class_posterior.chunked(
                lambda rows: log_likelihood(family, params, rows, dtype, row_terms=row_terms),
                X,
                self.classes_.shape[0],
                whole=family.scores_in_blocks,
            )
        log_prior = self._log_prior_of(scores.dtype, value)
        return class_posterior.with_log_prior(
            class_posterior.overflowed_as_zero(scores, params), log_prior
        )

    def _log_class_prior(self, dtype) -> np.ndarray:
        return class_posterior.log_class_prior(self.class_prior_, dtype)

    def _log_prior_of(self, dtype, value) -> np.ndarray:
        """The fit's $\\log \\pi$ (`_log_class_prior`), or that of ``value`` itself."""
        if value is None:
            return self._log_class_prior(dtype)
        return class_posterior.log_class_prior(value.class_probabilities, dtype)

    def predict_log_proba(self, X, *, method="plugin") -> np.ndarray:
        """Log posterior class probabilities ``log p(y = k | x)``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        method : {"plugin", "predictive"}, default="plugin"
            See `predict_proba`.

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            A row with probability zero under every class (possible when a point
            estimate has zero probabilities: ``estimate="mle"``, or ``"map"`` with
            ``alpha <= 1``) gets the class prior, with a warning.
        """
        if method not in PROBA_METHODS:
            raise ValueError(f"method must be one of {PROBA_METHODS}; got {method!r}.")
        if method == "predictive":
            return self._predictive_log_proba(X)
        return self._plugin_posterior(X, log=True)

    def _plugin_posterior(self, X, *, log: bool, value=None) -> np.ndarray:
        """``log p(k | x)`` (``log``) or ``p(k | x)`` under the point estimate, or under
        ``value``, a fitted value with other parameters and class probabilities than
        ``joint_`` (a posterior draw, `bayesgen.joint.with_params`)."""
        X, dtype = self._prepare(X)
        if not log:
            posterior = self._probabilities_in_blocks(X, dtype, value)
            if posterior is not None:
                return posterior
        joint = self._checked_joint(X, dtype, row_terms=False, value=value)
        log_prior = self._log_prior_of(joint.dtype, value)
        params = (self.joint_ if value is None else value).params
        posterior, n_impossible = class_posterior.from_joint(
            self._feature_family(), params, X, joint, log_prior, log=log
        )
        warn_impossible(n_impossible)
        return posterior

    def _probabilities_in_blocks(self, X, dtype, value):
        """`_plugin_posterior`'s $p(k \\mid x)$ of checked rows, scored and normalised a
        block of rows at a time (`class_posterior.probabilities_in_blocks`), or None where
        the family does not score in blocks (`bayesgen.joint.score_blocks`)."""
        family = self._feature_family()
        params = (self.joint_ if value is None else value).params
        outside = np.geterr()  # from_joint's, as on the whole path
        with precision(dtype), np.errstate(over="ignore", invalid="ignore"):
            blocks = score_blocks(family, params, X, dtype, row_terms=False)
            if blocks is None:
                return None
            log_prior = self._log_prior_of(blocks.dtype, value)

            def rescored(rows):
                X_rows = X[rows]
                joint = self._checked_joint(X_rows, dtype, row_terms=False, value=value)
                with np.errstate(**outside):
                    return class_posterior.from_joint(
                        family, params, X_rows, joint, log_prior, log=False
                    )

            posterior, n_impossible = class_posterior.probabilities_in_blocks(
                blocks, log_prior, rescored
            )
        warn_impossible(n_impossible)
        return posterior

    def _predictive_log_proba(self, X) -> np.ndarray:
        """``log p(k | x, D)``: the parameters integrated out of the joint.

        The class probabilities and the class densities are independent a posteriori, so
        $p(k \\mid x, \\mathcal D) \\propto \\mathbb E[\\pi_k \\mid \\mathcal D]\\,
        p(x \\mid k, \\mathcal D)$.
        """
        check_is_fitted(self)
        self._check_exact_posterior()
        X, dtype = self._prepare(X)
        family, value, rule = self._feature_family(), self.joint_, self._fit_settings().class_prior
        with precision(dtype), np.errstate(over="ignore", invalid="ignore"):
            log_likelihood = np.asarray(
                parameter_posterior.predictive_log_likelihood(family, value, rule, X, dtype)
            )
        with np.errstate(divide="ignore"):
            class_probabilities = parameter_posterior.predictive_class_prior(rule, value)
            log_prior = np.log(class_probabilities).astype(log_likelihood.dtype)
        joint = class_posterior.overflowed_as_zero(log_likelihood + log_prior, value.params)
        warn_impossible(int(np.count_nonzero(np.isneginf(np.max(joint, axis=1)))))
        return normalise(joint, log_prior)

    def predict_proba(self, X, *, method="plugin") -> np.ndarray:
        """Posterior class probabilities ``p(y = k | x)``, normalised in log space.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        method : {"plugin", "predictive"}, default="plugin"
            ``"plugin"``: under the fitted point estimate of the parameters (what
            scikit-learn computes). ``"predictive"``: the exact posterior predictive, with
            the parameters integrated out, $p(k \\mid x, \\mathcal D) \\propto
            \\mathbb E[\\pi_k \\mid \\mathcal D]\\,p(x \\mid k, \\mathcal D)$, where
            $p(x \\mid k, \\mathcal D)$ is a Student-t for Gaussians and
            Beta–Bernoulli, Dirichlet–multinomial, Dirichlet–categorical or negative
            binomial for the discrete families (cf. MASS ``predict.lda(method=
            "predictive")``). It is less confident than the plug-in where data are few.
            Missing features (NaN) are integrated out in both.

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            Rows sum to one; columns in the order of ``classes_``.
        """
        if method == "plugin":  # one pass less than exp(predict_log_proba)
            return self._plugin_posterior(X, log=False)
        return np.exp(self.predict_log_proba(X, method=method))

    def decision_function(self, X) -> np.ndarray:
        """Discriminant scores: joint log-probabilities, or the log-odds for two classes.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,) or (n_samples, n_classes)
            For two classes ``log p(x, classes_[1]) - log p(x, classes_[0])``, as in
            scikit-learn's discriminant analysis; otherwise ``predict_joint_log_proba``.
        """
        joint = self.predict_joint_log_proba(X)
        if joint.shape[1] == 2:
            return joint[:, 1] - joint[:, 0]
        return joint

    def score_samples(self, X) -> np.ndarray:
        """Log marginal density ``log p(x) = logsumexp_k [log pi_k + log p(x | k)]``.

        Low values flag inputs that no class explains well.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,)
        """
        return log_evidence(self.predict_joint_log_proba(X))[:, 0]

    def _limit_log_posterior(self, X, rows, log_prior):
        """``log p(k | x)`` of the ``rows`` of ``X`` that no class density could score in
        floating point, or None where the family has no such limit
        (`bayesgen.inference.class_posterior.limit_log_posterior`)."""
        with scoring_rows():
            X = self._check_X(X, reset=False)
        return class_posterior.limit_log_posterior(
            self._feature_family(), self.joint_.params, X, rows, log_prior
        )
