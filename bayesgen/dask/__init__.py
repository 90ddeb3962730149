r"""Fit bayesgen estimators on Dask arrays and dataframes, on one machine or a cluster.

A fit depends on the training rows only through sufficient statistics that are sums over
rows (class counts, per-class feature sums; for Gaussians means and centred scatter, merged
with the update of Chan, Golub and LeVeque). So each block of rows is reduced to its
statistics on a worker, the statistics are merged in a tree, and the estimator's
parameters follow from the merged statistics exactly as in ``fit``: the fitted model
equals ``estimator.fit(X.compute(), y.compute())`` up to rounding. Rows labelled -1 are
fitted by EM with every E- and M-step on the workers.

Needs the optional dependencies: ``pip install 'bayesgen[dask]'``. See
``docs/out-of-core.md``.
"""

from __future__ import annotations

try:
    import dask  # noqa: F401
except ImportError as error:  # pragma: no cover - depends on the environment
    raise ImportError(
        "bayesgen.dask needs Dask: pip install 'bayesgen[dask]' (dask[array,dataframe] and "
        "distributed)."
    ) from error

from bayesgen.dask._fit import fit

__all__ = ["fit"]
