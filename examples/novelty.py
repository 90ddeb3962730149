"""Spotting inputs that no class explains, with log p(x) = score_samples.

Fits QDA to wines of cultivars 0 and 1 only, then scores held-out wines of those two
cultivars and every wine of cultivar 2, which the model has never seen. A wine is flagged
when its log p(x) falls below the 1st percentile of the training wines' log p(x).

Run: ``python examples/novelty.py``
"""

from __future__ import annotations

import numpy as np
from sklearn.datasets import load_wine
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import train_test_split

from bayesgen import QDA


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
    return {"detection": detection, "false_alarms": false_alarms, "auc": auc}


if __name__ == "__main__":
    main()
