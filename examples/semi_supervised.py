"""Unlabelled rows as data: semi-supervised EM on documents and on Gaussians.

(a) Documents drawn from the multinomial naive-Bayes story: four classes over a 500-word
vocabulary, lengths ~ Poisson(50). A background word distribution is drawn from a
Dirichlet(0.5), and each class's distribution from a Dirichlet centred on it, so frequent
words are shared by every class and rare words carry the topic. ``MultinomialNB`` is fitted
to a handful of labelled documents, then to those plus a few thousand unlabelled ones
(label -1) by EM, with the unlabelled weight lambda = 1 and 0.1, and finally to every
document with its true label. All are scored on held-out documents: the gain of Nigam et
al. (2000).

(b) Three 10-D Gaussian classes with one shared covariance: ``LDA`` on the same number of
labelled rows per class, with and without the unlabelled rows.

Run: ``python examples/semi_supervised.py [--labelled 5] [--unlabelled 3000] [--seed 0]``
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from bayesgen import LDA, MultinomialNB

N_TOPICS = 4
VOCABULARY = 500
MEAN_LENGTH = 50
BACKGROUND_CONCENTRATION = 0.5
# The classes' Dirichlet is CLASS_CONCENTRATION * background: a word of background
# probability b gets concentration 2500 b, so frequent words (b >> 1/2500) are nearly the
# same in every class and rare ones (b << 1/2500) are each concentrated in a few classes.
CLASS_CONCENTRATION = 2500.0
N_GAUSSIANS = 3
DIMENSION = 10
TEST_ROWS = 2000


def word_distributions(rng: np.random.Generator) -> np.ndarray:
    """Each class's word probabilities, (N_TOPICS, VOCABULARY)."""
    background = rng.dirichlet(np.full(VOCABULARY, BACKGROUND_CONCENTRATION))
    return rng.dirichlet(CLASS_CONCENTRATION * background, size=N_TOPICS)


def documents(rng: np.random.Generator, words: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """Word counts of one document per label: (n_documents, VOCABULARY)."""
    lengths = rng.poisson(MEAN_LENGTH, size=labels.shape[0])
    return rng.multinomial(lengths, words[labels]).astype(np.float64)


def gaussian_classes(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Class means (N_GAUSSIANS, DIMENSION), entries ~ N(0, 1), and one shared covariance."""
    means = rng.normal(size=(N_GAUSSIANS, DIMENSION))
    mixing = rng.normal(size=(DIMENSION, DIMENSION)) / np.sqrt(DIMENSION)
    return means, mixing @ mixing.T + 0.5 * np.eye(DIMENSION)


def labelled_and_unlabelled(n_classes, n_labelled_per_class, n_unlabelled, rng):
    """Labels of the labelled rows, the unlabelled rows' hidden labels, and ``y`` with -1."""
    labelled = np.repeat(np.arange(n_classes), n_labelled_per_class)
    hidden = rng.integers(n_classes, size=n_unlabelled)
    return labelled, hidden, np.r_[labelled, np.full(n_unlabelled, -1)]


def fit_timed(model, X, y):
    """The fitted model and the seconds its fit took."""
    start = time.perf_counter()
    model.fit(X, y)
    return model, time.perf_counter() - start


def accuracies(models: dict, X_test, y_test) -> dict[str, float]:
    """Held-out accuracy of each fitted model, under the same key."""
    return {key: float(model.score(X_test, y_test)) for key, model in models.items()}


def text(rng, n_labelled_per_class: int, n_unlabelled: int) -> dict[str, float | int]:
    """Part (a): accuracies of MultinomialNB on held-out documents, and the EM's cost."""
    words = word_distributions(rng)
    labelled, hidden, y = labelled_and_unlabelled(N_TOPICS, n_labelled_per_class, n_unlabelled, rng)
    X = documents(rng, words, np.r_[labelled, hidden])
    y_test = rng.integers(N_TOPICS, size=TEST_ROWS)
    X_test = documents(rng, words, y_test)

    only = MultinomialNB().fit(X[: labelled.shape[0]], labelled)
    semi, seconds = fit_timed(MultinomialNB(), X, y)
    models = {
        "text_labelled_only": only,
        "text_semi": semi,
        "text_semi_lambda_0.1": MultinomialNB(unlabeled_weight=0.1).fit(X, y),
        # lambda scales the unlabelled counts but not the pseudo-counts alpha; scaling
        # alpha with it keeps their ratio as at lambda = 1.
        "text_semi_lambda_0.1_alpha_0.1": MultinomialNB(alpha=0.1, unlabeled_weight=0.1).fit(X, y),
        "text_all_labelled": MultinomialNB().fit(X, np.r_[labelled, hidden]),
    }
    return {
        **accuracies(models, X_test, y_test),
        "text_em_iterations": semi.n_iter_,
        "text_em_seconds": seconds,
    }


def gaussian(rng, n_labelled_per_class: int, n_unlabelled: int) -> dict[str, float | int]:
    """Part (b): accuracies of LDA on held-out rows, and the EM's cost."""
    means, covariance = gaussian_classes(rng)
    labelled, hidden, y = labelled_and_unlabelled(
        N_GAUSSIANS, n_labelled_per_class, n_unlabelled, rng
    )

    def draw(labels):
        noise = rng.multivariate_normal(np.zeros(DIMENSION), covariance, size=labels.shape[0])
        return means[labels] + noise

    X = draw(np.r_[labelled, hidden])
    y_test = rng.integers(N_GAUSSIANS, size=TEST_ROWS)
    X_test = draw(y_test)

    only = LDA().fit(X[: labelled.shape[0]], labelled)
    semi, seconds = fit_timed(LDA(), X, y)
    models = {
        "gaussian_labelled_only": only,
        "gaussian_semi": semi,
        "gaussian_all_labelled": LDA().fit(X, np.r_[labelled, hidden]),
    }
    return {
        **accuracies(models, X_test, y_test),
        "gaussian_em_iterations": semi.n_iter_,
        "gaussian_em_seconds": seconds,
    }


def main(
    n_labelled_per_class: int = 5, n_unlabelled: int = 3000, random_state: int = 0
) -> dict[str, float | int]:
    """Print the held-out accuracies of both parts; return them with the EM iterations."""
    rng = np.random.default_rng(random_state)
    result = {
        **text(rng, n_labelled_per_class, n_unlabelled),
        **gaussian(rng, n_labelled_per_class, n_unlabelled),
    }
    n_text, n_gaussian = N_TOPICS * n_labelled_per_class, N_GAUSSIANS * n_labelled_per_class
    rows = [
        ("MultinomialNB", f"{n_text} labelled documents", "text_labelled_only"),
        ("", f"+ {n_unlabelled} unlabelled, lambda = 1", "text_semi"),
        ("", f"+ {n_unlabelled} unlabelled, lambda = 0.1", "text_semi_lambda_0.1"),
        ("", "  the same with alpha = 0.1", "text_semi_lambda_0.1_alpha_0.1"),
        ("", f"all {n_text + n_unlabelled} labelled", "text_all_labelled"),
        ("LDA", f"{n_gaussian} labelled rows", "gaussian_labelled_only"),
        ("", f"+ {n_unlabelled} unlabelled, lambda = 1", "gaussian_semi"),
        ("", f"all {n_gaussian + n_unlabelled} labelled", "gaussian_all_labelled"),
    ]
    print(f"held-out accuracy on {TEST_ROWS} rows (seed {random_state}):")
    for model, data, key in rows:
        print(f"  {model:<14}{data:<40}{result[key]:.3f}")
    print(
        f"EM at lambda = 1: {result['text_em_iterations']} iterations in "
        f"{result['text_em_seconds']:.1f} s (documents), {result['gaussian_em_iterations']} "
        f"in {result['gaussian_em_seconds']:.1f} s (Gaussians)"
    )
    return result


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--labelled", type=int, default=5, help="labelled rows per class")
    parser.add_argument("--unlabelled", type=int, default=3000)
    parser.add_argument("--seed", type=int, default=0)
    arguments = parser.parse_args()
    main(arguments.labelled, arguments.unlabelled, arguments.seed)
