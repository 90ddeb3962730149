r"""The full posterior of a fitted classifier, and predictions that carry its uncertainty.

A mixin of `bayesgen.estimators.base.GenerativeClassifier`. The draws, the chains and the
posterior predictive are functions of the family and the fitted value ``joint_``
(`bayesgen.inference.parameter_posterior`): exact draws of the parameter sites from the
conjugate posterior of the stored statistics (no data pass, made with a NumPy generator,
no compilation), and the ArviZ dims of its sites; a draw is scored as the value with the
drawn parameters (`bayesgen.joint.with_params`). The estimator checks that the posterior
applies.

A value whose posterior has no closed form (a full, tied or spherical Gaussian fitted on
rows with missing entries, which keeps those rows) draws in several chains of data
augmentation instead (`bayesgen.inference.gappy_posterior`); ``method="exact"`` then means
"without NUTS", and the InferenceData records the chains and warm-up sweeps.

Exact and augmentation draws are NumPy draws from ``random_state``
(`bayesgen.inference.sampling.numpy_generator`); only NUTS runs in JAX.
"""

from __future__ import annotations

import numpy as np
from sklearn.utils.validation import check_consistent_length, check_is_fitted, column_or_1d

from bayesgen._threads import serialised
from bayesgen.inference import (
    inference_data,
    parameter_posterior,
    posterior_data,
    posterior_draws,
    semi_supervised,
)
from bayesgen.inference.log_space import normalise
from bayesgen.inference.sampling import numpy_generator
from bayesgen.progress import progress_shown
from bayesgen.validation import check_count, check_labels, class_indices

POSTERIOR_METHODS = ("exact", "nuts")


class PosteriorUses:
    """``posterior``, ``predict_proba_draws`` and the posterior predictive, once for all."""

    def _class_prior_rule(self):
        return self._fit_settings().class_prior

    def _check_has_posterior(self) -> None:
        """Refuse, with the family's reason, a model whose parameters have no posterior to
        sample (``no_posterior``: a mixture, a kernel density)."""
        reason = self._feature_family().no_posterior
        if reason is not None:
            raise ValueError(
                f"This {type(self).__name__}'s {reason}; so posterior(), "
                "predict_proba_draws() and predict_proba(method='predictive') do not apply: "
                "use predict_proba()."
            )

    def _check_model_posterior(self) -> None:
        """Refuse what no fit of this model lifts: no posterior at all
        (``_check_has_posterior``); estimators add their settings' own reasons (a
        ``covariance_estimator``). Refusals from how the model was fitted (unlabelled rows,
        EM over missing entries) come after, in `_check_exact_posterior`: multiple imputation
        lifts those by data augmentation over the rows it is given."""
        self._check_has_posterior()

    def _check_exact_posterior(self) -> None:
        """Raise if the posterior of this fit has no closed form.

        The model's own refusals come first (`_check_model_posterior`; the other reasons
        point to NUTS). A fit with
        unlabelled rows keeps EM's expected statistics, whose conjugate update is not the
        posterior; the family says when the value's has none
        (`FeatureFamily.exact_posterior_refusal`: no conjugate prior, a regularised
        estimate, EM over missing entries without the rows); estimators add their own cases.
        """
        self._check_model_posterior()
        if getattr(self, "fitted_with_unlabeled_", False):
            raise ValueError(
                f"This {type(self).__name__} was fitted with unlabelled rows (by EM), so its "
                "posterior has no closed form; use posterior(method='nuts', X=X, y=y) with "
                "the training rows (unlabelled ones marked as in fit), and pass that "
                "InferenceData to predict_proba_draws."
            )
        reason = self._feature_family().exact_posterior_refusal(self.joint_)
        if reason is not None:
            raise ValueError(f"This {type(self).__name__}{reason}")

    def _exact_draws(self, rng, num_samples: int) -> dict:
        """``{site: ndarray (num_samples, ...)}`` from the posterior, drawn with the NumPy
        generator ``rng`` (`bayesgen.inference.parameter_posterior.exact_draws`)."""
        self._check_exact_posterior()
        return parameter_posterior.exact_draws(
            self._feature_family(), self.joint_, self._class_prior_rule(), rng, num_samples
        )

    def _joint_draws(self, X, dtype, draws: dict):
        """Yield ``log p(x, k | theta_s)`` for chunks of draws, (chunk, n_samples,
        n_classes), with the chunk's log class probabilities
        (`bayesgen.inference.posterior_draws.log_joint_draws`)."""
        self._check_has_posterior()
        return posterior_draws.log_joint_draws(self._base_family(), self.joint_, X, draws, dtype)

    # --------------------------------------------------------------- public
    @serialised  # NumPyro's handlers (NUTS) and JAX's draws from many threads: _threads.py
    def posterior(
        self,
        num_samples=1000,
        *,
        method="exact",
        num_chains=None,
        num_warmup=None,
        X=None,
        y=None,
        random_state=None,
        progress=None,
    ):
        """Draws from the posterior of the parameters, as ArviZ ``InferenceData``.

        Parameters
        ----------
        num_samples : int, default=1000
            Draws per chain.
        method : {"exact", "nuts"}, default="exact"
            ``"exact"``: independent draws from the conjugate posterior of the fitted
            sufficient statistics (Dirichlet for the class and multinomial/categorical
            probabilities, Beta for Bernoulli, Gamma for Poisson rates,
            Normal–Inverse-Wishart or Normal–Inverse-Gamma for Gaussians); no pass over
            the data. A Gaussian fitted on rows with missing values (EM) uses the rows it
            kept: ``"diag"`` has the exact posterior of the observed entries (its features
            are independent), ``"full"``, ``"tied"`` and ``"spherical"`` draw by data
            augmentation (alternately completing the rows and drawing the parameters from
            their conjugate posterior; ``attrs`` ``sampler``, ``chains`` and
            ``warmup_sweeps`` say so, and ``arviz.rhat`` checks the chains' mixing).
            ``"nuts"``: NumPyro's NUTS on this model's `story` with the rows ``X``, ``y``
            observed — an independent check of the exact draws, and the route for fits
            without a posterior otherwise (unlabelled rows).
        num_chains : int, optional
            Independent chains (for conjugate ``"exact"`` draws simply more draws, split
            into chains). Default 1, except for data augmentation (below): 4.
        num_warmup : int, optional
            Warm-up iterations per chain: NUTS's (default ``num_samples``), or the
            data-augmentation sweeps discarded (default 200,
            `bayesgen.inference.data_augmentation.WARMUP_SWEEPS`).
        X : array-like of shape (n_samples, n_features), optional
            Rows to condition NUTS on (required for ``"nuts"``; normally the training
            rows). With ``"exact"`` they are only used for the ``log_likelihood`` group.
        y : array-like of shape (n_samples,), optional
            Their labels, from ``classes_``; required with ``X``.
        random_state : None, int or numpy.random.RandomState
        progress : bool, optional
            Show NumPyro's progress bar (``"nuts"``). By default it is shown inside
            [`bayesgen.show_progress`][bayesgen.show_progress] on a terminal, and not otherwise.

        Returns
        -------
        arviz.InferenceData
            Group ``posterior`` with the story's sites (``class_prior`` unless the class
            probabilities are fixed, then the family's: ``means``/``covariances``,
            ``feature_probs``, ``rates``, ``category_probs_<j>``; ``MixedNB`` prefixes them
            ``"<family>/"``), dims labelled with ``classes_`` and the feature names. With
            ``X`` and ``y``: group ``log_likelihood`` with ``joint`` =
            $\\log p(x_i, y_i \\mid \\theta)$ per draw and row (for ``az.loo``), and
            ``observed_data.y``. With ``"nuts"``: group ``sample_stats`` (``diverging``,
            ``lp``, ``acceptance_rate``, ``n_steps``).

        Raises
        ------
        ValueError
            For ``num_samples``/``num_chains``/``num_warmup`` < 1, an unknown ``method``,
            ``"nuts"`` without ``X`` and ``y``, or ``"exact"`` for a fit without a
            closed-form posterior.
        sklearn.exceptions.NotFittedError
            Before ``fit``.

        Warns
        -----
        UserWarning
            When NUTS has divergent transitions (they are also in ``sample_stats``).
        """
        check_is_fitted(self)
        num_samples = check_count(num_samples, "num_samples")
        if num_chains is not None:
            num_chains = check_count(num_chains, "num_chains")
        if num_warmup is not None:
            num_warmup = check_count(num_warmup, "num_warmup")
        if method not in POSTERIOR_METHODS:
            raise ValueError(f"method must be one of {POSTERIOR_METHODS}; got {method!r}.")
        if method == "nuts":
            self._check_has_posterior()
        if (X is None) != (y is None):
            raise ValueError("Pass X and y together (the rows and their labels), or neither.")
        if method == "nuts" and X is None:
            raise ValueError(
                "method='nuts' samples the story given data: pass the training rows as X "
                "and their labels as y."
            )
        rows = None if X is None else self._labelled_rows(X, y)
        if method == "exact":
            self._check_exact_posterior()
        family, settings = self._feature_family(), self._fit_settings()

        def story():
            from bayesgen.stories import fitted  # NumPyro, as NUTS

            return (
                self._story_part(),
                fitted.class_prior_arguments(settings.class_prior, self.joint_),
                fitted.observed_features(family, rows[0]),
            )

        return posterior_data.posterior_data(
            family,
            self.joint_,
            settings.class_prior,
            method=method,
            num_samples=num_samples,
            num_chains=num_chains,
            num_warmup=num_warmup,
            rows=rows,
            observed_labels=None if y is None else np.asarray(y),
            classes=self.classes_.tolist(),
            features=self._feature_names(),
            random_state=random_state,
            story=story,
            progress=progress_shown(progress) if method == "nuts" else False,
            start=(
                posterior_data.nuts_start(family, self.joint_)
                if method == "nuts" and getattr(self, "fitted_with_unlabeled_", False)
                else None
            ),
        )

    def _labelled_rows(self, X, y):
        """Validated rows and class indices; -1 for an unlabelled row (as in ``fit``)."""
        X = self._check_X(X, reset=False)
        y = column_or_1d(y, warn=True)
        check_consistent_length(X, y)
        unlabelled = semi_supervised.unlabeled_rows(y, self.unlabeled_marker)
        labels = np.full(y.shape[0], -1)
        if (~unlabelled).any():
            known = check_labels(np.asarray(y, dtype=object)[~unlabelled].tolist())
            labels[~unlabelled] = class_indices(self.classes_, known)
        return X, labels

    def _feature_names(self) -> list:
        """The names of the ``feature`` dims: the training columns', else ``x0, x1, ...``."""
        if hasattr(self, "feature_names_in_"):
            return [str(name) for name in self.feature_names_in_]
        return [f"x{j}" for j in range(self.n_features_in_)]

    @serialised
    def predict_proba_draws(self, X, num_samples=200, *, random_state=None, posterior=None):
        """Class probabilities under posterior draws of the parameters.

        Row ``s`` is $p(y = k \\mid x, \\theta_s)$ for one draw $\\theta_s$;
        their spread is the credible band of each $p(y \\mid x)$. Missing features
        (NaN) are integrated out under every draw.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        num_samples : int, default=200
            Exact conjugate draws (ignored when ``posterior`` is given).
        random_state : None, int or numpy.random.RandomState
        posterior : arviz.InferenceData, optional
            Draws to use instead, e.g. from ``posterior(method="nuts")``.

        Returns
        -------
        ndarray of shape (num_draws, n_samples, n_classes)
            Each ``[s, i]`` sums to one. Their mean over ``s`` approximates, but is not
            exactly, the posterior predictive ``predict_proba(X, method="predictive")``:
            that one weighs each draw by how well it explains ``x`` itself (see
            ``docs/uncertainty.md``).
        """
        check_is_fitted(self)
        X, dtype = self._prepare(X)
        if posterior is None:
            num_samples = check_count(num_samples, "num_samples")
            draws = self._exact_draws(numpy_generator(random_state), num_samples)
        else:
            self._check_has_posterior()
            draws = posterior_data.checked_draws(
                self._feature_family(),
                self.joint_,
                self._class_prior_rule(),
                inference_data.flatten_draws(posterior),
                self.classes_.tolist(),
                self._feature_names(),
            )
        joint_draws = self._joint_draws(X, dtype, draws)
        return np.concatenate([np.exp(normalise(joint, prior)) for joint, prior in joint_draws])
