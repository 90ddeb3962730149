"""Conjugate families as pure JAX functions over NamedTuple pytrees.

Each family offers ``merge`` (statistics of two batches), ``posterior`` (the conjugate
update), ``point_estimate`` and ``sample_params``. The Gaussian family also computes its
statistics from data and responsibilities (``suff_stats``) and its ``log_likelihood``; the
count families (Bernoulli, multinomial, Poisson, categorical) take ``R^T X`` computed by
the estimators (which keeps SciPy sparse input sparse) and give their log-likelihood as a
``linear_form``. No estimator code, no scikit-learn, no global state lives here.
"""

import importlib as _importlib
import pkgutil as _pkgutil

# Every family module, so that each family has registered itself (`bayesgen.registry`) once
# any family is touched; none of them imports JAX at module level.
for _module in _pkgutil.walk_packages(__path__, __name__ + "."):
    _importlib.import_module(_module.name)
