"""bayesgen.plot is a submodule of its own: ``import bayesgen`` leaves it (and pyplot) out."""

import subprocess
import sys


def test_import_bayesgen_does_not_load_the_plots():
    code = (
        "import sys, bayesgen; print('bayesgen.plot' in sys.modules); "
        "from bayesgen import plot; print(sorted(plot.__all__))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    loaded, names = result.stdout.splitlines()
    assert loaded == "False"
    assert names == str(
        [
            "class_images",
            "credible_band",
            "decision_regions",
            "reliability_diagram",
            "risk_coverage",
            "synthetic_vs_real",
        ]
    )
