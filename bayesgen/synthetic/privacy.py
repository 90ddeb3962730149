"""Distance to closest record (DCR): are synthetic rows copies of real ones?

Each synthetic row's distance to its nearest real training row
(`sklearn.neighbors.NearestNeighbors`, Euclidean, on
`bayesgen.synthetic.encoding.distance_encoder`'s points) is compared with the same distance
for real holdout rows, which the generator never saw: they show how close a fresh real row
falls by chance. A generator that copies its training rows gives synthetic distances far
below the holdout's.

- ``ratio``: median synthetic DCR / median holdout DCR; near 1 or above is good, near 0
  means copies.
- ``share_closer``: share of synthetic rows at most as far as the holdout's 5th percentile
  (about 0.05 for a generator that does not copy; 1 for copies).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import pandas as pd
from sklearn.neighbors import NearestNeighbors

from bayesgen.synthetic.encoding import distance_encoder
from bayesgen.synthetic.tables import Columns

#: The holdout DCR quantile a synthetic row should not fall below too often.
QUANTILE = 0.05


class Privacy(NamedTuple):
    """Distances to the closest real training row.

    Attributes
    ----------
    synthetic_median, holdout_median : float
        Median DCR of the synthetic rows and of the real holdout rows.
    ratio : float
        ``synthetic_median / holdout_median`` (NaN if the holdout median is 0).
    share_closer : float
        Share of synthetic rows whose DCR is at most the holdout's 5th percentile.
    """

    synthetic_median: float
    holdout_median: float
    ratio: float
    share_closer: float


def closest_distances(train: pd.DataFrame, rows: pd.DataFrame, columns: Columns) -> np.ndarray:
    """Each row's distance to its nearest training row, ``(n_rows,)``."""
    encoder = distance_encoder(columns.numeric, columns.categorical).fit(train)
    neighbours = NearestNeighbors(n_neighbors=1).fit(encoder.transform(train))
    distances, _ = neighbours.kneighbors(encoder.transform(rows))
    return distances[:, 0]


def privacy(train: pd.DataFrame, synthetic: pd.DataFrame, holdout: pd.DataFrame, columns):
    """DCR of the synthetic rows against that of a real holdout.

    Parameters
    ----------
    train, synthetic, holdout : pandas.DataFrame
        Real training rows, synthetic rows, real holdout rows, in the form
        `bayesgen.synthetic.tables.check_tables` returns.
    columns : Columns
        Their columns' kinds.

    Returns
    -------
    Privacy
    """
    synthetic_dcr = closest_distances(train, synthetic, columns)
    holdout_dcr = closest_distances(train, holdout, columns)
    synthetic_median = float(np.median(synthetic_dcr))
    holdout_median = float(np.median(holdout_dcr))
    ratio = synthetic_median / holdout_median if holdout_median > 0 else np.nan
    share = float(np.mean(synthetic_dcr <= np.quantile(holdout_dcr, QUANTILE)))
    return Privacy(synthetic_median, holdout_median, float(ratio), share)
