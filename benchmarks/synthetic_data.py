"""Synthetic tables against the peers: bayesgen's generators, sdv, copulas, CTGAN (issue 20).

On real tables bundled offline (the Palmer penguins, statsmodels' Fair affairs survey, the
wines of scikit-learn), each generator is fitted on 70 % of the rows (stratified by the
class) and draws as many rows as it saw; `bayesgen.synthetic.quality_report` measures them
against the held-out 30 %. Peers (`benchmarks.synthetic_peers`): sdv's
GaussianCopulaSynthesizer and CTGAN, ``copulas``' GaussianMultivariate, and class-conditional
copulas (one per class, the alternative to LatentClassNB that issue 20 asked to measure),
each used when its package imports and skipped with the reason otherwise. They require
pandas < 3, so they run in a separate environment (bayesgen runs on pandas 2 as well)::

    python3 -m venv /tmp/peers-venv
    /tmp/peers-venv/bin/pip install -e '.[bench]' 'pandas<3' copulas sdv
    OMP_NUM_THREADS=1 /tmp/peers-venv/bin/python -m benchmarks --section synthetic

Without ``copulas``, our Gaussian copula with empirical margins
(`benchmarks.gaussian_copula`) stands in for it."""

from __future__ import annotations

import importlib.util
import sys
import time
import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import train_test_split

from benchmarks import synthetic_peers
from benchmarks.gaussian_copula import GaussianCopula


@dataclass(frozen=True)
class Result:
    """One generator on one table: the report's headline figures and the seconds spent."""

    table: str
    generator: str
    detector_auc: float
    tstr_accuracy: float
    trtr_accuracy: float
    dependence_difference: float
    dcr_ratio: float
    fit_seconds: float
    sample_seconds: float


def penguins() -> tuple[pd.DataFrame, str]:
    """The Palmer penguins (344 rows; numbers, a whole-number year, categories, NaN)."""
    from palmerpenguins import load_penguins

    return load_penguins(), "species"


def fair() -> tuple[pd.DataFrame, str]:
    """statsmodels' Fair (1978) affairs survey, 6,366 rows: the class is whether the woman
    reported an affair. Ratings and years of schooling are whole numbers; age, years married
    and children are the survey's bins (17.5, 22, ...; 5.5 is "5 or more") and occupations
    codes, so all of those are categories."""
    from statsmodels.datasets import fair as source

    data = source.load_pandas().data
    frame = pd.DataFrame(
        {
            "rate_marriage": data["rate_marriage"].astype(np.int64),
            "age": data["age"].astype(str),
            "yrs_married": data["yrs_married"].astype(str),
            "children": data["children"].astype(str),
            "religious": data["religious"].astype(np.int64),
            "educ": data["educ"].astype(np.int64),
            "occupation": data["occupation"].astype(int).astype(str),
            "occupation_husb": data["occupation_husb"].astype(int).astype(str),
            "affair": np.where(data["affairs"] > 0, "yes", "no"),
        }
    )
    return frame, "affair"


def wine() -> tuple[pd.DataFrame, str]:
    """scikit-learn's wines: 178 rows, 13 numbers, 3 classes."""
    from sklearn.datasets import load_wine

    frame = load_wine(as_frame=True).frame
    return frame, "target"


def randhie() -> tuple[pd.DataFrame, str]:
    """statsmodels' RAND Health Insurance Experiment, 20,190 rows: the class is good
    self-rated health (``hlthg``). Columns hold point masses no density models: 0 in 24-83 %
    of the rows of five of them, five coinsurance levels, whole-number visit counts."""
    from statsmodels.datasets import randhie as source

    frame = source.load_pandas().data
    frame["hlthg"] = np.where(frame["hlthg"] > 0, "good", "other")
    return frame, "hlthg"


def breast_cancer() -> tuple[pd.DataFrame, str]:
    """scikit-learn's breast cancer table: 569 rows, 30 positive measurements, 2 classes."""
    from sklearn.datasets import load_breast_cancer

    frame = load_breast_cancer(as_frame=True).frame
    frame["target"] = np.where(frame["target"] == 1, "benign", "malignant")
    return frame, "target"


def anes96() -> tuple[pd.DataFrame, str]:
    """statsmodels' 1996 American National Election Study, 944 rows: the class is the vote
    (Dole or Clinton); scales of 1-7, age, education and income codes, a population and its
    logarithm, as the dataset ships them."""
    from statsmodels.datasets import anes96 as source

    frame = source.load_pandas().data
    frame["vote"] = np.where(frame["vote"] > 0, "Dole", "Clinton")
    return frame, "vote"


#: Name -> (loader, the package it needs or None).
TABLES = {
    "penguins": (penguins, "palmerpenguins"),
    "fair": (fair, "statsmodels"),
    "wine": (wine, None),
    "randhie": (randhie, "statsmodels"),
    "breast_cancer": (breast_cancer, None),
    "anes96": (anes96, "statsmodels"),
}


def _generators(numeric: bool, quick: bool) -> dict:
    """Name -> (fit(train, target) -> model, draw(model, n, seed) -> DataFrame)."""
    from bayesgen import QDA, LatentClassNB, MixedNB, TableSynthesizer

    def bayesgen_model(make):
        def fit(train, target):
            return make().fit(train.drop(columns=target), train[target])

        def draw(model, n, seed, target):
            X, y = model.sample(n, random_state=seed)
            X = pd.DataFrame(X).copy()
            X[target] = y
            return X

        return fit, draw

    draw = bayesgen_model(MixedNB)[1]

    def rounded_draw(model, n, seed, target):
        X, y = model.sample(n, random_state=seed, rounding="training")
        X = pd.DataFrame(X).copy()
        X[target] = y
        return X

    iterations = 10 if quick else 200
    generators = {
        "MixedNB": bayesgen_model(MixedNB),
        "LatentClassNB (M=3)": bayesgen_model(
            lambda: LatentClassNB(n_components=3, max_iter=iterations, random_state=0)
        ),
    }
    if not quick:
        generators["LatentClassNB (M by held-out CV)"] = (_cross_validated(iterations), draw)
        generators["LatentClassNB (M by held-out CV), rounded"] = (
            _cross_validated(iterations),
            rounded_draw,
        )
    generators["LatentClassNB (histogram numbers, M by held-out CV)"] = (
        _histogram_columns(iterations),
        draw,
    )
    generators["LatentClassNB (histogram numbers, M by held-out CV), rounded"] = (
        _histogram_columns(iterations),
        rounded_draw,
    )
    if numeric:
        generators["QDA"] = bayesgen_model(QDA)

    def synthesizer_fit(train, target):
        synthesizer = TableSynthesizer(target=target, max_iter=iterations).fit(train)
        print(f"TableSynthesizer's choice: {synthesizer.choice_}", file=sys.stderr)
        return synthesizer

    def synthesizer_draw(model, n, seed, target):
        return model.sample(n, random_state=seed)

    generators["TableSynthesizer (defaults)"] = (synthesizer_fit, synthesizer_draw)

    def copula_fit(train, target):
        return GaussianCopula().fit(train, random_state=0)

    def copula_draw(model, n, seed, target):
        return model.sample(n, random_state=seed)

    if _installed("sdv"):
        generators["sdv GaussianCopulaSynthesizer"] = synthetic_peers.sdv_generator(
            "gaussian_copula"
        )
    if _installed("copulas"):
        generators["copulas GaussianMultivariate"] = synthetic_peers.copulas_generator()
        generators["class-conditional copula (copulas, per class)"] = (
            synthetic_peers.class_conditional(*synthetic_peers.copulas_generator())
        )
    else:
        generators["Gaussian copula (ours, empirical margins)"] = (copula_fit, copula_draw)
    generators["class-conditional copula (ours, per class)"] = synthetic_peers.class_conditional(
        copula_fit, copula_draw
    )
    if _installed("sdv") and not quick:
        generators["CTGAN (sdv, 300 epochs)"] = synthetic_peers.sdv_generator("ctgan")
    return generators


def _histogram_columns(iterations: int):
    """LatentClassNB with every numeric column of more than two values a histogram
    (`bayesgen.families.histogram`), the others chosen by evidence, ``n_components`` in
    1, 5, 20 chosen by 3-fold held-out log p(x, y) (the fewest within one standard error)."""
    from sklearn.model_selection import GridSearchCV, StratifiedKFold

    from bayesgen import LatentClassNB
    from bayesgen.synthetic import fewest_components, held_out_log_likelihood

    def fit(train, target):
        X = train.drop(columns=target)
        features = {
            c: "histogram"
            for c in X.columns
            if pd.api.types.is_numeric_dtype(X[c])
            and not pd.api.types.is_bool_dtype(X[c])
            and X[c].nunique() > 2
        }
        search = GridSearchCV(
            LatentClassNB(features=features, max_iter=iterations, random_state=0),
            {"n_components": [1, 5, 20]},
            scoring=held_out_log_likelihood,
            refit=fewest_components,
            cv=StratifiedKFold(3, shuffle=True, random_state=0),
        ).fit(X, train[target])
        chosen = search.best_params_["n_components"]
        print(f"histogram columns, held-out choice: n_components = {chosen}", file=sys.stderr)
        return search.best_estimator_

    return fit


def _cross_validated(iterations: int):
    """LatentClassNB with ``n_components`` in 1..5 chosen by 3-fold held-out log p(x, y)."""
    from sklearn.model_selection import GridSearchCV, StratifiedKFold

    from bayesgen import LatentClassNB
    from bayesgen.synthetic import fewest_components, held_out_log_likelihood

    def fit(train, target):
        search = GridSearchCV(
            LatentClassNB(max_iter=iterations, random_state=0),
            {"n_components": [1, 2, 3, 4, 5]},
            scoring=held_out_log_likelihood,
            refit=fewest_components,
            cv=StratifiedKFold(3, shuffle=True, random_state=0),
        ).fit(train.drop(columns=target), train[target])
        chosen = search.best_params_["n_components"]
        print(f"held-out choice: n_components = {chosen}", file=sys.stderr)
        return search.best_estimator_

    return fit


def _installed(package: str) -> bool:
    return importlib.util.find_spec(package) is not None


def skipped() -> list[str]:
    """The peers and tables left out here, each with its reason."""
    reasons = []
    if not _installed("copulas"):
        reasons.append(
            "`copulas` is not installed: it requires pandas < 3 and this environment runs "
            f"pandas {pd.__version__} (see the benchmark environment in "
            "docs/synthetic-data.md); our Gaussian copula with empirical margins "
            "(`benchmarks/gaussian_copula.py`) stands in for it."
        )
    if not _installed("sdv"):
        reasons.append(
            "`sdv` is not installed (pandas < 3 and PyTorch): its GaussianCopulaSynthesizer "
            "and CTGAN are left out."
        )
    for name, (_, package) in TABLES.items():
        if package is not None and importlib.util.find_spec(package) is None:
            reasons.append(f"`{package}` is not installed: the {name} table is left out.")
    return reasons


def labelled_table(name: str) -> tuple[pd.DataFrame, str] | None:
    """The table ``name`` of `TABLES` (its rows with a target) and its target column; None
    where the package it ships in is not installed."""
    load, package = TABLES[name]
    if package is not None and importlib.util.find_spec(package) is None:
        return None
    frame, target = load()
    return frame.dropna(subset=[target]).reset_index(drop=True), target


def split_of(frame: pd.DataFrame, target: str, seed: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The benchmark's 70/30 split of ``frame``, stratified by ``target``, seeded by
    ``seed``: ``(train, holdout)``, each indexed from 0."""
    train, holdout = train_test_split(
        frame, test_size=0.3, stratify=frame[target], random_state=seed
    )
    return train.reset_index(drop=True), holdout.reset_index(drop=True)


def run(quick: bool = False, seed: int = 0, only: set[str] | None = None) -> list[Result]:
    """Every generator (or those named in ``only``) on every available table (``quick``: the
    penguins, few iterations)."""
    from bayesgen.synthetic import quality_report

    results = []
    names = ["penguins"] if quick else list(TABLES)
    for name in names:
        loaded = labelled_table(name)
        if loaded is None:
            continue
        frame, target = loaded
        train, holdout = split_of(frame, target, seed)
        numeric = (
            all(
                pd.api.types.is_float_dtype(frame[c]) or pd.api.types.is_integer_dtype(frame[c])
                for c in frame.columns
                if c != target
            )
            and not frame.drop(columns=target).isna().any().any()
        )
        for generator, (fit, draw) in _generators(numeric, quick).items():
            if only is not None and generator not in only:
                continue
            started = time.perf_counter()
            with warnings.catch_warnings():  # quick runs stop EM early on purpose
                warnings.simplefilter("ignore", ConvergenceWarning)
                model = fit(train, target)
            fitted = time.perf_counter()
            synthetic = draw(model, len(train), seed, target)[list(frame.columns)]
            drawn = time.perf_counter()
            report = quality_report(
                train, synthetic, target=target, holdout=holdout, random_state=seed
            )
            results.append(
                Result(
                    name,
                    generator,
                    report.detector_auc,
                    report.utility.synthetic_accuracy,
                    report.utility.real_accuracy,
                    report.mean_dependence_difference,
                    report.privacy.ratio,
                    fitted - started,
                    drawn - fitted,
                )
            )
    return results


def table(results: list[Result]) -> list[str]:
    """The Markdown section of the report."""
    lines = [
        "### Synthetic tables: bayesgen's generators against the peers",
        "",
        "Each generator is fitted on 70 % of the table and draws as many rows; the figures "
        "are `bayesgen.synthetic.quality_report` against the other 30 %: detector AUC "
        "(0.5 ideal), train-on-synthetic-test-on-real accuracy (TSTR; train-on-real in "
        "brackets), mean dependence difference (0 ideal) and the median "
        "distance-to-closest-record ratio synthetic / holdout (about 1: no closer to the "
        "training rows than new real rows are). Times include JAX compilation.",
        "",
    ]
    lines += [f"- {reason}" for reason in skipped()]
    lines += [
        "",
        "| table | generator | detector AUC | TSTR accuracy | dependence diff. | DCR ratio "
        "| fit s | sample s |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for r in results:
        lines.append(
            f"| {r.table} | {r.generator} | {r.detector_auc:.3f} | {r.tstr_accuracy:.3f} "
            f"({r.trtr_accuracy:.3f}) | {r.dependence_difference:.3f} | {r.dcr_ratio:.2f} "
            f"| {r.fit_seconds:.1f} | {r.sample_seconds:.1f} |"
        )
    return lines + [""]


if __name__ == "__main__":
    print("\n".join(table(run())))
