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
``draw_features(...)``      synthetic features of rows of given classes (NumPy)
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

A family also says how it reads and writes a group of table columns, so that ``MixedNB``
composes it with no edit there (the optional methods under "columns of a table"): the values
it accepts (`check_columns`), what it learns from them besides statistics (the categories of
a categorical column: `learn`, `learned`, `encode`, `decode`), how its parameters are named
in the story (`sites`, `params_from_sites`, `sampling_sites`), what a story draw looks like
as features (`features_from_draws`) and the ArviZ dimensions of its sites
(`parameter_dims`). The defaults fit a family of numbers whose parameters are one
(n_classes, n_features) array at the site `site`.

How to add a family, step by step, is ``docs/adding-a-family.md``.
"""

from __future__ import annotations

import abc
import inspect
from typing import Any, ClassVar

import numpy as np

from bayesgen import registry
from bayesgen.families.estimates import check_estimate_kind
from bayesgen.families.score_blocks import ScoreBlocks
from bayesgen.validation import InputRows


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
    no_posterior : str or None
        Why the family's parameters have no posterior to sample at all, neither exact nor
        by NUTS on the story (a mixture's label switching; a kernel density's lack of
        parameters), written to end a sentence that begins with the estimator's name
        ("This MixtureDA's ..."); None when NUTS applies.
    missing_needs_em : bool
        True when a missing entry cannot simply be skipped in ``suff_stats`` (the
        features of a class are dependent, as for a full covariance), so a fit on rows
        with missing entries is an EM.
    estimator : str or None
        Class name of the registered estimator that models columns of this family alone
        (``"PoissonNB"``), or None. A family that names its estimator becomes a column
        family of ``MixedNB`` with no edit there: its settings are that estimator's
        parameters (`of`).
    site : str
        The story site of the parameters when they are one array (the default `sites`).
    merges_exactly : bool
        Whether statistics of blocks of rows computed anywhere merge into those of all the
        rows with nothing learned from the columns, so that a view of the family is fitted
        on Dask workers (`bayesgen.dask.fit`); False for a family that learns categories
        or whose statistics need its parameters (a mixture).
    column_values : {"non-negative", "numbers", "categories"}
        What its columns hold (`check_columns` enforces it): non-negative numbers (counts,
        flags, durations; the default), any real numbers, or categories of any kind. An
        estimator over any family reads its input checks and scikit-learn tags off this.
    input_rows : InputRows
        How an estimator over the family checks its input rows
        (`bayesgen.validation.InputRows`): finite numbers with NaN missing by default;
        counts, kept sparse, for the count families; on their device for GaussianDA's.
    column_family : bool
        Whether ``MixedNB`` may give this family a group of columns although it names no
        estimator (a column-only family); its settings are then its own constructor's
        arguments (`FeatureFamily.of`). A family that names its estimator is always one.
    column_preference : int
        Rank among the families a column admits (`admits_column`) when their evidence
        ties exactly: the lowest wins.
    is_density : bool
        Whether ``log_likelihood`` is a log density of the features (False for the scores
        of complement naive Bayes): EM over unlabelled rows needs one.
    unlabelled_loop : {"em", "gaussian", "self-training"}
        How rows without a label are fitted (`bayesgen.inference.unlabelled_em`): EM from
        the family's own fit and scores (the default), the Gaussian's jitted EM, or the
        kernel density's self-training (it has no parameters for EM to maximise).
    scores_in_blocks : bool
        Whether ``log_likelihood`` goes through the rows a block at a time itself, so that
        its intermediates stay a few blocks' worth however many rows it is given. Callers
        then give it every row at once (`bayesgen.inference.class_posterior.chunked`):
        cutting them into chunks redoes its per-call work once per chunk (QDA's
        ``predict_proba`` of 1,000,000 rows, 50 features, 5 classes: 1.98-2.11 s in 8
        chunks, 0.83-1.73 s whole, before its blocks ran in threads). False: a family may
        hold a (rows, classes, features) intermediate, and rows reach it in chunks.
    sparse_class_weights : bool
        Whether ``suff_stats`` takes the class weights of labelled rows as a SciPy sparse
        matrix, one entry per row (`bayesgen.joint.sparse_responsibilities`). A fit of
        labelled rows then takes them all in one pass, in time and memory linear in the
        number of classes; otherwise the rows go in chunks of a dense rows x classes array,
        each merged into the statistics and estimated again. A subclass that writes its
        own ``suff_stats`` is False unless it declares the capability itself.
    slices_classes : bool
        Whether `classes_of` gives the parameters of some of the classes, which
        `log_likelihood` scores as it scores those classes among all the others, bit for
        bit, so that the components' EM over labelled rows scores each row under its own
        class's components only (`bayesgen.families.component_mixture.ClassRows`). A
        sparse product sums each row in its order whatever the columns (the categorical
        one-hot rows); a dense BLAS product of fewer columns may round otherwise (dense
        Bernoulli rows of 30 features: 46 of 300 scores differed with 3 components a class),
        so the dense families do not slice. A subclass that writes its own
        ``log_likelihood`` is False unless it declares it.
    """

    name: ClassVar[str]
    site: ClassVar[str] = "feature_probs"
    has_exact_posterior: ClassVar[bool] = True
    no_posterior: ClassVar[str | None] = None
    missing_needs_em: ClassVar[bool] = False
    estimator: ClassVar[str | None] = None
    column_values: ClassVar[str] = "non-negative"
    input_rows: ClassVar[InputRows] = InputRows()
    merges_exactly: ClassVar[bool] = True
    column_family: ClassVar[bool] = False
    column_preference: ClassVar[int] = 100
    is_density: ClassVar[bool] = True
    unlabelled_loop: ClassVar[str] = "em"
    scores_in_blocks: ClassVar[bool] = False
    sparse_class_weights: ClassVar[bool] = False
    slices_classes: ClassVar[bool] = False

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if "name" in vars(cls):
            registry.register_family(cls.name, cls)
        if "suff_stats" in vars(cls) and "sparse_class_weights" not in vars(cls):
            # A subclass's own statistics may not read sparse class weights: it says so.
            cls.sparse_class_weights = False
        if "log_likelihood" in vars(cls) and "slices_classes" not in vars(cls):
            cls.slices_classes = False  # likewise its own scores

    def __repr__(self) -> str:
        """``PoissonFamily(alpha=0.5)``: the arguments that differ from their defaults, as
        scikit-learn shows an estimator."""
        shown = []
        for name, parameter in inspect.signature(type(self).__init__).parameters.items():
            if name == "self" or parameter.kind is parameter.VAR_KEYWORD:
                continue
            value = getattr(self, name, parameter.default)
            default = parameter.default
            same = value is default or (
                not isinstance(value, np.ndarray | list | tuple) and value == default
            )
            if not same:
                shown.append(f"{name}={value!r}")
        return f"{type(self).__name__}({', '.join(shown)})"

    def exact_posterior_refusal(self, value) -> str | None:
        """Why the parameters of the fitted ``value`` have no closed-form posterior, or None.

        Written to follow the estimator's name ("This QDA" + the reason), as the estimator
        reports it. The default: a family whose parameters are not conjugate to its
        likelihood (``has_exact_posterior``).
        """
        if self.has_exact_posterior:
            return None
        return (
            f"'s {self.name} family has no closed-form posterior (its parameters are not "
            "conjugate to its likelihood), so posterior(), predict_proba_draws() and "
            "predict_proba(method='predictive') do not apply; use predict_proba() (the point "
            "estimate)."
        )

    def check(self) -> FeatureFamily:
        """This family, once its hyperparameters are checked (a model file's family is
        checked so); the default checks nothing.

        Raises
        ------
        ValueError
            Naming the hyperparameter and what it held.
        """
        return self

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

    def score_blocks(self, params, X, *, row_terms: bool = True) -> ScoreBlocks | None:
        """`log_likelihood` of the rows of encoded ``X`` a block of rows at a time
        (`ScoreBlocks`), or None (the default) where the family does not score so.

        A row with a missing entry may get a non-finite block score (the Gaussian's are
        NaN): callers finish only the rows whose every class is finite or ``-inf`` with
        one finite, and hand the others to ``log_likelihood``. ``params`` are NumPy arrays.
        """
        return None

    def limit_log_posterior(self, params, X, log_class_prior):
        """``log p(k | x)`` of rows whose every class density underflows to 0 in floating
        point although the class probabilities are defined (a row far out in every class's
        tail); a family that can order its classes there says so (the Gaussian does).
        Raises `NoClosedForm` otherwise: such rows then get the class prior, with a warning."""
        raise NoClosedForm(f"the {self.name} family has no limit of its class probabilities")

    def predictive_log_likelihood(self, posterior, X):
        """$\\log p(x \\mid k, D)$ with the parameters integrated out."""
        raise NoClosedForm(f"the {self.name} family has no closed-form posterior predictive")

    # ---------------------------------------------------------------- draws
    def sample_params(self, key, posterior, num_samples: int) -> Any:
        """``num_samples`` parameter draws from ``posterior``, stacked on a leading axis."""
        raise NoClosedForm(f"the {self.name} family has no exact posterior draws")

    def draw_features(self, params, classes, rng, **options) -> dict:
        """Synthetic features of rows of the classes ``classes``, drawn with ``rng``.

        The story's law for ``"X"`` given the labels, drawn in NumPy (no compilation):
        ``sample`` uses it, and runs the story itself only for a family without it.

        Parameters
        ----------
        params
            The family's parameters (`params_from_sites` of the sampling sites).
        classes : ndarray of int of shape (n_samples,)
            Each row's class index.
        rng : numpy.random.Generator
        **options
            Family-specific (the multinomial's ``lengths``, the row totals).

        Returns
        -------
        dict
            ``{site: values}`` shaped as the story's draws, for `features_from_draws`.
        """
        raise NoClosedForm(f"the {self.name} family draws synthetic rows only through its story")

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

    # ------------------------------------------------- columns of a table (MixedNB)
    @classmethod
    def of(cls, owner) -> FeatureFamily:
        """The family with the hyperparameters read off ``owner``, by their names.

        ``owner`` is any object with attributes named like the arguments of ``__init__``,
        such as the family's estimator (``PoissonFamily.of(PoissonNB(alpha=0.5))``); an
        argument ``owner`` lacks keeps its default.
        """
        names = list(inspect.signature(cls.__init__).parameters)[1:]
        return cls(**{name: getattr(owner, name) for name in names if hasattr(owner, name)})

    def check_columns(self, X: np.ndarray, *, owner: str = "X", columns=None) -> np.ndarray:
        """The values of a group of columns as this family reads them; NaN is missing.

        ``X`` is the group as an array (any dtype, ``None`` for a missing value);
        ``owner`` names the model in error messages and ``columns`` the group's column
        names. The default reads counts: numbers >= 0.

        Raises
        ------
        ValueError
            Naming the first offending value, its row and column.
        """
        X = as_numbers(X, owner, columns)
        refuse_entries(X < 0, X, columns, f"{owner} models counts, which must be >= 0", "Negative")
        return X

    def learn(self, X, stats=None) -> tuple[FeatureFamily, Any]:
        """This family widened to the values of ``X`` it has not seen, and ``stats`` laid
        out for it.

        ``X`` is a `check_columns` result; ``stats`` are statistics of earlier rows (None
        on a fresh fit). The default learns nothing: ``(self, stats)``. A categorical
        family learns new categories, re-laying the earlier counts for them.
        """
        return self, stats

    def for_rows(self, X, responsibilities) -> FeatureFamily:
        """This family with what the rows ``X`` under class weights ``responsibilities``
        teach its estimate beyond its statistics (Ledoit–Wolf's fourth moments); the
        default needs nothing: ``self``. Each M-step of EM over unlabelled rows estimates
        under it (`bayesgen.inference.fit_rows.fit_rows`)."""
        return self

    def learned(self) -> dict:
        """What `learn` found, to be saved: keyword arguments of `with_learned` (``{}``).

        Each key is also the name, with a trailing underscore, of the fitted attribute of
        the family's estimator that holds it (``categories`` -> ``categories_``).
        """
        return {}

    def with_learned(self, **learned) -> FeatureFamily:
        """The family with what `learn` found earlier (a `learned` result) put back."""
        return self

    def admits_column(self, column) -> bool:
        """Whether ``MixedNB`` may choose this family for a column by its evidence.

        ``column`` is a `bayesgen.families.column_choice.ColumnSummary`: its ``kind``
        (``"flags"``, ``"categories"`` or ``"numbers"``), its values and, for numbers,
        whether every observed one is whole and the least of them. The default is False:
        the family is used only where ``features=`` names it.
        """
        return False

    def column_log_evidence(self, column, class_index, n_classes: int) -> float:
        """$\\log p(x \\mid y)$ of a column this family admits, its parameters integrated
        out under its prior (`bayesgen.families.column_evidence`).

        Evidences of families that score a column on the same footing compare (a Bayes
        factor): probabilities of the values for discrete data, densities for continuous.

        Parameters
        ----------
        column : ColumnSummary
            The column's labelled rows (`admits_column`); NaN is missing.
        class_index : ndarray of shape (n_rows,)
            Each row's class, ``0 .. n_classes - 1``.
        n_classes : int
        """
        raise NoClosedForm(f"the {self.name} family has no column evidence")

    def encode(self, X: np.ndarray) -> np.ndarray:
        """``X`` (a `check_columns` result) as `suff_stats` and `log_likelihood` read it."""
        return X

    def decode(self, values: np.ndarray) -> np.ndarray:
        """Encoded values back as column values (inverse of `encode` on observed entries)."""
        return values

    def classes_of(self, params, index):
        """The parameters of the classes ``index`` (an integer array), as parameters of a
        family over those classes alone (`slices_classes`). The default takes the rows of
        one (n_classes, ...) parameter array."""
        return np.asarray(params)[index]

    def fixed_rows(self, X):
        """Encoded rows ``X`` for a caller that scores and counts the same rows many times
        (an EM's iterations): what `suff_stats` and `log_likelihood` take in place of ``X``,
        with what they derive from the rows alone made once, giving the same bits. The
        default is ``X`` itself; ``X`` must not change while the result is in use.

        The components' EM (`bayesgen.inference.mixture_family_em`) hands the result to
        every step, and to the EM over missing entries of a composite's other groups, which
        reads a group's rows only through its `suff_stats` where ``missing_needs_em`` is
        False. So a family that cannot skip missing entries keeps this default, and a family
        over other families (a mixture's leaf, a composite's groups) passes the call on to
        them."""
        return X

    def sites(self, params) -> dict:
        """The story's parameter sites holding ``params``: ``{site: params}``."""
        return {self.site: params}

    def params_from_sites(self, sites: dict):
        """Parameters from the story's sites (inverse of `sites`)."""
        return np.asarray(sites[self.site])

    def side_by_side(self, sites: dict) -> tuple[FeatureFamily, Any]:
        """Draws of the parameter sites, each shaped (n_draws, n_classes, ...), as one
        family and its parameters over ``n_draws * n_classes`` classes (draw-major), so
        that one `log_likelihood` call scores every draw. The default flattens each
        site's first two axes."""
        flat = {
            name: np.asarray(value).reshape(-1, *np.shape(value)[2:])
            for name, value in sites.items()
        }
        return self, self.params_from_sites(flat)

    def sampling_sites(self, params) -> dict:
        """The sites substituted into the story to draw synthetic rows (`sites`)."""
        return self.sites(params)

    def features_from_draws(self, draws: dict) -> np.ndarray:
        """The features of a story run's draws ``{site: value}``: counts, as integers."""
        return np.rint(draws["X"]).astype(np.int64)

    def parameter_dims(self, features: list) -> tuple[dict, dict]:
        """ArviZ ``(dims, coords)`` of the parameter sites for feature names ``features``."""
        return {self.site: ("class", "feature")}, {"feature": list(features)}

    @property
    def story_name(self) -> str:
        """The name its story part is registered under (`bayesgen.stories.part`): its own
        ``name``; a family whose name varies (a composite of column groups) gives its kind."""
        return self.name

    def story_prior(self, prior, n_features: int, params=None):
        """The prior the story draws parameters from: `prior_for`, else the fitted ``prior``.

        ``params``, the fitted parameters, are for a family whose story holds them fixed
        instead of drawing them (a kernel density's centres and kernels).
        """
        try:
            return self.prior_for(n_features)
        except NoClosedForm:
            return prior

    def estimate(self, stats, kind: str, frozen=None) -> tuple[Any, Any]:
        """``(prior, parameters)``: the prior resolved from ``stats`` and the ``kind`` estimate.

        ``frozen`` is what EM over missing entries kept fixed (``missing_needs_em``), used
        instead of resolving it anew; families without such an EM ignore it.
        """
        prior = self.prior(stats)
        return prior, self.point_estimate(prior, stats, kind)

    @classmethod
    def settings_read(cls) -> set[str]:
        """The names of the estimator's parameters that `of` reads (``__init__``'s)."""
        return set(list(inspect.signature(cls.__init__).parameters)[1:])

    def check_estimate(self, kind: str) -> None:
        """Raise a ``ValueError`` unless ``kind`` is a point estimate this family makes."""
        check_estimate_kind(kind)


def as_numbers(X: np.ndarray, owner: str = "X", columns=None) -> np.ndarray:
    """``X`` as a float array (float32 kept, anything else float64; ``None`` becomes NaN).

    Raises
    ------
    ValueError
        If a value is not a number, naming ``owner`` and the column.
    """
    X = np.asarray(X)
    if X.dtype in (np.float32, np.float64):
        return X
    if X.dtype.kind in "mM":  # NumPy would give nanoseconds as numbers without a word
        raise ValueError(
            f"{owner} models numbers; got dates or durations ({X.dtype}): convert them to "
            "numbers first (days since a date, say)."
        )
    try:
        return X.astype(np.float64)
    except (TypeError, ValueError):
        for j in range(X.shape[1]):
            try:
                X[:, j].astype(np.float64)
            except (TypeError, ValueError) as error:
                raise ValueError(
                    f"{owner} models numbers; {column_label(columns, j)} holds values that are not "
                    f"({error})."
                ) from None
        raise


def column_label(columns, j: int) -> str:
    """``column 'name'`` (or ``column j`` without names), for error messages."""
    return f"column {j}" if columns is None else f"column {list(columns)[j]!r}"


def refuse_entries(bad, X, columns, reason: str, what: str = "Invalid") -> None:
    """Raise a ``ValueError`` at the first entry flagged in ``bad``, naming it."""
    if not np.any(bad):
        return
    row, column = (int(i[0]) for i in np.nonzero(bad))
    raise ValueError(
        f"{what} values in data passed to X: {X[row, column]} at row {row}, "
        f"{column_label(columns, column)}; {reason}."
    )
