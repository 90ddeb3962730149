"""Posterior draws as ArviZ ``InferenceData``, with the story's site names and labelled dims.

ArviZ is imported here only, and only when a posterior is asked for: it is slow to import
and prints a notice about its coming 1.0 refactor, which says nothing about this package's
use of it.
"""

from __future__ import annotations

import warnings

import numpy as np


def arviz():
    """The ``arviz`` module, imported quietly."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=r"\s*ArviZ is undergoing", category=FutureWarning)
        import arviz as az
    return az


def build(
    draws: dict,
    *,
    dims: dict,
    coords: dict,
    log_likelihood: np.ndarray | None = None,
    observed_labels: np.ndarray | None = None,
    sample_stats: dict | None = None,
    method: str,
    attrs: dict | None = None,
):
    """An ``InferenceData`` from draws shaped ``(chain, draw, ...)``.

    Parameters
    ----------
    draws : dict of str to ndarray
        Each site's draws, with leading chain and draw axes.
    dims, coords : dict
        ArviZ dims of each site and the labels of each dim.
    log_likelihood : ndarray of shape (chain, draw, n_rows), optional
        $\\log p(x_i, y_i \\mid \\theta)$ of each observed row under each draw, stored
        as the variable ``"joint"`` of the ``log_likelihood`` group (so ``az.loo`` and
        ``az.waic`` work without naming a variable).
    observed_labels : ndarray of shape (n_rows,), optional
        The labels of those rows, stored as ``observed_data.y``.
    sample_stats : dict, optional
        Sampler statistics (``diverging``, ``lp``, ...), shaped ``(chain, draw)``.
    method : str
        Recorded in the attributes as ``inference_method``.
    attrs : dict, optional
        More attributes of every group (the sampler, its chains and warm-up sweeps).
    """
    az = arviz()
    groups = {"posterior": {name: np.asarray(value) for name, value in draws.items()}}
    dims = dict(dims)
    if log_likelihood is not None:
        groups["log_likelihood"] = {"joint": log_likelihood}
        dims["joint"] = ("row",)
        coords = {**coords, "row": np.arange(log_likelihood.shape[-1])}
    if observed_labels is not None:
        groups["observed_data"] = {"y": np.asarray(observed_labels)}
        dims["y"] = ("row",)
    if sample_stats is not None:
        groups["sample_stats"] = sample_stats
    idata = az.from_dict(
        **groups,
        coords=coords,
        dims={name: list(names) for name, names in dims.items()},
    )
    # from_dict (ArviZ 0.23) drops its attrs argument: set them on every group instead.
    attrs = {"inference_library": "bayesgen", "inference_method": method, **(attrs or {})}
    for group in idata.groups():
        idata[group].attrs.update(attrs)
    return idata


def flatten_draws(idata) -> dict:
    """The posterior group of an ``InferenceData`` as ``{site: (chain * draw, ...)}``.

    Raises
    ------
    TypeError
        When ``idata`` has no posterior group (it is no ``InferenceData`` of draws).
    """
    posterior = getattr(idata, "posterior", None)
    if posterior is None or not hasattr(posterior, "data_vars"):
        raise TypeError(
            "posterior must be an arviz.InferenceData with a posterior group (as posterior() "
            f"returns); got {type(idata).__name__} {idata!r:.60}."
        )
    return {
        name: np.asarray(values).reshape(-1, *values.shape[2:])
        for name, values in posterior.data_vars.items()
    }
