"""Write the model files of the layout before the family protocol (main at c275fd0).

Run once, on that commit, from the repository root::

    python tests/model_files/make_legacy_files.py

Each case of ``test_model_file_round_trip.CASES`` is fitted on its first batch and saved to
``tests/model_files/legacy/<case>.bgm``; what it predicted then (probabilities, joint
log-probabilities, log p(x), labels and ``sample(7, random_state=0)``) is kept in
``<case>.npz`` beside it. ``test_legacy_model_files.py`` loads the files with today's code
and compares: labels exactly, floats to rounding (its docstring says why).
"""

import sys
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).parent))
from test_model_file_round_trip import CASES, _split  # noqa: E402

LEGACY = Path(__file__).parent / "legacy"
METHODS = ("predict_proba", "predict_joint_log_proba", "score_samples", "predict")


def main() -> None:
    LEGACY.mkdir(exist_ok=True)
    for case, (make, data) in CASES.items():
        X, y = data()
        (X_first, y_first), _ = _split(X, y)
        model = make().fit(X_first, y_first)
        model.save(LEGACY / f"{case}.bgm")
        expected = {method: getattr(model, method)(X) for method in METHODS}
        for i, part in enumerate(model.sample(7, random_state=0)):
            if isinstance(part, pd.DataFrame):
                for column in part.columns:
                    expected[f"sample{i}:{column}"] = part[column].to_numpy()
            else:
                expected[f"sample{i}"] = np.asarray(part)
        expected = {
            key: value.astype(str) if value.dtype == object else value
            for key, value in expected.items()
        }
        np.savez(LEGACY / f"{case}.npz", **expected)
        print(case, sorted(expected))


if __name__ == "__main__":
    main()
