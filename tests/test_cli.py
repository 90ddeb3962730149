"""The README's main job: `bayesgen demo` prints the textbook's wine table."""

import re

from click.testing import CliRunner

from bayesgen.cli import main


def test_demo_reproduces_the_wine_table():
    """The demo's accuracies are the seed's printed 0.963 / 1.000 / 0.981."""
    result = CliRunner().invoke(main, ["demo", "--rows", "3"])
    assert result.exit_code == 0, result.output
    for name, accuracy in [("GaussianNB", "0.963"), ("LDA", "1.000"), ("QDA", "0.981")]:
        assert re.search(
            rf"^{name}\s+{re.escape(accuracy)}\s+{re.escape(accuracy)}\s",
            result.output,
            re.MULTILINE,
        ), result.output
    rows = re.findall(r"^\d+\s+class_\d\s+class_\d(\s+\d\.\d{3}){3}$", result.output, re.MULTILINE)
    assert len(rows) == 3


def test_unknown_command_is_a_one_line_usage_error():
    """A mistyped subcommand exits with status 2, no traceback."""
    result = CliRunner().invoke(main, ["demoo"])
    assert result.exit_code == 2
    assert "Traceback" not in result.output
