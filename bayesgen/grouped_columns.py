r"""Columns drawn together from the training table's combinations of them.

Some tables repeat whole combinations of values: a panel's households carry the same plan,
incentive, deductible and health measures in each of their years (statsmodels' ``randhie``:
14,133 rows, 771 pairs of incentive and deductible among 612 x 345 possible). A mixture of
columns independent within a component draws pairs that no row holds, however many
components it has, and a detector tells its rows apart by them alone (AUC 0.72 with 20
components, 0.67 with 150, against 0.50 for held-out real rows).

A **column group** is such a set of columns (`column_group`), grown from the columns
recorded on sets of values (`bayesgen.value_sets`) or holding categories (text, categorical
or boolean columns), most distinct values first, then from the other columns. A column
joins while both hold:

1. at least half of the group's distinct combinations with it repeat (their median count
   at least 2), as for a set of values; and
2. they leave more cells of the group's combinations by the column's values empty than
   independent columns would, but with a chance below `FALSE_GROUP_CHANCE` (over all the
   pairs the table's columns could form, for a group's first pair): $m$ empty cells where
   $\lambda = \sum_{g, v} (1 - p_g q_v)^n$ are expected from $n$ rows of the group's
   combinations (frequencies $p$) and the column's values ($q$) drawn independently,
   with $e^{-\lambda} (e\lambda/m)^m$ (a Chernoff bound: a cell's staying empty is
   negatively associated with the others') below that chance. Six age bins by seven
   marriage lengths leave none of their 42 cells empty in 4,456 independent rows
   ($\lambda = 0.002$); the Fair survey leaves 10, since no one is married longer than
   they have been adult.

A group needs two columns recorded on sets of values or holding categories, neither a
function of the other; no group is formed otherwise (each such column starts a group in
turn). A pair of which one is a function of the other is one variable written twice
(anes96's population and its logarithm): the Gaussian copula draws both in the cells of one
rank, and such a group only widened the detector's choice to treatments that draw the rest
worse (anes96's seed-1 split: AUC 0.623 against 0.536). Columns with missing cells, and
columns of more distinct values than a quarter of the rows (identifiers, or nearly), stay
out.

`Combinations` draws rows with a group: the class and the group's values from the
training rows' combinations, then the other columns from the model given them, exactly:

$$p(y, x_G, x_R) = \hat p(y, x_G)\, p(x_R \mid y, x_G),$$

$\hat p$ the training rows' frequencies. Given values ``x_c`` of other columns, a
combination's weight is $\hat p(y, x_G)\, p(x_c \mid y, x_G)$ under the model; given values
of the group's columns keep the combinations that hold them. A row whose conditions no
training combination holds (a value never seen in the group) is drawn from the model alone.
Where the model's draws keep to each class's training range (`excluded`), a class whose
range excludes a given number gets no weight, as in the model's own draws. Every drawn
combination of the group's columns is then a training one: a synthesizer that
must not publish them is fitted with no group.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.special import logsumexp

from bayesgen import conditioning
from bayesgen.frames import column_schema

#: The chance that columns independent of each other form a group, over all the pairs a
#: table's columns could start one with (a Bonferroni bound), and that an independent
#: column joins a group.
FALSE_GROUP_CHANCE = 0.00135

#: Columns of more distinct values than this share of the rows (identifiers, or nearly)
#: stay out of groups: drawing them from the training rows would copy identifiers.
IDENTIFIER_SHARE = 0.25

#: Cells of the group x column table weighed at once by `expected_untaken`.
CHUNK_CELLS = 4_000_000


def column_group(X: pd.DataFrame, sets) -> list:
    """The columns of ``X`` whose combinations repeat beyond independence (module
    docstring), columns recorded on sets of values or holding categories first; [] when
    fewer than two of those join.

    Each of those, most distinct values first, starts a group in turn (the first to gain a
    second of them is kept), so a set of values that varies row by row does not hide a
    pair that repeats.

    Parameters
    ----------
    X : pandas.DataFrame
        The table's feature columns.
    sets : collection
        Its columns recorded on sets of values (`bayesgen.value_sets.value_sets`).

    Returns
    -------
    list
    """
    sets = set(sets) | {column for column in X.columns if _is_categorical(X[column])}
    complete = [
        column
        for column in X.columns
        if not X[column].isna().any() and X[column].nunique() <= IDENTIFIER_SHARE * len(X)
    ]
    distinct = {column: X[column].nunique() for column in complete}
    by_count = sorted(complete, key=lambda column: -distinct[column])  # stable: table order
    order = [c for c in by_count if c in sets] + [c for c in by_count if c not in sets]
    codes = {column: pd.factorize(X[column])[0] for column in order}
    chance = FALSE_GROUP_CHANCE / max(1, len(order) * (len(order) - 1) // 2)
    for start in (column for column in order if column in sets):
        group = _grown(start, order, codes, sets, chance)
        if len(group) >= 2:
            return group
    return []


def _grown(start, order: list, codes: dict, sets, chance: float) -> list:
    """The group grown from ``start`` over the columns of ``order`` (module docstring)."""
    group, combined = [start], codes[start]
    for column in order[order.index(start) + 1 :]:
        values = codes[column]
        if column not in sets and len(group) < 2:
            break  # no second set of values or categories: no group
        joined = pd.factorize(combined.astype(np.int64) * (values.max() + 1) + values)[0]
        if len(group) == 1 and joined.max() <= max(combined.max(), values.max()):
            continue  # one a function of the other: one variable written twice
        # Forming a group is judged against every pair the table could form; joining one,
        # as one test (a column joined by chance is drawn with its own frequencies anyway).
        if _joins(combined, values, joined, chance if len(group) == 1 else FALSE_GROUP_CHANCE):
            group, combined = [*group, column], joined
    return group


def _joins(codes, values, joined, chance: float) -> bool:
    """Whether the combinations ``joined`` of a group (``codes``) and a column
    (``values``) repeat, and leave more cells empty than independence would but with
    probability ``chance`` (module docstring)."""
    counts = np.bincount(joined)
    if np.median(counts) < 2:
        return False
    n = codes.size
    group_counts, value_counts = np.bincount(codes), np.bincount(values)
    empty = group_counts.size * value_counts.size - counts.size
    untaken = expected_untaken(group_counts / n, value_counts / n, n)
    return empty > untaken and log_empty_tail(empty, untaken) < np.log(chance)


def log_empty_tail(empty: int, untaken: float) -> float:
    r"""$\log$ of the Chernoff bound $e^{-\lambda} (e \lambda / m)^m$ on the chance that at
    least $m$ = ``empty`` cells stay empty where $\lambda$ = ``untaken`` are expected to
    (the cells' emptiness is negatively associated, so the bound of independent
    indicators holds); for $m > \lambda$.

    Parameters
    ----------
    empty : int
    untaken : float

    Returns
    -------
    float
    """
    if untaken <= 0.0:
        return -np.inf
    return float(-untaken + empty * (1.0 + np.log(untaken) - np.log(empty)))


def expected_untaken(p, q, n: int) -> float:
    r"""The expected number of cells left empty by ``n`` independent draws of two variables
    of frequencies ``p`` and ``q``: $\lambda = \sum_{i, j} (1 - p_i q_j)^n$.

    Parameters
    ----------
    p, q : ndarray of shape (a,) and (b,)
    n : int

    Returns
    -------
    float
    """
    # Frequencies repeat (counts over n): each distinct one once, weighed by how often.
    p, p_times = np.unique(np.asarray(p, dtype=np.float64), return_counts=True)
    q, q_times = np.unique(np.asarray(q, dtype=np.float64), return_counts=True)
    step = max(1, CHUNK_CELLS // max(q.size, 1))
    total = 0.0
    for start in range(0, p.size, step):
        untaken = np.exp(n * np.log1p(-np.outer(p[start : start + step], q)))
        total += float(p_times[start : start + step] @ untaken @ q_times)
    return total


@dataclass(frozen=True)
class Combinations:
    """The training rows' combinations of a column group's values, with the class.

    Attributes
    ----------
    columns : list
        The group's columns.
    target : str or None
        The class column of the table, held in ``rows`` beside the group.
    rows : pandas.DataFrame
        Each distinct combination once (the target's and the group's columns).
    counts : ndarray of shape (len(rows),)
        The training rows holding each.
    template : pandas.DataFrame
        No rows, the table's feature columns in their training dtypes.
    """

    columns: list
    target: str | None
    rows: pd.DataFrame
    counts: np.ndarray
    template: pd.DataFrame

    @classmethod
    def of(cls, table: pd.DataFrame, columns, target) -> Combinations:
        """The combinations of ``columns`` (and ``target``) in ``table``.

        Parameters
        ----------
        table : pandas.DataFrame
        columns : list
        target : str or None

        Returns
        -------
        Combinations
        """
        held = ([] if target is None else [target]) + list(columns)
        counted = table[held].value_counts(sort=False, dropna=False)
        rows = counted.index.to_frame(index=False)
        for column in held:  # value_counts' index loses nullable and integer dtypes
            rows[column] = rows[column].astype(table[column].dtype)
        features = table if target is None else table.drop(columns=target)
        return cls(list(columns), target, rows, counted.to_numpy(), features.iloc[:0])

    def sample(self, model, n_rows: int, *, y, given, draw, rng, excluded=None):
        """``n_rows`` rows: each one's class and group from the combinations (module
        docstring), the rest from ``draw``.

        Parameters
        ----------
        model : LatentClassNB or ClassStrata
            The fitted model: its ``predict_joint_log_proba`` weighs the combinations by
            the given values of other columns.
        n_rows : int
        y : label, array-like of labels or None
            As the model's ``sample``.
        given : dict or None
            As the model's ``sample``.
        draw : callable
            ``draw(n, y, given, seed) -> (X, labels)``: the model's ``sample``.
        rng : numpy.random.Generator
        excluded : callable, optional
            ``excluded(rows) -> bool array (n, n_classes)``: classes that cannot hold a
            row's given values (`bayesgen.class_strata.ClassStrata.outside_ranges` where
            draws keep to each class's training range); their combinations get no weight.

        Returns
        -------
        X : pandas.DataFrame of shape (n_rows, n_features)
        labels : ndarray of shape (n_rows,)
        """
        labels = None if y is None else np.asarray(y)
        one_label = labels is not None and labels.ndim == 0
        malformed = labels is not None and (labels.ndim > 1 or labels.size == 0)
        if (
            malformed
            or (labels is not None and self.target is None)
            or ((labels is None or one_label) and not _is_count(n_rows))
        ):
            return draw(n_rows, y, given, int(rng.integers(2**31 - 1)))  # the model refuses it
        if one_label:
            labels = np.repeat(labels[None], n_rows)
        n = n_rows if labels is None else labels.size
        values = self._given_values(given, n)
        in_group = {key: column for key, column in values.items() if key in self.columns}
        others = {key: column for key, column in values.items() if key not in self.columns}
        picks = np.full(n, -1)
        said = ([] if labels is None else [labels]) + list(in_group.values())
        for rows in _alike(said, n):
            first = rows[0]
            candidates = self._candidates(
                None if labels is None else labels[first],
                {key: column[first] for key, column in in_group.items()},
            )
            if candidates.size == 0:
                continue  # drawn from the model alone
            log_counts = np.log(self.counts[candidates].astype(np.float64))
            if not others:
                picks[rows] = _choose(candidates, log_counts, rows.size, rng)
                continue
            alike = _alike([column[rows] for column in others.values()], rows.size)
            conditional = self._log_conditional(
                model,
                candidates,
                {key: column[rows[[part[0] for part in alike]]] for key, column in others.items()},
                excluded,
            )
            for part, log_weights in zip(alike, conditional, strict=True):
                picks[rows[part]] = _choose(candidates, log_counts + log_weights, part.size, rng)
        return self._rows(picks, labels, values, draw, rng)

    def _given_values(self, given, n: int) -> dict:
        """``given`` as one value per row, checked as the model's ``sample`` checks it."""
        if given is None:
            return {}
        names = list(self.template.columns)
        _, resolved = conditioning.given_rows(
            given, n, n_features=len(names), names=names, schema=column_schema(self.template)
        )
        values = {key: np.asarray(column) for key, column in resolved.values()}
        for key, column in values.items():
            dtype = self.template[key].dtype
            whole = pd.api.types.is_integer_dtype(dtype) and not pd.api.types.is_bool_dtype(dtype)
            if whole and not np.all(np.mod(column.astype(np.float64), 1) == 0):
                raise ValueError(
                    f"given[{key!r}] must hold whole numbers, as its column ({dtype}) does; "
                    f"got {column[np.mod(column.astype(np.float64), 1) != 0][0]!r}."
                )
        return values

    def _candidates(self, label, said: dict) -> np.ndarray:
        """The combinations of class ``label`` holding the group's values ``said``."""
        keep = np.ones(len(self.rows), dtype=bool)
        if label is not None:
            keep &= (self.rows[self.target] == label).to_numpy()
        for column, value in said.items():
            keep &= (self.rows[column] == value).to_numpy()
        return np.flatnonzero(keep)

    def _log_conditional(self, model, candidates, others: dict, excluded) -> np.ndarray:
        r"""$\log p(x_c \mid y, x_G)$ of each candidate combination (columns) under ``model``,
        for each set of values ``others`` of the other given columns (rows)."""
        chosen = self.rows.iloc[candidates].reset_index(drop=True)
        base = self.template.reindex(range(candidates.size))
        for column in self.columns:
            base[column] = chosen[column].to_numpy()
        if self.target is None:
            index = np.zeros(candidates.size, dtype=np.int64)
        else:
            index = np.searchsorted(model.classes_, chosen[self.target].to_numpy())
        take = np.arange(candidates.size)
        alone = model.predict_joint_log_proba(base)[take, index]
        conditions = len(next(iter(others.values())))
        per_chunk = max(1, CHUNK_CELLS // (8 * candidates.size))
        scores = []
        for start in range(0, conditions, per_chunk):
            stop = min(start + per_chunk, conditions)
            frame = base.iloc[np.tile(take, stop - start)].reset_index(drop=True)
            for column, value in others.items():
                frame[column] = pd.Series(np.repeat(value[start:stop], candidates.size)).astype(
                    self.template[column].dtype
                )
            cells = np.arange(len(frame))
            classes = np.tile(index, stop - start)
            joint = model.predict_joint_log_proba(frame)[cells, classes]
            if excluded is not None:
                joint = np.where(excluded(frame)[cells, classes], -np.inf, joint)
            scores.append(joint.reshape(stop - start, candidates.size) - alone)
        return np.concatenate(scores)

    def _rows(self, picks, labels, values: dict, draw, rng):
        """The rows of each pick (its class and group given), and the rows no combination
        holds (drawn from the model alone), in order."""
        parts, drawn = [], np.empty(picks.size, dtype=object)
        for grouped in (True, False):
            rows = np.flatnonzero((picks >= 0) == grouped)
            if rows.size == 0:
                continue
            given = {key: column[rows] for key, column in values.items()}
            y = None if labels is None else labels[rows]
            if grouped:
                chosen = self.rows.iloc[picks[rows]]
                given.update({c: chosen[c].to_numpy() for c in self.columns})
                y = None if self.target is None else chosen[self.target].to_numpy()
            X, part_labels = draw(rows.size, y, given or None, int(rng.integers(2**31 - 1)))
            parts.append(pd.DataFrame(X).set_axis(rows, axis=0))
            drawn[rows] = part_labels
        frame = pd.concat(parts).sort_index().reset_index(drop=True)
        return frame, np.asarray(drawn.tolist())


def _is_count(n) -> bool:
    return isinstance(n, numbers.Integral) and not isinstance(n, bool) and n >= 1


def _alike(columns: list, n: int) -> list:
    """The rows (index arrays) holding the same values in every one of ``columns``, in
    order of first appearance; every row together when there are none."""
    if not columns:
        return [np.arange(n)]
    codes, _ = pd.factorize(pd.MultiIndex.from_arrays(columns))
    order = np.argsort(codes, kind="stable")
    return np.split(order, np.cumsum(np.bincount(codes))[:-1])


def _choose(candidates, log_weights, size: int, rng) -> np.ndarray:
    """``size`` of ``candidates`` drawn by their weights; -1 where none has any."""
    if np.isneginf(log_weights).all():
        return np.full(size, -1)
    weights = np.exp(log_weights - logsumexp(log_weights))
    return candidates[rng.choice(candidates.size, size=size, p=weights / weights.sum())]


def _is_categorical(column: pd.Series) -> bool:
    """Whether a column holds categories (text, categorical or boolean values)."""
    return (
        isinstance(column.dtype, pd.CategoricalDtype)
        or pd.api.types.is_bool_dtype(column)
        or pd.api.types.is_string_dtype(column)
        or pd.api.types.is_object_dtype(column)
    )
