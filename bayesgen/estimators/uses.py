"""The uses of a fitted joint beyond classification: story, synthetic rows, imputation, novelty.

A mixin of `bayesgen.estimators.base.GenerativeClassifier`, kept apart so that each
file holds one idea: each use is the family's function of the fitted value ``joint_``
(its draws, its story part, its conditional fill). It relies on the classifier's
``classes_``, ``class_prior_``, ``_check_X``, ``_class_prior_settings``,
``_feature_family`` and ``score_samples``.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import scipy.sparse as sp
from sklearn.utils import check_random_state
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import check_is_fitted

from bayesgen import conditioning, recorded_grid, training_range
from bayesgen._lazy import lazy_module
from bayesgen.estimators import multiple_imputation
from bayesgen.families import class_prior
from bayesgen.families.protocol import FeatureFamily, NoClosedForm
from bayesgen.frames import as_training_frame, with_filled_cells
from bayesgen.inference import imputation, novelty, sampling
from bayesgen.inference.log_space import normalise
from bayesgen.missing import missing_entries, with_missing_cells
from bayesgen.validation import scoring_rows

jnp = lazy_module("jax.numpy")

SAMPLE_METHODS = ("numpy", "story")
SUPPORTS = ("model", "training")
MISSING = (None, "training")
ROUNDING = (None, "training")


def _has_density(estimator) -> bool:
    """A tail probability needs the density ``score_samples`` (complement NB has none)."""
    return hasattr(estimator, "score_samples")


def _at_rows(per_row: dict, positions: np.ndarray, rows: int) -> dict:
    """``per_row`` with each value given per row (a sequence of ``rows``) taken at
    ``positions``; a single value stays as it is."""
    return {
        name: value if np.ndim(value) == 0 or len(value) != rows else np.asarray(value)[positions]
        for name, value in per_row.items()
    }


class GenerativeUses:
    """``story``, ``sample``, ``impute`` and ``tail_probability``, written once for every family."""

    def _class_index(self, y) -> jnp.ndarray:
        y = np.asarray(y)
        unknown = np.setdiff1d(y, self.classes_)
        if unknown.size:
            raise ValueError(
                f"y contains labels {unknown.tolist()} not in classes_ {self.classes_.tolist()}."
            )
        return jnp.asarray(np.searchsorted(self.classes_, y))

    def story(self, X=None, y=None, *, n_samples=None):
        """Run this model's generative story, a NumPyro model, with its fitted prior.

        The story draws the class probabilities (site ``"class_prior"``, absent when they
        are fixed), the family's parameters (sites named like the fitted attributes, see
        ``docs/models.md``), then per row the label ``"y"`` and the features ``"X"``. Use it
        with NumPyro's handlers (``substitute`` fitted values, ``condition``, ``trace``),
        ``Predictive`` or ``MCMC``. It runs in the caller's JAX precision (enable x64
        around it for float64).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features), optional
            Observed features; ``None`` draws them.
        y : array-like of shape (n_samples,), optional
            Observed labels, values from ``classes_``; ``None`` draws them.
        n_samples : int, optional
            Number of rows to draw when neither ``X`` nor ``y`` is given.
        """
        check_is_fitted(self)
        self._run_story(X, y, self._story_part(), n_samples)

    def _run_story(self, X, y, part, n_samples):
        from bayesgen import stories

        if X is not None:
            X = self._story_features(self._check_X(X, reset=False))
        labels = None if y is None else self._class_index(y)
        stories.classifier_story(
            X, labels, **self._story_class_prior(), part=part, n_samples=n_samples
        )

    def _story_features(self, X):
        """The features as the story observes them: the family's encoding, a dense array in
        the caller's precision."""
        encoded = self._feature_family().encode(X)
        return jnp.asarray(encoded.toarray() if sp.issparse(encoded) else encoded)

    def _story_part(self, **options):
        """The family's part of the story (its parameter sites and features given the
        class) under the fitted prior."""
        from bayesgen import stories

        family, value = self._feature_family(), self.joint_
        prior = family.story_prior(value.feature_prior, self.n_features_in_, value.params)
        return stories.part(family.story_name)(family, prior, self.classes_.shape[0], **options)

    def _sampling_sites(self):
        """The fitted parameters as the story's sites, as the story samples with them."""
        return self._feature_family().sampling_sites(self.joint_.params)

    def _draw_features(self, classes, rng, **options) -> dict:
        """The story's feature draws for rows of the class indices ``classes``, in NumPy:
        the family's ``draw_features`` at the parameters the story samples with (its
        ``sampling_sites``: a categorical column's unseen category left out).

        Raises
        ------
        NoClosedForm
            When the family has no NumPy draws (its story runs instead).
        """
        family = self._feature_family()
        params = family.params_from_sites(family.sampling_sites(self.joint_.params))
        return family.draw_features(params, classes, rng, **options)

    def sample(
        self,
        n_samples=1,
        *,
        y=None,
        given=None,
        support="model",
        missing=None,
        rounding=None,
        random_state=None,
        method="numpy",
    ):
        r"""Synthetic rows from the fitted model: its story run forward.

        The labels (unless given) are drawn from ``class_prior_``, then the features from
        the fitted class-conditional law, so the rows come from exactly the model that
        classifies. The draws are made in NumPy, with no compilation (a model without NumPy
        draws runs `story` with NumPyro's ``Predictive``, as ``method="story"`` does for
        any model).

        With ``given``, the rows are drawn from the exact conditional law given those
        column values, $p(y, x_m \mid x_o) = p(y \mid x_o)\,p(x_m \mid x_o, y)$: the
        class from its posterior given the given values (unless ``y`` fixes it), then the
        other columns from the class density conditioned on them, the algebra that
        integrates out missing features (`impute` with ``method="sample"``). No row is
        rejected, so a rare condition costs no more than a common one, and every row
        holds the given values.

        Parameters
        ----------
        n_samples : int, default=1
            Number of rows (ignored when ``y`` is an array of labels).
        y : label or array-like of labels, optional
            Generate given these classes: one label for all rows, or one per row.
        given : dict, optional
            Column values to condition on: ``{column: value}`` (the same for every row) or
            ``{column: sequence of values}`` (one per row). Columns are the training
            column names for a model fitted on a DataFrame, else positions ``0, 1, ...``.
        support : {"model", "training"}, default="model"
            ``"model"``: the model's own law, which may reach where no training value was
            (a Gaussian column below 0); a draw below 0 in a column whose training values
            were all non-negative is reported by an ``OutsideTrainingRangeWarning``.
            ``"training"``: each class's law truncated to the training range of every
            numeric column (``data_min_`` to ``data_max_``): the labels are drawn as
            always (from ``class_prior_``, or given), and a row that leaves the range is
            drawn again given its class, so the class shares stay the model's. Exact, and
            fast where the model puts most of a class's mass inside the range. A column
            whose training values were all one value holds that value (the limit of the
            law truncated to ever narrower ranges around it).
        missing : {None, "training"}, default=None
            None: complete rows. ``"training"``: each drawn cell of column ``j`` is then
            left missing, independently, with that column's missing rate in training
            (``n_missing_ / n_samples_seen_``), so the rows have the training table's
            gaps, column by column (missing completely at random; the given columns are
            never missing). The cells kept are those of the complete rows drawn with the
            same ``random_state``. Numbers come back as floats with NaN (unless no
            column had a missing cell).
        rounding : {None, "training"}, default=None
            None: the model's own values. ``"training"``: each numeric column's drawn
            values moved to the nearest point of the grid its training values were
            recorded on, ``data_min_ + k * data_step_`` written with
            ``data_decimals_`` decimals (whole millimetres, cents, multiples of 25 g;
            `bayesgen.recorded_grid`), as SDV's ``enforce_rounding`` does; a column on no
            grid of at most 10 decimals, and the given columns, are left as drawn. With
            ``support="training"`` the rounded rows stay inside the range (its ends are
            the grid's).
        random_state : None, int or numpy.random.RandomState
            The same value gives the same rows.
        method : {"numpy", "story"}, default="numpy"
            ``"numpy"``: the family's own NumPy draws where it has them. ``"story"``: the
            fitted parameters substituted into `story` and drawn by NumPyro's
            ``Predictive`` with JAX's random stream; the same law, slower to start.

        Returns
        -------
        X : ndarray or DataFrame of shape (n_samples, n_features)
            Floats for Gaussian features, integers for counts and 0/1 features, the
            original values for categories. A DataFrame with the training column names and
            dtypes when the model was fitted on one (integers stay integers, categories
            stay categories).
        y : ndarray of shape (n_samples,)
            Labels from ``classes_``.

        Raises
        ------
        ValueError
            If ``n_samples < 1``, ``y`` holds a label not in ``classes_``, ``method`` is
            not one of the two (or ``"story"`` with ``given``), ``given`` names a column
            the model does not have, holds a missing value or one its column cannot take,
            or the given values have probability zero under the model (under every class,
            or under the class ``y`` names); with ``support="training"``, when a given
            value lies outside its column's training range, or the model's mass inside the
            range is so small that `bayesgen.training_range.DRAW_BUDGET` times the rows
            drawn still leave some outside; for another ``missing`` or ``rounding``, or
            ``"training"`` on a model that did not record its missing cells or grids.
        MemoryError
            Before drawing, if the rows would not fit in the memory available, naming the
            size.

        Notes
        -----
        Safe to call from many threads.
        """
        return self._sample(
            n_samples,
            y,
            random_state,
            method,
            {},
            given=given,
            support=support,
            missing=missing,
            rounding=rounding,
        )

    def _sample(
        self,
        n_samples,
        y,
        random_state,
        method: str,
        options: dict,
        given=None,
        support="model",
        missing=None,
        rounding=None,
    ):
        """`sample`, with ``options`` for the family's draws and the story (``lengths``)."""
        check_is_fitted(self)
        if method not in SAMPLE_METHODS:
            raise ValueError(f"method must be one of {SAMPLE_METHODS}; got {method!r}.")
        if support not in SUPPORTS:
            raise ValueError(f"support must be one of {SUPPORTS}; got {support!r}.")
        if missing not in MISSING:
            raise ValueError(f"missing must be one of {MISSING}; got {missing!r}.")
        if rounding not in ROUNDING:
            raise ValueError(f"rounding must be one of {ROUNDING}; got {rounding!r}.")
        if rounding is not None and not hasattr(self, "data_decimals_"):
            raise ValueError(
                "rounding='training' needs the grid each column was recorded on, which this "
                "model did not record (read from a model file written before grids were "
                "kept, or made by from_statistics); fit it again, or use rounding=None "
                "(--rounding none on the command line)."
            )
        sample_args = (n_samples, y, random_state, method, options, given, support, rounding)
        if missing is None:
            return self._complete_sample(*sample_args)
        if not hasattr(self, "n_missing_"):
            raise ValueError(
                "missing='training' needs each column's missing cells in training, which "
                "this model did not count (read from a model file written before they were "
                "kept, or made by from_statistics); fit it again, or draw complete rows "
                "(missing=None; --missing none on the command line)."
            )
        state = check_random_state(random_state)  # the rows first, then the gaps
        X, drawn = self._complete_sample(
            n_samples, y, state, method, options, given, support, rounding
        )
        kept = () if given is None else list(self._given_rows(given, len(drawn))[1])
        rates = self.n_missing_ / max(self.n_samples_seen_, 1)
        return with_missing_cells(X, rates, sampling.numpy_generator(state), kept), drawn

    def _complete_sample(
        self, n_samples, y, random_state, method, options, given, support, rounding
    ):
        """`sample`'s rows with no missing cell."""
        n_features = getattr(self, "n_features_in_", 1)
        rows, labels = sampling.labels_to_draw(self.classes_, n_samples, y, n_features)
        if given is not None and method != "numpy":
            raise ValueError(
                "given draws from the model's exact conditional law in NumPy; "
                f"method={method!r} does not apply (use method='numpy')."
            )
        held = () if given is None else list(self._given_rows(given, rows)[1])
        if support == "model":
            X, drawn = self._draw_rows(rows, labels, random_state, method, options, given)
            X = self._rounded(X, rounding, held)
            if hasattr(self, "data_min_"):
                training_range.warn_negative(X, self.data_min_, self._column_names(), held)
            return X, drawn
        low, high = self._training_range(given, rows)
        rng = sampling.numpy_generator(random_state)
        fixed = {"labels": labels}  # the first round's labels, kept by the later ones

        def draw(positions):
            kept = fixed["labels"]
            X, drawn = self._draw_rows(
                positions.size,
                None if kept is None else kept[positions],
                int(rng.integers(2**31 - 1)),
                method,
                _at_rows(options, positions, rows),
                None if given is None else _at_rows(given, positions, rows),
            )
            if kept is None:  # the first round: every row's class
                fixed["labels"] = np.asarray(drawn)
            return X, drawn

        X, drawn = training_range.within(draw, rows, low, high)
        return self._rounded(X, rounding, held), drawn

    def _rounded(self, X, rounding, held):
        """Drawn rows ``X`` on each column's recorded grid where ``rounding`` asks
        (`sample`), the ``held`` column positions (given values) left."""
        if rounding is None:
            return X
        grid = (self.data_min_, self.data_max_, self.data_decimals_, self.data_step_)
        return recorded_grid.on_grid(X, *grid, held)

    def _training_range(self, given, rows: int):
        """``(data_min_, data_max_)``, checked to hold the given values."""
        if not hasattr(self, "data_min_"):
            raise ValueError(
                "support='training' needs the training range, which this model did not "
                "record (read from a model file written before ranges were kept, or made "
                "by from_statistics); fit it again, or use support='model'."
            )
        low, high = self.data_min_, self.data_max_
        if given is not None:
            partial, _ = self._given_rows(given, rows)
            outside = training_range.cells_outside(partial, low, high)
            if outside.any():
                column = int(np.flatnonzero(outside.any(axis=0))[0])
                names = self._column_names()
                name = column if names is None else names[column]
                raise ValueError(
                    f"given[{name!r}] lies outside that column's training range "
                    f"[{low[column]:g}, {high[column]:g}], which support='training' keeps "
                    "to; use support='model' to draw given it."
                )
        return low, high

    def _draw_rows(self, rows: int, labels, random_state, method: str, options: dict, given):
        """``rows`` rows of the model's own law (given ``labels`` and ``given`` values)."""
        if given is not None:
            return self._sample_given(rows, labels, given, random_state)
        draws = None
        if method == "numpy":
            rng = sampling.numpy_generator(random_state)
            classes, probabilities = self.classes_, self.class_prior_
            try:
                draws = sampling.numpy_draws(
                    classes, probabilities, self._draw_features, rows, labels, rng, options
                )
            except NoClosedForm:
                draws = None  # the story draws instead
        if draws is None:
            sites = self._sampling_sites()
            if self._story_class_prior()["fixed_class_prior"] is None:
                sites = {"class_prior": self.class_prior_, **sites}
            key = sampling.random_key(random_state)
            draws = sampling.story_draws(self.story, sites, rows, labels, key, **options)
        X = self._features_from_draws(draws)
        schema = getattr(self, "_training_columns", None)
        if schema is not None and isinstance(X, np.ndarray):  # fitted on a DataFrame
            X = as_training_frame(X, schema)
        drawn = labels if labels is not None else self.classes_[draws["y"]]
        return X, np.asarray(drawn)

    def _column_names(self):
        """The training column names (a DataFrame's, text or not), or None."""
        names = getattr(self, "feature_names_in_", None)
        schema = getattr(self, "_training_columns", None)
        if names is None and schema is not None:
            names = [column["name"] for column in schema]
        return names

    def _given_rows(self, given, rows: int):
        """`bayesgen.conditioning.given_rows` for this model's columns, the given values
        checked against its text categories."""
        partial, resolved = conditioning.given_rows(
            given,
            rows,
            n_features=self.n_features_in_,
            names=getattr(self, "feature_names_in_", None),
            schema=getattr(self, "_training_columns", None),
        )
        categories = conditioning.known_categories(self._feature_family())
        conditioning.check_category_types(resolved, categories)
        return partial, resolved

    def _sample_given(self, rows: int, labels, given, random_state):
        """`sample` given column values: the class from $p(k \\mid x_o)$ (or ``labels``),
        then the other columns from the family's conditional given the class."""
        partial, resolved = self._given_rows(given, rows)
        try:
            log_joint = self.predict_joint_log_proba(partial)
        except (TypeError, ValueError) as error:
            raise ValueError(f"given: {error}") from error
        rng = sampling.numpy_generator(random_state)
        log_prior = np.log(self.class_prior_)
        unscored = np.isneginf(log_joint.max(axis=1))
        if labels is None and unscored.any():  # far out in every tail: the limit, if any
            limit = self._limit_log_posterior(partial, unscored, log_prior)
            if limit is not None:
                log_joint = log_joint.copy()
                log_joint[unscored] = limit
        if labels is None:
            classes = None
            if not np.isneginf(log_joint.max(axis=1)).any():
                weights = np.exp(normalise(log_joint, log_prior))
                classes = class_prior.draw_classes(weights, rng)
        else:
            classes = np.asarray(self._class_index(labels))
            if np.isneginf(log_joint[np.arange(rows), classes]).any():
                classes = None
        if classes is None:
            under = "every class" if labels is None else "the class y names"
            columns = [key for key, _ in resolved.values()]
            raise ValueError(
                f"the given values of {columns} have probability zero (or too small to "
                f"represent) under {under}, so the model has no law given them."
            )
        drawn = self.classes_[classes]
        seed = rng.integers(2**31 - 1)
        try:
            with scoring_rows():  # rows to fill, not to fit: no check of fit statistics
                X = self.impute(partial, method="sample", y=drawn, random_state=seed)
        except (TypeError, ValueError) as error:
            raise ValueError(f"given: {error}") from error
        X = self._as_drawn_rows(X)
        conditioning.check_held(X, resolved)
        return X, drawn

    def _as_drawn_rows(self, X):
        """Filled rows as `sample` returns its rows: the training columns and dtypes of a
        model fitted on a DataFrame, integers for a family that draws integers."""
        schema = getattr(self, "_training_columns", None)
        if schema is not None:
            frame = X if isinstance(X, pd.DataFrame) else pd.DataFrame(X)
            return as_training_frame(
                [frame.iloc[:, j].to_numpy() for j in range(len(schema))], schema
            )
        family = self._feature_family()
        while getattr(family, "leaf", None) is not None:  # a mixture draws as its leaf
            family = family.leaf
        draws_integers = type(family).features_from_draws is FeatureFamily.features_from_draws
        if draws_integers and np.asarray(X).dtype.kind == "f":
            return np.rint(X).astype(np.int64)
        return np.asarray(X)

    def impute(self, X, *, method="mean", y=None, random_state=None, n_imputations=None):
        """Fill the missing (NaN) entries of ``X`` from the model; observed ones are kept.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        method : {"mean", "sample"}, default="mean"
            ``"mean"``: continuous features get $\\mathbb E[x_m \\mid x_o]$, the
            class-conditional means mixed over $p(k \\mid x_o)$; discrete features
            get their most probable value under that mixture. ``"sample"``: a draw of the
            class, then of the missing entries given the class and the observed ones.
        y : array-like of shape (n_samples,), optional
            Known labels to condition on instead of mixing over the classes.
        random_state : None, int or numpy.random.RandomState
            For ``method="sample"``.
        n_imputations : int, optional
            Multiple imputation (``method="sample"`` only): this many completed copies,
            each under its own draw of the parameters from their posterior, so that the
            spread between copies includes the parameter uncertainty (the
            between-imputation variance of Rubin's rules). A model fitted on rows with
            missing entries has no closed-form posterior; its draws then come from data
            augmentation over the rows of ``X`` (and ``y``), so pass the training rows.
            Here ``y`` may mark rows without a label by -1 (or None).
            See `bayesgen.estimators.multiple_imputation`.

        Returns
        -------
        ndarray of shape (n_samples, n_features), or (n_imputations, n_samples, n_features)
            The latter when ``n_imputations`` is given. For a DataFrame ``X``, a DataFrame
            with its index and columns (each keeping its dtype where the filled values fit
            it), or a list of ``n_imputations`` of them.

        Raises
        ------
        ValueError
            For an unknown ``method``, ``n_imputations < 1``, or ``n_imputations`` with
            ``method="mean"``.
        """
        if n_imputations is None:
            return self._impute_once(X, method, y, random_state)
        multiple_imputation.check_n_imputations(n_imputations)
        if method != "sample":
            raise ValueError(
                f"n_imputations needs method='sample' (copies differ only by their draws); "
                f"got method={method!r}."
            )
        return multiple_imputation.multiple_imputations(
            self, X, n_imputations, y=y, random_state=random_state
        )

    def _impute_once(self, X, method, y, random_state, value=None):
        """One completed copy of ``X``: the family's fill given the class weights (the
        posterior $p(k \\mid x_o)$, or the known labels), observed entries kept; under
        ``value`` (a posterior draw, `bayesgen.joint.with_params`) instead of ``joint_``
        where given."""
        check_is_fitted(self)
        imputation.check_method(method)
        given = X  # predict_proba checks feature names of a DataFrame against the fit's
        X = self._check_X(X, reset=False)
        X = np.array(X.toarray() if sp.issparse(X) else X, copy=True)
        if y is None:
            class_weights = (
                self.predict_proba(given) if value is None else self._posterior_under(value, given)
            )
        else:
            labels = np.asarray(y)
            if labels.shape != (X.shape[0],):
                raise ValueError(
                    f"y must have one label per row of X, shape ({X.shape[0]},); got "
                    f"{labels.shape}."
                )
            class_weights = imputation.label_weights(self._class_index(y), len(self.classes_))
        rng = sampling.numpy_generator(random_state)
        params = (self.joint_ if value is None else value).params
        filled = imputation.keep_observed(
            X, self._impute_rows(X, class_weights, method, rng, params)
        )
        if isinstance(given, pd.DataFrame):  # the table back, its index and dtypes kept
            return with_filled_cells(given, dict(enumerate(np.asarray(filled).T)))
        return filled

    @available_if(_has_density)
    def tail_probability(self, X, *, n_draws=4000, random_state=None):
        """Novelty on one scale for every missing pattern: how unusual each row is.

        The probability, under the fitted model, that a row with the same entries observed
        is at least as unusual (no more probable) as this one:

        $$
        t(x) = P\\bigl(\\log p(X_o) \\le \\log p(x_o)\\bigr), \\qquad
        X \\sim \\textstyle\\sum_k \\pi_k\\, p(x \\mid k),
        $$

        where $o$ is the row's set of observed entries and $\\log p(x_o)$ is
        `score_samples`. Unlike $\\log p(x_o)$, whose scale changes with the number of
        observed entries, $t$ is uniform on (0, 1) under the model for every pattern, so
        one threshold (``tail_probability(X) < 0.01``) flags the same share of ordinary
        rows whatever they miss. It is estimated from ``n_draws`` rows drawn from the
        model (Monte Carlo error about $\\sqrt{t(1-t)/N}$), as a rank with random tie
        breaks that keeps it exactly uniform for discrete features too; see
        ``docs/novelty.md`` and `bayesgen.inference.novelty`.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Missing entries are NaN (or None for categories).
        n_draws : int, default=4000
            Rows drawn from the model as the reference.
        random_state : None, int or numpy.random.RandomState
            Seeds the reference rows and the tie breaks; the same value gives the same
            result.

        Returns
        -------
        ndarray of shape (n_samples,)
            In (0, 1]; small values are novel. A row with every entry missing gets 1.

        Raises
        ------
        ValueError
            For the input `score_samples` refuses (±inf, wrong number of features), or
            ``n_draws < 1``.
        """
        check_is_fitted(self)
        density = novelty.Density(
            score=self.score_samples,
            sample=self._reference_rows,
            as_input=self._as_input,
            stratum=getattr(self, "_tail_stratum", None),
            reference=getattr(self, "_tail_reference", None),
            observed_values=getattr(self, "_observed_values", None),
        )
        return novelty.tail_probability(density, X, n_draws=n_draws, random_state=random_state)

    def _reference_rows(self, n_rows: int, seed) -> np.ndarray:
        """Rows of the model's own law, the reference of `tail_probability` (no warning
        for rows outside the training range: they are the law's)."""
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", training_range.OutsideTrainingRangeWarning)
            return self.sample(n_rows, random_state=seed)[0]

    def _as_input(self, values: np.ndarray):
        """``values`` as this model takes them: a DataFrame with its columns if fitted on one."""
        names = getattr(self, "feature_names_in_", None)
        if names is None:
            return values
        import pandas as pd

        return pd.DataFrame(values, columns=names)

    def _features_from_draws(self, draws: dict):
        """The features of the story's draws, as ``sample`` returns them."""
        return self._feature_family().features_from_draws(draws)

    def _impute_rows(self, X, class_weights, method, rng, params):
        """The family's fill of the missing entries of ``X`` given the class weights under
        ``params``, observed entries kept (an object array where the fill's type differs)."""
        family = self._feature_family()
        filled = family.decode(
            family.conditional(params, family.encode(X), class_weights, method, rng)
        )
        if filled.dtype == X.dtype:
            return filled
        missing = missing_entries(X)
        kept = X.astype(object)
        kept[missing] = filled[missing]
        return kept

    def _story_class_prior(self) -> dict:
        """The class-prior arguments of a story: its Dirichlet, or the fixed probabilities."""
        fixed, concentration, _ = self._class_prior_settings()
        n_classes = self.classes_.shape[0]
        return {
            "class_prior": class_prior.Dirichlet(jnp.full(n_classes, concentration)),
            "fixed_class_prior": None if fixed is None else jnp.asarray(self.class_prior_),
        }
