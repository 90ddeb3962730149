"""RDACV, like GridSearchCV, scores a fold that cannot be scored as NaN and goes on."""

import numpy as np
import pytest
from sklearn.exceptions import FitFailedWarning
from sklearn.model_selection import GridSearchCV, KFold

from bayesgen import RDACV, GaussianDA


def test_a_fold_with_one_class_is_nan_with_a_warning_as_in_grid_search():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(24, 2)) + np.repeat([[0, 0], [3, 3]], 12, axis=0)
    y = np.repeat([0, 1], 12)
    folds = KFold(4)  # unshuffled: the first and last test folds hold one class
    grid = {"reg_alpha": [0.0, 1.0], "reg_gamma": [1.0]}
    with pytest.warns(FitFailedWarning):
        model = RDACV(reg_alphas=grid["reg_alpha"], reg_gammas=grid["reg_gamma"], cv=folds)
        model.fit(X, y)
    with pytest.warns((FitFailedWarning, UserWarning)):
        search = GridSearchCV(GaussianDA(), grid, cv=folds, scoring="neg_log_loss").fit(X, y)
    for f in range(4):
        np.testing.assert_array_equal(
            np.isnan(model.cv_results_[f"split{f}_test_score"]),
            np.isnan(search.cv_results_[f"split{f}_test_score"]),
        )
    assert np.isnan(model.cv_results_["split0_test_score"]).all()
    np.testing.assert_allclose(
        model.cv_results_["split1_test_score"], search.cv_results_["split1_test_score"]
    )
    assert model.predict(X).shape == (24,)
