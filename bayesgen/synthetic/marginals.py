"""How far each synthetic column's distribution is from the real one, column by column.

Numeric columns: the two-sample Kolmogorov–Smirnov statistic (`scipy.stats.ks_2samp`), the
largest gap between the two empirical distribution functions. Categorical columns: the total
variation distance ½ Σ_v |p_real(v) − p_synthetic(v)|, the largest difference in probability
the two tables give any set of values. Both lie in [0, 1], 0 for equal distributions; both
are computed over the observed cells, and the share of missing cells is shown beside them.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy.stats import ks_2samp

from bayesgen.synthetic.tables import NUMERIC, Columns


def total_variation(real: pd.Series, synthetic: pd.Series) -> float:
    """Total variation distance between the observed values' frequencies of two columns."""
    p = real.dropna().value_counts(normalize=True)
    q = synthetic.dropna().value_counts(normalize=True)
    if p.empty or q.empty:
        return np.nan
    p, q = p.align(q, fill_value=0.0)
    return float(0.5 * np.abs(p - q).sum())


def kolmogorov_smirnov(real: pd.Series, synthetic: pd.Series) -> float:
    """The two-sample Kolmogorov–Smirnov statistic of two columns' observed values."""
    a, b = real.dropna().to_numpy(), synthetic.dropna().to_numpy()
    if a.size == 0 or b.size == 0:
        return np.nan
    return float(ks_2samp(a, b).statistic)


def marginal_distances(real: pd.DataFrame, synthetic: pd.DataFrame, columns: Columns):
    """Each column's marginal distance.

    Parameters
    ----------
    real, synthetic : pandas.DataFrame
        The tables in the form `bayesgen.synthetic.tables.check_tables` returns.
    columns : Columns
        Their columns' kinds.

    Returns
    -------
    pandas.DataFrame
        One row per column (the index): ``kind``, ``measure`` (``"KS"`` or ``"TV"``),
        ``distance`` in [0, 1], and ``missing_real`` / ``missing_synthetic``, the shares of
        missing cells.
    """
    rows = {}
    for column, kind in columns.kinds.items():
        numeric = kind == NUMERIC
        distance = (kolmogorov_smirnov if numeric else total_variation)(
            real[column], synthetic[column]
        )
        rows[column] = {
            "kind": kind,
            "measure": "KS" if numeric else "TV",
            "distance": distance,
            "missing_real": float(real[column].isna().mean()),
            "missing_synthetic": float(synthetic[column].isna().mean()),
        }
    return pd.DataFrame.from_dict(rows, orient="index")
