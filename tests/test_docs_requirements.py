"""`pip install '.[docs]' && mkdocs build --strict` needs nothing the `docs` extra lacks.

The suite installs the `test` extra, a superset of `docs`, so a build inside it cannot see
a missing documentation requirement (issue 33: `bayesgen.dask could not be found` once dask
was not there). Here the site is built with every package that the `test` extra brings and
the `docs` extra and the core dependencies do not made unimportable.
"""

import importlib.metadata
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]


def _name(requirement: str) -> str:
    return re.split(r"[\[<>=!~; ]", requirement.strip(), maxsplit=1)[0].lower().replace("_", "-")


def _extra(extra: str) -> set[str]:
    """The distributions an extra names, through its ``bayesgen[...]`` references."""
    names = set()
    for requirement in PROJECT["optional-dependencies"][extra]:
        if _name(requirement) == "bayesgen":
            for inner in re.findall(r"\[(.*)\]", requirement)[0].split(","):
                names |= _extra(inner.strip())
        else:
            names.add(_name(requirement))
    return names


def _blocked_modules() -> set[str]:
    core = {_name(requirement) for requirement in PROJECT["dependencies"]}
    only_for_tests = _extra("test") - _extra("docs") - core
    modules = set()
    for module, distributions in importlib.metadata.packages_distributions().items():
        names = {d.lower().replace("_", "-") for d in distributions}
        if names & only_for_tests and not module.startswith("_"):
            modules.add(module)
    return modules


def test_the_site_builds_with_the_docs_extra_alone(tmp_path):
    blocked = _blocked_modules()
    assert {"pytest", "hypothesis", "palmerpenguins"} <= blocked  # what the test extra adds
    stubs = tmp_path / "blocked"
    for module in blocked:
        (stubs / module).mkdir(parents=True)
        (stubs / module / "__init__.py").write_text(
            f"raise ImportError('{module} is not in the docs extra')\n"
        )
    environment = dict(
        os.environ,
        XLA_FLAGS="--xla_cpu_enable_concurrency_optimized_scheduler=false",
        PYTHONPATH=os.pathsep.join([str(stubs), os.environ.get("PYTHONPATH", "")]),
    )
    check = subprocess.run(
        [sys.executable, "-c", "import hypothesis"], env=environment, capture_output=True
    )
    assert check.returncode != 0  # the block holds: a build that needed them would fail
    site = tmp_path / "site"  # not tmp_path itself: the build empties its site folder
    command = [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)]
    result = subprocess.run(command, cwd=ROOT, env=environment, capture_output=True, text=True)
    assert result.returncode == 0, f"stdout:\n{result.stdout}\nstderr:\n{result.stderr}"
