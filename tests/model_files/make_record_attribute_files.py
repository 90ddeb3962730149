"""Write model files of the layout that kept the record of the training columns
(``data_min_``, ``data_max_``, ``n_missing_``, ``n_samples_seen_``, ``data_decimals_``,
``data_step_``) as attributes beside the fitted value, before it became the value's
``record`` (main at 180a642).

Run once, on that commit, from the repository root::

    python tests/model_files/make_record_attribute_files.py

Each case of `CASES` is fitted and saved to ``record_attributes/<case>.bgm``; its recorded
attributes and the rows ``sample`` drew inside the training range, with its gaps and on
its grids, are kept in ``<case>.npz`` beside it, for ``test_earlier_layouts.py``.
"""

from pathlib import Path

import numpy as np
from make_separate_attribute_files import table

import bayesgen

FOLDER = Path(__file__).parent / "record_attributes"
RECORDED = (
    "data_min_",
    "data_max_",
    "n_missing_",
    "n_samples_seen_",
    "data_decimals_",
    "data_step_",
)


def _mixed():
    frame, y = table()
    return bayesgen.MixedNB().fit(frame, y)


def _counts_in_batches():
    """Two weighted batches of counts with gaps (the record merged across them)."""
    rng = np.random.default_rng(3)
    X = rng.poisson([2.0, 5.0, 9.0], (300, 3)).astype(float)
    X[rng.random(X.shape) < 0.1] = np.nan
    y = rng.integers(0, 2, 300)
    weights = rng.integers(1, 4, 300).astype(float)
    model = bayesgen.PoissonNB()
    model.partial_fit(X[:150], y[:150], classes=[0, 1], sample_weight=weights[:150])
    return model.partial_fit(X[150:], y[150:], sample_weight=weights[150:])


CASES = {"MixedNB-table": _mixed, "PoissonNB-batches": _counts_in_batches}


def outputs(model) -> dict:
    """The recorded attributes, and rows drawn with the training table's range, gaps and
    grids (as text: a table's columns differ in type)."""
    found = {name: np.asarray(getattr(model, name), dtype=np.float64) for name in RECORDED}
    drawn, labels = model.sample(
        12, support="training", missing="training", rounding="training", random_state=0
    )
    found["sample:y"] = np.asarray(labels).astype(str)
    found["sample:X"] = np.asarray(drawn).astype(str)
    return found


def main() -> None:
    FOLDER.mkdir(exist_ok=True)
    for case, make in CASES.items():
        model = make()
        model.save(FOLDER / f"{case}.bgm")
        np.savez(FOLDER / f"{case}.npz", **outputs(model))
        print(case)


if __name__ == "__main__":
    main()
