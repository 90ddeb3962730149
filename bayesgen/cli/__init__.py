"""The ``bayesgen`` command line: demo, fit, predict, sample, impute and info.

Mistakes in the input (a missing file, an unknown column, a bad model file, text where a
Gaussian model needs numbers) print one line on stderr and exit with status 2.
"""

from __future__ import annotations

import os

# A measured CPU deadlock of XLA's concurrency-optimised scheduler; must be set before JAX
# runs anything (see docs/architecture.md). Users' own XLA_FLAGS win.
os.environ.setdefault("XLA_FLAGS", "--xla_cpu_enable_concurrency_optimized_scheduler=false")

import click  # noqa: E402

from bayesgen.cli.demo import demo  # noqa: E402
from bayesgen.cli.errors import OneLineErrorGroup  # noqa: E402
from bayesgen.cli.fit import fit  # noqa: E402
from bayesgen.cli.impute import impute  # noqa: E402
from bayesgen.cli.info import info  # noqa: E402
from bayesgen.cli.predict import predict  # noqa: E402
from bayesgen.cli.sample import sample  # noqa: E402


@click.group(cls=OneLineErrorGroup)
@click.version_option(package_name="bayesgen")
def main() -> None:
    """Generative classifiers written as NumPyro probabilistic programs.

    Fit a model to a CSV or Parquet table, then predict with credible intervals, draw
    synthetic rows, fill in missing cells, or summarise the model.
    """


for command in (demo, fit, predict, sample, impute, info):
    main.add_command(command)

__all__ = ["main"]
