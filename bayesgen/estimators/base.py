"""The scikit-learn face of every generative classifier: a view of one fitted value.

``GenerativeClassifier`` keeps everything a fit learned in one value, ``joint_`` (a
`bayesgen.joint.FittedJoint`), and reads its scikit-learn attributes off it. A subclass
supplies three things:

- ``_base_family()``: its hyperparameters as a `bayesgen.families.protocol.FeatureFamily`
  (nothing learned yet);
- ``_class_prior_settings()``: how the class probabilities follow from the class counts;
- its scikit-learn attribute names, as `fitted_attribute` properties read off the value;

and checks its hyperparameters (``_check_hyperparameters``). Labels and sample weights
become one responsibilities matrix; fitting, updating, scoring, drawing, imputing, the
posterior and its draws are the family's functions of ``joint_`` (`bayesgen.joint`), each
use in a mixin of its own. A copy with other parameters is the value with other
parameters (`bayesgen.joint.with_params`).
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_consistent_length, column_or_1d

from bayesgen import held_check, joint, training_range
from bayesgen._precision import compute_dtype, precision
from bayesgen.estimators import semi_supervised_fit
from bayesgen.estimators.decisions import ClassPriorDecisions
from bayesgen.estimators.em_fitting import FitByEM
from bayesgen.estimators.fitted_attribute import fitted_attribute
from bayesgen.estimators.hyperparameters import DeclaredHyperparameters
from bayesgen.estimators.prediction import ClassPrediction
from bayesgen.estimators.registration import Registered
from bayesgen.estimators.saving import ModelFileMixin
from bayesgen.estimators.uncertainty import PosteriorUses
from bayesgen.estimators.uses import GenerativeUses
from bayesgen.families.namespace import tree_leaves, tree_map
from bayesgen.frames import column_schema
from bayesgen.inference import semi_supervised
from bayesgen.validation import (
    check_class_list,
    check_labels,
    check_rows,
    check_weights,
    encode_labels,
    unknown_labels,
)


def _set_class_prior(estimator, probabilities) -> None:
    estimator.joint_ = estimator.joint_._replace(class_probabilities=np.asarray(probabilities))


def _recorded(name: str, doc: str) -> fitted_attribute:
    """The fitted attribute ``name`` read off the value's record of its training columns
    (its `training_range.RECORDED_ATTRIBUTES` field), absent (``AttributeError``) where the
    model recorded none."""
    field = training_range.RECORDED_ATTRIBUTES[name]

    def read(estimator, value):
        kept = None if value.record is None else getattr(value.record, field)
        if kept is None:
            raise AttributeError(
                f"This {type(estimator).__name__} has no {name}: its fit recorded none (a "
                "model file written before it was kept, or a model made by "
                "from_statistics without it)."
            )
        return kept

    return fitted_attribute(read, doc=doc)


class GenerativeClassifier(
    DeclaredHyperparameters,
    Registered,
    ModelFileMixin,
    FitByEM,
    GenerativeUses,
    PosteriorUses,
    ClassPriorDecisions,
    ClassPrediction,
    ClassifierMixin,
    BaseEstimator,
):
    """Base class of the generative classifiers: a view of the fitted joint ``joint_``
    (see the module docstring).

    Attributes
    ----------
    joint_ : FittedJoint
        Everything the fit learned: classes, statistics, prior, parameters, class
        probabilities and what the family learned about the columns.
    family_ : FeatureFamily
        The model of the features given the class; with ``joint_``, the whole model
        (``bayesgen.joint.log_joint(model.family_, model.joint_, X)``).
    """

    class_count_ = fitted_attribute(
        lambda self, value: np.asarray(value.class_stats.counts),
        doc="Weighted number of training rows per class.",
    )
    class_prior_ = fitted_attribute(
        lambda self, value: value.class_probabilities,
        _set_class_prior,
        doc="The class probabilities.",
    )

    family_ = fitted_attribute(
        lambda self, value: joint.family_of(self._base_family(), value),
        doc="The feature family, with what the fit learned about the columns.",
    )

    # What the fit recorded of its columns, the value's ``record``.
    data_min_ = _recorded(
        "data_min_",
        "The least value of each numeric column seen in training (NaN for a column that "
        "is not numeric or was never observed, and for sparse input): with ``data_max_``, "
        'the training range that ``sample(support="training")`` keeps to.',
    )
    data_max_ = _recorded(
        "data_max_",
        "The greatest value of each numeric column seen in training (NaN as for "
        "``data_min_``): the top of the training range.",
    )
    n_missing_ = _recorded(
        "n_missing_",
        "Missing cells of each column in training, and ``n_samples_seen_`` the rows: the "
        'missing rates ``sample(missing="training")`` draws with. Both count a row of '
        "``sample_weight`` ``w`` as ``w`` rows (whole numbers for an unweighted fit), as "
        "the fit does.",
    )
    n_samples_seen_ = _recorded(
        "n_samples_seen_",
        "Training rows, a row of ``sample_weight`` ``w`` counting as ``w`` rows.",
    )
    data_decimals_ = _recorded(
        "data_decimals_",
        "The decimals every training value of a numeric column is written with (at most "
        "10, at the precision of its type): with ``data_step_``, the grid "
        "``data_min_ + k * data_step_`` its values lie on (whole millimetres: 0 and 1; "
        "cents: 2 and 0.01; masses weighed to 25 g: 0 and 25), what "
        '``sample(rounding="training")`` rounds draws to (`bayesgen.recorded_grid`). NaN '
        "for a column on no such grid, not numeric, or of sparse or device input.",
    )
    data_step_ = _recorded(
        "data_step_",
        "The step of the grid ``data_min_ + k * data_step_`` each numeric column's "
        "training values lie on (NaN where there is none); 0 for a column of one value.",
    )

    #: The fewest classes a fit takes: two, as scikit-learn's discriminant analysis. The
    #: naive Bayes classes take one, as scikit-learn's do: the model is then the density
    #: of that class (``score_samples``, ``sample``), and every prediction is that class.
    min_classes: ClassVar[int] = 2

    #: Fitted attributes a fit sets beside its value ``joint_``, from the value and the rows
    #: (``_keep_value`` sets them for a value fitted elsewhere) or once per fit.
    _state_beside_value: ClassVar[tuple[str, ...]] = ()

    def __sklearn_is_fitted__(self) -> bool:
        """Fitted when it holds its value (a fit that failed half-way, after choosing
        MixedNB's column families, is not)."""
        return "joint_" in self.__dict__

    def __sklearn_tags__(self):
        """scikit-learn's tags, read off the family's declarations: its ``input_rows``
        (sparse counts, NaN missing) and ``column_values`` (non-negative, categories; a
        family of other than real numbers scores poorly on the shared checks' Gaussian
        blobs, as scikit-learn's naive Bayes does)."""
        tags = super().__sklearn_tags__()
        try:
            family = self._base_family()
        except (TypeError, ValueError):  # hyperparameters no family takes: fit says why
            return tags
        tags.input_tags.sparse = family.input_rows.counts
        tags.input_tags.allow_nan = family.input_rows.missing and family.input_rows.missing_at_fit
        tags.input_tags.positive_only = family.column_values == "non-negative"
        tags.input_tags.categorical = family.column_values == "categories"
        tags.classifier_tags.poor_score = family.column_values != "numbers"
        return tags

    def _check_hyperparameters(self) -> None:
        """Check the hyperparameters before a fit: the shared ones (`check_shared`), then
        the family's own (`FeatureFamily.check`, as model files and `FamilyClassifier`
        check it); a subclass adds what is its own."""
        self.check_shared()
        self._base_family().check()

    def _check_X(self, X, *, reset: bool):
        """``X`` checked as the family reads its rows (its ``input_rows``). Within ``fit``
        and ``partial_fit`` a NumPy table's finite check is held until its ranges settle it
        (`bayesgen.held_check`): an override that reads the values after this must check
        them itself."""
        return check_rows(self, X, reset=reset, rows=self._base_family().input_rows)

    # ------------------------------------------------------------- the value
    def _fit_settings(self) -> joint.FitSettings:
        fixed, concentration, kind = self._class_prior_settings()
        name = getattr(self, "_class_prior_argument", "priors")
        return joint.FitSettings(
            self.estimate, joint.ClassPriorRule(fixed, concentration, kind, name)
        )

    def _feature_family(self):
        """The family with what the fit learned about the columns."""
        family = self._base_family()
        value = self.__dict__.get("joint_")
        return family if value is None else joint.family_of(family, value)

    # ------------------------------------------------------------------ fitting
    def fit(self, X, y, sample_weight=None):
        """Fit the model: in closed form from labelled rows, by EM when some are unlabelled.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
            Class labels (any sortable type: ints, strings, ...). A row labelled
            ``unlabeled_marker`` (default -1, as in ``sklearn.semi_supervised``) or
            None/NaN is unlabelled: it enters through
            its mixture likelihood $\\sum_k \\pi_k\\, p(x \\mid k)$ and the model is
            fitted by EM (see ``max_iter``, ``tol``, ``n_init``, ``unlabeled_weight``);
            ``classes_`` come from the labelled rows. With no labelled row at all, EM
            clusters the rows into ``n_classes`` classes (with a warning).
        sample_weight : array-like of shape (n_samples,), optional
            Non-negative row weights; a weight of ``w`` counts as ``w`` copies of the row.

        Returns
        -------
        self
        """
        self._forget_component_choice()  # before any check reads the family's counts
        self._check_hyperparameters()
        training_columns = column_schema(X)
        # The ranges below read every value: they settle the finite check (held_check.py).
        with held_check.held_finite_check() as held:
            X = self._check_X(X, reset=True)
        if y is None:
            raise ValueError(
                f"{type(self).__name__} requires y to be passed, but the target y is None."
            )
        y = column_or_1d(y, warn=True)
        check_consistent_length(X, y)
        weights = check_weights(sample_weight, X)
        record = training_range.column_ranges(X, weights)
        held.settle(X, record, weights)
        self._training_columns = training_columns  # what ``sample`` returns rows as
        marker = getattr(self, "unlabeled_marker", -1)
        unlabeled = semi_supervised.marked_unlabeled(y, marker)
        if unlabeled.any():
            self._fit_unlabelled(X, y, unlabeled, weights)
            self.joint_ = self.joint_._replace(record=record)
            return self
        classes, class_index = encode_labels(y)
        if classes.shape[0] < self.min_classes:
            raise ValueError(
                f"y has {classes.shape[0]} class ({classes.tolist()}); a classifier needs at "
                "least two classes."
            )
        semi_supervised.check_n_classes(self.n_classes, classes)
        weighted_counts = np.bincount(class_index, weights=weights, minlength=classes.shape[0])
        # Classes without weight would have no density: two with weight, unless one class.
        if np.count_nonzero(weighted_counts > 0) < min(2, classes.shape[0]):
            raise ValueError(
                "sample_weight leaves fewer than two classes with positive total weight; a "
                "classifier needs at least two classes."
            )
        self.classes_ = classes
        self.fitted_with_unlabeled_ = False
        self.n_iter_, self.converged_ = 1, True  # the closed-form fit: one pass
        self.log_likelihood_history_ = np.empty(0)
        self._add_labelled_rows(X, class_index, weights, classes.shape[0], reset=True)
        self.joint_ = self.joint_._replace(record=record)
        return self

    def _fit_unlabelled(self, X, y, unlabeled: np.ndarray, weights: np.ndarray):
        """Fit by EM over the rows ``unlabeled`` marks (`semi_supervised_fit`)."""
        return semi_supervised_fit.fit(self, X, y, unlabeled, weights)

    def _add_labelled_rows(self, X, class_index, weights, n_classes: int, *, reset: bool):
        """``_add_rows`` for labelled rows, a chunk of rows at a time when there are many
        classes (`bayesgen.joint.row_chunks`); the statistics are sums, so chunks merge
        exactly. Rows an EM needs all at once (`_needs_all_rows`) are not cut. A family that
        sums sparse class weights (``sparse_class_weights``) takes every row in one pass,
        linear in the number of classes (chunks re-estimate all classes once per chunk)."""
        if self._base_family().sparse_class_weights and not self._fits_by_em():
            R = joint.sparse_responsibilities(class_index, weights, n_classes)
            self._add_rows(X, R, reset=reset)
            return
        chunks = joint.row_chunks(X.shape[0], n_classes)
        if len(chunks) == 1 or self._needs_all_rows(X, reset):
            self._add_rows(X, joint.responsibilities(class_index, weights, n_classes), reset=reset)
            return
        for number, rows in enumerate(chunks):
            R = joint.responsibilities(class_index[rows], weights[rows], n_classes)
            self._add_rows(X[rows], R, reset=reset and number == 0)

    def _add_rows(self, X, responsibilities: np.ndarray, *, reset):
        value = None if reset else self.__dict__.get("joint_")
        dtype = compute_dtype(X.dtype)
        if value is not None:
            dtype = compute_dtype(dtype, np.asarray(value.class_stats.counts).dtype)
        R = (
            responsibilities.astype(dtype, copy=False)
            if sp.issparse(responsibilities)
            else np.asarray(responsibilities).astype(dtype, copy=False)
        )
        family = self._base_family()
        if self._fits_by_em():
            self._fit_by_em(family, X, R, value)
        elif value is not None:
            check = self._refuse_missing_rows if self.fits_missing_by_em else None
            self.joint_ = joint.update(family, value, X, R, self._fit_settings(), check_batch=check)
        elif family.missing_needs_em and self.fits_missing_by_em:
            self.joint_ = self._fit_with_missing(family, X, R)
        else:
            self.joint_ = joint.fit(family, X, R, self.classes_, self._fit_settings())

    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """Add a batch of labelled rows to the fitted statistics.

        The statistics are exact sums, so fitting all rows at once equals calling
        ``partial_fit`` on any split of them (up to rounding).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        classes : array-like of shape (n_classes,), optional
            Every class that will ever appear; required on the first call.
        sample_weight : array-like of shape (n_samples,), optional

        Returns
        -------
        self

        Raises
        ------
        ValueError
            On a second batch of a family fitted by EM (a mixture): the component
            memberships of earlier rows change with the parameters, so EM needs every row
            at once.
        """
        if "joint_" in self.__dict__ and self._fits_by_em():
            self._check_X(X, reset=False)  # a wrong feature count is reported first
            raise ValueError(
                f"{type(self).__name__} cannot add rows with partial_fit: the component "
                "memberships of earlier rows change with the parameters, so EM needs every "
                "row at once; call fit on all the rows."
            )
        if "joint_" not in self.__dict__:  # a fit from scratch (after a failed fit too)
            self._forget_component_choice()
        first_call = not hasattr(self, "classes_")
        if first_call:
            if classes is None:
                raise ValueError("classes must be passed on the first call to partial_fit.")
            self._check_hyperparameters()
            self._training_columns = column_schema(X)
            all_classes = np.unique(check_class_list(classes))
            if all_classes.shape[0] < self.min_classes:
                raise ValueError(
                    f"classes has {all_classes.shape[0]} class; a classifier needs at least two."
                )
        elif classes is not None and not np.array_equal(np.unique(classes), self.classes_):
            raise ValueError(
                f"classes={np.unique(classes).tolist()} differs from the classes of the first "
                f"call, {self.classes_.tolist()}."
            )
        else:
            all_classes = self.classes_
        with held_check.held_finite_check() as held:  # as in fit
            X = self._check_X(X, reset=first_call)
        y = check_labels(y)
        check_consistent_length(X, y)
        unknown = unknown_labels(y, all_classes)
        if unknown:
            raise ValueError(
                f"y contains labels {unknown} that are not in classes {all_classes.tolist()}."
            )
        weights = check_weights(sample_weight, X)
        record = training_range.column_ranges(X, weights)
        held.settle(X, record, weights)
        previous = None if first_call else self.__dict__.get("joint_")  # None: a failed fit
        self.classes_ = all_classes
        class_index = np.searchsorted(all_classes, y)
        try:
            self._add_labelled_rows(X, class_index, weights, all_classes.shape[0], reset=first_call)
        except Exception:
            if first_call:  # a refused first batch leaves the model unfitted, so the next is first
                del self.classes_
            raise
        if previous is not None:  # a model whose earlier rows left no record keeps none
            earlier = previous.record
            record = None if earlier is None else training_range.merged(earlier, record)
        self.joint_ = self.joint_._replace(record=record)
        return self

    @classmethod
    def from_statistics(cls, params: dict, classes, class_stats, feature_stats, **options):
        """A fitted estimator made from statistics computed elsewhere, as ``fit`` makes it.

        Parameters
        ----------
        params : dict
            Constructor arguments.
        classes : ndarray of shape (n_classes,)
        class_stats, feature_stats : pytrees
            The class counts and the family's statistics (`bayesgen.joint.batch_stats`).
        **options
            ``attributes``: fitted attributes the statistics do not carry
            (``n_features_in_``), set first, what the family learned about the columns
            under its fitted name (``categories_``), and the record of the training
            columns under its fitted names (``data_min_``, ``data_max_``, and with them
            ``n_missing_`` and ``n_samples_seen_``, ``data_decimals_`` and
            ``data_step_``), which becomes the value's ``record``; the rest (``frozen``)
            go to `bayesgen.joint.from_stats`.

        Returns
        -------
        estimator

        Raises
        ------
        ValueError
            When the recorded attributes are half a record (`training_range.recorded`).
        """
        estimator = cls(**params)
        estimator.classes_ = np.asarray(classes)
        attributes = dict(options.pop("attributes", {}))
        record = training_range.recorded(attributes)
        names = estimator._base_family().learned()
        learned = {name: attributes.pop(f"{name}_") for name in names if f"{name}_" in attributes}
        vars(estimator).update(attributes)
        dtype = tree_leaves(class_stats)[0].dtype
        as_dtype = lambda tree: tree_map(lambda leaf: np.asarray(leaf, dtype=dtype), tree)  # noqa: E731
        with precision(dtype):
            value = joint.from_stats(
                estimator._base_family(),
                estimator.classes_,
                as_dtype(class_stats),
                as_dtype(feature_stats),
                estimator._fit_settings(),
                learned=learned or None,
                **options,
            )
        estimator._keep_value(value._replace(record=record), None, None)
        return estimator
