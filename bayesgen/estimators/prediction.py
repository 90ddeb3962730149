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
from bayesgen.families.protocol import NoClosedForm
from bayesgen.inference import log_space
from bayesgen.inference.log_space import log_evidence, normalise
from bayesgen.joint import log_likelihood, row_chunks
from bayesgen.validation import scoring_rows

PROBA_METHODS = ("plugin", "predictive")


def _unscored_rows(joint: np.ndarray) -> np.ndarray:
    """Rows of ``joint`` no class could score: every entry -inf, or an overflow (NaN, +inf).

    A product with ones finds the rows with any non-finite entry in one fast pass (a
    reduction along the short class axis costs ten times more); only those are inspected.
    """
    with np.errstate(invalid="ignore", over="ignore"):
        suspect = np.flatnonzero(~np.isfinite(joint @ np.ones(joint.shape[1], joint.dtype)))
    unscored = np.zeros(joint.shape[0], dtype=bool)
    if suspect.size:
        rows = joint[suspect]
        unscored[suspect] = ~np.isfinite(np.max(rows, axis=1, initial=-np.inf)) | np.isnan(
            rows
        ).any(axis=1)
    return unscored


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
        with precision(dtype):
            log_likelihood = self._chunked_log_likelihood(X, dtype, row_terms)
        log_prior = self._log_class_prior(log_likelihood.dtype)
        if not log_likelihood.flags.writeable:  # a view of a JAX buffer
            return log_likelihood + log_prior
        return np.add(log_likelihood, log_prior, out=log_likelihood)

    def _chunked_log_likelihood(self, X, dtype, row_terms: bool) -> np.ndarray:
        """``_log_likelihood`` of all rows, a chunk of rows at a time when rows x classes x
        features would exceed `bayesgen.joint.RESPONSIBILITY_ENTRIES` (a family may hold a
        (rows, classes, features) intermediate): predicting for many classes stays bounded."""
        n_classes, n_features = self.classes_.shape[0], max(1, X.shape[1])
        chunks = row_chunks(X.shape[0], n_classes * n_features)
        if len(chunks) == 1 or not isinstance(X, np.ndarray):
            return np.asarray(self._log_likelihood(X, dtype, row_terms=row_terms))
        return np.concatenate(
            [
                np.asarray(self._log_likelihood(X[rows], dtype, row_terms=row_terms))
                for rows in chunks
            ]
        )

    def _log_class_prior(self, dtype) -> np.ndarray:
        with np.errstate(divide="ignore"):  # a class with probability 0 gets -inf
            return np.log(self.class_prior_).astype(dtype)

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

    def _plugin_posterior(self, X, *, log: bool) -> np.ndarray:
        """``log p(k | x)`` (``log``) or ``p(k | x)`` under the point estimate."""
        joint = self._joint(X, row_terms=False)
        log_prior = self._log_class_prior(joint.dtype)
        unscored = _unscored_rows(joint)
        if unscored.any():
            limit = self._limit_log_posterior(X, unscored, log_prior)
            if limit is not None:
                joint = joint.copy()
                joint[unscored] = limit
        if log:
            n_impossible = int(np.count_nonzero(np.isneginf(log_space.row_max(joint))))
            posterior = normalise(joint, log_prior)
        else:
            if not joint.flags.writeable:
                joint = joint.copy()
            posterior, n_impossible = log_space.probabilities(joint, log_prior)
        if n_impossible:
            warnings.warn(
                f"{n_impossible} row(s) of X have probability zero under every class (a point "
                "estimate with zero probabilities: estimate='mle', or 'map' with alpha <= 1; or "
                "a row so far out that every class density underflows); their class "
                "probabilities are the class prior.",
                UserWarning,
                stacklevel=3,
            )
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
        with precision(dtype):
            log_likelihood = np.asarray(self._predictive_log_likelihood(X, dtype))
        with np.errstate(divide="ignore"):
            log_prior = np.log(self._predictive_class_prior()).astype(log_likelihood.dtype)
        return normalise(log_likelihood + log_prior, log_prior)

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

    def _log_likelihood(self, X, dtype, *, row_terms=True):
        """``(n_samples, n_classes)`` $\\log p(x \\mid k)$ of checked rows under the fitted
        parameters, in ``dtype`` (`bayesgen.joint.log_likelihood`); without ``row_terms`` up
        to a per-row constant."""
        return log_likelihood(
            self._feature_family(), self.joint_.params, X, dtype, row_terms=row_terms
        )

    def _limit_log_posterior(self, X, rows, log_prior):
        """``log p(k | x)`` of the ``rows`` of ``X`` that no class density could score in
        floating point (`FeatureFamily.limit_log_posterior`), or None where the family has
        no such limit (the rows then get the class prior, with a warning)."""
        family = self._feature_family()
        with scoring_rows():
            encoded = family.encode(self._check_X(X, reset=False))
        try:
            return family.limit_log_posterior(self.joint_.params, encoded[rows], log_prior)
        except NoClosedForm:
            return None
