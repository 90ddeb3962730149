"""``python -m bayesgen.cli``: the same as the ``bayesgen`` command."""

from bayesgen.cli import main

if __name__ == "__main__":
    main()
