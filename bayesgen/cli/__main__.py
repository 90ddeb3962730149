"""``python -m bayesgen.cli``: the same as the ``bayesgen`` command."""

from bayesgen.cli import main

main()
