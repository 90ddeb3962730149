"""The benchmark's peer adapters (benchmarks/synthetic_peers.py) that need no peer package:
the sdv-style encoding round trip and the class-conditional wrapper."""

import numpy as np
import pandas as pd

from benchmarks.gaussian_copula import GaussianCopula
from benchmarks.synthetic_peers import SdvStyleEncoding, class_conditional


def _table(n, rng):
    frame = pd.DataFrame(
        {
            "x": np.round(rng.normal(size=n), 2),
            "k": rng.poisson(3, n),
            "c": rng.choice(["a", "b", "c"], n).astype(object),
        }
    )
    frame.loc[rng.random(n) < 0.2, "x"] = np.nan
    frame.loc[rng.random(n) < 0.1, "c"] = None
    return frame


def test_encoding_gives_numbers_without_blanks_and_decodes_back():
    frame = _table(300, np.random.default_rng(0))
    encoding = SdvStyleEncoding().fit(frame)
    numbers = encoding.transform(frame)
    assert list(numbers.columns) == ["x", "x#blank", "k", "c"]
    assert not numbers.isna().any().any()
    assert numbers["c"].between(0, 1).all()
    back = encoding.inverse_transform(numbers)
    pd.testing.assert_frame_equal(back, frame)


def test_class_conditional_draws_each_class_from_its_own_model():
    rng = np.random.default_rng(0)
    n = 3000
    y = rng.choice(["low", "high"], n, p=[0.7, 0.3])
    frame = pd.DataFrame({"x": rng.normal(size=n) + np.where(y == "high", 5.0, 0.0), "y": y})

    def fit(rows, target):
        return GaussianCopula().fit(rows, random_state=0)

    def draw(model, size, seed, target):
        return model.sample(size, random_state=seed)

    fit_all, draw_all = class_conditional(fit, draw)
    drawn = draw_all(fit_all(frame, "y"), n, 1, "y")
    assert list(drawn.columns) == ["x", "y"]
    share = (drawn["y"] == "high").mean()
    assert abs(share - (y == "high").mean()) < 4 * np.sqrt(0.21 / n)
    means = drawn.groupby("y")["x"].mean()
    assert abs(means["high"] - 5.0) < 0.2 and abs(means["low"]) < 0.2
