"""``LatentClassNB``: inside each class, a finite mixture of ``MixedNB`` components."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from sklearn.utils import check_random_state

from bayesgen.estimators.fitted_attribute import fitted_attribute
from bayesgen.estimators.hyperparameters import check_flag
from bayesgen.estimators.mixed_nb import MixedNB
from bayesgen.families.component_mixture import (
    MixtureFamily,
)
from bayesgen.inference.latent_class_start import INIT_PARAMS, initial_memberships
from bayesgen.validation import check_count, scoring_rows


class LatentClassNB(MixedNB):
    model_name = "latent-class-nb"
    __doc__ = r"""A latent class model per class: a mixture of mixed-type naive Bayes components.

    $$
    p(x \mid k) = \sum_{m=1}^{M} w_{km} \prod_g p_g(x_{(g)} \mid \theta_{km}),
    \qquad p(k \mid x) \propto \pi_k\, p(x \mid k).
    $$

    Inside a class the columns are independent given a latent component $m$, but not
    given the class alone: the mixture keeps dependence between columns of any kinds
    (numbers, whole numbers, booleans, categories), the "mixture of products" used for
    synthetic census tables and multiple imputation of categorical data. Each component
    is a [`MixedNB`][bayesgen.MixedNB] over the same column families, so every registered
    column family works, missing entries (NaN) included (each family skips or integrates
    them).

    Fitted by EM on each class's rows: with responsibilities $R_{ik}$ (one-hot times the
    sample weight; soft for unlabelled rows) and memberships $\gamma_{ikm} \propto w_{km}
    p(x_i \mid k, m)$, the $K M$ pairs $(k, m)$ are the composite family's classes, with
    responsibilities $R_{ik}\gamma_{ikm}$: the M-step is MixedNB's fit on them, and
    $w_{km}$ is the mode of its Dirichlet(``weight_concentration_prior``) posterior. The
    objective $\sum_{ik} R_{ik} \log p(x_i \mid k)$ plus the log priors never decreases
    (``log_likelihood_history_``). With ``n_components=1`` this is ``MixedNB``. The story
    is `bayesgen.stories.latent_class.latent_class_part` around MixedNB's.

    Parameters
    ----------
    n_components : int or "auto", default=2
        Components $M$ per class. Each class needs at least that many rows of positive
        weight. ``"auto"`` chooses each class's $M_k$ among 1-5 by 3-fold held-out
        log-likelihood, the fewest within one standard error of the class's best
        (`bayesgen.inference.component_count`), once per ``fit``: ``n_components_`` and
        ``component_choice_`` report it.
    init_params : {"kmeans", "random"}, default="kmeans"
        How each class's EM starts: k-means on the class's rows (numbers standardised,
        missing at 0, categories and booleans one-hot), or random memberships.
    n_init_components : int, default=1
        Starts of the EM; the run of highest objective is kept.
    warm_start : bool, default=False
        As scikit-learn's ``warm_start``: the next ``fit`` starts its EM from the
        memberships of its rows under this fit's parameters (one start, in place of
        ``init_params`` and ``n_init_components``, shared by the ``n_init`` restarts of an
        EM over unlabelled rows), where the columns, the classes and the number of
        components are those of this fit; otherwise (and after a fit with unlabelled rows,
        or where this fit cannot score a new row) from the usual start.
        `bayesgen.TableSynthesizer` fits its chosen model on every row so, from its fit on
        70 % of them, where it chose the size on that split.
    weight_concentration_prior : float, default=1.0
        Concentration $\beta$ of the symmetric Dirichlet prior on each class's component
        weights (1 leaves them at their maximum-likelihood estimate).
    max_iter : int, default=100
        Most EM iterations (of the components' EM, and of the EM over unlabelled rows).
    tol : float, default=1e-6
        EM stops when its objective changes by at most ``tol`` times its size.
    alpha : float, default=2.0
        Prior pseudo-counts of the discrete families, as in ``MixedNB``; with
        ``estimate="map"``, 2 is add-one smoothing.
    estimate : {"map", "mle", "mean"}, default="map"
        The components' point estimate, as in ``MixedNB``. With ``"map"`` or ``"mle"`` the
        M-step maximises the objective, so EM never decreases it; ``"mean"`` (MixedNB's
        default) is not a mode of the Gaussian's prior term and may lower it slightly.
    features, fit_prior, class_prior, reg_covar, family_params
        The components' column families and their settings, as in ``MixedNB``.
    n_init, unlabeled_weight, n_classes, unlabeled_marker, random_state
        As in ``MixedNB``; ``random_state`` also seeds the starts.

    Attributes
    ----------
    classes_, class_count_, class_prior_, feature_families_, family_log_evidence_
        As in ``MixedNB``.
    weights_ : ndarray of shape (n_classes, n_components)
        $w_{km}$ (0 for the components a class with fewer than the most does not have).
    n_components_ : ndarray of int of shape (n_classes,)
        Each class's $M_k$ as ``"auto"`` chose it (set only with ``"auto"``).
    component_choice_ : ComponentChoice
        The held-out scores behind ``n_components_`` (set only with ``"auto"``).
    n_iter_ : int
    converged_ : bool
    fitted_with_unlabeled_ : bool
        Whether the last fit had unlabelled rows (EM over them; no exact posterior then).
    log_likelihood_history_ : ndarray of shape (n_iter_,)
        The EM objective per iteration (with unlabelled rows: that of the EM over them).

    Examples
    --------
    Within each class, ``a`` and ``b`` move together; naive Bayes loses that, two
    components per class keep it:

    >>> import numpy as np, pandas as pd
    >>> from bayesgen import LatentClassNB
    >>> rng = np.random.default_rng(0)
    >>> z = rng.integers(0, 2, 600)
    >>> frame = pd.DataFrame({"a": 3.0 * z + rng.normal(size=600),
    ...                       "b": np.where(z == 1, "high", "low")})
    >>> y = rng.integers(0, 2, 600)
    >>> model = LatentClassNB(random_state=0).fit(frame, y)
    >>> drawn, _ = model.sample(2000, random_state=0)
    >>> bool(drawn.groupby("b")["a"].mean().diff().abs().iloc[-1] > 2.5)
    True
"""

    hyperparameters = {
        "n_components": 2,
        "init_params": "kmeans",
        "n_init_components": 1,
        "weight_concentration_prior": 1.0,
        "warm_start": False,
        **MixedNB.hyperparameters,
        "alpha": 2.0,
        "estimate": "map",
    }

    weights_ = fitted_attribute(
        lambda self, value: np.asarray(value.params.weights),
        doc="The component weights $w_{km}$, shape (n_classes, n_components).",
    )

    # MixedNB's column choice, and the counts n_components="auto" chose with their report.
    _state_beside_value = (*MixedNB._state_beside_value, "n_components_", "component_choice_")

    def _check_hyperparameters(self):
        super()._check_hyperparameters()
        if not (isinstance(self.n_components, str) and self.n_components == "auto"):
            try:
                check_count(self.n_components, "n_components")
            except ValueError:
                raise ValueError(
                    f"n_components must be an integer >= 1 or 'auto'; got {self.n_components!r}."
                ) from None
        if self.init_params not in INIT_PARAMS:
            raise ValueError(f"init_params must be one of {INIT_PARAMS}; got {self.init_params!r}.")
        check_flag(self.warm_start, "warm_start")

    def fit(self, X, y, sample_weight=None):
        """As `MixedNB.fit`; with ``warm_start``, EM starts where this model's last fit
        ended (``warm_start``).

        Parameters
        ----------
        X : array-like or pandas.DataFrame of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), optional

        Returns
        -------
        self
        """
        check_flag(self.warm_start, "warm_start")
        # Taken before the fit chooses its columns' families and forgets its counts.
        self._warm_start = _LastFit.of(self, X) if self.warm_start else None
        try:
            return super().fit(X, y, sample_weight)
        finally:
            self.__dict__.pop("_warm_start", None)

    # ------------------------------------------------------------ the family
    def _base_family(self) -> MixtureFamily:
        """MixedNB's column groups as the leaf of a mixture per class, whose weights are
        their Dirichlet mode whatever the components' estimate."""
        counts = self.__dict__.get("n_components_")
        return MixtureFamily(
            super()._base_family(),
            self.n_components if counts is None else tuple(np.asarray(counts).tolist()),
            self.weight_concentration_prior,
            weight_estimate="map",
        )

    def _composite_of(self, family):
        return family.leaf

    def _em_starts(self, X, R: np.ndarray) -> list:
        """``n_init_components`` starts, k-means or random within each class's rows
        (`bayesgen.inference.latent_class_start`), from one generator seeded by
        ``random_state``."""
        family = self._base_family()
        counts = family.active(R.shape[1]).sum(axis=1)
        rows = np.count_nonzero(R > 0, axis=0)
        for k in np.flatnonzero(rows < counts):
            raise ValueError(
                f"n_components={self.n_components!r} gives class {self.classes_.tolist()[k]!r} "
                f"{counts[k]} component(s), which need at least {counts[k]} rows of that "
                f"class with positive weight; found {rows[k]}."
            )
        active = family.active(R.shape[1])
        last = self.__dict__.get("_warm_start")
        start = None if last is None else last.start_of(self, R.shape[0], active)
        if start is not None:
            return [start]
        rng = check_random_state(self.random_state)
        return [
            initial_memberships(X.frame, R, active, self.init_params, rng)
            for _ in range(self.n_init_components)
        ]

    def _candidate_start(self, family, X, R: np.ndarray, rng) -> dict:
        """A candidate count's one start, as `_em_starts` makes them, from ``rng``."""
        active = family.active(R.shape[1])
        return {"start": [initial_memberships(X.frame, R, active, self.init_params, rng)]}

    # ------------------------------------------------------------------ story
    @property
    def estimators_(self):
        """Not available: a group's columns are a mixture here, not one estimator."""
        raise AttributeError(
            "LatentClassNB has no estimators_: each class's columns are a mixture of "
            "components, which no single-family estimator models."
        )


class _LastFit(NamedTuple):
    """What ``warm_start`` keeps of a model's last fit: the memberships of the next fit's
    rows under its parameters, its classes and which components each class has."""

    memberships: np.ndarray
    classes: list
    active: np.ndarray

    @classmethod
    def of(cls, model: LatentClassNB, X) -> _LastFit | None:
        """The last fit of ``model`` and the memberships of the rows ``X`` under it, or None
        where it has none, fitted unlabelled rows (whose memberships are of another EM),
        was fitted on other columns, or cannot score ``X`` under its parameters; a
        membership that is not finite gives None too."""
        if "joint_" not in model.__dict__ or getattr(model, "fitted_with_unlabeled_", False):
            return None
        names = getattr(model, "feature_names_in_", None)
        columns = getattr(X, "columns", None)
        if np.ndim(X) != 2 or np.shape(X)[1] != getattr(model, "n_features_in_", None):
            return None
        if (names is None) != (columns is None) or (
            names is not None and list(columns) != list(names)
        ):
            return None
        try:
            # Only a start: a last fit that cannot score these rows (a value its families
            # refuse, settings changed since, a fit that failed half-way after it) leaves
            # the usual start, as a cold fit would.
            family = model._feature_family()
            weights = np.asarray(model.joint_.params.weights)
            active = family.active(weights.shape[0])
            if weights.shape != active.shape or np.any(weights[~active] > 0):
                return None
            with scoring_rows(), np.errstate(all="ignore"):
                rows = model._check_X(X, reset=False)
                gamma, _ = family.memberships(model.joint_.params, family.encode(rows))
        except Exception:  # noqa: BLE001 - see the comment above
            return None
        gamma = np.asarray(gamma)
        if not np.all(np.isfinite(gamma)):
            return None
        return cls(gamma, model.classes_.tolist(), active)

    def start_of(self, model: LatentClassNB, n_rows: int, active: np.ndarray):
        """The memberships as the start of ``model``'s fit of ``n_rows`` rows whose classes
        have the components ``active``, or None where its classes or components differ."""
        if (
            self.classes != model.classes_.tolist()
            or not np.array_equal(self.active, active)
            or self.memberships.shape[0] != n_rows
        ):
            return None
        return self.memberships
