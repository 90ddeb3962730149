r"""Multiple imputation: completed copies whose parameters are posterior draws too.

Imputation $i$ of $m$ draws parameters $\theta_i \sim p(\theta \mid \mathcal D)$, then each
row's class $k \sim p(k \mid x_o, \theta_i)$ (or the known label) and its missing entries
$x_m \sim p(x_m \mid x_o, k, \theta_i)$. The spread between the copies then carries the
uncertainty about the parameters as well as about the entries, which is what Rubin's rules
need ("proper" imputation); drawing the entries under the one fitted $\hat\theta$ would
leave the parameter uncertainty out and make the between-imputation variance too small.

The draws of $\theta$ are the estimator's posterior draws (``_exact_draws``): conjugate, or
for a Gaussian fitted on rows with missing entries, data augmentation over the training rows
it kept (`bayesgen.inference.data_augmentation`, the sampler of ``posterior()``). A model
without those rows (a model file written before they were kept) has no posterior draws; its
draws then come from data augmentation over the rows being imputed (Tanner & Wong 1987;
Schafer 1997, ch. 5), started at the fitted parameters: alternately complete the rows under
the current $\theta$ (classes drawn for unlabelled rows) and draw $\theta$ from the
conjugate posterior of the completed rows. After `WARMUP_SWEEPS` sweeps, every
`SWEEPS_BETWEEN` sweeps give one imputation. The posterior is then that of the rows passed
(with their labels, when given), so pass the training rows: ``model.fit(X, y)`` then
``model.impute(X, y=y, method="sample", n_imputations=m)``.

It lives with the estimators because it is a use of one: it imputes with copies of the
model under each draw and, without exact draws, refits clones of it along the chain.
"""

from __future__ import annotations

import numpy as np
from sklearn.base import clone
from sklearn.utils import check_random_state

from bayesgen._memory import check_fits
from bayesgen._precision import compute_dtype
from bayesgen.estimators.prediction import warn_impossible
from bayesgen.inference import multiple_imputation
from bayesgen.inference.imputation import known_label_weights
from bayesgen.inference.multiple_imputation import check_n_imputations
from bayesgen.inference.sampling import numpy_generator
from bayesgen.inference.semi_supervised import unlabeled_rows
from bayesgen.joint import with_params

#: Data-augmentation sweeps discarded before the first imputation (no exact posterior).
WARMUP_SWEEPS = 20

#: Data-augmentation sweeps from one kept imputation to the next.
SWEEPS_BETWEEN = 5


def _drawn_value(estimator, draws: dict, index: int):
    """``estimator``'s fitted value with draw ``index`` of ``draws`` as its parameters (and
    class probabilities, where drawn)."""
    estimator._check_has_posterior()
    family = estimator._feature_family()
    sites = {name: value[index] for name, value in draws.items() if name != "class_prior"}
    value = with_params(estimator.joint_, family.params_from_sites(sites))
    if "class_prior" in draws:
        value = value._replace(class_probabilities=np.asarray(draws["class_prior"][index]))
    return value


def _rows(X, index):
    """Rows of an array or a DataFrame."""
    return X.iloc[index] if hasattr(X, "iloc") else np.asarray(X)[index]


def _unknown(y, n_samples: int) -> np.ndarray:
    """Rows whose label is not given: all of them without ``y``, else -1/None/NaN."""
    return np.ones(n_samples, dtype=bool) if y is None else unlabeled_rows(np.asarray(y))


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


def _copies_under_draws(estimator, X, y, draws: dict, rng):
    """The completed copies of ``X``, one per parameter draw of ``draws``, side by side
    (`bayesgen.inference.multiple_imputation`)."""
    rows = estimator._rows_to_fill(X)
    if y is not None and np.shape(y) != (len(rows),):
        raise ValueError(
            f"y must have one label per row of X, shape ({len(rows)},); got {np.shape(y)}."
        )
    unknown = _unknown(y, len(rows))
    known = None
    if not unknown.all():
        labels = np.asarray(y)[~unknown]
        known = (~unknown, known_label_weights(estimator.classes_, labels, labels.shape[0]))
    family = estimator._feature_family()
    weights, n_impossible = multiple_imputation.class_weights_under_draws(
        family, estimator.joint_, rows, draws, known, compute_dtype(rows.dtype)
    )
    warn_impossible(n_impossible)
    copies = multiple_imputation.copies_under_draws(
        family, rows, draws, weights, numpy_generator(rng)
    )
    return [estimator._filled_copy(X, rows, filled) for filled in copies]


def multiple_imputations(estimator, X, n_imputations, *, y=None, random_state=None):
    """``n_imputations`` completed copies of ``X`` (module docstring).

    Parameters
    ----------
    estimator : GenerativeClassifier
        Fitted; supplies its checked rows and their completed copy (``_rows_to_fill``,
        ``_filled_copy``, ``_impute_once``), the posterior hooks
        ``_check_exact_posterior`` and ``_exact_draws``, and ``predict_proba``.
    X : array-like of shape (n_samples, n_features)
        NaN marks a missing entry.
    n_imputations : int
        Number of copies, at least 1.
    y : array-like of shape (n_samples,), optional
        Known labels to condition on; -1 (or None) marks a row whose label is unknown.
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
    rng = check_random_state(random_state)
    if _has_exact_posterior(estimator):
        draws = estimator._exact_draws(numpy_generator(rng), n_imputations)
        return _stack(_copies_under_draws(estimator, X, y, draws, rng))
    return _data_augmentation(estimator, X, n_imputations, y, rng)


def _data_augmentation(estimator, X, n_imputations, y, rng):
    """Imputations from a data-augmentation chain over the rows of ``X``."""
    model, value, copies = estimator, None, []
    unknown = _unknown(y, X.shape[0])
    labels = np.empty(X.shape[0], dtype=estimator.classes_.dtype)
    if not unknown.all():
        labels[~unknown] = np.asarray(y)[~unknown]
    total = WARMUP_SWEEPS + SWEEPS_BETWEEN * (n_imputations - 1) + 1
    for sweep in range(total):
        if unknown.any():  # the chain is over (k, x_m, theta) for rows without a label
            rows = _rows(X, np.flatnonzero(unknown))
            weights = (
                model.predict_proba(rows)
                if value is None
                else model._plugin_posterior(rows, log=False, value=value)
            )
            drawn = (rng.uniform(size=(weights.shape[0], 1)) > np.cumsum(weights, axis=1)).sum(1)
            labels[unknown] = model.classes_[np.minimum(drawn, weights.shape[1] - 1)]
        completed = model._impute_once(X, "sample", labels, rng, value)
        if sweep >= WARMUP_SWEEPS and (sweep - WARMUP_SWEEPS) % SWEEPS_BETWEEN == 0:
            copies.append(completed)
            if len(copies) == n_imputations:
                break
        model = clone(estimator).fit(completed, labels)
        value = _drawn_value(model, model._exact_draws(numpy_generator(rng), 1), 0)
    return _stack(copies)
