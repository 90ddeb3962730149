"""The code examples of docs/plots.md run as written (headless) and draw what they say."""

import re
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np

from bayesgen.metrics import calibration_bins

PAGE = Path(__file__).resolve().parents[2] / "docs" / "plots.md"


def test_every_example_runs_and_draws(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # the examples save their figures to the working directory
    blocks = re.findall(r"```python\n(.*?)```", PAGE.read_text(encoding="utf-8"), re.S)
    assert len(blocks) == 7
    namespaces = []
    for code in blocks:
        namespace = {"__name__": "plots_page"}
        exec(compile(code, str(PAGE), "exec"), namespace)
        namespaces.append(namespace)
        plt.close("all")
    assert sorted(path.name for path in tmp_path.iterdir()) == [
        "digit_probabilities.png",
        "wine_regions.png",
    ]
    # The reliability example: the multinomial digits model is overconfident, most rows
    # in the top bin, whose accuracy is well below its confidence.
    page = namespaces[4]
    bins = calibration_bins(
        page["y_test"], page["model"].predict_proba(page["X_test"]), classes=page["model"].classes_
    )
    assert bins.counts[-1] > 0.8 * bins.counts.sum()
    assert bins.confidence[-1] > 0.99 and bins.accuracy[-1] < 0.95  # measured 0.9986, 0.909
    np.testing.assert_allclose(
        page["ax"].lines[1].get_xydata()[-1], [bins.confidence[-1], bins.accuracy[-1]]
    )
    assert page["ax"].get_legend().get_texts()[1].get_text() == f"plug-in (ECE {page['ece']:.3f})"
