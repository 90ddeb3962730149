"""``benchmarks.synthetic_seeds``: its figures are those of `quality_report` and of the
detector on the held-out rows, recomputed here from the same split, fit and draws."""

import numpy as np
from sklearn.model_selection import train_test_split

from bayesgen import TableSynthesizer
from bayesgen.synthetic import quality_report
from bayesgen.synthetic.detection import detector_auc
from bayesgen.synthetic.tables import check_tables
from benchmarks import synthetic_seeds
from benchmarks.synthetic_data import wine

SETTINGS = {"n_components": (1,), "numeric_columns": "evidence"}


def test_each_split_s_figures_and_their_means():
    results = synthetic_seeds.run(["wine"], 2, SETTINGS)
    assert [(r.table, r.seed) for r in results] == [("wine", 0), ("wine", 1)]
    frame, target = wine()
    train, holdout = train_test_split(frame, test_size=0.3, stratify=frame[target], random_state=1)
    train, holdout = train.reset_index(drop=True), holdout.reset_index(drop=True)
    model = TableSynthesizer(target=target, random_state=1, **SETTINGS).fit(train)
    drawn = model.sample(len(train), random_state=1)[list(frame.columns)]
    report = quality_report(train, drawn, target=target, holdout=holdout, random_state=1)
    second = model.sample(len(holdout), random_state=1001)[list(frame.columns)]
    (_, second, real), columns = check_tables(train, second, holdout, target)
    last = results[1]
    assert last.detector_auc == report.detector_auc
    assert last.real_auc == report.real_detector_auc
    assert last.held_out_auc == detector_auc(real, second, columns, 1)[0]
    assert last.tstr_accuracy == report.utility.synthetic_accuracy
    assert last.choice == "evidence, 1"
    lines = synthetic_seeds.table(results)
    held_out = np.mean([r.held_out_auc for r in results])
    assert len(lines) == 3 and lines[2].startswith("| wine | 2 |")
    assert f"| {held_out:.3f} |" in lines[2]
