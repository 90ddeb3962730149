"""The report's gradient-boosted trees grow on one OpenMP thread on small tables, and are
the same trees there."""

import numpy as np
import pandas as pd
import pytest
import sklearn.ensemble  # noqa: F401  (loads the OpenMP runtime the trees use)
from threadpoolctl import threadpool_info, threadpool_limits

from bayesgen.synthetic import detection, encoding, utility
from bayesgen.synthetic.tables import check_tables


def _openmp_threads() -> list:
    return [lib["num_threads"] for lib in threadpool_info() if lib["user_api"] == "openmp"]


def test_below_threaded_rows_the_trees_get_one_thread_and_the_setting_is_restored():
    assert _openmp_threads()  # scikit-learn's trees loaded an OpenMP runtime
    with threadpool_limits(limits=2, user_api="openmp"):  # two, whatever the machine has
        assert set(_openmp_threads()) == {2}
        with encoding.trees_threads(encoding.THREADED_ROWS - 1):
            assert set(_openmp_threads()) == {1}
        assert set(_openmp_threads()) == {2}
        with encoding.trees_threads(encoding.THREADED_ROWS):
            assert set(_openmp_threads()) == {2}


def _tables(seed=0, n=300):
    rng = np.random.default_rng(seed)

    def table(shift):
        return pd.DataFrame(
            {
                "size": rng.gamma(2.0 + shift, 2.0, n),
                "kind": rng.choice(["a", "b", "c"], n, p=[0.5 - shift / 4, 0.3, 0.2 + shift / 4]),
                "label": rng.choice(["yes", "no"], n),
            }
        )

    return table(0.0), table(0.4), table(0.0)


@pytest.mark.parametrize("which", ["detector", "utility"])
def test_one_thread_gives_every_thread_s_figures(monkeypatch, which):
    real, synthetic, test = _tables()
    (real, synthetic, test), columns = check_tables(real, synthetic, test, target="label")

    def figures():
        if which == "detector":
            return detection.detector_auc(real, synthetic, columns, random_state=0)
        return utility.utility(real, synthetic, test, columns, random_state=0)

    one_thread = figures()
    monkeypatch.setattr(encoding, "THREADED_ROWS", 0)
    assert figures() == one_thread
