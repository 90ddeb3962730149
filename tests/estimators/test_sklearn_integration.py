"""The estimators behave as scikit-learn citizens: pipelines, grid search, DataFrames, clone."""

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.datasets import load_wine
from sklearn.model_selection import GridSearchCV, cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from bayesgen import LDA, QDA, GaussianDA, GaussianNB


def test_grid_search_over_covariance_type_and_estimate_in_a_pipeline():
    """GridSearchCV clones and refits the pipeline; the best score equals a manual CV."""
    X, y = load_wine(return_X_y=True)
    pipeline = make_pipeline(StandardScaler(), GaussianDA())
    grid = {
        "gaussianda__covariance_type": ["full", "tied", "diag"],
        "gaussianda__estimate": ["mle", "map"],
    }
    search = GridSearchCV(pipeline, grid, cv=5).fit(X, y)
    best = search.best_params_
    manual = cross_val_score(
        make_pipeline(
            StandardScaler(),
            GaussianDA(
                covariance_type=best["gaussianda__covariance_type"],
                estimate=best["gaussianda__estimate"],
            ),
        ),
        X,
        y,
        cv=5,
    )
    assert search.best_score_ == pytest.approx(manual.mean())
    assert search.best_score_ > 0.95


@pytest.mark.parametrize("model", [LDA(), QDA(), GaussianNB()])
def test_dataframe_input_records_feature_names(model):
    """A DataFrame fit keeps its column names and predicts as the NumPy fit does."""
    data = load_wine(as_frame=True)
    frame, y = data.data, data.target
    fitted = clone(model).fit(frame, y)
    np.testing.assert_array_equal(fitted.feature_names_in_, frame.columns)
    plain = clone(model).fit(frame.to_numpy(), y.to_numpy())
    np.testing.assert_allclose(fitted.predict_proba(frame), plain.predict_proba(frame.to_numpy()))


def test_string_labels_round_trip_through_predict():
    """classes_ holds the user's string labels and predict returns them."""
    X, y = load_wine(return_X_y=True)
    names = np.array(["barbera", "barolo", "grignolino"])[y]
    model = QDA().fit(X, pd.Series(names))
    np.testing.assert_array_equal(model.classes_, ["barbera", "barolo", "grignolino"])
    assert set(model.predict(X)) <= set(model.classes_)
    assert model.score(X, names) == QDA().fit(X, y).score(X, y)
