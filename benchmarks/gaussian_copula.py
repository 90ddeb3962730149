r"""A Gaussian copula with empirical margins: the benchmark's stand-in for the peers' copula.

Our reimplementation for the benchmark only (not a bayesgen feature), written because the
``copulas``/``sdv`` Gaussian copula cannot be installed beside pandas 3. It follows what
they do by default: every column, the class column included, becomes a uniform $u$ (a
number through its empirical CDF with mid-ranks; a category through its interval of
cumulative frequency, with $u$ drawn inside), then a normal score $z = \Phi^{-1}(u)$; the
scores' correlation matrix is the copula. Draws go back through the empirical quantiles
(whole-number columns rounded, the values clipped to the observed range) and the
category intervals. A column's missing cells are drawn at its observed missing rate,
independently of the rest.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats


class GaussianCopula:
    """Fit on a DataFrame, then ``sample(n, random_state)`` a DataFrame of its columns."""

    def fit(self, frame: pd.DataFrame, random_state=0) -> GaussianCopula:
        rng = np.random.default_rng(random_state)
        self.columns_, self.margins_ = list(frame.columns), {}
        scores = []
        for column in self.columns_:
            values = frame[column]
            missing = values.isna().to_numpy()
            numeric = pd.api.types.is_numeric_dtype(values) and not pd.api.types.is_bool_dtype(
                values
            )
            if numeric:
                observed = np.sort(values[~missing].to_numpy(dtype=float))
                u = (stats.rankdata(values[~missing]) - 0.5) / observed.size
                margin = ("number", observed, pd.api.types.is_integer_dtype(values))
            else:
                counts = values[~missing].value_counts(sort=False)
                edges = np.concatenate([[0.0], np.cumsum(counts.to_numpy()) / counts.sum()])
                position = counts.index.get_indexer(values[~missing])
                low, high = edges[position], edges[position + 1]
                u = low + (high - low) * rng.uniform(size=position.size)
                margin = ("category", (counts.index, edges), None)
            score = np.zeros(values.size)  # a missing cell sits at the median
            score[~missing] = stats.norm.ppf(np.clip(u, 1e-6, 1 - 1e-6))
            scores.append(score)
            self.margins_[column] = (*margin, missing.mean(), values.dtype)
        scores = np.array(scores)
        # A column constant here (one class's rows) has no correlation: independent of the rest.
        spread = scores.std(axis=1) > 0
        self.correlation_ = np.eye(len(scores))
        if spread.sum() > 1:
            self.correlation_[np.ix_(spread, spread)] = np.corrcoef(scores[spread])
        return self

    def sample(self, n: int, random_state=0) -> pd.DataFrame:
        rng = np.random.default_rng(random_state)
        z = rng.multivariate_normal(
            np.zeros(len(self.columns_)), self.correlation_, size=n, method="eigh"
        )
        u = stats.norm.cdf(z)
        out = {}
        for j, column in enumerate(self.columns_):
            kind, values, whole, missing_rate, dtype = self.margins_[column]
            if kind == "number":
                drawn = np.quantile(values, u[:, j])
                if whole:
                    drawn = np.rint(drawn)
            else:
                categories, edges = values
                index = np.clip(np.searchsorted(edges, u[:, j], side="right") - 1, 0, None)
                drawn = np.asarray(categories)[np.minimum(index, len(categories) - 1)]
            series = pd.Series(drawn)
            absent = rng.uniform(size=n) < missing_rate
            if absent.any():
                series = series.astype(object).where(~absent, None)
            keeps_dtype = not absent.any() or kind == "category"
            out[column] = series.astype(dtype) if keeps_dtype else series.astype(float)
        return pd.DataFrame(out)
