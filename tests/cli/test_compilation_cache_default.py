"""The command line keeps JAX's compiled kernels on disk by default, and can be told not to."""

import os
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from bayesgen.cli import CACHE_VARIABLE, compilation_cache_wanted


@pytest.mark.parametrize(
    ("environment", "wanted"),
    [
        ({}, True),
        ({CACHE_VARIABLE: "0"}, False),
        ({CACHE_VARIABLE: "off"}, False),
        ({"CI": "true"}, False),
        ({"CI": "true", CACHE_VARIABLE: "1"}, True),
        ({"CI": "true", CACHE_VARIABLE: "0"}, False),
    ],
)
def test_cache_setting(environment, wanted):
    assert compilation_cache_wanted(environment) is wanted


@pytest.mark.parametrize("setting", [None, "0"])
def test_a_fit_writes_kernels_to_the_user_cache_unless_turned_off(tmp_path, setting):
    rng = np.random.default_rng(0)
    labels = np.repeat(["x", "y"], 20).astype(object)
    labels[::5] = None  # unlabelled rows
    table = pd.DataFrame(rng.normal(size=(40, 2)), columns=["a", "b"]).assign(label=labels)
    table.to_csv(tmp_path / "data.csv", index=False)
    environment = {
        key: value for key, value in os.environ.items() if key not in ("CI", CACHE_VARIABLE)
    }
    environment["XDG_CACHE_HOME"] = str(tmp_path / "cache")
    if setting is not None:
        environment[CACHE_VARIABLE] = setting
    command = [sys.executable, "-m", "bayesgen.cli", "fit", str(tmp_path / "data.csv")]
    # The kernel density's fit compiles its kernels; a Gaussian's fit compiles nothing, nor
    # (on NumPy rows) its EM over unlabelled rows.
    command += ["--target", "label", "--model", "kde-da", "--out", str(tmp_path / "m.bgm")]
    subprocess.run(command, env=environment, check=True, capture_output=True)
    kernels = tmp_path / "cache" / "bayesgen" / "jax"
    written = kernels.is_dir() and any(kernels.iterdir())
    assert written is (setting is None)
