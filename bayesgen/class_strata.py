r"""``ClassStrata``: a table's classes each modelled on their own rows.

The story is the class model's with nothing shared between classes:

$$
y \sim \mathrm{Categorical}(\pi), \qquad x \mid y = k \sim p_k(x),
$$

with $\pi$ the classes' shares of the training rows and $p_k$ a `bayesgen.LatentClassNB`
fitted on class $k$'s rows alone. What a model learns from its rows before it fits (a
Gaussian copula's map of each column to normal scores, a histogram's cells, a column's
categories, its training range) is then the class's own. A map learned from every row bends
a class that occupies part of a column's range, and attenuates the dependence within it (the
penguins' species: `TableSynthesizer`'s copula treatment).

Conditional draws are exact as the class model's are: the class of a row given the values
$x_o$ is drawn from $p(k \mid x_o) \propto \pi_k\, p_k(x_o)$ (each $p_k(x_o)$ with the
other columns integrated out), then the rest of the row from $p_k(x_m \mid x_o)$. With
``support="training"`` the class models draw from their laws truncated to each class's
training range, and the class keeps the weight $\pi_k\,p_k(x_o)$ of its untruncated law
wherever its range holds the given values (0 elsewhere), as `bayesgen.LatentClassNB`
keeps its class shares under truncation: exact where a class's mass lies inside its range.

A column a class never observed is missing in every row of that class: its drawn rows
leave it missing, and a row with a value there (given, or scored) has probability zero
under that class. (Leaving such an entry out of the class's density, as a missing one is,
would weigh a probability of 1 against the other classes' densities, so that the class's
share of rows given a value would depend on the column's units.)
"""

from __future__ import annotations

import numbers

import numpy as np
import pandas as pd
from scipy.special import softmax
from sklearn.base import BaseEstimator
from sklearn.utils.validation import check_is_fitted

from bayesgen import conditioning
from bayesgen.estimators.latent_class_nb import LatentClassNB
from bayesgen.frames import column_schema


class ClassStrata(BaseEstimator):
    """One `bayesgen.LatentClassNB` per class, each fitted on its class's rows alone.

    A generator (``fit``, ``sample``, ``predict_joint_log_proba``) for tables whose classes
    need their own learned column maps (module docstring); `bayesgen.TableSynthesizer`
    uses it for its Gaussian copula treatment.

    Parameters
    ----------
    features : dict, optional
        ``LatentClassNB``'s ``features=``, the same for every class.
    n_components : int, default=1
        Components of every class's mixture.
    max_iter : int, default=200
        Most EM iterations of each class's fit.
    tol : float, default=1e-6
        Each class's EM stops when its objective changes by at most ``tol`` times its
        size.
    estimate : {"map", "mle", "mean"}, default="map"
        The components' point estimate, as in ``LatentClassNB``.
    random_state : int, default=0
        Seeds each class's fit.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    class_prior_ : ndarray of shape (n_classes,)
        Each class's share of the training rows.
    models_ : list of LatentClassNB
        Class ``classes_[k]``'s model, fitted on its rows with every label 0, over the
        columns it observed.
    observed_columns_ : list of list
        The columns each class has an observed value of; the others are missing in its
        drawn rows and impossible in its density (module docstring).
    """

    def __init__(
        self,
        *,
        features=None,
        n_components=1,
        max_iter=200,
        tol=1e-6,
        estimate="map",
        random_state=0,
    ):
        self.features = features
        self.n_components = n_components
        self.max_iter = max_iter
        self.tol = tol
        self.estimate = estimate
        self.random_state = random_state

    def fit(self, X, y):
        """Fit each class's model on its rows.

        Parameters
        ----------
        X : pandas.DataFrame of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
            The class of each row (no missing labels).

        Returns
        -------
        self

        Raises
        ------
        ValueError
            For an ``X`` that is not a DataFrame or a ``y`` of another length, naming them,
            and as `bayesgen.LatentClassNB.fit` refuses a class's rows.
        """
        if not isinstance(X, pd.DataFrame):
            raise ValueError(f"X must be a pandas DataFrame; got {type(X).__name__}.")
        labels = np.asarray(y)
        if labels.shape != (len(X),):
            raise ValueError(
                f"y must hold one label per row of X ({len(X)}); got shape {labels.shape}."
            )
        missing = pd.isna(labels)
        if missing.any():
            raise ValueError(
                f"y has {int(missing.sum())} missing labels (None or NaN); every row needs "
                "its class."
            )
        unknown = [column for column in self.features or {} if column not in X.columns]
        if unknown:
            raise ValueError(
                f"features names columns {unknown} that X does not have (columns: "
                f"{list(X.columns)})."
            )
        self.classes_, index, counts = np.unique(labels, return_inverse=True, return_counts=True)
        self.class_prior_ = counts / counts.sum()
        self.observed_columns_ = [
            [column for column in X.columns if X[column][index == k].notna().any()]
            for k in range(counts.size)
        ]
        self.models_ = [
            LatentClassNB(
                features=None
                if self.features is None
                else {c: f for c, f in self.features.items() if c in columns},
                n_components=self.n_components,
                max_iter=self.max_iter,
                tol=self.tol,
                estimate=self.estimate,
                random_state=self.random_state,
            ).fit(X.loc[index == k, columns], np.zeros(int(count), dtype=np.int64))
            for k, (count, columns) in enumerate(zip(counts, self.observed_columns_, strict=True))
        ]
        self._ranges = [_numeric_ranges(X[index == k]) for k in range(counts.size)]
        self._schema = column_schema(X.iloc[:0])
        self._empty = X.iloc[:0]  # each column's training dtype, for the columns drawn by none
        self._columns = list(X.columns)
        return self

    def predict_joint_log_proba(self, X) -> np.ndarray:
        r"""$\log \pi_k + \log p_k(x)$ of each row under each class (missing entries
        integrated out).

        Parameters
        ----------
        X : pandas.DataFrame of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
        """
        check_is_fitted(self, "models_")
        if not isinstance(X, pd.DataFrame):
            raise ValueError(f"X must be a pandas DataFrame; got {type(X).__name__}.")
        absent = [column for column in self._columns if column not in X.columns]
        if absent:
            raise ValueError(f"X lacks the columns {absent} of the fit.")
        return np.column_stack(
            [
                np.log(prior) + self._class_log_likelihood(k, X)
                for k, prior in enumerate(self.class_prior_)
            ]
        )

    def _class_log_likelihood(self, k: int, X: pd.DataFrame) -> np.ndarray:
        """$\\log p_k(x)$ over the columns class ``k`` observed; $-\\infty$ for a row with
        a value in a column it never observed."""
        columns = self.observed_columns_[k]
        scores = self.models_[k].score_samples(X[columns])
        unobserved = [column for column in self._columns if column not in columns]
        if unobserved:
            scores = np.where(X[unobserved].notna().any(axis=1).to_numpy(), -np.inf, scores)
        return scores

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
    ):
        """Rows of the story: each row's class, then the row from that class's model.

        Parameters
        ----------
        n_samples : int, default=1
            Rows to draw (ignored when ``y`` holds one label per row).
        y : label or array-like of labels, optional
            The rows' class: one label for all, or one per row. By default drawn from
            ``class_prior_``, or given ``given`` from $p(k \\mid x_o)$ (module docstring).
        given : dict, optional
            Column values to condition on, as `bayesgen.LatentClassNB.sample`.
        support, missing, rounding
            As `bayesgen.LatentClassNB.sample`, each class within its own training range,
            missing rates and grids.
        random_state : None or int
            The same value gives the same rows.

        Returns
        -------
        X : pandas.DataFrame of shape (n_samples, n_features)
        y : ndarray of shape (n_samples,)

        Raises
        ------
        ValueError
            For a label not in ``classes_``, ``n_samples`` below 1, or given values that no
            class can hold (probability zero, or outside every class's training range
            with ``support="training"``); and as the class models refuse their arguments.
        """
        check_is_fitted(self, "models_")
        rng = np.random.default_rng(random_state)
        labels, resolved = self._labels(n_samples, y, given, support, rng)
        parts = []
        for k, model in enumerate(self.models_):
            rows = np.flatnonzero(labels == self.classes_[k])
            if rows.size == 0:
                continue
            unseen = [c for c in resolved if c not in self.observed_columns_[k]]
            if unseen:  # only where y names the class: the draw of classes never does
                raise ValueError(
                    f"class {self.classes_[k]!r} has no observed value of column "
                    f"{unseen[0]!r} in training, so its rows cannot hold given[{unseen[0]!r}]."
                )
            drawn, _ = model.sample(
                rows.size,
                given={c: v[rows] for c, v in resolved.items()} or None,
                support=support,
                missing=missing,
                rounding=rounding,
                random_state=int(rng.integers(2**31 - 1)),
            )
            parts.append(pd.DataFrame(drawn).set_axis(rows, axis=0))
        frame = pd.concat(parts).sort_index().reset_index(drop=True)
        for column in self._columns:  # missing in every row drawn: no drawn class observed it
            if column not in frame.columns:
                frame[column] = self._empty[column].reindex(frame.index)
        return frame[self._columns], labels

    def _labels(self, n_samples, y, given, support, rng):
        """The rows' labels, and ``given`` as ``{column: one value per row}``."""
        labels = None
        if y is not None:
            labels = np.asarray(y)
            if labels.ndim == 0:  # repeated as it is, not cast to the classes' dtype
                labels = np.repeat(labels[None], _row_count(n_samples))
            if labels.ndim != 1 or labels.size == 0:
                raise ValueError(
                    f"y must be one label or a 1-D sequence of labels; got shape {labels.shape}."
                )
            unknown = ~np.isin(labels, self.classes_)
            if unknown.any():
                raise ValueError(
                    f"y must name classes among {self.classes_.tolist()}; got "
                    f"{pd.unique(labels[unknown])[:5].tolist()}."
                )
        n_rows = _row_count(n_samples) if labels is None else labels.size
        if given is None:
            partial, resolved = None, {}
        else:
            partial, resolved = conditioning.given_rows(
                given,
                n_rows,
                n_features=len(self._columns),
                names=self._columns,
                schema=self._schema,
            )
        by_name = {key: values for key, values in resolved.values()}
        if labels is not None:
            return labels, by_name
        log_weights = np.broadcast_to(np.log(self.class_prior_), (n_rows, self.classes_.size))
        if partial is not None:
            log_weights = log_weights + self._given_log_likelihood(partial, resolved, support)
            impossible = np.isneginf(log_weights).all(axis=1)
            if impossible.any():
                ranges = " inside its training range" if support == "training" else ""
                raise ValueError(
                    f"given has probability zero under every class{ranges} at row "
                    f"{int(np.flatnonzero(impossible)[0])}; no row can hold it."
                )
        weights = softmax(np.asarray(log_weights, dtype=np.float64), axis=1)
        draws = (weights.cumsum(axis=1) < rng.random((n_rows, 1))).sum(axis=1)
        return self.classes_[np.minimum(draws, self.classes_.size - 1)], by_name

    def outside_ranges(self, X) -> np.ndarray:
        """Whether each row holds a number outside each class's training range (or in a
        numeric column the class never observed): the classes that cannot hold the row
        where draws keep to each class's range (``support="training"``).

        Parameters
        ----------
        X : pandas.DataFrame
            Rows in the training columns; missing entries hold nothing.

        Returns
        -------
        ndarray of bool, shape (n_samples, n_classes)
        """
        check_is_fitted(self, "models_")
        outside = np.zeros((len(X), len(self.models_)), dtype=bool)
        for name in X.columns:
            if any(name in class_ranges for class_ranges in self._ranges):
                numbers_ = X[name].to_numpy(dtype=np.float64, na_value=np.nan)
                outside |= self._outside(name, numbers_) & ~np.isnan(numbers_)[:, None]
        return outside

    def _outside(self, name, numbers_: np.ndarray) -> np.ndarray:
        """Whether each of ``numbers_`` lies outside each class's training range of column
        ``name`` (every number, for a class that never observed it)."""
        outside = np.ones((numbers_.size, len(self._ranges)), dtype=bool)
        for k, class_ranges in enumerate(self._ranges):
            bounds = class_ranges.get(name)
            if bounds is not None:
                outside[:, k] = (numbers_ < bounds[0]) | (numbers_ > bounds[1])
        return outside

    def _given_log_likelihood(self, partial, resolved, support) -> np.ndarray:
        """$\\log p_k(x_o)$ of the given rows under each class, over the columns the class
        observed ($-\\infty$ with a value in another); $-\\infty$ for a class whose training
        range excludes a given number when the draws keep to it."""
        scores = np.column_stack(
            [self._class_log_likelihood(k, partial) for k in range(len(self.models_))]
        )
        if support != "training":
            return scores
        for position, (key, values) in resolved.items():
            name = self._columns[position]
            ranges = [class_ranges.get(name) for class_ranges in self._ranges]
            if all(bounds is None for bounds in ranges):
                continue  # not a numeric column
            numbers_ = np.asarray(values, dtype=np.float64)
            outside = self._outside(name, numbers_)
            if outside.all(axis=1).any():
                low = min(bounds[0] for bounds in ranges if bounds is not None)
                high = max(bounds[1] for bounds in ranges if bounds is not None)
                raise ValueError(
                    f"given[{key!r}] = {numbers_[outside.all(axis=1)][0]:g} lies outside every "
                    f"class's training range of that column (together [{low:g}, {high:g}]), "
                    "which support='training' keeps to; use support='model' to draw given it."
                )
            scores[outside] = -np.inf
        return scores


def _row_count(n_samples) -> int:
    if isinstance(n_samples, bool) or not isinstance(n_samples, numbers.Integral) or n_samples < 1:
        raise ValueError(f"n_samples must be an integer >= 1; got {n_samples!r}.")
    return int(n_samples)


def _numeric_ranges(X: pd.DataFrame) -> dict:
    """Each numeric column with an observed value -> its (least, greatest) value."""
    ranges = {}
    for column in X.columns:
        values = X[column]
        if pd.api.types.is_numeric_dtype(values) and not pd.api.types.is_bool_dtype(values):
            observed = values.dropna()
            if len(observed):
                ranges[column] = (float(observed.min()), float(observed.max()))
    return ranges
