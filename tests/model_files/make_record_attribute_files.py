"""Write model files of the layout that kept the record of the training columns
(``data_min_``, ``data_max_``, ``n_missing_``, ``n_samples_seen_``, ``data_decimals_``,
``data_step_``) and the rows behind a gappy Gaussian fit's posterior (``_missing_fit_rows``,
``_missing_fit_weights``) as attributes beside the fitted value, before they became the
value's ``record`` and ``rows`` (main at 180a642).

Run once, on that commit, from the repository root (naming cases writes only those)::

    python tests/model_files/make_record_attribute_files.py [CASE ...]

Each case of `CASES` is fitted and saved to ``record_attributes/<case>.bgm``; its recorded
attributes and the rows ``sample`` drew inside the training range, with its gaps and on
its grids (and, for the gappy Gaussian, its posterior draws and predictive), are kept in
``<case>.npz`` beside it, for ``test_earlier_layouts.py``.

``QDA-gappy.npz``'s ``posterior:means``, ``posterior:covariances`` and ``predictive`` were
written again from the same ``.bgm`` at the commit that changed how a Gaussian draws its
missing entries given the observed ones (one triangular solve with the factor of the
conditional precision, where the conditional covariance had been formed and factored
again): the same law, another stream of draws, and the posterior chains and the
predictive's augmentation draws complete the rows with it. Every other array is as
written at 180a642.
"""

import sys
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


def _gappy_gaussian():
    """A full-covariance Gaussian fitted by EM over missing entries (its rows kept)."""
    rng = np.random.default_rng(4)
    X = rng.normal([0.0, 1.0, 2.0], 1.0, (120, 3)) + np.repeat([[0.0], [1.5]], 60, axis=0)
    X[rng.random(X.shape) < 0.15] = np.nan
    return bayesgen.QDA().fit(X, np.repeat([0, 1], 60))


CASES = {
    "MixedNB-table": _mixed,
    "PoissonNB-batches": _counts_in_batches,
    "QDA-gappy": _gappy_gaussian,
}


def outputs(model) -> dict:
    """The recorded attributes, and rows drawn with the training table's range, gaps and
    grids (as text: a table's columns differ in type)."""
    found = {name: np.asarray(getattr(model, name), dtype=np.float64) for name in RECORDED}
    drawn, labels = model.sample(
        12, support="training", missing="training", rounding="training", random_state=0
    )
    found["sample:y"] = np.asarray(labels).astype(str)
    found["sample:X"] = np.asarray(drawn).astype(str)
    if getattr(model, "fitted_with_missing_", False):  # the posterior of the kept rows
        draws = model.posterior(20, num_chains=2, num_warmup=10, random_state=1).posterior
        found["posterior:means"] = np.asarray(draws["means"])
        found["posterior:covariances"] = np.asarray(draws["covariances"])
        rows = np.array([[0.5, 1.5, np.nan], [1.0, np.nan, 3.0], [2.0, 2.5, 2.5]])
        found["predictive"] = model.predict_proba(rows, method="predictive")
    return found


def main(cases) -> None:
    FOLDER.mkdir(exist_ok=True)
    for case in cases:
        model = CASES[case]()
        model.save(FOLDER / f"{case}.bgm")
        np.savez(FOLDER / f"{case}.npz", **outputs(model))
        print(case)


if __name__ == "__main__":
    main(sys.argv[1:] or CASES)
