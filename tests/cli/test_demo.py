"""The README's main job: `bayesgen demo` on the bundled wine data."""

import re

import numpy as np
import pytest

from bayesgen import QDA, GaussianNB
from bayesgen.cli.demo import digits_example, wine_split
from bayesgen.metrics import expected_calibration_error


@pytest.fixture(scope="module")
def demo_run(tmp_path_factory):
    from click.testing import CliRunner

    from bayesgen.cli import main

    folder = tmp_path_factory.mktemp("demo") / "figures"
    result = CliRunner().invoke(main, ["demo", "--rows", "3", "--figures", str(folder)])
    assert result.exit_code == 0, result.output
    return result.stdout, folder


def test_demo_reproduces_the_textbook_wine_table(demo_run):
    """Accuracies are the seed's printed 0.963 / 1.000 / 0.981; calibration is recomputed."""
    output, _ = demo_run
    X_train, X_test, y_train, y_test = wine_split()
    naive_bayes = GaussianNB().fit(X_train, y_train)
    calibration = expected_calibration_error(
        y_test, naive_bayes.predict_proba(X_test), classes=naive_bayes.classes_
    )
    for name, accuracy in [("GaussianNB", "0.963"), ("LDA", "1.000"), ("QDA", "0.981")]:
        match = re.search(
            rf"^{name}\s+{re.escape(accuracy)}\s+{re.escape(accuracy)}\s+(\d\.\d{{3}})\s+"
            r"(\d\.\d{3})\s+(-?\d+\.\d{2})$",
            output,
            re.MULTILINE,
        )
        assert match, output
        if name == "GaussianNB":
            assert match.group(2) == f"{calibration:.3f}"


def test_demo_names_its_columns(demo_run):
    """Issue 33: the "textbook" column named no source and "calib. err" no metric."""
    output, _ = demo_run
    header = next(line for line in output.splitlines() if line.startswith("model"))
    assert header.split() == ["model", "accuracy", "book", "log", "loss", "ECE", "mean", "log",
                              "p(x)"]  # fmt: skip
    legend = " ".join(output.split())
    assert "book: the test accuracy printed for this split by the wine example" in legend
    assert "ECE: expected calibration error (top-label probability, 10 equal-width bins)" in legend


def test_the_reliability_figure_is_the_textbook_s_digits_example():
    """The seed's printed numbers: accuracy 0.896, probability above 0.999 on 94% of the test
    images, accuracy 0.919 on those (computed here from the model the figure draws)."""
    model, X_test, y_test = digits_example()
    proba = model.predict_proba(X_test)
    predicted = model.classes_[proba.argmax(axis=1)]
    confident = proba.max(axis=1) > 0.999
    assert f"{np.mean(predicted == y_test):.3f}" == "0.896"
    assert f"{confident.mean():.0%}" == "94%"
    assert f"{np.mean(predicted[confident] == y_test[confident]):.3f}" == "0.919"


def test_demo_shows_accuracy_at_90_percent_coverage(demo_run):
    """Recomputed: each model's most confident rows, ties kept together, at least 90%."""
    output, _ = demo_run
    X_train, X_test, y_train, y_test = wine_split()
    assert (
        "Abstaining on the least sure test wines (Chow's rule), accuracy at 90% coverage:" in output
    )
    for name, factory in [("GaussianNB", GaussianNB), ("QDA", QDA)]:
        model = factory().fit(X_train, y_train)
        confidence = model.predict_proba(X_test).max(axis=1)
        threshold = np.sort(confidence)[::-1][int(np.ceil(0.9 * len(y_test))) - 1]
        accepted = confidence >= threshold
        decided = model.predict(X_test)
        accuracy = np.mean(decided[accepted] == np.asarray(y_test)[accepted])
        everything = np.mean(decided == np.asarray(y_test))
        line = (
            f"{name:<12}{accuracy:>7.3f} on the {accepted.sum()} of {len(y_test)} wines it is "
            f"surest about ({everything:.3f} on all)"
        )
        assert line in output.splitlines(), output


def test_demo_shows_credible_intervals(demo_run):
    output, _ = demo_run
    rows = re.findall(r"^\d+\s+class_\d\s+class_\d\s+(.*)$", output, re.MULTILINE)
    assert len(rows) == 3
    for row in rows:
        cells = re.findall(r"class_\d (\d\.\d{3}) \[(\d\.\d{3}), (\d\.\d{3})\]", row)
        assert len(cells) == 3
        assert all(float(low) <= float(high) for _, low, high in cells)
        assert abs(sum(float(p) for p, _, _ in cells) - 1) < 2e-3


def test_demo_samples_and_imputes(demo_run):
    output, _ = demo_run
    X_train, X_test, _, _ = wine_split()
    qda = QDA().fit(X_train, wine_split()[2])
    X, _ = qda.sample(3, y="class_1", random_state=0)
    first = " ".join(f"{value:.2f}" for value in np.asarray(X)[0, [0, 6, 9, 12]])
    assert first in " ".join(output.split()), output
    found = re.search(r"RMSE (\d\.\d+) with QDA.*, (\d\.\d+) with", output)
    model, mean = map(float, found.groups())
    assert model < mean / 2  # the other features predict flavanoids well


def test_demo_writes_its_figures(demo_run):
    output, folder = demo_run
    names = ["decision_regions", "reliability", "credible_band", "synthetic_vs_real"]
    for name in names:
        data = (folder / f"{name}.png").read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 10_000
    assert f"Figures written to {folder}/" in output


def test_unknown_command_is_a_one_line_usage_error():
    """A mistyped subcommand exits with status 2, no traceback."""
    from click.testing import CliRunner

    from bayesgen.cli import main

    result = CliRunner().invoke(main, ["demoo"])
    assert result.exit_code == 2
    assert "Traceback" not in result.output
