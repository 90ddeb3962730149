"""Write model files of the layout that kept ``MixedNB``'s, ``LatentClassNB``'s and
``ComplementNB``'s fitted state as separate attributes (``_stats``, ``_params``,
``_frozen``, ``_learned``, ``weights_``, ``feature_log_prob_``), before they became views of
one fitted value (main at 8429aee).

Run once, on that commit, from the repository root::

    python tests/model_files/make_separate_attribute_files.py

Each case of `CASES` is fitted and saved to ``separate_attributes/<case>.bgm``; what it
predicted then (``METHODS``), ``sample(9, random_state=0)`` and ``impute`` are kept in
``<case>.npz`` beside it, for ``test_separate_attribute_files.py``.
"""

from pathlib import Path

import numpy as np
import pandas as pd

import bayesgen

FOLDER = Path(__file__).parent / "separate_attributes"
METHODS = ("predict_proba", "predict_joint_log_proba", "score_samples")


def table(n=240, seed=5):
    """Numbers, whole numbers, categories and flags, with a fifth of the cells missing."""
    rng = np.random.default_rng(seed)
    z = rng.integers(0, 2, n)
    y = np.where(rng.random(n) < 0.5, "u", "v")
    frame = pd.DataFrame(
        {
            "size": 3.0 * z + rng.normal(size=n) + (y == "u"),
            "colour": np.where(z == 1, "red", "blue"),
            "visits": rng.poisson(2 + 3 * z).astype(float),
            "wait": rng.exponential(1 + z),
        }
    )
    for column in frame.columns:
        hide = rng.random(n) < 0.2
        frame.loc[hide, column] = None if column == "colour" else np.nan
    return frame, y


def counts(n=150, seed=6):
    """Word counts of three classes."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    return rng.poisson(1.0 + 2.0 * (np.arange(6) % 3 == y[:, None])).astype(float), y


CASES = {
    "MixedNB-gappy": (lambda: bayesgen.MixedNB(), table),
    "LatentClassNB-gappy": (
        lambda: bayesgen.LatentClassNB(n_components=3, random_state=0),
        table,
    ),
    "ComplementNB": (lambda: bayesgen.ComplementNB(alpha=0.5, norm=True), counts),
}


def outputs(model, frame) -> dict:
    """What the file's model is compared on: predictions, and drawn rows and filled cells
    of a model with a density (ComplementNB has none)."""
    if isinstance(model, bayesgen.ComplementNB):
        return {method: getattr(model, method)(frame) for method in METHODS[:2]}
    found = {method: getattr(model, method)(frame) for method in METHODS}
    drawn, labels = model.sample(9, random_state=0)
    found["sample:y"] = np.asarray(labels).astype(str)
    filled = model.impute(frame)
    for column in frame.columns:
        found[f"sample:{column}"] = drawn[column].to_numpy().astype(str)
        found[f"impute:{column}"] = filled[column].to_numpy().astype(str)
    return found


def main() -> None:
    FOLDER.mkdir(exist_ok=True)
    for case, (make, data) in CASES.items():
        frame, y = data()
        model = make().fit(frame, y)
        model.save(FOLDER / f"{case}.bgm")
        np.savez(FOLDER / f"{case}.npz", **outputs(model, frame))
        print(case)


if __name__ == "__main__":
    main()
