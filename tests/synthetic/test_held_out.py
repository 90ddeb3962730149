"""The held-out log-likelihood against SciPy, and the choice of LatentClassNB's components."""

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from sklearn.model_selection import GridSearchCV, StratifiedKFold
from sklearn.naive_bayes import GaussianNB

from bayesgen import LatentClassNB
from bayesgen.synthetic import fewest_components, held_out_log_likelihood


def test_held_out_log_likelihood_is_the_mean_joint_log_density():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3)) + np.repeat([[0.0], [2.0], [4.0]], 20, axis=0)
    y = np.repeat(["c", "a", "b"], 20)  # classes_ sorts them: the label decides the column
    model = GaussianNB().fit(X, y)
    X_new, y_new = rng.normal(size=(15, 3)) + 1.0, rng.choice(["a", "b", "c"], 15)
    k = np.searchsorted(model.classes_, y_new)
    expected = np.log(model.class_prior_[k]) + stats.norm.logpdf(
        X_new, model.theta_[k], np.sqrt(model.var_[k])
    ).sum(axis=1)
    assert held_out_log_likelihood(model, X_new, y_new) == pytest.approx(expected.mean())


def test_unknown_labels_are_named():
    X, y = np.arange(8.0).reshape(4, 2), np.array(["a", "b", "a", "b"])
    model = GaussianNB().fit(X, y)
    with pytest.raises(ValueError, match="z"):
        held_out_log_likelihood(model, X, np.array(["a", "z", "a", "b"]))


def test_fewest_components_applies_the_one_standard_error_rule():
    results = {
        "param_n_components": np.array([1, 2, 3, 4]),
        "mean_test_score": np.array([-3.0, -2.05, -2.0, -2.3]),
        "std_test_score": np.array([0.1, 0.1, 0.2, 0.1]),
        "split0_test_score": None,
        "split1_test_score": None,
        "split2_test_score": None,
        "split3_test_score": None,
    }
    # best -2.0, one standard error 0.2 / 2 = 0.1: 2 components are within it, 1 is not
    assert fewest_components(results) == 1


def test_cross_validation_recovers_the_simulated_number_of_components():
    """Rows drawn from 3 latent classes per class: the held-out choice is 3."""
    rng = np.random.default_rng(0)
    n = 600
    y, m = rng.integers(0, 2, n), rng.integers(0, 3, n)
    columns = {
        f"c{j}": np.where(rng.random(n) < 0.8, (m + j + 2 * y) % 4, rng.integers(0, 4, n))
        .astype(str)
        .astype(object)
        for j in range(3)
    }
    columns["x"] = 4.0 * m + rng.normal(size=n)
    search = GridSearchCV(
        LatentClassNB(random_state=0),
        {"n_components": [1, 2, 3, 4]},
        scoring=held_out_log_likelihood,
        refit=fewest_components,
        cv=StratifiedKFold(3, shuffle=True, random_state=0),
    ).fit(pd.DataFrame(columns), y)
    assert search.best_params_ == {"n_components": 3}
    scores = search.cv_results_["mean_test_score"]
    assert scores[0] < scores[1] < scores[2]
