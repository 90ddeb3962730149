"""`import bayesgen` and `bayesgen --help` import nothing heavy; names still resolve."""

import subprocess
import sys

import click
import pytest

import bayesgen
from bayesgen import registry
from bayesgen.cli import COMMANDS, command_help, main

HEAVY = ("jax", "numpyro", "arviz", "matplotlib", "pyarrow", "dask")


def _modules_after(code: str) -> set[str]:
    """Heavy modules (and pandas) imported by ``code`` in a fresh interpreter."""
    probe = (
        f"{code}\nimport sys\n"
        f"print('MODULES:' + ','.join(m for m in {(*HEAVY, 'pandas')!r} if m in sys.modules))"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    )
    listed = result.stdout.rpartition("MODULES:")[2].strip()
    return set(filter(None, listed.split(",")))


def test_importing_the_package_imports_nothing_heavy():
    assert _modules_after("import bayesgen") & set(HEAVY) == set()


@pytest.mark.parametrize("argument", ["--help", "--version"])
def test_help_and_version_import_neither_the_models_nor_pandas(argument):
    code = f"from bayesgen.cli import main\nmain([{argument!r}], standalone_mode=False)"
    assert _modules_after(code) == set()


def test_listed_short_help_is_what_click_shows_for_each_imported_command():
    limit = 45
    for name in COMMANDS:
        command = main.get_command(click.Context(main), name)
        assert isinstance(command, click.Command)
        assert click.Command(name, help=command_help(name)).get_short_help_str(limit) == (
            command.get_short_help_str(limit)
        )
    assert main.get_command(click.Context(main), "train") is None


def test_public_names_resolve_on_first_use():
    estimators = registry.estimators()
    assert set(estimators) <= set(bayesgen.__all__)
    assert {"load", "ModelFileError", "enable_compilation_cache", "__version__"} <= set(
        bayesgen.__all__
    )
    assert bayesgen.QDA is estimators["QDA"]
    assert set(bayesgen.__all__) <= set(dir(bayesgen))
    namespace = {}
    exec("from bayesgen import *", namespace)
    assert namespace["PoissonNB"] is estimators["PoissonNB"]
    with pytest.raises(AttributeError, match="no attribute 'Nonexistent'"):
        bayesgen.Nonexistent  # noqa: B018
