"""Examples and the benchmark entry point run, with small arguments."""

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _load(path: Path):
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_gaussian_discriminants_example():
    """The example reproduces the wine table and a model refitted on its synthetic rows works."""
    scores = _load(ROOT / "examples" / "gaussian_discriminants.py").main(synthetic_rows=600)
    assert round(scores["GaussianNB/mle"], 3) == 0.963
    assert round(scores["LDA/mle"], 3) == 1.000
    assert round(scores["QDA/mle"], 3) == 0.981
    # Synthetic wines from the fitted story carry the class structure of the real ones.
    assert scores["QDA refitted on synthetic"] >= 0.9


def test_benchmark_smoke_run():
    """`python -m benchmarks` at tiny sizes yields a row per model and operation."""
    from benchmarks.__main__ import main

    table = main(["--n-samples", "300", "--n-features", "3", "--n-classes", "2", "--repeats", "1"])
    rows = [line for line in table.splitlines() if line.startswith("| ") and "x |" in line]
    assert len(rows) == 6
    assert all(float(line.split("|")[-2].strip().rstrip("x")) > 0 for line in rows)
