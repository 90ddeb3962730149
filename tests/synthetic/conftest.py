"""Tables for the synthetic-data report's tests, and one OpenMP thread for its classifiers.

HistGradientBoostingClassifier's OpenMP threads spin while they wait; on the suite's two
shared cores one detector run measured 17 s with the default threads and 0.5 s with one.
"""

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import load_wine
from sklearn.model_selection import train_test_split
from threadpoolctl import threadpool_limits


@pytest.fixture(autouse=True, scope="package")
def _one_openmp_thread():
    with threadpool_limits(1, user_api="openmp"):
        yield


@pytest.fixture(scope="package")
def wine_split():
    """The wine table with named cultivars: a stratified 70/30 split (train, holdout)."""
    wine = load_wine(as_frame=True)
    frame = wine.frame.rename(columns={"target": "cultivar"})
    frame["cultivar"] = frame["cultivar"].map(dict(enumerate(wine.target_names)))
    train, holdout = train_test_split(
        frame, test_size=0.3, random_state=0, stratify=frame["cultivar"]
    )
    return train.reset_index(drop=True), holdout.reset_index(drop=True)


def shuffled_columns(frame: pd.DataFrame, seed: int = 0) -> pd.DataFrame:
    """``frame`` with each column permuted on its own: margins kept, dependence destroyed."""
    rng = np.random.default_rng(seed)
    return frame.apply(lambda column: rng.permutation(column.to_numpy()))


@pytest.fixture
def mixed_table():
    """A small table of every kind of column, with a few missing cells."""
    rng = np.random.default_rng(1)
    n = 60
    species = rng.choice(["Adelie", "Gentoo", "Chinstrap"], n)
    frame = pd.DataFrame(
        {
            "bill": rng.normal(40, 5, n) + (species == "Gentoo") * 8,
            "year": rng.integers(2007, 2010, n),
            "island": rng.choice(["Biscoe", "Dream", "Torgersen"], n),
            "male": rng.random(n) < 0.5,
            "species": species,
        }
    )
    frame.loc[[3, 11], "bill"] = np.nan
    frame.loc[[5], "island"] = np.nan
    return frame
