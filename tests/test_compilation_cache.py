"""The opt-in persistent compilation cache: a second process finds the first one's kernels."""

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

CHILD = """
import json, sys, time
import numpy as np
import bayesgen
bayesgen.enable_compilation_cache(sys.argv[1])
rng = np.random.default_rng(0)
X, y = rng.normal(size=(200, 3)), np.repeat([0, 1], 100)
start = time.perf_counter()
# The plain fit, predict and sample compile nothing; running the story does.
bayesgen.QDA().fit(X, y).sample(5, random_state=0, method="story")
print(json.dumps(time.perf_counter() - start))
"""


def _child(cache: Path) -> float:
    environment = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(cache)],
        capture_output=True,
        text=True,
        env=environment,
        check=True,
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_second_process_reuses_the_compiled_kernels(tmp_path):
    cache = tmp_path / "kernels"
    _child(cache)
    entries = sorted(path.name for path in cache.iterdir())
    assert entries, "the first process wrote no compiled kernel"
    _child(cache)
    # The second process found every kernel it needed: it added none.
    assert sorted(path.name for path in cache.iterdir()) == entries
