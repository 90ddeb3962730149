"""The uses of a fitted joint beyond classification: story, synthetic rows, imputation, novelty.

A mixin of `bayesgen.estimators.base.GenerativeClassifier`, kept apart so that each
file holds one idea: each use is a function of the family and the fitted value ``joint_``
(`bayesgen.stories.fitted`, `bayesgen.inference.synthetic_rows`, the family's conditional
fill), and the estimator checks the input. It relies on the classifier's ``classes_``,
``_check_X``, ``_fit_settings``, ``_feature_family`` and ``score_samples``.
"""

from __future__ import annotations

import functools
import warnings

import numpy as np
import pandas as pd
import scipy.sparse as sp
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import check_consistent_length, check_is_fitted

from bayesgen import training_range
from bayesgen.estimators import multiple_imputation
from bayesgen.frames import with_filled_cells
from bayesgen.inference import imputation, novelty, sampling, synthetic_rows
from bayesgen.validation import check_count, scoring_rows


def _has_density(estimator) -> bool:
    """A tail probability needs the density ``score_samples`` (complement NB has none)."""
    return hasattr(estimator, "score_samples")


class GenerativeUses:
    """``story``, ``sample``, ``impute`` and ``tail_probability``, written once for every family."""

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
        if X is not None and y is not None:
            check_consistent_length(X, y)
        if n_samples is not None:
            check_count(n_samples, "n_samples")
            given = next((len(rows) for rows in (y, X) if rows is not None), n_samples)
            if given != n_samples:
                raise ValueError(
                    f"n_samples={n_samples} but X or y has {given} rows: n_samples is the "
                    "number of rows to draw when neither is given; pass one or the other."
                )
        self._run_story(X, y, self._story_part(), n_samples)

    def _run_story(self, X, y, part, n_samples):
        """The fitted story with ``part``, observing the checked rows ``X`` and labels ``y``."""
        from bayesgen.stories import fitted  # NumPyro: only when a story runs

        if X is not None:
            X = self._check_X(X, reset=False)
        rule = self._fit_settings().class_prior
        fitted.fitted_story(self._feature_family(), self.joint_, rule, part, X, y, n_samples)

    def _story_part(self, **options):
        """The family's part of the story under the fitted prior (`bayesgen.stories.fitted`)."""
        from bayesgen.stories import fitted

        return fitted.fitted_part(
            self._feature_family(), self.joint_, self.n_features_in_, **options
        )

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

    def _sample(self, n_samples, y, random_state, method: str, options: dict, **requests):
        """`sample`, with ``options`` for the family's draws and the story (``lengths``), and
        the ``given``, ``support``, ``missing`` and ``rounding`` ``requests``."""
        check_is_fitted(self)
        source = self._row_source()
        return synthetic_rows.sample(
            source, n_samples, y, random_state, method, options, **requests
        )

    def _row_source(self) -> synthetic_rows.RowSource:
        """This model as `bayesgen.inference.synthetic_rows` draws from it: its family and
        value, its columns, and the uses of rows given some column values, checked as its
        input is."""
        return synthetic_rows.RowSource(
            family=self._feature_family(),
            value=self.joint_,
            n_features=getattr(self, "n_features_in_", 1),
            names=getattr(self, "feature_names_in_", None),
            schema=getattr(self, "_training_columns", None),
            story=self.story,
            fixed_class_prior=self._fit_settings().class_prior.fixed is not None,
            features_from_draws=self._features_from_draws,
            joint_log_proba=self.predict_joint_log_proba,
            limit_log_posterior=self._limit_log_posterior,
            impute=self._impute_given,
        )

    def _impute_given(self, partial, labels, seed):
        """Rows with some columns given, the others drawn given the classes ``labels``."""
        with scoring_rows():  # rows to fill, not to fit: no check of fit statistics
            return self.impute(partial, method="sample", y=labels, random_state=seed)

    def _features_from_draws(self, draws: dict):
        """The features of the story's draws, as ``sample`` returns them."""
        return self._feature_family().features_from_draws(draws)

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
            between-imputation variance of Rubin's rules). A model whose fit has no
            closed-form posterior (fitted with unlabelled rows, or a gappy model file
            written before fits kept their rows) draws them by data augmentation over the
            rows of ``X`` (and ``y``) under its fitted prior, so pass the training rows.
            Here ``y`` may mark rows without a label by the model's ``unlabeled_marker``
            (default -1), None or NaN.
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

    def _impute_once(self, X, method, y, random_state):
        """One completed copy of ``X``: the family's fill given the class weights (the
        posterior $p(k \\mid x_o)$, or the known labels), observed entries kept."""
        check_is_fitted(self)
        imputation.check_method(method)
        rows = self._rows_to_fill(X)
        if y is None:
            # predict_proba checks a DataFrame's feature names against the fit's.
            class_weights = self.predict_proba(X)
        else:
            class_weights = imputation.known_label_weights(self.classes_, y, len(rows))
        rng = sampling.numpy_generator(random_state)
        filled = imputation.conditional_fill(
            self._feature_family(), self.joint_.params, rows, class_weights, method, rng
        )
        return self._filled_copy(X, rows, filled)

    def _rows_to_fill(self, X):
        """The checked rows of ``X`` as the family fills them: a dense copy."""
        X = self._check_X(X, reset=False)
        return np.array(X.toarray() if sp.issparse(X) else X, copy=True)

    def _filled_copy(self, given, rows, filled):
        """What ``impute`` returns for ``given`` from the family's fill ``filled`` of its
        checked ``rows``: the observed entries as given, a DataFrame back as one (its index
        and dtypes kept)."""
        filled = imputation.with_observed(rows, filled)
        if isinstance(given, pd.DataFrame):
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
            as_input=functools.partial(_as_input, getattr(self, "feature_names_in_", None)),
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


def _as_input(names, values: np.ndarray):
    """``values`` as a model with training column ``names`` takes them: a DataFrame with
    those columns if it was fitted on one."""
    return values if names is None else pd.DataFrame(values, columns=names)
