"""``bayesgen demo``: the README's main job on the bundled wine data."""

from __future__ import annotations

import click


@click.command()
@click.option("--rows", default=5, show_default=True, help="Test rows to show predictions for.")
def demo(rows: int) -> None:
    """Fit GaussianNB, LDA and QDA to the wine data and compare them.

    The split is the one of the textbook example (30% test, stratified, seed 0), whose
    printed accuracies are GaussianNB 0.963, LDA 1.000 and QDA 0.981.
    """
    import numpy as np
    from sklearn.datasets import load_wine
    from sklearn.metrics import accuracy_score, log_loss
    from sklearn.model_selection import train_test_split

    from bayesgen import LDA, QDA, GaussianNB

    data = load_wine()
    X_train, X_test, y_train, y_test = train_test_split(
        data.data, data.target, test_size=0.3, stratify=data.target, random_state=0
    )
    names = data.target_names
    click.echo(
        f"Wine: {len(y_train)} training and {len(y_test)} test wines, "
        f"{data.data.shape[1]} features, classes {', '.join(names)}.\n"
    )
    models = {"GaussianNB": GaussianNB(), "LDA": LDA(), "QDA": QDA()}
    textbook = {"GaussianNB": 0.963, "LDA": 1.000, "QDA": 0.981}
    click.echo(
        f"{'model':<12}{'accuracy':>10}{'textbook':>10}{'log loss':>10}{'mean log p(x)':>15}"
    )
    for name, model in models.items():
        model.fit(X_train, y_train)
        probabilities = model.predict_proba(X_test)
        accuracy = accuracy_score(y_test, model.predict(X_test))
        loss = log_loss(y_test, probabilities, labels=model.classes_)
        density = np.mean(model.score_samples(X_test))
        click.echo(
            f"{name:<12}{accuracy:>10.3f}{textbook[name]:>10.3f}{loss:>10.3f}{density:>15.2f}"
        )

    naive_bayes = models["GaussianNB"]
    probabilities = naive_bayes.predict_proba(X_test)
    hardest = np.argsort(probabilities.max(axis=1))[:rows]
    click.echo(f"\nThe {rows} test wines GaussianNB is least sure about, p(class | x):")
    header = "".join(f"{name:>10}" for name in names)
    click.echo(f"{'row':<5}{'true':>10}{'predicted':>10}{header}")
    for row in hardest:
        cells = "".join(f"{value:>10.3f}" for value in probabilities[row])
        predicted = names[naive_bayes.classes_[np.argmax(probabilities[row])]]
        click.echo(f"{row:<5}{names[y_test[row]]:>10}{predicted:>10}{cells}")
