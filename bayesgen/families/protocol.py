r"""The contract a feature family implements once: `FeatureFamily`.

A feature family is the class-conditional part $p(x \mid y = k, \theta_k)$ of the
joint, with a conjugate prior $p(\theta)$. A family *object* holds only its
hyperparameters (``alpha``, ``covariance_type``, ...); everything fitted travels in
NamedTuple pytrees it defines: statistics, prior/posterior, parameters. Every method is a
pure function of its arguments, so estimators, EM, Dask workers and model files can all
call the same code.

The contract, in the order a fit uses it:

==========================  ==========================================================
``suff_stats(X, R)``        statistics of rows ``X`` weighted by responsibilities
                            ``R`` (n_samples, n_classes); NaN entries are missing and
                            skipped (or, for a family that cannot skip them, see
                            ``missing_needs_em``)
``merge(a, b)``             statistics of the union of two disjoint batches
``prior(stats)``            the prior, hyperparameters resolved (empirical-Bayes
                            defaults may look at the statistics)
``posterior(prior, s)``     the conjugate posterior
``point_estimate(...)``     parameters: ``"mle"``, ``"map"`` or ``"mean"``
``log_likelihood(p, X)``    (n_samples, n_classes) $\log p(x \mid k)$, NaN
                            entries integrated out
``log_prior(prior, p, k)``  the EM objective's prior term, whose mode is estimate ``k``
``sample_params(key, ...)`` parameter draws from the posterior
``predictive_log_likelihood``  the posterior predictive $\log p(x \mid k, D)$
``conditional(...)``        fill missing entries given observed ones and a class
==========================  ==========================================================

The family's share of the NumPyro story lives one layer up, in ``bayesgen/stories/``
(stories import families, never the reverse): a story module registers a function
``part(family, prior, n_classes) -> StoryPart`` under the family's name with
`bayesgen.registry.register_story_part`, and the estimators find it there.

A family that lacks a piece says so through the capability flags below instead of being
special-cased by its callers; the default bodies raise `NoClosedForm` naming the
family and the piece.

How to add a family, step by step, is ``docs/adding-a-family.md``.
"""

from __future__ import annotations

import abc
from typing import Any, ClassVar

from bayesgen import registry


class NoClosedForm(ValueError):
    """A family has no closed form for the requested quantity (its posterior, say)."""


class FeatureFamily(abc.ABC):
    """A conjugate feature family: statistics, posterior, likelihood, draws and story.

    Subclasses set ``name`` (the key under which the family is registered, used by
    ``MixedNB(features={column: name})``) and implement the abstract methods; the optional
    ones default to raising `NoClosedForm`. Declaring a subclass with a ``name``
    registers it (`bayesgen.registry.families`).

    Attributes
    ----------
    name : str
        The family's registered name, such as ``"poisson"``.
    has_exact_posterior : bool
        Whether ``posterior`` and ``sample_params`` give the exact conjugate posterior.
    missing_needs_em : bool
        True when a missing entry cannot simply be skipped in ``suff_stats`` (the
        features of a class are dependent, as for a full covariance), so a fit on rows
        with missing entries is an EM.
    estimator : str or None
        Class name of the registered estimator that models columns of this family alone
        (``"PoissonNB"``), or None. ``MixedNB`` builds one per column group from its own
        hyperparameters (those the class accepts), so a family that names its estimator
        becomes a column family of ``MixedNB`` with no edit there.
    """

    name: ClassVar[str]
    has_exact_posterior: ClassVar[bool] = True
    missing_needs_em: ClassVar[bool] = False
    estimator: ClassVar[str | None] = None

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if "name" in vars(cls):
            registry.register_family(cls.name, cls)

    # ----------------------------------------------------------- statistics
    @abc.abstractmethod
    def suff_stats(self, X, responsibilities, dtype) -> Any:
        """Sufficient statistics of rows ``X`` with class weights ``responsibilities``."""

    @abc.abstractmethod
    def merge(self, a, b) -> Any:
        """Statistics of the union of two disjoint batches."""

    # ------------------------------------------------------ prior, posterior
    @abc.abstractmethod
    def prior(self, stats) -> Any:
        """The prior with every hyperparameter resolved (defaults may use ``stats``)."""

    def posterior(self, prior, stats) -> Any:
        """The conjugate posterior of the parameters given ``stats``."""
        raise NoClosedForm(f"the {self.name} family has no closed-form posterior")

    @abc.abstractmethod
    def point_estimate(self, prior, stats, kind: str) -> Any:
        """Parameters: the maximum-likelihood, posterior-mode or posterior-mean estimate."""

    def log_prior(self, prior, params, kind: str = "map") -> float:
        """The prior term of the EM objective: a log density whose mode is the ``kind`` estimate.

        ``"map"``: $\\log p(\\theta)$ up to a constant; ``"mle"``: 0; ``"mean"``: the
        family's choice of a density whose mode is the posterior mean (for the Dirichlet,
        Beta and Gamma families, the prior with one more pseudo-count), so that EM with
        that estimate as its M-step never decreases the objective.
        """
        raise NoClosedForm(f"the {self.name} family has no log prior")

    def prior_for(self, n_features: int, dtype=None) -> Any:
        """The prior of ``n_features`` features when it needs no data (the story's prior).

        Families whose prior defaults are empirical (the Gaussian's) resolve it from
        statistics with `prior` instead and do not implement this.
        """
        raise NoClosedForm(f"the {self.name} family's prior depends on the data")

    # ------------------------------------------------------------ densities
    @abc.abstractmethod
    def log_likelihood(self, params, X, *, row_terms: bool = True):
        """``(n_samples, n_classes)`` array of $\\log p(x_i \\mid y = k)$.

        NaN entries of ``X`` are missing and integrated out. Without ``row_terms`` the
        result may leave out terms that depend on the row only (they cancel from
        $p(y \\mid x)$).
        """

    def predictive_log_likelihood(self, posterior, X):
        """$\\log p(x \\mid k, D)$ with the parameters integrated out."""
        raise NoClosedForm(f"the {self.name} family has no closed-form posterior predictive")

    # ---------------------------------------------------------------- draws
    def sample_params(self, key, posterior, num_samples: int) -> Any:
        """``num_samples`` parameter draws from ``posterior``, stacked on a leading axis."""
        raise NoClosedForm(f"the {self.name} family has no exact posterior draws")

    def mean(self, params):
        """$E[x_j \\mid y = k]$ under ``params``, shape (n_classes, n_features).

        What a class looks like on average (``bayesgen.plot.class_images`` draws it).
        """
        raise NoClosedForm(f"the {self.name} family has no per-feature mean")

    def conditional(self, params, X, class_weights, method: str, rng):
        """``X`` with its NaN entries filled given the observed ones.

        ``class_weights`` (n_samples, n_classes) are $p(k \\mid x_o)$ (or one-hot
        for known labels); ``method`` is ``"mean"`` (the mixture's mean or mode) or
        ``"sample"`` (a class drawn from the weights, then the entries given it).
        """
        raise NoClosedForm(f"the {self.name} family cannot impute missing entries")
