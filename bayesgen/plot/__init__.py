"""Figures of what a fitted generative classifier knows, drawn with matplotlib.

Every function takes a fitted bayesgen classifier, draws into the given Axes (a new figure
when none is given) and returns the Axes, or an ndarray of Axes for a grid of panels:

- [`decision_regions`][bayesgen.plot.decision_regions]: predicted-class regions of two features,
class density contours;
- [`credible_band`][bayesgen.plot.credible_band]: plug-in $p(y \\mid x)$, posterior mean and
credible band
  along a path;
- [`reliability_diagram`][bayesgen.plot.reliability_diagram]: calibration of the plug-in and
predictive probabilities;
- [`class_images`][bayesgen.plot.class_images]: the class-conditional means of image-like data, as
images;
- [`synthetic_vs_real`][bayesgen.plot.synthetic_vs_real]: marginal histograms of real and generated
rows;
- [`risk_coverage`][bayesgen.plot.risk_coverage]: error rate on the accepted rows against the
fraction accepted, when the least sure rows are abstained on.

Not imported by ``import bayesgen`` (matplotlib stays out of the core import); use
``from bayesgen import plot``.
"""

from bayesgen.plot._band import credible_band
from bayesgen.plot._images import class_images
from bayesgen.plot._marginals import synthetic_vs_real
from bayesgen.plot._regions import decision_regions
from bayesgen.plot._reliability import reliability_diagram
from bayesgen.plot._risk_coverage import risk_coverage

__all__ = [
    "class_images",
    "credible_band",
    "decision_regions",
    "reliability_diagram",
    "risk_coverage",
    "synthetic_vs_real",
]
