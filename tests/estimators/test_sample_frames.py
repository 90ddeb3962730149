"""A model fitted on a DataFrame draws synthetic rows as a DataFrame of the same columns."""

import numpy as np
import pandas as pd
import pytest

from bayesgen import CategoricalNB, GaussianNB, PoissonNB


def _frame(n=60, seed=0):
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {
            "length": rng.normal(10, 2, n),
            "year": rng.integers(2007, 2010, n).astype(np.int64),
            "weight": rng.normal(5, 1, n).astype(np.float32),
        }
    ), np.repeat(["a", "b"], n // 2)


def test_gaussian_samples_keep_names_and_dtypes():
    X, y = _frame()
    drawn, labels = GaussianNB().fit(X, y).sample(200, random_state=0)
    assert isinstance(drawn, pd.DataFrame)
    assert list(drawn.columns) == list(X.columns)
    assert drawn.dtypes.to_dict() == X.dtypes.to_dict()
    # The integer column is the Gaussian draw rounded: years near the training ones.
    assert drawn["year"].between(2000, 2016).all()
    assert set(labels) <= {"a", "b"}


def test_arrays_in_arrays_out():
    X, y = _frame()
    drawn, _ = GaussianNB().fit(X.to_numpy(), y).sample(5, random_state=0)
    assert isinstance(drawn, np.ndarray)


def test_categories_stay_categories():
    rng = np.random.default_rng(1)
    colour = pd.Categorical(rng.choice(["red", "green", "blue"], 80), ordered=False)
    size = pd.Categorical(rng.choice(["S", "M", "L"], 80), categories=["S", "M", "L"], ordered=True)
    X = pd.DataFrame({"colour": colour, "size": size, "count": rng.integers(0, 5, 80)})
    y = rng.integers(0, 2, 80)
    drawn, _ = CategoricalNB().fit(X, y).sample(50, random_state=0)
    assert drawn.dtypes.to_dict() == X.dtypes.to_dict()
    assert list(drawn["size"].cat.categories) == ["S", "M", "L"] and drawn["size"].cat.ordered
    assert set(drawn["colour"]) <= {"red", "green", "blue"}


@pytest.mark.parametrize("dtype", [np.int32, "Int64"])
def test_counts_stay_integers(dtype):
    rng = np.random.default_rng(2)
    X = pd.DataFrame({"w1": rng.poisson(3, 40), "w2": rng.poisson(1, 40)}).astype(dtype)
    drawn, _ = PoissonNB().fit(X, np.repeat([0, 1], 20)).sample(10, random_state=0)
    assert drawn.dtypes.to_dict() == X.dtypes.to_dict()
