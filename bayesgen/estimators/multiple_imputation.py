r"""Multiple imputation: completed copies whose parameters are posterior draws too.

Imputation $i$ of $m$ draws parameters $\theta_i \sim p(\theta \mid \mathcal D)$, then each
row's class $k \sim p(k \mid x_o, \theta_i)$ (or the known label) and its missing entries
$x_m \sim p(x_m \mid x_o, k, \theta_i)$. The spread between the copies then carries the
uncertainty about the parameters as well as about the entries, which is what Rubin's rules
need ("proper" imputation); drawing the entries under the one fitted $\hat\theta$ would
leave the parameter uncertainty out and make the between-imputation variance too small.

The draws of $\theta$ are the model's posterior draws: conjugate, or for a Gaussian fitted
on rows with missing entries, data augmentation over the training rows it kept
(`bayesgen.inference.data_augmentation`, the sampler of ``posterior()``); the copies under
them are made side by side (`bayesgen.inference.multiple_imputation`). A fit without a
closed-form posterior of its own (fitted by EM with unlabelled rows, or a model file
written before fits kept their rows) imputes by data augmentation over the rows being
imputed (`bayesgen.inference.imputation_chain`): the posterior is then that of the rows
passed (with their labels, when given), so pass the training rows: ``model.fit(X, y)``
then ``model.impute(X, y=y, method="sample", n_imputations=m)``.

Here the estimator only checks its input and turns the family's copies into what
``impute`` returns.
"""

from __future__ import annotations

import numpy as np
from sklearn.utils import check_random_state

from bayesgen._memory import check_fits
from bayesgen._precision import compute_dtype
from bayesgen.estimators.prediction import warn_impossible
from bayesgen.inference import imputation_chain, multiple_imputation
from bayesgen.inference.imputation import label_weights
from bayesgen.inference.multiple_imputation import check_n_imputations
from bayesgen.inference.sampling import numpy_generator
from bayesgen.inference.semi_supervised import unlabeled_rows
from bayesgen.validation import class_indices


def _stack(copies: list):
    """The copies as one array, or as a list when they are DataFrames (columns of their own
    dtypes)."""
    return copies if hasattr(copies[0], "iloc") else np.stack(copies)


def _has_exact_posterior(estimator) -> bool:
    try:
        estimator._check_exact_posterior()
    except ValueError:
        return False
    return True


def _class_index(classes, y, n_rows: int, marker=-1) -> np.ndarray:
    """Each row's class index in ``classes``, -1 where ``y`` leaves it unknown (the model's
    ``unlabeled_marker``, None or NaN) or where there is no ``y``."""
    index = np.full(n_rows, -1, dtype=np.intp)
    if y is None:
        return index
    if np.shape(y) != (n_rows,):
        raise ValueError(
            f"y must have one label per row of X, shape ({n_rows},); got {np.shape(y)}."
        )
    labels = np.asarray(y)
    known = ~unlabeled_rows(labels, marker)
    index[known] = class_indices(classes, labels[known])
    return index


def _copies_under_draws(estimator, X, rows, labels: np.ndarray, draws: dict, rng) -> list:
    """The completed copies of ``X``, one per parameter draw of ``draws``, side by side
    (`bayesgen.inference.multiple_imputation`)."""
    known = None
    if (labels >= 0).any():
        known = (labels >= 0, label_weights(labels[labels >= 0], estimator.classes_.shape[0]))
    family = estimator._feature_family()
    weights, n_impossible = multiple_imputation.class_weights_under_draws(
        family, estimator.joint_, rows, draws, known, compute_dtype(rows.dtype)
    )
    warn_impossible(n_impossible)
    copies = multiple_imputation.copies_under_draws(
        family, rows, draws, weights, numpy_generator(rng)
    )
    return [estimator._filled_copy(X, rows, filled) for filled in copies]


def _chain_copies(estimator, X, rows, labels: np.ndarray, n_imputations: int, rng) -> list:
    """The completed copies of ``X`` from data augmentation over its rows
    (`bayesgen.inference.imputation_chain`)."""
    copies, n_impossible = imputation_chain.chain_copies(
        estimator._feature_family(),
        estimator.joint_,
        estimator._fit_settings(),
        rows,
        labels,
        n_imputations,
        numpy_generator(rng),
        name=type(estimator).__name__,
    )
    warn_impossible(n_impossible)
    return [estimator._filled_copy(X, rows, completed) for completed in copies]


def multiple_imputations(estimator, X, n_imputations, *, y=None, random_state=None):
    """``n_imputations`` completed copies of ``X`` (module docstring).

    Parameters
    ----------
    estimator : GenerativeClassifier
        Fitted; supplies its checked rows and their completed copy (``_rows_to_fill``,
        ``_filled_copy``), its fitted value, family and settings, and its posterior checks
        (``_check_model_posterior``, ``_check_exact_posterior``, ``_exact_draws``).
    X : array-like of shape (n_samples, n_features)
        NaN marks a missing entry.
    n_imputations : int
        Number of copies, at least 1.
    y : array-like of shape (n_samples,), optional
        Known labels to condition on; the model's ``unlabeled_marker`` (default -1), None
        or NaN marks a row whose label is unknown.
    random_state : None, int or numpy.random.RandomState

    Returns
    -------
    ndarray of shape (n_imputations, n_samples, n_features), or list of DataFrame
        Observed entries are those of ``X`` in every copy. A model whose ``impute``
        returns DataFrames (``MixedNB`` fitted on one) gives a list of ``n_imputations``
        DataFrames.
    """
    n_imputations = check_n_imputations(n_imputations)
    n_rows, n_columns = np.shape(X)[0], (np.shape(X)[1] if np.ndim(X) > 1 else 1)
    # The copies and the parameter draws behind them, in float64, before any is drawn.
    check_fits(
        8.0 * n_imputations * (n_rows * n_columns + n_columns * estimator.classes_.shape[0]),
        f"impute(n_imputations={n_imputations}) of {n_rows} rows",
        alternative="ask for fewer copies, or impute the rows in batches.",
    )
    estimator._check_model_posterior()  # what the chain cannot lift either
    rng = check_random_state(random_state)
    rows = estimator._rows_to_fill(X)
    marker = getattr(estimator, "unlabeled_marker", -1)
    labels = _class_index(estimator.classes_, y, n_rows, marker)
    if _has_exact_posterior(estimator):
        draws = estimator._exact_draws(numpy_generator(rng), n_imputations)
        return _stack(_copies_under_draws(estimator, X, rows, labels, draws, rng))
    return _stack(_chain_copies(estimator, X, rows, labels, n_imputations, rng))
