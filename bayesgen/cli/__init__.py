"""The ``bayesgen`` command line: demo, fit, predict, sample, impute, info, evaluate-synthetic.

Mistakes in the input (a missing file, an unknown column, a bad model file, text where a
Gaussian model needs numbers) print one line on stderr and exit with status 2.
"""

from __future__ import annotations

import os

# A measured CPU deadlock of XLA's concurrency-optimised scheduler; must be set before JAX
# runs anything (see docs/architecture.md). Users' own XLA_FLAGS win.
os.environ.setdefault("XLA_FLAGS", "--xla_cpu_enable_concurrency_optimized_scheduler=false")

import ast  # noqa: E402
import importlib  # noqa: E402
import inspect  # noqa: E402
from pathlib import Path  # noqa: E402

import click  # noqa: E402

from bayesgen.cli.errors import OneLineErrorGroup  # noqa: E402

#: Environment variable: "0" keeps the command line off JAX's persistent cache, "1" turns
#: it on even under CI.
CACHE_VARIABLE = "BAYESGEN_COMPILATION_CACHE"


def compilation_cache_wanted(environment=None) -> bool:
    """Whether a subcommand keeps JAX's compiled kernels on disk (`CACHE_VARIABLE`).

    On by default, so that a second run of the same command pays no compilation; off when
    the variable says ``0``/``false``/``no``/``off``, and off under CI (``CI`` set) unless
    it says ``1``/``true``/``yes``/``on``.
    """
    environment = os.environ if environment is None else environment
    setting = environment.get(CACHE_VARIABLE, "").strip().lower()
    if setting in ("0", "false", "no", "off"):
        return False
    if setting in ("1", "true", "yes", "on"):
        return True
    return not environment.get("CI")


#: The subcommands, each the function of that name in the module ``bayesgen.cli.<name>``
#: (with ``_`` for ``-``: ``evaluate-synthetic`` is ``evaluate_synthetic``).
COMMANDS = ("demo", "fit", "predict", "sample", "impute", "info", "evaluate-synthetic")


def command_help(name: str) -> str:
    """A subcommand's help text, read from its module's source without importing it."""
    name = name.replace("-", "_")
    source = (Path(__file__).parent / f"{name}.py").read_text(encoding="utf-8")
    for node in ast.parse(source).body:
        if isinstance(node, ast.FunctionDef) and node.name == name:
            return inspect.cleandoc(ast.get_docstring(node, clean=False) or "")
    return ""


class LazyCommands(OneLineErrorGroup):
    """The ``bayesgen`` group: a subcommand's module (pandas, the models, JAX) is imported
    only when that subcommand runs, so ``bayesgen --help`` and ``--version`` start at once."""

    def list_commands(self, ctx) -> list[str]:
        """The subcommands, in the order of `COMMANDS`."""
        return list(COMMANDS)

    def get_command(self, ctx, cmd_name):
        """Import and return the subcommand ``cmd_name`` (None if there is none)."""
        if cmd_name not in COMMANDS:
            return None
        name = cmd_name.replace("-", "_")
        return getattr(importlib.import_module(f"bayesgen.cli.{name}"), name)

    def format_commands(self, ctx, formatter) -> None:
        """List the subcommands with the short help click would show, without importing
        them."""
        limit = formatter.width - 6 - max(len(name) for name in COMMANDS)
        rows = [
            (name, click.Command(name, help=command_help(name)).get_short_help_str(limit))
            for name in COMMANDS
        ]
        with formatter.section("Commands"):
            formatter.write_dl(rows)


@click.group(cls=LazyCommands)
@click.version_option(package_name="bayesgen")
def main() -> None:
    """Generative classifiers written as NumPyro probabilistic programs.

    Fit a model to a CSV or Parquet table, then predict with credible intervals, draw
    synthetic rows, fill in missing cells, or summarise the model.

    Compiled kernels are kept in ~/.cache/bayesgen/jax, so a second run compiles nothing;
    BAYESGEN_COMPILATION_CACHE=0 turns that off.
    """
    if compilation_cache_wanted():
        from bayesgen.compilation_cache import enable_compilation_cache

        enable_compilation_cache()


__all__ = ["main"]
