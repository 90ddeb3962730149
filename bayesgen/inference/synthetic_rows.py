r"""Synthetic rows of a fitted model: its law, its conditional given column values, the
training range, gaps and grids.

`sample` is ``GenerativeClassifier.sample`` as a function of the fitted value: the rows of
the model's own law (the family's NumPy draws, else its story), or of the exact conditional
law given some column values, $p(y, x_m \mid x_o) = p(y \mid x_o)\,p(x_m \mid x_o, y)$;
drawn again given their class until inside the training range (``support="training"``),
given the training table's missing cells column by column (``missing="training"``) and
rounded to each column's recorded grid (``rounding="training"``). What the fit recorded of
its columns is the value's ``record``. The model is a `RowSource`: the family and the value,
the training columns, and the three uses of checked rows a draw given column values needs
(the joint log-probabilities, their limit far out in every tail, and the fill of the other
columns), which the estimator supplies with its own input checks.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np
import pandas as pd
from sklearn.utils import check_random_state

from bayesgen import conditioning, recorded_grid, training_range
from bayesgen.families import class_prior
from bayesgen.families.protocol import FeatureFamily, NoClosedForm
from bayesgen.frames import as_training_frame
from bayesgen.inference import sampling
from bayesgen.inference.log_space import normalise
from bayesgen.missing import with_missing_cells

METHODS = ("numpy", "story")
SUPPORTS = ("model", "training")
MISSING = (None, "training")
ROUNDING = (None, "training")


class RowSource(NamedTuple):
    r"""A fitted model as `sample` draws from it.

    Attributes
    ----------
    family : FeatureFamily
        With what the fit learned about the columns (`bayesgen.joint.family_of`).
    value : FittedJoint
        Its ``record`` is what the fit recorded of the columns (None: nothing).
    n_features : int
    names : ndarray or None
        The training column names the model checks inputs against (``feature_names_in_``).
    schema : list of dict or None
        The training DataFrame's columns (`bayesgen.frames.column_schema`), which drawn
        rows take.
    story : callable
        The fitted story, ``story(X=None, y=None, n_samples=None, **options)``, run with
        its parameters substituted where the family has no NumPy draws, or for
        ``method="story"``.
    fixed_class_prior : bool
        Whether the class probabilities are fixed (no ``"class_prior"`` site).
    features_from_draws : callable
        ``features_from_draws(draws)``: the story's draws as rows.
    joint_log_proba : callable
        ``joint_log_proba(rows)``: $\log p(x, k)$ of rows with some columns given, checked
        as the model checks its input.
    limit_log_posterior : callable
        ``limit_log_posterior(rows, unscored, log_prior)``: $\log p(k \mid x)$ of the rows
        no class could score, in the family's limit, or None.
    impute : callable
        ``impute(rows, labels, seed)``: the rows' missing cells drawn given their classes.
    """

    family: FeatureFamily
    value: Any
    n_features: int
    names: Any
    schema: Any
    story: Callable
    fixed_class_prior: bool
    features_from_draws: Callable
    joint_log_proba: Callable
    limit_log_posterior: Callable
    impute: Callable


def column_names(source: RowSource):
    """The training column names (a DataFrame's, text or not), or None."""
    if source.names is None and source.schema is not None:
        return [column["name"] for column in source.schema]
    return source.names


def check_options(method, support, missing, rounding) -> None:
    """Refuse an unknown ``method``, ``support``, ``missing`` or ``rounding`` by name."""
    for name, value, known in (
        ("method", method, METHODS),
        ("support", support, SUPPORTS),
        ("missing", missing, MISSING),
        ("rounding", rounding, ROUNDING),
    ):
        if value not in known:
            raise ValueError(f"{name} must be one of {known}; got {value!r}.")


def sample(
    source: RowSource,
    n_samples,
    y,
    random_state,
    method="numpy",
    options=None,
    *,
    given=None,
    support="model",
    missing=None,
    rounding=None,
):
    """``(X, labels)``: ``sample``'s rows (see ``GenerativeClassifier.sample``), with
    ``options`` for the family's draws and the story (``lengths``)."""
    options = {} if options is None else options
    check_options(method, support, missing, rounding)
    record = source.value.record
    if rounding is not None and getattr(record, "decimals", None) is None:
        raise ValueError(
            "rounding='training' needs the grid each column was recorded on, which this "
            "model did not record (read from a model file written before grids were "
            "kept, or made by from_statistics); fit it again, or use rounding=None "
            "(--rounding none on the command line)."
        )
    sample_args = (n_samples, y, random_state, method, options, given, support, rounding)
    if missing is None:
        return _complete(source, *sample_args)
    if getattr(record, "n_missing", None) is None:
        raise ValueError(
            "missing='training' needs each column's missing cells in training, which "
            "this model did not count (read from a model file written before they were "
            "kept, or made by from_statistics); fit it again, or draw complete rows "
            "(missing=None; --missing none on the command line)."
        )
    state = check_random_state(random_state)  # the rows first, then the gaps
    X, drawn = _complete(source, n_samples, y, state, method, options, given, support, rounding)
    kept = () if given is None else list(_given_rows(source, given, len(drawn))[1])
    rates = record.n_missing / max(record.n_rows, 1)
    return with_missing_cells(X, rates, sampling.numpy_generator(state), kept), drawn


def _complete(source, n_samples, y, random_state, method, options, given, support, rounding):
    """`sample`'s rows with no missing cell."""
    rows, labels = sampling.labels_to_draw(source.value.classes, n_samples, y, source.n_features)
    if given is not None and method != "numpy":
        raise ValueError(
            "given draws from the model's exact conditional law in NumPy; "
            f"method={method!r} does not apply (use method='numpy')."
        )
    held = () if given is None else list(_given_rows(source, given, rows)[1])
    record = source.value.record
    if support == "model":
        X, drawn = _draw_rows(source, rows, labels, random_state, method, options, given)
        X = _rounded(record, X, rounding, held)
        if record is not None:
            training_range.warn_negative(X, record.low, column_names(source), held)
        return X, drawn
    low, high = _training_range(source, given, rows)
    rng = sampling.numpy_generator(random_state)
    fixed = {"labels": labels}  # the first round's labels, kept by the later ones

    def draw(positions):
        kept = fixed["labels"]
        X, drawn = _draw_rows(
            source,
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
    return _rounded(record, X, rounding, held), drawn


def _at_rows(per_row: dict, positions: np.ndarray, rows: int) -> dict:
    """``per_row`` with each value given per row (a sequence of ``rows``) taken at
    ``positions``; a single value stays as it is."""
    return {
        name: value if np.ndim(value) == 0 or len(value) != rows else np.asarray(value)[positions]
        for name, value in per_row.items()
    }


def _rounded(record, X, rounding, held):
    """Drawn rows ``X`` on each column's recorded grid where ``rounding`` asks, the
    ``held`` column positions (given values) left."""
    if rounding is None:
        return X
    grid = (record.low, record.high, record.decimals, record.step)
    return recorded_grid.on_grid(X, *grid, held)


def _training_range(source: RowSource, given, rows: int):
    """The training range ``(low, high)``, checked to hold the given values."""
    record = source.value.record
    if record is None:
        raise ValueError(
            "support='training' needs the training range, which this model did not "
            "record (read from a model file written before ranges were kept, or made "
            "by from_statistics); fit it again, or use support='model'."
        )
    low, high = record.low, record.high
    if given is not None:
        partial, _ = _given_rows(source, given, rows)
        outside = training_range.cells_outside(partial, low, high)
        if outside.any():
            column = int(np.flatnonzero(outside.any(axis=0))[0])
            names = column_names(source)
            name = column if names is None else names[column]
            raise ValueError(
                f"given[{name!r}] lies outside that column's training range "
                f"[{low[column]:g}, {high[column]:g}], which support='training' keeps "
                "to; use support='model' to draw given it."
            )
    return low, high


def _draw_rows(source: RowSource, rows: int, labels, random_state, method, options, given):
    """``rows`` rows of the model's own law (given ``labels`` and ``given`` values)."""
    if given is not None:
        return _sample_given(source, rows, labels, given, random_state)
    family, value = source.family, source.value
    draws = None
    if method == "numpy":
        rng = sampling.numpy_generator(random_state)

        def draw_features(classes, rng, **options):
            params = family.params_from_sites(family.sampling_sites(value.params))
            return family.draw_features(params, classes, rng, **options)

        try:
            draws = sampling.numpy_draws(
                value.classes, value.class_probabilities, draw_features, rows, labels, rng, options
            )
        except NoClosedForm:
            draws = None  # the story draws instead
    if draws is None:
        sites = family.sampling_sites(value.params)
        if not source.fixed_class_prior:
            sites = {"class_prior": value.class_probabilities, **sites}
        key = sampling.random_key(random_state)
        draws = sampling.story_draws(source.story, sites, rows, labels, key, **options)
    X = source.features_from_draws(draws)
    if source.schema is not None and isinstance(X, np.ndarray):  # fitted on a DataFrame
        X = as_training_frame(X, source.schema)
    drawn = labels if labels is not None else value.classes[draws["y"]]
    return X, np.asarray(drawn)


def _given_rows(source: RowSource, given, rows: int):
    """`bayesgen.conditioning.given_rows` for the model's columns, the given values
    checked against its text categories."""
    partial, resolved = conditioning.given_rows(
        given, rows, n_features=source.n_features, names=source.names, schema=source.schema
    )
    categories = conditioning.known_categories(source.family)
    conditioning.check_category_types(resolved, categories)
    return partial, resolved


def _sample_given(source: RowSource, rows: int, labels, given, random_state):
    """Rows given column values: the class from $p(k \\mid x_o)$ (or ``labels``), then the
    other columns from the family's conditional given the class."""
    partial, resolved = _given_rows(source, given, rows)
    try:
        log_joint = source.joint_log_proba(partial)
    except (TypeError, ValueError) as error:
        raise ValueError(f"given: {error}") from error
    rng = sampling.numpy_generator(random_state)
    classes = _given_classes(source, partial, log_joint, labels, rng)
    if classes is None:
        under = "every class" if labels is None else "the class y names"
        columns = [key for key, _ in resolved.values()]
        raise ValueError(
            f"the given values of {columns} have probability zero (or too small to "
            f"represent) under {under}, so the model has no law given them."
        )
    drawn = source.value.classes[classes]
    seed = rng.integers(2**31 - 1)
    try:
        with np.errstate(over="ignore", invalid="ignore"):
            X = source.impute(partial, drawn, seed)
    except (TypeError, ValueError) as error:
        raise ValueError(f"given: {error}") from error
    _check_representable(X, resolved)
    X = _as_drawn_rows(source, X)
    conditioning.check_held(X, resolved)
    return X, drawn


def _check_representable(X, resolved: dict) -> None:
    """Refuse draws that overflowed: given values so far out (1e308, say) that the law of
    the other columns given them is beyond floating point."""
    try:
        values = np.asarray(X, dtype=np.float64)
    except (TypeError, ValueError):
        return  # categories among the columns: numbers are checked by their families
    if not np.all(np.isfinite(values)):
        columns = [key for key, _ in resolved.values()]
        raise ValueError(
            f"given: the values of {columns} are so far out that the other columns' law given "
            "them overflows floating point; give values on the scale of the training data."
        )


def _given_classes(source: RowSource, partial, log_joint, labels, rng):
    """The class index of each row: drawn from $p(k \\mid x_o)$ (rows no class could score
    take the family's limit, if any), or those of ``labels``; None where the given values
    have probability zero under every class (or under the labelled one)."""
    value = source.value
    with np.errstate(divide="ignore"):
        log_prior = np.log(value.class_probabilities)
    if labels is not None:
        classes = np.searchsorted(value.classes, labels)
        impossible = np.isneginf(log_joint[np.arange(len(classes)), classes]).any()
        return None if impossible else classes
    unscored = np.isneginf(log_joint.max(axis=1))
    if unscored.any():  # far out in every tail: the limit, if any
        limit = source.limit_log_posterior(partial, unscored, log_prior)
        if limit is not None:
            log_joint = log_joint.copy()
            log_joint[unscored] = limit
    if np.isneginf(log_joint.max(axis=1)).any():
        return None
    return class_prior.draw_classes(np.exp(normalise(log_joint, log_prior)), rng)


def _as_drawn_rows(source: RowSource, X):
    """Filled rows as `sample` returns its rows: the training columns and dtypes of a
    model fitted on a DataFrame, integers for a family that draws integers."""
    if source.schema is not None:
        frame = X if isinstance(X, pd.DataFrame) else pd.DataFrame(X)
        return as_training_frame(
            [frame.iloc[:, j].to_numpy() for j in range(len(source.schema))], source.schema
        )
    family = source.family
    while getattr(family, "leaf", None) is not None:  # a mixture draws as its leaf
        family = family.leaf
    draws_integers = type(family).features_from_draws is FeatureFamily.features_from_draws
    if draws_integers and np.asarray(X).dtype.kind == "f":
        return np.rint(X).astype(np.int64)
    return np.asarray(X)
