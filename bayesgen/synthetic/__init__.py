"""Measure a synthetic table against the real one: fidelity, utility and privacy.

`quality_report(real, synthetic, target=..., holdout=...)` returns a `QualityReport`: each
column's marginal distance (Kolmogorov–Smirnov, total variation), the difference of the
pairwise association matrices (Pearson, Cramér's V, correlation ratio), train-on-synthetic
against train-on-real scores, a detector's ROC AUC, and distances to the closest real
record against a real holdout. `held_out_log_likelihood` scores a generator on rows it did
not see (a scikit-learn scorer: choose ``LatentClassNB``'s ``n_components`` with
``GridSearchCV`` and ``refit=fewest_components``). The metrics come from SciPy and
scikit-learn; ``sdmetrics``, the field's library, pins ``pandas<3`` and is not used. See
``docs/synthetic-data.md``.
"""

from bayesgen.synthetic.held_out import fewest_components, held_out_log_likelihood
from bayesgen.synthetic.privacy import Privacy
from bayesgen.synthetic.report import QualityReport, quality_report
from bayesgen.synthetic.utility import Utility

__all__ = [
    "Privacy",
    "QualityReport",
    "Utility",
    "fewest_components",
    "held_out_log_likelihood",
    "quality_report",
]
