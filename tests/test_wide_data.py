"""Wide data and large requests are refused at once, naming the size and the way out."""

import numpy as np
import pytest
from sklearn.datasets import load_iris

import bayesgen
from bayesgen import _memory, wide_data
from bayesgen.families import gaussian

X_IRIS, Y_IRIS = load_iris(return_X_y=True)


@pytest.mark.parametrize("covariance_type", ["full", "tied"])
def test_a_full_covariance_on_ten_thousand_columns_is_refused_at_once(covariance_type, monkeypatch):
    X = np.random.default_rng(0).normal(size=(150, 10_000))
    y = np.repeat([0, 1, 2], 50)
    computed = []
    monkeypatch.setattr(gaussian, "suff_stats", lambda *args, **kwargs: computed.append(1))
    with pytest.raises((ValueError, MemoryError), match="covariance_type='diag'") as raised:
        bayesgen.GaussianDA(covariance_type=covariance_type).fit(X, y)
    assert computed == []  # refused before any pass over the rows (it used to run > 500 s)
    assert f"covariance_type={covariance_type!r} with 10000 features" in str(raised.value)


def test_the_cost_rule_follows_d_cubed():
    wide_data.check_covariance_cost("full", 3, 1000)  # 3e9 operations: fitted
    wide_data.check_covariance_cost("diag", 3, 10**6)  # linear: never refused here
    with pytest.raises(ValueError, match="operations"):
        wide_data.check_covariance_cost("full", 3, 5000)


def test_requests_beyond_the_available_memory_are_memory_errors(monkeypatch):
    monkeypatch.setattr(_memory, "available_bytes", lambda: 10**6)
    with pytest.raises(MemoryError, match=r"sample\(n_samples=100000\) would need about 15\.3 MiB"):
        bayesgen.GaussianNB().fit(X_IRIS, Y_IRIS).sample(100_000)
    with pytest.raises(MemoryError, match="covariance_type='diag'"):
        wide_data.check_covariance_cost("full", 3, 200)


def test_sample_refuses_an_empty_list_of_labels():
    model = bayesgen.QDA().fit(X_IRIS, Y_IRIS)
    with pytest.raises(ValueError, match="non-empty 1-D list of labels"):
        model.sample(y=[])
    with pytest.raises(MemoryError, match="would need about"):
        model.sample(10**12)
