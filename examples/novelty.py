"""Spotting inputs that no class explains: log p(x) and the tail probability.

Fits QDA to wines of cultivars 0 and 1 only, then scores held-out wines of those two
cultivars and every wine of cultivar 2, which the model has never seen. A wine is flagged
when its log p(x) falls below the 1st percentile of the training wines' log p(x).

Then half of the test wines' measurements are blanked. Their log p(x) is now the density
of fewer measurements, on another scale, and the same threshold no longer flags the unseen
cultivar; the tail probability (how likely a wine from the model, with the same
measurements blank, is to be at least as unusual) flags it with one threshold, 0.01, with
or without blanks.

Run: ``python examples/novelty.py``
"""

from __future__ import annotations

import numpy as np
from sklearn.datasets import load_wine
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import train_test_split

from bayesgen import QDA


def _blank_half(X, rng):
    """``X`` with each entry blank (NaN) with probability 1/2."""
    return np.where(rng.random(X.shape) < 0.5, np.nan, X)


def main() -> dict[str, float]:
    """Print the detection and false-alarm rates; return them with the AUC."""
    X, y = load_wine(return_X_y=True)
    known, novel = X[y < 2], X[y == 2]
    X_train, X_test, y_train, _ = train_test_split(
        known, y[y < 2], test_size=0.3, stratify=y[y < 2], random_state=0
    )
    model = QDA().fit(X_train, y_train)
    threshold = np.percentile(model.score_samples(X_train), 1)
    known_scores, novel_scores = model.score_samples(X_test), model.score_samples(novel)
    detection = float(np.mean(novel_scores < threshold))
    false_alarms = float(np.mean(known_scores < threshold))
    labels = np.r_[np.zeros(len(known_scores)), np.ones(len(novel_scores))]
    auc = float(roc_auc_score(labels, -np.r_[known_scores, novel_scores]))
    print(f"threshold: log p(x) < {threshold:.1f} (1st percentile of training wines)")
    print(f"unseen cultivar flagged: {detection:.0%} of {len(novel_scores)} wines")
    print(f"known cultivars flagged: {false_alarms:.0%} of {len(known_scores)} wines")
    print(f"AUC of -log p(x) for telling them apart: {auc:.3f}")

    rng = np.random.default_rng(0)
    gappy_known, gappy_novel = _blank_half(X_test, rng), _blank_half(novel, rng)
    result = {"detection": detection, "false_alarms": false_alarms, "auc": auc}
    result["detection_gappy_log_density"] = float(
        np.mean(model.score_samples(gappy_novel) < threshold)
    )
    for name, known_rows, novel_rows in [
        ("", X_test, novel),
        ("_gappy", gappy_known, gappy_novel),
    ]:
        known_tail = model.tail_probability(known_rows, random_state=0)
        novel_tail = model.tail_probability(novel_rows, random_state=0)
        result[f"detection_tail{name}"] = float(np.mean(novel_tail < 0.01))
        result[f"false_alarms_tail{name}"] = float(np.mean(known_tail < 0.01))
    print("with half of every test wine's measurements blank:")
    print(
        f"  log p(x) < {threshold:.1f} flags {result['detection_gappy_log_density']:.0%} "
        "of the unseen cultivar"
    )
    for name, title in [("", "complete"), ("_gappy", "half blank")]:
        print(
            f"  tail probability < 0.01, {title}: unseen cultivar "
            f"{result[f'detection_tail{name}']:.0%}, known "
            f"{result[f'false_alarms_tail{name}']:.0%}"
        )
    return result


if __name__ == "__main__":
    main()
