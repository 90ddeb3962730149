"""The two fixed ways the report feeds a table to scikit-learn.

- `gradient_boosting`: for the train-on-synthetic and detector classifiers, a
  `~sklearn.ensemble.HistGradientBoostingClassifier` with its default settings and native
  categorical support; categorical columns are ordinal-encoded (categories unseen when it
  was fitted, and missing cells, become NaN, which the trees route on their own; more than
  255 categories are grouped as infrequent), numeric columns pass through with their NaN.
  Trees see interactions, so a detector can tell a table whose columns were shuffled
  independently from the real one. Below `THREADED_ROWS` rows the trees grow on one OpenMP
  thread (`trees_threads`).
- `distance_encoder`: for distances between rows, numeric columns standardised by the real
  rows (missing cells take the mean) and categorical columns one-hot encoded (a missing cell
  is its own category), so one standard deviation weighs as much as a category's indicator.
"""

from __future__ import annotations

import contextlib

from sklearn.compose import ColumnTransformer
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.impute import SimpleImputer
from sklearn.pipeline import Pipeline, make_pipeline
from sklearn.preprocessing import OneHotEncoder, OrdinalEncoder, StandardScaler

#: HistGradientBoostingClassifier's largest number of categories per feature.
MAX_CATEGORIES = 255

#: Fewest rows (all the tables the classifier is trained on or tests, together) for which
#: its trees grow on every OpenMP thread. Below it each tree's many small parallel regions
#: cost more than they share out: on 2 cores the detector's five folds over 1,000 + 1,000
#: rows of Fair took 0.67-0.68 s on one thread against 0.84-0.87 s on two, 4,000 + 4,000
#: rows of randhie 0.88-0.91 against 0.96-1.00 s, where 8,000 + 8,000 took 1.29-1.30
#: against 1.20-1.24 s (the AUCs the same to every digit).
THREADED_ROWS = 12_000


def trees_threads(n_rows: int):
    """A context in which `gradient_boosting`'s trees grow on one OpenMP thread where
    ``n_rows`` is below `THREADED_ROWS`, else on as many as OpenMP gives them.

    The limit is threadpoolctl's, on the calling thread's OpenMP setting (what scikit-learn
    reads for the trees' threads), and is restored on leaving.
    """
    if n_rows >= THREADED_ROWS:
        return contextlib.nullcontext()
    from threadpoolctl import threadpool_limits

    return threadpool_limits(limits=1, user_api="openmp")


def gradient_boosting(numeric: list, categorical: list, random_state=None) -> Pipeline:
    """An unfitted classifier of table rows: ordinal encoding, then gradient-boosted trees.

    Parameters
    ----------
    numeric, categorical : list of str
        The feature columns of each kind.
    random_state : int, numpy.random.RandomState or None
        Seeds the trees' early-stopping split.

    Returns
    -------
    sklearn.pipeline.Pipeline
    """
    encoder = OrdinalEncoder(
        handle_unknown="use_encoded_value",
        unknown_value=float("nan"),
        max_categories=MAX_CATEGORIES,
    )
    columns = ColumnTransformer(
        [("categorical", encoder, categorical), ("numeric", "passthrough", numeric)]
    )
    trees = HistGradientBoostingClassifier(
        categorical_features=[True] * len(categorical) + [False] * len(numeric),
        random_state=random_state,
    )
    return make_pipeline(columns, trees)


def distance_encoder(numeric: list, categorical: list) -> ColumnTransformer:
    """An unfitted encoder of rows into points whose Euclidean distances compare rows.

    Parameters
    ----------
    numeric, categorical : list of str
        The columns of each kind.

    Returns
    -------
    sklearn.compose.ColumnTransformer
        Dense output: standardised numeric columns, then one-hot categorical ones.
    """
    return ColumnTransformer(
        [
            ("numeric", make_pipeline(SimpleImputer(), StandardScaler()), numeric),
            (
                "categorical",
                make_pipeline(
                    SimpleImputer(strategy="constant", fill_value="<missing>"),
                    OneHotEncoder(handle_unknown="ignore", sparse_output=False),
                ),
                categorical,
            ),
        ],
        sparse_threshold=0.0,
    )
