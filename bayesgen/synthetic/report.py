"""`quality_report`: every figure of a synthetic table's quality, in one object."""

from __future__ import annotations

import math
from dataclasses import dataclass

import pandas as pd
from sklearn.model_selection import train_test_split

from bayesgen.synthetic.dependence import association_matrix, mean_over_pairs
from bayesgen.synthetic.detection import detector_auc
from bayesgen.synthetic.marginals import marginal_distances
from bayesgen.synthetic.privacy import Privacy, privacy
from bayesgen.synthetic.tables import check_tables
from bayesgen.synthetic.utility import Utility, utility

#: The share of the real table held out for testing when no holdout is given.
TEST_SHARE = 0.3


@dataclass(frozen=True)
class QualityReport:
    """How faithful, useful and private a synthetic table is, measured against the real one.

    Attributes
    ----------
    marginals : pandas.DataFrame
        Per column: ``kind``, ``measure`` (KS or TV), ``distance`` in [0, 1] (0 is ideal),
        and the shares of missing cells (`bayesgen.synthetic.marginals`).
    association_real, association_synthetic : pandas.DataFrame
        Association matrices: Pearson's r, Cramér's V, correlation ratio η
        (`bayesgen.synthetic.dependence`).
    dependence_difference : pandas.DataFrame
        ``|association_real - association_synthetic|``.
    mean_dependence_difference : float
        Its mean over the pairs of columns (0 is ideal).
    detector_auc, detector_auc_std : float
        Cross-validated ROC AUC of a classifier separating real from synthetic rows (0.5 is
        ideal) and its spread over the folds (`bayesgen.synthetic.detection`).
    real_detector_auc, real_detector_auc_std : float
        The same detector separating the holdout's real rows from the real rows the
        generator saw: what an AUC of real data against real data is on this table, the
        mark to read ``detector_auc`` against (0.49–0.54 on public tables; higher where
        the holdout differs from the training rows); NaN when either has a single row.
    privacy : Privacy
        Distances to the closest real training row, synthetic against holdout
        (`bayesgen.synthetic.privacy`).
    utility : Utility or None
        Train-on-synthetic against train-on-real test scores, when a target was given
        (`bayesgen.synthetic.utility`).
    holdout : str
        ``"given"``, or ``"split"`` when the test rows were held out of the real table.
    n_real, n_synthetic, n_holdout : int
        Rows of the real table, the synthetic table and the holdout (given or split).
    """

    marginals: pd.DataFrame
    association_real: pd.DataFrame
    association_synthetic: pd.DataFrame
    dependence_difference: pd.DataFrame
    mean_dependence_difference: float
    detector_auc: float
    detector_auc_std: float
    real_detector_auc: float
    real_detector_auc_std: float
    privacy: Privacy
    utility: Utility | None
    holdout: str
    n_real: int
    n_synthetic: int
    n_holdout: int

    def to_frame(self) -> pd.DataFrame:
        """Every figure as one long table with columns ``section, item, measure, value``."""
        rows = [
            ("marginal", column, row.measure, row.distance)
            for column, row in self.marginals.iterrows()
        ]
        names = list(self.dependence_difference.columns)
        rows += [
            ("dependence", f"{a} ~ {b}", "|difference|", self.dependence_difference.loc[a, b])
            for i, a in enumerate(names)
            for b in names[i + 1 :]
        ]
        rows.append(
            ("dependence", "all pairs", "mean |difference|", self.mean_dependence_difference)
        )
        if self.utility is not None:
            u = self.utility
            rows += [
                ("utility", "train on real", "accuracy", u.real_accuracy),
                ("utility", "train on real", "log loss", u.real_log_loss),
                ("utility", "train on synthetic", "accuracy", u.synthetic_accuracy),
                ("utility", "train on synthetic", "log loss", u.synthetic_log_loss),
            ]
        rows += [
            ("detection", "detector", "ROC AUC", self.detector_auc),
            ("detection", "detector", "ROC AUC std", self.detector_auc_std),
            ("detection", "real against real", "ROC AUC", self.real_detector_auc),
            ("detection", "real against real", "ROC AUC std", self.real_detector_auc_std),
            ("privacy", "synthetic", "median DCR", self.privacy.synthetic_median),
            ("privacy", "holdout", "median DCR", self.privacy.holdout_median),
            ("privacy", "synthetic / holdout", "median DCR ratio", self.privacy.ratio),
            (
                "privacy",
                "synthetic",
                "share within holdout 5th percentile",
                self.privacy.share_closer,
            ),
        ]
        frame = pd.DataFrame(rows, columns=["section", "item", "measure", "value"])
        return frame.astype({"value": float})

    def to_dict(self) -> dict:
        """The figures as plain Python values (JSON-ready; NaN becomes None)."""

        def number(value):
            value = float(value)
            return None if math.isnan(value) else value

        def matrix(frame):
            return {a: {b: number(v) for b, v in row.items()} for a, row in frame.iterrows()}

        return {
            "rows": {"real": self.n_real, "synthetic": self.n_synthetic, "holdout": self.n_holdout},
            "holdout": self.holdout,
            "marginals": {
                column: {
                    "kind": row.kind,
                    "measure": row.measure,
                    "distance": number(row.distance),
                    "missing_real": number(row.missing_real),
                    "missing_synthetic": number(row.missing_synthetic),
                }
                for column, row in self.marginals.iterrows()
            },
            "association_real": matrix(self.association_real),
            "association_synthetic": matrix(self.association_synthetic),
            "dependence_difference": matrix(self.dependence_difference),
            "mean_dependence_difference": number(self.mean_dependence_difference),
            "utility": None
            if self.utility is None
            else {key: number(value) for key, value in self.utility._asdict().items()},
            "detector_auc": number(self.detector_auc),
            "detector_auc_std": number(self.detector_auc_std),
            "real_detector_auc": number(self.real_detector_auc),
            "real_detector_auc_std": number(self.real_detector_auc_std),
            "privacy": {key: number(value) for key, value in self.privacy._asdict().items()},
        }

    def __str__(self) -> str:
        marginals = self.marginals[["kind", "measure", "distance"]].to_string(
            float_format=lambda value: f"{value:.3f}"
        )
        lines = [
            f"Synthetic data quality: {self.n_synthetic} synthetic rows against {self.n_real} "
            f"real rows (holdout: {self.n_holdout} rows, {self.holdout}).",
            "",
            "Marginal distance per column (0 is ideal):",
            marginals,
            "",
            "Dependence between columns, mean |real - synthetic| over pairs (0 is ideal): "
            f"{self.mean_dependence_difference:.3f}",
        ]
        if self.utility is not None:
            u = self.utility
            lines += [
                "",
                f"Utility on {u.n_test} real test rows:   accuracy   log loss",
                f"  train on real               {u.real_accuracy:8.3f}   {u.real_log_loss:8.3f}",
                f"  train on synthetic          {u.synthetic_accuracy:8.3f}   "
                f"{u.synthetic_log_loss:8.3f}",
            ]
        p = self.privacy
        lines += [
            "",
            f"Detector ROC AUC (0.5 is ideal): {self.detector_auc:.3f} "
            f"(± {self.detector_auc_std:.3f} over folds); real holdout against real rows: "
            f"{self.real_detector_auc:.3f} (± {self.real_detector_auc_std:.3f})",
            "",
            "Distance to closest real training row (DCR):",
            f"  median synthetic / median holdout: {p.synthetic_median:.3f} / "
            f"{p.holdout_median:.3f} = {p.ratio:.3f} (about 1 or more is good)",
            f"  synthetic rows within the holdout's 5th percentile: {p.share_closer:.3f} "
            "(about 0.05 is good, 1 means copies)",
        ]
        return "\n".join(lines)


def _split(real: pd.DataFrame, target, random_state):
    stratify = None if target is None else real[target].fillna("<missing>")
    try:
        return train_test_split(
            real, test_size=TEST_SHARE, random_state=random_state, stratify=stratify
        )
    except ValueError:  # a class too small to stratify
        return train_test_split(real, test_size=TEST_SHARE, random_state=random_state)


def quality_report(real, synthetic, *, target=None, holdout=None, random_state=None):
    """Measure a synthetic table against the real table it was made from.

    Parameters
    ----------
    real : pandas.DataFrame
        The real rows the synthetic data was made from (the generator's training rows).
    synthetic : pandas.DataFrame
        The synthetic rows, with the real table's columns.
    target : str, optional
        A class column: adds train-on-synthetic-test-on-real scores.
    holdout : pandas.DataFrame, optional
        Real rows the generator never saw, with the same columns. They are the test rows of
        the utility scores and the reference of the privacy distances. Without it,
        30 % of ``real`` is held out (stratified by ``target``): the synthetic data then
        saw those rows, which flatters both figures.
    random_state : int, numpy.random.RandomState or None
        Seeds the split, the folds and the classifiers; an int makes the report repeatable.

    Returns
    -------
    QualityReport

    Raises
    ------
    ValueError
        For tables that cannot be compared, naming the column: see
        `bayesgen.synthetic.tables.check_tables`; also if a target has fewer than 2 classes.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> rng = np.random.default_rng(0)
    >>> real = pd.DataFrame({"x": rng.normal(size=200), "c": rng.choice(["a", "b"], 200)})
    >>> report = quality_report(real, real.copy(), random_state=0)
    >>> float(report.marginals["distance"].max()), report.mean_dependence_difference
    (0.0, 0.0)
    """
    (real, synthetic, holdout), columns = check_tables(real, synthetic, holdout, target)
    source = "given"
    train = real
    if holdout is None:
        train, holdout = _split(real, target, random_state)
        source = "split"
    association_real = association_matrix(real, columns)
    association_synthetic = association_matrix(synthetic, columns)
    difference = (association_real - association_synthetic).abs()
    auc, auc_std = detector_auc(real, synthetic, columns, random_state)
    real_auc, real_auc_std = math.nan, math.nan  # too few rows for two folds: not measured
    if min(len(train), len(holdout)) >= 2:
        real_auc, real_auc_std = detector_auc(train, holdout, columns, random_state)
    return QualityReport(
        marginals=marginal_distances(real, synthetic, columns),
        association_real=association_real,
        association_synthetic=association_synthetic,
        dependence_difference=difference,
        mean_dependence_difference=mean_over_pairs(difference),
        detector_auc=auc,
        detector_auc_std=auc_std,
        real_detector_auc=real_auc,
        real_detector_auc_std=real_auc_std,
        privacy=privacy(train, synthetic, holdout, columns),
        utility=None
        if target is None
        else utility(train, synthetic, holdout, columns, random_state),
        holdout=source,
        n_real=len(real),
        n_synthetic=len(synthetic),
        n_holdout=len(holdout),
    )
