"""The documentation site: `mkdocs build --strict` succeeds offline, and its examples run.

The build turns every warning into an error: a broken link or anchor, a page missing from
the navigation, a docstring that griffe cannot parse (numpydoc sections that do not match
the signature). The worked examples of the seed texts are run here and must print exactly
the output the page shows.
"""

import contextlib
import io
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
WORKED_EXAMPLES = ROOT / "docs" / "worked-examples.md"
# A python block, the word "prints", and the text block of what it prints.
EXAMPLE = re.compile(r"```python\n(?P<code>.*?)```\n\nprints\n\n```text\n(?P<output>.*?)```", re.S)


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    site_dir = tmp_path_factory.mktemp("docs") / "site"
    # Not NO_MKDOCS_2_WARNING: with click 8.5.1 it makes `mkdocs build` "No such command".
    environment = dict(
        os.environ, XLA_FLAGS="--xla_cpu_enable_concurrency_optimized_scheduler=false"
    )
    command = [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site_dir)]
    result = subprocess.run(command, cwd=ROOT, env=environment, capture_output=True, text=True)
    assert result.returncode == 0, f"stdout:\n{result.stdout}\nstderr:\n{result.stderr}"
    return site_dir


def test_strict_build_writes_every_page(site):
    expected = [
        "index.html",
        "classify/index.html",
        "label-shift-and-costs/index.html",
        "discriminant-extras/index.html",
        "worked-examples/index.html",
        "models/index.html",
        "api/index.html",
        "api/gaussian/index.html",
        "api/naive-bayes/index.html",
        "api/mixture-and-kernel/index.html",
        "api/stories/index.html",
        "api/dask/index.html",
    ]
    missing = [page for page in expected if not (site / page).is_file()]
    assert not missing, missing


def test_api_pages_carry_the_docstrings_of_inherited_methods(site):
    """GaussianDA's page documents predict_proba, which it inherits from the base class."""
    page = (site / "api" / "gaussian" / "index.html").read_text(encoding="utf-8")
    assert 'id="bayesgen.GaussianDA.predict_proba"' in page
    assert 'id="bayesgen.LDA.transform"' in page
    # A sentence of the class docstring, assembled at import time, and of a method's.
    assert "a Gaussian density per class" in page
    assert "normalised in log space" in page


def test_math_is_left_for_mathjax(site):
    page = (site / "models" / "index.html").read_text(encoding="utf-8")
    assert 'class="arithmatex"' in page


def test_worked_examples_print_what_the_page_shows():
    examples = EXAMPLE.findall(WORKED_EXAMPLES.read_text(encoding="utf-8"))
    assert len(examples) == 7
    for code, output in examples:
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            exec(compile(code, str(WORKED_EXAMPLES), "exec"), {"__name__": "worked_example"})
        assert printed.getvalue() == output, code
