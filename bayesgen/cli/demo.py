"""``bayesgen demo``: the README's main job on the bundled wine data.

Fits GaussianNB, LDA and QDA to the textbook's split of the wine data and shows what a
generative classifier offers beyond a label: calibrated probabilities, accuracy when the
least sure rows are abstained on, credible intervals, figures, synthetic rows and
imputation of a masked feature.
"""

from __future__ import annotations

from pathlib import Path

import click
import numpy as np
import pandas as pd

#: The textbook's printed test accuracies on this split (seed 000; also tests/cli).
TEXTBOOK_ACCURACY = {"GaussianNB": 0.963, "LDA": 1.000, "QDA": 0.981}
MASKED_FEATURE = "flavanoids"
PLANE = ("proline", "flavanoids")


def wine_split():
    """The textbook's split: 30% test, stratified, seed 0 (as DataFrames with names)."""
    from sklearn.datasets import load_wine
    from sklearn.model_selection import train_test_split

    data = load_wine(as_frame=True)
    names = np.asarray(data.target_names)
    X_train, X_test, y_train, y_test = train_test_split(
        data.data, names[data.target], test_size=0.3, stratify=data.target, random_state=0
    )
    return X_train, X_test, y_train, y_test


def digits_example():
    """The textbook's calibration example: ``MultinomialNB(alpha=1)`` on the digits, 30% test,
    stratified, seed 0 (test accuracy 0.896, and a probability above 0.999 for 94% of the
    test images). Returns ``(fitted model, X_test, y_test)``."""
    from sklearn.datasets import load_digits
    from sklearn.model_selection import train_test_split

    from bayesgen import MultinomialNB

    X, y = load_digits(return_X_y=True)
    X_train, X_test, y_train, y_test = train_test_split(
        X, y, test_size=0.3, stratify=y, random_state=0
    )
    return MultinomialNB(alpha=1.0).fit(X_train, y_train), X_test, y_test


def comparison(models, X_test, y_test) -> list[str]:
    """The table of test accuracy, log loss, calibration error and mean log p(x)."""
    from sklearn.metrics import accuracy_score, log_loss

    from bayesgen.metrics import expected_calibration_error

    lines = [
        f"{'model':<12}{'accuracy':>10}{'book':>10}{'log loss':>10}{'ECE':>12}{'mean log p(x)':>15}"
    ]
    for name, model in models.items():
        probabilities = model.predict_proba(X_test)
        accuracy = accuracy_score(y_test, model.predict(X_test))
        loss = log_loss(y_test, probabilities, labels=model.classes_)
        calibration = expected_calibration_error(y_test, probabilities, classes=model.classes_)
        density = np.mean(model.score_samples(X_test))
        lines.append(
            f"{name:<12}{accuracy:>10.3f}{TEXTBOOK_ACCURACY[name]:>10.3f}{loss:>10.3f}"
            f"{calibration:>12.3f}{density:>15.2f}"
        )
    return lines + [
        "book: the test accuracy printed for this split by the wine example of the textbook",
        "chapter on generative classifiers the project started from. ECE: expected calibration",
        "error (top-label probability, 10 equal-width bins). mean log p(x): the fitted density",
        "of the test wines.",
    ]


def abstaining(models, X_test, y_test, coverage: float = 0.9) -> list[str]:
    """Accuracy on the ``coverage`` share of test wines each model is surest about."""
    from bayesgen.metrics import accuracy_at_coverage, risk_coverage_curve

    lines = [
        f"Abstaining on the least sure test wines (Chow's rule), accuracy at {coverage:.0%} "
        "coverage:"
    ]
    for name, model in models.items():
        probabilities = model.predict_proba(X_test)
        accuracy = accuracy_at_coverage(
            y_test, probabilities, coverage=coverage, classes=model.classes_
        )
        curve = risk_coverage_curve(y_test, probabilities, classes=model.classes_)
        point = np.searchsorted(curve.coverage, coverage - 1e-12)
        accepted = round(curve.coverage[point] * len(y_test))
        lines.append(
            f"{name:<12}{accuracy:>7.3f} on the {accepted} of {len(y_test)} wines it is surest "
            f"about ({1 - curve.risk[-1]:.3f} on all)"
        )
    return lines


def least_sure(model, X_test, y_test, rows: int, level: float = 0.9) -> list[str]:
    """The ``rows`` test wines the model is least sure about, with credible intervals."""
    probabilities = model.predict_proba(X_test)
    draws = model.predict_proba_draws(X_test, 400, random_state=0)
    lower, upper = np.quantile(draws, [(1 - level) / 2, (1 + level) / 2], axis=0)
    lines = [
        f"{'row':<5}{'true':>9}{'predicted':>11}  p(class | x) [{level:.0%} credible interval]"
    ]
    for row in np.argsort(probabilities.max(axis=1))[:rows]:
        cells = "  ".join(
            f"{label} {probabilities[row, k]:.3f} [{lower[row, k]:.3f}, {upper[row, k]:.3f}]"
            for k, label in enumerate(model.classes_)
        )
        predicted = model.classes_[np.argmax(probabilities[row])]
        lines.append(f"{row:<5}{y_test[row]:>9}{predicted:>11}  {cells}")
    return lines


def imputation_error(model, X_train, X_test) -> tuple[float, float]:
    """RMSE of the model's conditional mean and of the training mean for a masked feature."""
    masked = X_test.copy()
    truth = masked[MASKED_FEATURE].to_numpy()
    masked[MASKED_FEATURE] = np.nan
    filled = model.impute(masked)[MASKED_FEATURE].to_numpy()
    model_rmse = float(np.sqrt(np.mean((filled - truth) ** 2)))
    mean_rmse = float(np.sqrt(np.mean((X_train[MASKED_FEATURE].mean() - truth) ** 2)))
    return model_rmse, mean_rmse


def write_figures(models, X_train, X_test, y_train, y_test, folder: Path) -> list[Path]:
    """The demo's four figures as PNG files in ``folder``."""
    import matplotlib

    matplotlib.use("Agg")  # files only; never open a window
    import matplotlib.pyplot as plt

    from bayesgen import plot

    folder.mkdir(parents=True, exist_ok=True)
    qda = models["QDA"]
    paths = []

    def save(figure, name):
        path = folder / name
        figure.tight_layout()
        figure.savefig(path, dpi=110)
        plt.close(figure)
        paths.append(path)

    ax = plot.decision_regions(qda, X_train, y_train, features=PLANE)
    ax.set_title(
        "QDA on the training wines: decision regions (shading) and class density\n"
        "contours in the proline–flavanoids plane, the other 11 features integrated out",
        fontsize="medium",
    )
    save(ax.figure, "decision_regions.png")

    # Every wine is predicted with a probability near 1, so the wine split has nothing to
    # show here; the textbook's calibration example, naive Bayes on the digits, has.
    digits_model, X_digits, y_digits = digits_example()
    ax = plot.reliability_diagram(digits_model, X_digits, y_digits, n_bins=10)
    ax.set_title(
        f"MultinomialNB on {len(y_digits)} test digits (the textbook's calibration example):\n"
        "is a predicted probability of p right a fraction p of the time?",
        fontsize="medium",
    )
    save(ax.figure, "reliability.png")

    start = X_test[y_test == "class_0"].iloc[0].to_numpy()
    end = X_test[y_test == "class_1"].iloc[0].to_numpy()
    t = np.linspace(0.0, 1.0, 60)
    path_rows = np.outer(1 - t, start) + np.outer(t, end)
    ax = plot.credible_band(
        qda, pd.DataFrame(path_rows, columns=X_test.columns), t=t, level=0.9, random_state=0,
        class_=["class_0", "class_1"],  # class_2 stays at 0 along this path
        xlabel="position on the straight line from a class_0 test wine (0) to a class_1 one (1)",
    )  # fmt: skip
    ax.set_title(
        "QDA: p(class_0 | x) and p(class_1 | x) between two test wines\n"
        "(p(class_2 | x) stays at 0 on this path)",
        fontsize="medium",
    )
    save(ax.figure, "credible_band.png")

    axes = plot.synthetic_vs_real(
        qda, X_train, features=["alcohol", "flavanoids", "color_intensity", "proline"],
        random_state=0, ncols=2, bins=15,
    )  # fmt: skip
    save(np.ravel(axes)[0].figure, "synthetic_vs_real.png")
    return paths


@click.command()
@click.option("--rows", default=5, show_default=True, help="Test rows to show predictions for.")
@click.option(
    "--figures",
    "figures",
    default="bayesgen-demo-figures",
    show_default=True,
    type=click.Path(file_okay=False),
    help="Folder to write the figures to.",
)
@click.option("--no-figures", is_flag=True, help="Skip the figures.")
def demo(rows: int, figures: str, no_figures: bool) -> None:
    """Fit GaussianNB, LDA and QDA to the wine data and show what they know.

    The split is the one of the textbook example (30% test, stratified, seed 0), whose
    printed accuracies are GaussianNB 0.963, LDA 1.000 and QDA 0.981.
    """
    from bayesgen import LDA, QDA, GaussianNB

    X_train, X_test, y_train, y_test = wine_split()
    click.echo(
        f"Wine: {len(y_train)} training and {len(y_test)} test wines, "
        f"{X_train.shape[1]} features, classes {', '.join(np.unique(y_train))}.\n"
    )
    models = {"GaussianNB": GaussianNB(), "LDA": LDA(), "QDA": QDA()}
    for model in models.values():
        model.fit(X_train, y_train)
    click.echo("\n".join(comparison(models, X_test, y_test)))
    click.echo("\n" + "\n".join(abstaining(models, X_test, y_test)))

    click.echo(f"\nThe {rows} test wines GaussianNB is least sure about:")
    click.echo("\n".join(least_sure(models["GaussianNB"], X_test, y_test, rows)))

    X_synthetic, y_synthetic = models["QDA"].sample(3, y="class_1", random_state=0)
    shown = ["alcohol", "flavanoids", "color_intensity", "proline"]
    columns = [list(X_train.columns).index(name) for name in shown]
    click.echo("\nThree synthetic class_1 wines drawn from QDA's story (4 of 13 features):")
    click.echo("".join(f"{name:>17}" for name in shown))
    for row in np.asarray(X_synthetic)[:, columns]:
        click.echo("".join(f"{value:>17.2f}" for value in row))

    model_rmse, mean_rmse = imputation_error(models["QDA"], X_train, X_test)
    click.echo(
        f"\nMasking {MASKED_FEATURE} in every test wine and imputing it: RMSE "
        f"{model_rmse:.3f} with QDA's conditional mean, {mean_rmse:.3f} with the training mean."
    )

    if not no_figures:
        paths = write_figures(models, X_train, X_test, y_train, y_test, Path(figures))
        click.echo(f"\nFigures written to {figures}/: {', '.join(p.name for p in paths)}")
