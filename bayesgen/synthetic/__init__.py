"""Measure a synthetic table against the real one: fidelity, utility and privacy.

`quality_report(real, synthetic, target=..., holdout=...)` returns a `QualityReport`: each
column's marginal distance (Kolmogorov–Smirnov, total variation), the difference of the
pairwise association matrices (Pearson, Cramér's V, correlation ratio), train-on-synthetic
against train-on-real scores, a detector's ROC AUC, and distances to the closest real
record against a real holdout. The metrics come from SciPy and scikit-learn; ``sdmetrics``,
the field's library, pins ``pandas<3`` and is not used. See ``docs/synthetic-data.md``.
"""

from bayesgen.synthetic.privacy import Privacy
from bayesgen.synthetic.report import QualityReport, quality_report
from bayesgen.synthetic.utility import Utility

__all__ = ["Privacy", "QualityReport", "Utility", "quality_report"]
