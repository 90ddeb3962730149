"""The benchmark's Gaussian copula (benchmarks/gaussian_copula.py) against what it claims:
margins kept, the normal scores' correlation kept, only seen categories, missing rates."""

import numpy as np
import pandas as pd

from benchmarks.gaussian_copula import GaussianCopula


def test_copula_keeps_margins_correlation_and_support():
    rng = np.random.default_rng(0)
    n, rho = 4000, 0.8
    z = rng.multivariate_normal([0, 0], [[1, rho], [rho, 1]], size=n)
    frame = pd.DataFrame(
        {
            "x": z[:, 0],
            "w": np.exp(z[:, 1]),  # a monotone margin: the copula's correlation is still rho
            "k": rng.poisson(3, n),
            "c": rng.choice(["a", "b", "c"], n, p=[0.5, 0.3, 0.2]),
        }
    )
    frame.loc[rng.random(n) < 0.1, "x"] = np.nan
    drawn = GaussianCopula().fit(frame, random_state=0).sample(n, random_state=1)
    assert list(drawn.columns) == list(frame.columns)
    complete = drawn.dropna()
    r = np.corrcoef(complete["x"], np.log(complete["w"]))[0, 1]
    assert abs(r - rho) < 4 * (1 - rho**2) / np.sqrt(len(complete))
    share = drawn["c"].value_counts(normalize=True)
    for level, p in {"a": 0.5, "b": 0.3, "c": 0.2}.items():
        assert abs(share[level] - p) < 4 * np.sqrt(p * (1 - p) / n)
    assert set(drawn["c"]) <= {"a", "b", "c"}
    assert drawn["k"].dtype == frame["k"].dtype and drawn["k"].min() >= 0
    assert abs(drawn["x"].isna().mean() - 0.1) < 4 * np.sqrt(0.09 / n)
    observed = frame["x"].dropna()
    assert drawn["x"].min() >= observed.min() and drawn["x"].max() <= observed.max()
