r"""The posterior of a fitted value's parameters: exact draws, chains, the predictive.

The family's conjugate posterior given the value's statistics (`FeatureFamily.posterior`)
supplies exact draws of its parameter sites, made with a NumPy generator (no data pass, no
compilation), and the posterior predictive $\log p(x \mid k, \mathcal D)$; the class
probabilities have their Dirichlet posterior under the value's rule
(`bayesgen.joint.ClassPriorRule`), unless the rule fixes them. A Gaussian value fitted on
rows with missing entries keeps those rows (``value.rows``) and draws from them instead
(`bayesgen.inference.gappy_posterior`): exactly for diagonal covariances, by data
augmentation in chains otherwise. Every function takes the family (with what the fit
learned), the value and, for the class probabilities, the rule; none checks whether the
posterior applies (the estimator refuses first).
"""

from __future__ import annotations

import numpy as np

from bayesgen._precision import precision
from bayesgen.families import class_prior
from bayesgen.inference import data_augmentation, gappy_posterior, posterior_draws

#: Augmentation draws behind a Monte Carlo posterior predictive ...
PREDICTIVE_DRAWS = 400
#: ... made with a fixed seed, so that ``predict_proba`` is deterministic.
PREDICTIVE_SEED = 0


def _has_kept_rows(value) -> bool:
    """Whether the posterior comes from the rows the value kept: a fit by EM over missing
    entries (its ``frozen``) that kept them."""
    return value.rows is not None and value.frozen is not None


def class_prior_posterior(rule, value) -> class_prior.Dirichlet:
    """The Dirichlet posterior of the class probabilities: the rule's concentration plus
    the class counts."""
    counts = np.asarray(value.class_stats.counts)
    return class_prior.Dirichlet(np.asarray(rule.concentration + counts))


def predictive_class_prior(rule, value) -> np.ndarray:
    r"""$\mathbb E[\pi \mid \mathcal D]$, or the fixed class probabilities."""
    if rule.fixed is not None:
        return value.class_probabilities
    concentration = class_prior_posterior(rule, value).concentration
    return concentration / concentration.sum()


def class_prior_draws(rule, value, rng, num_samples: int) -> np.ndarray:
    """(num_samples, n_classes) draws of the class probabilities."""
    return class_prior.sample_params(rng, class_prior_posterior(rule, value), num_samples)


def _parameter_draws(family, value, rng, num_samples: int) -> dict:
    """Exact draws of the family's parameter sites, ``{site: (num_samples, ...)}``."""
    if _has_kept_rows(value):  # a diagonal Gaussian with missing entries: the others augment
        return gappy_posterior.exact_draws(family, value, rng, num_samples)
    posterior = family.posterior(value.feature_prior, value.feature_stats)
    return family.sites(family.sample_params(rng, posterior, num_samples))


def chain_draws(family, value, rule, rng, num_chains, num_samples, num_warmup=None):
    """Data-augmentation draws, with the class probabilities', shaped (chain, draw, ...),
    and the sweeps discarded; ``(None, None)`` when the posterior is conjugate (every value
    but a full, tied or spherical Gaussian's with missing entries)."""
    rng_classes, rng_rows = rng.spawn(2)  # spawned either way: the caller's stream moves on
    if not _has_kept_rows(value) or gappy_posterior.is_exact(family):
        return None, None
    warmup = data_augmentation.WARMUP_SWEEPS if num_warmup is None else num_warmup
    with precision(np.asarray(value.class_stats.counts).dtype):
        draws = gappy_posterior.augmentation_draws(
            family,
            value,
            rng_rows,
            num_chains=num_chains,
            num_samples=num_samples,
            num_warmup=warmup,
        )
    if rule.fixed is None:
        flat = class_prior_draws(rule, value, rng_classes, num_chains * num_samples)
        draws["class_prior"] = flat.reshape(num_chains, num_samples, -1)
    return draws, warmup


def exact_draws(family, value, rule, rng, num_samples: int) -> dict:
    """``{site: ndarray (num_samples, ...)}`` from the posterior, drawn with the NumPy
    generator ``rng``; `data_augmentation.NUM_CHAINS` chains of data augmentation where the
    posterior is not conjugate."""
    chains = data_augmentation.NUM_CHAINS
    augmented, _ = chain_draws(family, value, rule, rng, chains, -(-num_samples // chains))
    if augmented is not None:
        return {
            name: draws.reshape(-1, *draws.shape[2:])[:num_samples]
            for name, draws in augmented.items()
        }
    rng_classes, rng_parameters = rng.spawn(2)
    with precision(np.asarray(value.class_stats.counts).dtype):  # a posterior may be in JAX
        draws = _parameter_draws(family, value, rng_parameters, num_samples)
    draws = {name: np.asarray(site) for name, site in draws.items()}
    if rule.fixed is None:
        draws["class_prior"] = class_prior_draws(rule, value, rng_classes, num_samples)
    return draws


def predictive_log_likelihood(family, value, rule, X, dtype) -> np.ndarray:
    r"""$\log p(x \mid k, \mathcal D)$ of checked rows ``X``, the parameters integrated out:
    the family's predictive of its posterior; the observed entries' Student-t for a
    diagonal Gaussian with missing entries; for the other Gaussians with missing entries,
    $\log \frac1S \sum_s p(x \mid k, \theta_s)$ over `PREDICTIVE_DRAWS` augmentation draws
    made with a fixed seed (`PREDICTIVE_SEED`)."""
    if not _has_kept_rows(value):
        posterior = family.posterior(value.feature_prior, value.feature_stats)
        log_likelihood = family.predictive_log_likelihood(posterior, family.encode(X))
        return np.asarray(log_likelihood).astype(dtype)
    if gappy_posterior.is_exact(family):
        return gappy_posterior.exact_predictive(family, value, X)
    rng = np.random.default_rng(PREDICTIVE_SEED)
    draws = exact_draws(family, value, rule, rng, PREDICTIVE_DRAWS)
    draws.pop("class_prior", None)
    per_draw = np.concatenate(
        [
            joint - prior
            for joint, prior in posterior_draws.log_joint_draws(family, value, X, draws, dtype)
        ]
    )
    top = np.max(per_draw, axis=0)
    top = np.where(np.isfinite(top), top, 0.0)
    with np.errstate(divide="ignore"):
        return top + np.log(np.mean(np.exp(per_draw - top), axis=0))
