r"""A fitted value's posterior as ArviZ ``InferenceData``: its draws, their dims, their fit.

`posterior_data` draws the parameter sites exactly (`parameter_posterior`: conjugate
draws, or chains of data augmentation for a gappy Gaussian) or by NUTS on the fitted story,
and lays them out with the dims of the sites (`site_dims`) and, given rows, the pointwise
$\log p(x_i, y_i \mid \theta)$ (`pointwise_log_likelihood`) that ``az.loo`` reads.
`checked_draws` says whether draws handed back (``predict_proba_draws(posterior=...)``)
are this value's sites. Every function takes the family (with what the fit learned) and the
value; none decides whether a posterior applies (the estimator refuses first).
"""

from __future__ import annotations

import numpy as np

from bayesgen._lazy import lazy_module
from bayesgen._precision import compute_dtype, precision
from bayesgen.inference import (
    data_augmentation,
    inference_data,
    nuts,
    parameter_posterior,
    posterior_draws,
)
from bayesgen.inference.log_space import log_evidence
from bayesgen.inference.sampling import numpy_generator, random_key

jnp = lazy_module("jax.numpy")


def site_dims(family, classes, features) -> tuple[dict, dict]:
    """ArviZ ``(dims, coords)`` of the story's sites: ``class_prior`` over the classes, then
    the family's sites (`FeatureFamily.parameter_dims`) over ``features`` (names)."""
    dims, coords = family.parameter_dims(list(features))
    dims = {"class_prior": ("class",), **dims}
    return dims, {"class": list(classes), **coords}


def checked_draws(family, value, rule, draws: dict, classes, features) -> dict:
    """``draws`` (``{site: (n_draws, ...)}``), once they are the value's sites with their
    shapes: the story's sites without ``class_prior`` when the rule fixes it.

    Raises
    ------
    ValueError
        Naming the sites expected and found, or the site whose draws have another shape.
    """
    dims, coords = site_dims(family, classes, features)
    expected = set(dims) - ({"class_prior"} if rule.fixed is not None else set())
    if set(draws) != expected:
        raise ValueError(
            f"posterior has the variables {sorted(draws)}, but this model's story has the "
            f"sites {sorted(expected)}; pass the InferenceData this model's posterior() "
            "returned."
        )
    for name in sorted(expected):
        shape = tuple(len(coords[dim]) if dim in coords else None for dim in dims[name])
        found = np.shape(draws[name])[1:]
        if len(found) != len(shape) or any(
            size is not None and size != have for size, have in zip(shape, found, strict=True)
        ):
            raise ValueError(
                f"posterior's variable {name!r} has draws of shape {found}, but this model's "
                f"site has dims {dims[name]} of sizes {shape} (None: any); pass the "
                "InferenceData this model's posterior() returned."
            )
    return draws


def pointwise_log_likelihood(family, value, X, labels, draws: dict) -> np.ndarray:
    r"""Per draw and row: $\log p(x_i, y_i \mid \theta_s)$, or $\log p(x_i \mid \theta_s)$
    for an unlabelled row (label ``-1``); shape (n_draws, n_rows)."""
    rows = np.arange(labels.shape[0])
    unlabelled = labels < 0
    chunks = []
    for joint, _ in posterior_draws.log_joint_draws(
        family, value, X, draws, compute_dtype(X.dtype)
    ):
        values = joint[:, rows, np.where(unlabelled, 0, labels)]
        if unlabelled.any():
            values[:, unlabelled] = log_evidence(joint[:, unlabelled])[..., 0]
        chunks.append(values)
    return np.concatenate(chunks)


def nuts_start(family, value) -> dict:
    """Where NUTS starts after a fit with unlabelled rows: at the EM fit.

    With unlabelled rows the posterior is a mixture's, with a copy of each mode for every
    relabelling of the classes; the labelled rows make those copies far less probable, but
    a chain started at random can still settle in one. Starting at the EM estimate (a mode)
    avoids that. Sites on the edge of their support (a zero probability) are left to
    NumPyro's default start.
    """
    sites = {**family.sampling_sites(value.params), "class_prior": value.class_probabilities}
    start = {}
    for name, site in sites.items():
        site = np.asarray(site)
        inside = np.all(np.isfinite(site))
        if not name.endswith(("means", "covariances")):
            inside &= np.all(site > 0) and (name.endswith("rates") or np.all(site < 1))
        if inside:
            start[name] = site
    return start


def _exact(family, value, rule, rng, num_chains, num_samples, warmup, chains_given):
    """Exact draws shaped (chain, draw, ...), their flat view, the chain count and attrs."""
    chains = num_chains if chains_given else data_augmentation.NUM_CHAINS
    draws, sweeps = parameter_posterior.chain_draws(
        family, value, rule, rng, chains, num_samples, warmup
    )
    if draws is not None:
        attrs = {"sampler": "data augmentation", "chains": chains, "warmup_sweeps": sweeps}
        flat = {name: site.reshape(-1, *site.shape[2:]) for name, site in draws.items()}
        return draws, flat, chains, attrs
    flat = parameter_posterior.exact_draws(family, value, rule, rng, num_chains * num_samples)
    draws = {
        name: site.reshape(num_chains, num_samples, *site.shape[1:]) for name, site in flat.items()
    }
    return draws, flat, num_chains, {}


def posterior_data(
    family,
    value,
    rule,
    *,
    method,
    num_samples,
    num_chains,
    num_warmup,
    rows,
    observed_labels,
    classes,
    features,
    random_state,
    story=None,
    progress=False,
    start=None,
):
    """The posterior of ``value``'s parameters as ``InferenceData``.

    Parameters
    ----------
    family : FeatureFamily
        With what the fit learned (`bayesgen.joint.family_of`).
    value : FittedJoint
    rule : ClassPriorRule
        The class probabilities' rule (fixed ones have no site).
    method : {"exact", "nuts"}
    num_samples : int
        Draws per chain.
    num_chains : int or None
        None: one chain, or `data_augmentation.NUM_CHAINS` for data augmentation.
    num_warmup : int or None
        NUTS's warm-up (default ``num_samples``) or the augmentation sweeps discarded.
    rows : tuple or None
        ``(X, labels)``: checked rows and class indices (``-1`` unlabelled), for NUTS's
        data and the ``log_likelihood`` group.
    observed_labels : ndarray or None
        The labels as given, stored as ``observed_data.y``.
    classes, features : sequence
        The labels of the ``class`` dim and the feature names.
    random_state : None, int or numpy.random.RandomState
    story : callable, optional
        For NUTS: ``story() -> (part, class_prior, features)``, the story's feature part,
        its class-prior arguments and the rows as it observes them
        (`bayesgen.stories.fitted`), made in the value's precision.
    progress : bool, default=False
        Show NUTS's progress bar.
    start : dict, optional
        Where NUTS starts (`nuts_start`); None for NumPyro's default.

    Returns
    -------
    arviz.InferenceData
    """
    sample_stats, attrs = None, {}
    chains = 1 if num_chains is None else num_chains
    if method == "exact":
        draws, flat, chains, attrs = _exact(
            family,
            value,
            rule,
            numpy_generator(random_state),
            chains,
            num_samples,
            num_warmup,
            num_chains is not None,
        )
    else:
        with precision(np.asarray(value.class_stats.counts).dtype):
            part, class_prior, features_observed = story()
            draws, sample_stats = nuts.run(
                part,
                class_prior,
                features_observed,
                jnp.asarray(rows[1]),
                key=random_key(random_state),
                num_samples=num_samples,
                num_warmup=num_samples if num_warmup is None else num_warmup,
                num_chains=chains,
                progress=progress,
                start=start,
            )
        flat = {name: site.reshape(-1, *site.shape[2:]) for name, site in draws.items()}
    log_likelihood = None
    if rows is not None:
        log_likelihood = pointwise_log_likelihood(family, value, *rows, flat)
        log_likelihood = log_likelihood.reshape(chains, num_samples, -1)
    dims, coords = site_dims(family, classes, features)
    return inference_data.build(
        draws,
        dims={name: dims[name] for name in draws},
        coords=coords,
        log_likelihood=log_likelihood,
        observed_labels=observed_labels,
        sample_stats=sample_stats,
        method=method,
        attrs=attrs,
    )
