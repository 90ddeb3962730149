r"""The held-out log-likelihood of a generator: a score to choose its size on unseen rows.

A generator that draws realistic rows gives high probability to real rows it never saw. On
rows $(x_i, y_i)$ held out of the fit,

$$
\ell = \frac{1}{n} \sum_{i=1}^{n} \log p(x_i, y_i)
     = \frac{1}{n} \sum_{i=1}^{n} \left[\log \pi_{y_i} + \log p(x_i \mid y_i)\right],
$$

which rises with the components that describe the data and then levels off (or falls, once
extra components fit the training rows' noise). With the signature of a scikit-learn scorer,
it chooses ``LatentClassNB``'s ``n_components`` by cross-validation; `fewest_components`
keeps the smallest number whose score is within one standard error of the best (extra
components that merely repeat others score the same, give or take rounding)::

    GridSearchCV(LatentClassNB(), {"n_components": [1, 2, 3, 4]},
                 scoring=held_out_log_likelihood, refit=fewest_components,
                 cv=StratifiedKFold(5))
"""

from __future__ import annotations

import numpy as np


def held_out_log_likelihood(estimator, X, y) -> float:
    r"""Mean $\log p(x_i, y_i)$ of a fitted generative classifier on rows it did not see.

    Parameters
    ----------
    estimator : a fitted bayesgen classifier
        Anything with ``predict_joint_log_proba`` and ``classes_``.
    X : array-like or DataFrame of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
        Labels among ``estimator.classes_``.

    Returns
    -------
    float
        The mean joint log-likelihood (higher is better), in nats per row.

    Raises
    ------
    ValueError
        When a label is not among ``estimator.classes_``.
    """
    joint = np.asarray(estimator.predict_joint_log_proba(X))
    labels = np.asarray(y)
    classes = np.asarray(estimator.classes_)
    order = np.argsort(classes)
    position = np.searchsorted(classes[order], labels)
    found = position < classes.size
    found[found] = classes[order][position[found]] == labels[found]
    if not found.all():
        unknown = sorted({str(label) for label in labels[~found]})
        raise ValueError(f"labels not in the estimator's classes_: {', '.join(unknown)}")
    column = order[position]
    return float(joint[np.arange(labels.size), column].mean())


def fewest_components(cv_results: dict) -> int:
    """The index of the fewest ``n_components`` scoring within one standard error of the best.

    A ``refit=`` callable for `sklearn.model_selection.GridSearchCV` over ``n_components``
    (the one-standard-error rule): the standard error is the best candidate's standard
    deviation over the folds divided by the square root of their number.

    Parameters
    ----------
    cv_results : dict
        ``GridSearchCV.cv_results_``, with ``param_n_components`` among its keys.

    Returns
    -------
    int
        The index of the chosen candidate in ``cv_results``.
    """
    means = np.asarray(cv_results["mean_test_score"], dtype=float)
    stds = np.asarray(cv_results["std_test_score"], dtype=float)
    n_folds = sum(1 for key in cv_results if key.startswith("split") and "test" in key)
    best = int(np.nanargmax(means))
    within = np.flatnonzero(means >= means[best] - stds[best] / np.sqrt(max(n_folds, 1)))
    sizes = np.asarray(cv_results["param_n_components"], dtype=float)
    return int(within[np.argmin(sizes[within])])
