"""What every fitted estimator in a model file must satisfy before it is used.

The tag grammar (`decoding`) checks types, not meaning: a well-formed file may still say
``classes_ = 5``, ``n_features_in_ = 10**30`` or hold a NaN class probability, and the
estimator would then fail with a traceback, build a list of 10**30 names, or predict NaN.
These checks run on each rebuilt estimator (nested ones included) before it is returned:

- ``classes_`` is a non-empty 1-D array, ``K`` classes;
- ``n_features_in_`` is an integer >= 1, no larger than the largest array the estimator
  holds (every fitted model stores at least one array as wide as its features), and
  ``feature_names_in_`` has that many names;
- ``class_count_`` has shape ``(K,)``, finite and >= 0; ``class_prior_`` has shape ``(K,)``,
  finite, >= 0 and sums to one;
- the per-class, per-feature arrays (``means_``, ``feature_count_``, ``feature_log_prob_``,
  ``rates_``) have ``K`` rows and ``n_features_in_`` columns (their last axis), and hold no
  NaN; so does ``training_X_`` (its width);
- the record of the training columns: ``data_min_`` and ``data_max_`` one float per
  feature; ``n_missing_`` one count per feature between 0 and
  ``n_samples_seen_``, a number >= 0; ``data_decimals_`` and ``data_step_`` one value per
  feature, NaN or in range;
- the rows a gappy Gaussian fit kept for its posterior: ``n_features_in_`` columns of
  numbers (NaN where missing), and finite class weights >= 0, one row per row.

An estimator that is a view of its fitted joint (``joint_``) is checked through its view
(`view_problems`): its type and classes, then the names above that the estimator shows,
read off the value, then its parameters against the family: they must have the layout the
family's own estimate from the stored statistics has, and hold no NaN (a family whose
hyperparameters contradict the statistics, such as a mixture of 3 components holding
statistics of 2, is refused there).
"""

from __future__ import annotations

import numbers

import numpy as np

from bayesgen.recorded_grid import MAX_DECIMALS
from bayesgen.training_range import RECORDED_ATTRIBUTES, ColumnRecord

#: Fitted arrays whose first axis is the class and last axis the feature.
PER_CLASS_AND_FEATURE = ("means_", "feature_count_", "feature_log_prob_", "rates_")
#: Fitted arrays whose last axis is the feature.
PER_FEATURE = ("training_X_",)


def problems(state: dict) -> list[str]:
    """What is wrong with the fitted ``state`` (an estimator's ``__dict__``); empty if nothing.

    Parameters
    ----------
    state : dict
        Attribute name to value, as stored in the file.

    Returns
    -------
    list of str
        One phrase per broken invariant, naming the attribute.
    """
    classes = state.get("classes_")
    if not isinstance(classes, np.ndarray) or classes.ndim != 1 or classes.size == 0:
        return [f"classes_ must be a non-empty 1-D array, not {_describe(classes)}"]
    n_classes = classes.shape[0]
    found = []
    n_features = state.get("n_features_in_")
    if n_features is not None:
        found += _feature_count(state, n_features)
    for name in ("class_count_", "class_prior_"):
        if name in state:
            found += _class_vector(name, state[name], n_classes, sums_to_one=name == "class_prior_")
    width = n_features if not found and isinstance(n_features, int) else None
    for name in PER_CLASS_AND_FEATURE + PER_FEATURE:
        value = state.get(name)
        if isinstance(value, np.ndarray):
            found += _per_feature(name, value, n_classes, width, name in PER_CLASS_AND_FEATURE)
    for name in ("data_min_", "data_max_"):
        if name in state:
            found += _range_values(name, state[name], width)
    if "n_missing_" in state:
        found += _missing_counts(state["n_missing_"], state.get("n_samples_seen_"), width)
    for name, most in (("data_decimals_", MAX_DECIMALS), ("data_step_", np.inf)):
        if name in state:
            found += _grid_values(name, state[name], width, most)
    return found


def _range_values(name: str, values, n_features) -> list[str]:
    """``data_min_`` and ``data_max_``: one float per feature (NaN where none was seen)."""
    if not isinstance(values, np.ndarray) or values.ndim != 1 or values.dtype.kind != "f":
        return [f"{name} must be a 1-D array of floats, not {_describe(values)}"]
    if n_features is not None and values.shape[0] != n_features:
        return [f"{name} has {values.shape[0]} entries for n_features_in_ = {n_features}"]
    return []


def _grid_values(name: str, values, n_features, most) -> list[str]:
    """``data_decimals_`` and ``data_step_``: one per feature, NaN (no grid) or in
    ``[0, most]`` (decimals whole numbers)."""
    if not isinstance(values, np.ndarray) or values.ndim != 1 or values.dtype.kind != "f":
        return [f"{name} must be a 1-D array of floats, not {_describe(values)}"]
    if n_features is not None and values.shape[0] != n_features:
        return [f"{name} has {values.shape[0]} entries for n_features_in_ = {n_features}"]
    known = values[~np.isnan(values)]
    whole = name != "data_decimals_" or np.all(known == np.round(known))
    if not whole or np.any(known < 0) or np.any(known > most) or np.any(np.isinf(known)):
        return [f"{name} must hold values in [0, {most}] (or NaN where a column has no grid)"]
    return []


def _missing_counts(counts, rows, n_features) -> list[str]:
    """``n_missing_``: one count per feature, between 0 and ``n_samples_seen_`` rows."""
    if not isinstance(counts, np.ndarray) or counts.ndim != 1:
        return [f"n_missing_ must be a 1-D array, not {_describe(counts)}"]
    if n_features is not None and counts.shape[0] != n_features:
        return [f"n_missing_ has {counts.shape[0]} entries for n_features_in_ = {n_features}"]
    if not isinstance(rows, numbers.Real) or not np.isfinite(rows) or rows < 0:
        return [f"n_samples_seen_ must be a number >= 0, not {_describe(rows)}"]
    slack = 1e-9 * max(rows, 1.0)  # weighted sums round
    if counts.dtype.kind not in "fiu" or not np.all((counts >= 0) & (counts <= rows + slack)):
        return [f"n_missing_ must hold counts between 0 and n_samples_seen_ = {rows}"]
    return []


def view_problems(estimator, state: dict) -> list[str]:
    """`problems` of an estimator whose fitted state is the value ``joint_``, read through
    the names it shows (``class_prior_``, ``feature_log_prob_``, ...).

    ``estimator`` already holds ``state``; reading a name off a damaged value is itself a
    problem, reported with the error it raised.
    """
    from bayesgen.joint import FittedJoint

    value = state["joint_"]
    if not isinstance(value, FittedJoint):
        return [f"joint_ must be a FittedJoint, not {_describe(value)}"]
    classes = state.get("classes_")
    if not isinstance(classes, np.ndarray) or not np.array_equal(value.classes, classes):
        return ["joint_.classes must equal classes_"]
    if value.record is not None:
        found = _record_problems(value.record)
        if found:
            return found
    if value.rows is not None:
        found = _kept_rows_problems(value.rows, classes.shape[0], state.get("n_features_in_"))
        found = found or _rows_owner_problems(estimator, value)
        if found:
            return found
    view = dict(state)
    for name in ("class_count_", "class_prior_", *PER_CLASS_AND_FEATURE, *RECORDED_ATTRIBUTES):
        if not hasattr(type(estimator), name):  # not a name this estimator shows
            continue
        field = RECORDED_ATTRIBUTES.get(name)
        if field is not None and getattr(value.record, field, None) is None:
            continue  # not recorded (a model from before it was kept)
        try:
            view[name] = getattr(estimator, name)
        except Exception as error:  # noqa: BLE001 - any failure is a damaged value
            return [f"{name} cannot be read off joint_ ({type(error).__name__}: {error})"]
    return problems(view) or _params_problems(estimator, value)


def _record_problems(record) -> list[str]:
    """``joint_.record``: a `ColumnRecord` whose parts recorded together are there together
    (missing cells with rows, decimals with steps)."""
    if not isinstance(record, ColumnRecord):
        return [f"joint_.record must be a ColumnRecord, not {_describe(record)}"]
    for a, b in (("n_missing", "n_rows"), ("decimals", "step"), ("low", "high")):
        if (getattr(record, a) is None) != (getattr(record, b) is None):
            return [f"joint_.record holds {a} and {b} only together"]
    return []


def _rows_owner_problems(estimator, value) -> list[str]:
    """Kept rows belong to a GaussianDA fitted by EM over missing entries (its family a
    `RegularisedGaussian`, its value's ``frozen`` set): no other fit keeps them, so any
    others were put into the file."""
    from bayesgen.families.gaussian.regularised import RegularisedGaussian

    try:
        family = estimator.family_
    except Exception as error:  # noqa: BLE001 - any failure is a damaged file
        return [f"joint_ does not fit the estimator's family ({type(error).__name__}: {error})"]
    if value.frozen is None or not isinstance(family, RegularisedGaussian):
        return [
            "joint_.rows belong to a GaussianDA fitted by EM over missing entries "
            "(joint_.frozen), which this value is not"
        ]
    return []


def _kept_rows_problems(rows, n_classes: int, n_features) -> list[str]:
    """``joint_.rows``: a `KeptRows` of float rows (n_samples, n_features) and their finite,
    non-negative class weights (n_samples, n_classes)."""
    from bayesgen.joint import KeptRows

    if not isinstance(rows, KeptRows):
        return [f"joint_.rows must be a KeptRows, not {_describe(rows)}"]
    X, weights = rows
    arrays = isinstance(X, np.ndarray) and isinstance(weights, np.ndarray)
    if not arrays or X.ndim != 2 or weights.shape != (X.shape[0], n_classes):
        return [f"joint_.rows must hold rows (n, n_features) and weights (n, {n_classes})"]
    if n_features is not None and X.shape[1] != n_features:
        return [f"joint_.rows has {X.shape[1]} columns for n_features_in_ = {n_features}"]
    if X.dtype.kind != "f" or np.isinf(X).any():
        return ["joint_.rows must hold finite numbers (NaN where missing)"]
    if weights.dtype.kind != "f" or not np.all(np.isfinite(weights) & (weights >= 0)):
        return ["joint_.rows must hold finite class weights >= 0"]
    return []


def _params_problems(estimator, value) -> list[str]:
    """Whether ``value.params`` have the layout of the family's point estimate from
    ``value.feature_prior`` and ``value.feature_stats`` (every leaf's shape) and hold no NaN.

    Only the layout is compared: the family's own checks of an estimate (a covariance that
    only the estimator's regularisation keeps invertible) are not the file's to pass.
    """
    from bayesgen.families.namespace import tree_leaves

    try:
        expected = estimator.family_.point_estimate(
            value.feature_prior, value.feature_stats, estimator.estimate
        )
        expected, params = tree_leaves(expected), tree_leaves(value.params)
    except Exception as error:  # noqa: BLE001 - any failure is a value the family cannot hold
        return [f"joint_ does not fit the estimator's family ({type(error).__name__}: {error})"]
    shapes = [np.shape(leaf) for leaf in params]
    if shapes != [np.shape(leaf) for leaf in expected]:
        return [
            f"joint_.params have shapes {shapes}; the family's parameters for these "
            f"statistics have {[np.shape(leaf) for leaf in expected]}"
        ]
    for leaf in params:
        leaf = np.asarray(leaf)
        if leaf.dtype.kind == "f" and np.isnan(leaf).any():
            return ["joint_.params hold NaN"]
    return []


def _feature_count(state: dict, n_features) -> list[str]:
    if not isinstance(n_features, numbers.Integral) or isinstance(n_features, bool):
        return [f"n_features_in_ must be an integer, not {_describe(n_features)}"]
    if n_features < 1:
        return [f"n_features_in_ must be >= 1, not {n_features}"]
    largest = max((array.size for array in _arrays(state)), default=0)
    if n_features > largest:
        return [
            f"n_features_in_ = {n_features} but the largest array the estimator holds has "
            f"{largest} values"
        ]
    names = state.get("feature_names_in_")
    if names is not None and (not isinstance(names, np.ndarray) or names.shape != (n_features,)):
        return [f"feature_names_in_ must hold n_features_in_ = {n_features} names"]
    return []


def _class_vector(name: str, value, n_classes: int, *, sums_to_one: bool) -> list[str]:
    if not isinstance(value, np.ndarray) or value.shape != (n_classes,):
        return [f"{name} must have shape ({n_classes},), one entry per class"]
    if value.dtype.kind not in "fiu" or not np.all(np.isfinite(value)) or np.any(value < 0):
        return [f"{name} must be finite and >= 0"]
    tolerance = 1e-4 if value.dtype == np.float32 else 1e-8
    if sums_to_one and abs(float(np.sum(value, dtype=np.float64)) - 1.0) > tolerance:
        return [f"{name} must sum to 1, not {float(np.sum(value)):.6g}"]
    return []


def _per_feature(name, value, n_classes, n_features, per_class: bool) -> list[str]:
    if value.ndim < (2 if per_class else 1):
        return [f"{name} has shape {value.shape}"]
    if per_class and value.shape[0] != n_classes:
        return [f"{name} has {value.shape[0]} rows for {n_classes} classes"]
    if n_features is not None and value.shape[-1] != n_features:
        return [f"{name} has {value.shape[-1]} columns for n_features_in_ = {n_features}"]
    if value.dtype.kind == "f" and np.isnan(value).any():
        return [f"{name} holds NaN"]
    return []


def _arrays(value, depth: int = 0):
    """The ndarrays in ``value``, looking into lists, tuples, dicts and nested estimators."""
    if isinstance(value, np.ndarray):
        yield value
    elif depth < 8 and hasattr(value, "get_params"):  # RDACV's best_estimator_
        yield from _arrays(vars(value), depth + 1)
    elif depth < 8 and isinstance(value, list | tuple):
        for item in value:
            yield from _arrays(item, depth + 1)
    elif depth < 8 and isinstance(value, dict):
        for item in value.values():
            yield from _arrays(item, depth + 1)


def _describe(value) -> str:
    if isinstance(value, np.ndarray):
        return f"an array of shape {value.shape}"
    return f"{type(value).__name__} {value!r:.60}"
