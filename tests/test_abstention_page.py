"""The code of docs/abstention.md runs as written and prints the table the page shows."""

import contextlib
import io
import re
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402

PAGE = Path(__file__).resolve().parents[1] / "docs" / "abstention.md"


def test_examples_run_and_print_the_table():
    text = PAGE.read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    assert len(blocks) == 3
    namespace = {"__name__": "abstention_page"}
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        for code in blocks:
            exec(compile(code, str(PAGE), "exec"), namespace)
    plt.close("all")
    shown = re.search(r"prints coverage.*?```text\n(.*?)```", text, re.S).group(1)
    assert printed.getvalue() == shown
    decided = namespace["decided"]  # the cost matrix example abstains on some rows
    assert 0 < (decided == -1).sum() < len(decided)
    legend = namespace["ax"].get_legend().get_texts()[0].get_text()
    assert legend == "plug-in (accuracy 0.969 at 90% coverage)"  # the page's 0.969
