"""How well the synthetic table keeps the dependence between pairs of columns.

Each table gets a symmetric association matrix, one measure per kind of pair:

- numeric–numeric: Pearson's correlation r ∈ [−1, 1] (`scipy.stats.pearsonr`);
- categorical–categorical: Cramér's V ∈ [0, 1]
  (`scipy.stats.contingency.association`, without continuity correction);
- numeric–categorical: the correlation ratio η ∈ [0, 1], √(between-category sum of squares /
  total sum of squares) of the numeric column grouped by the categorical one, the share of
  its spread the categories explain (η² is the R² of a one-way ANOVA).

Each pair is measured on the rows where both cells are observed; a pair with a constant
column (or fewer than two rows, or one category) has association 0. The dependence
difference is |A_real − A_synthetic|, at most 2 for a correlation that changes sign and at
most 1 otherwise; its mean over the pairs summarises it.
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
from scipy.stats import pearsonr
from scipy.stats.contingency import association

from bayesgen.synthetic.tables import NUMERIC, Columns


def pearson(a: pd.Series, b: pd.Series) -> float:
    """Pearson's correlation of two numeric columns (0 if either is constant)."""
    if a.size < 2 or np.ptp(a.to_numpy()) == 0 or np.ptp(b.to_numpy()) == 0:
        return 0.0
    return float(pearsonr(a.to_numpy(), b.to_numpy()).statistic)


def cramers_v(a: pd.Series, b: pd.Series) -> float:
    """Cramér's V of two categorical columns (0 if either has one category)."""
    table = pd.crosstab(a, b)
    if min(table.shape) < 2:
        return 0.0
    return float(association(table.to_numpy(), method="cramer"))


def correlation_ratio(values: pd.Series, categories: pd.Series) -> float:
    """The correlation ratio η of a numeric column given a categorical one."""
    total = float(((values - values.mean()) ** 2).sum())
    if values.size < 2 or total == 0:
        return 0.0
    groups = values.groupby(categories.to_numpy())
    between = float((groups.size() * (groups.mean() - values.mean()) ** 2).sum())
    return float(np.sqrt(min(between / total, 1.0)))


def _pair(a: pd.Series, b: pd.Series, kind_a: str, kind_b: str) -> float:
    both = a.notna() & b.notna()
    a, b = a[both], b[both]
    if kind_a == NUMERIC and kind_b == NUMERIC:
        return pearson(a, b)
    if kind_a != NUMERIC and kind_b != NUMERIC:
        return cramers_v(a, b)
    return correlation_ratio(a, b) if kind_a == NUMERIC else correlation_ratio(b, a)


def association_matrix(table: pd.DataFrame, columns: Columns) -> pd.DataFrame:
    """The table's association matrix, ``(n_columns, n_columns)``, ones on the diagonal.

    Parameters
    ----------
    table : pandas.DataFrame
        A table in the form `bayesgen.synthetic.tables.check_tables` returns.
    columns : Columns
        Its columns' kinds.

    Returns
    -------
    pandas.DataFrame
        Pearson's r, Cramér's V or the correlation ratio η of each pair of columns.
    """
    names = list(columns.kinds)
    matrix = pd.DataFrame(np.eye(len(names)), index=names, columns=names)
    for first, second in itertools.combinations(names, 2):
        value = _pair(table[first], table[second], columns.kinds[first], columns.kinds[second])
        matrix.loc[first, second] = matrix.loc[second, first] = value
    return matrix


def mean_over_pairs(difference: pd.DataFrame) -> float:
    """The mean of a symmetric matrix's entries above the diagonal (NaN for one column)."""
    values = difference.to_numpy()
    upper = values[np.triu_indices(values.shape[0], k=1)]
    return float(upper.mean()) if upper.size else np.nan
