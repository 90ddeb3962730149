r"""Posterior draws of Gaussian class densities fitted on rows with missing entries.

Data augmentation (Tanner & Wong 1987; Schafer 1997, ch. 5) is the Gibbs sampler of
$p(\theta, x_{\mathrm{mis}} \mid x_{\mathrm{obs}}, y)$: one sweep

1. completes every row given its class under the current $\theta = (\mu, \Sigma)$,
   $x_m \sim \mathcal N(\mu_{k,m} + \Sigma_{mo}\Sigma_{oo}^{-1}(x_o - \mu_{k,o}),\
   \Sigma_{mm} - \Sigma_{mo}\Sigma_{oo}^{-1}\Sigma_{om})$ (the Schur forms of
   `bayesgen.families.gaussian.missing`), and
2. draws $\theta$ from the conjugate (Normal–Inverse-Wishart) posterior of the completed
   rows, under the fitted prior (``prior_``, the one EM kept).

Its stationary law is the posterior of the story given the observed entries, the law NUTS
samples too. Each chain starts from a draw of a deliberately over-dispersed distribution
(the posterior of EM's expected statistics with a quarter of their weight), discards
`WARMUP_SWEEPS` sweeps and keeps every sweep after. Several chains (`NUM_CHAINS`) make
R-hat computable (``arviz.rhat`` over the ``chain`` dim of the InferenceData).
"""

from __future__ import annotations

import collections
import hashlib
import pickle
import threading

import numpy as np

#: Sweeps each chain discards before its first kept draw.
WARMUP_SWEEPS = 50

#: Chains run when the caller does not say.
NUM_CHAINS = 4

#: Weight of EM's expected statistics in the distribution the chains start from.
START_WEIGHT = 0.25


def class_weights(responsibilities: np.ndarray) -> np.ndarray:
    """Each row's responsibilities normalised to sum to one (uniform for a zero-weight row)."""
    totals = responsibilities.sum(axis=1, keepdims=True)
    uniform = np.full_like(responsibilities, 1.0 / responsibilities.shape[1])
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(totals > 0, responsibilities / totals, uniform)


def _draw(family, rng, posterior):
    """One draw of (means, covariances) from a posterior, as float64 NumPy arrays."""
    drawn = family.sample_params(rng, posterior, 1)
    return type(drawn)(*(np.asarray(field[0], dtype=np.float64) for field in drawn))


def _tempered(stats, weight: float):
    """Statistics with their counts and scatter scaled by ``weight`` (same means)."""
    return stats._replace(counts=stats.counts * weight, scatter=stats.scatter * weight)


#: Chains kept for reuse (`run`), least recently used first out.
CACHED_RUNS = 8

#: Most bytes of draws the cache holds (its oldest runs go first beyond it).
CACHED_BYTES = 256 * 2**20
_cache: collections.OrderedDict = collections.OrderedDict()
_cache_lock = threading.Lock()


def _fingerprint(family, prior, X, responsibilities, expected_stats, rng, sizes) -> str:
    """A digest of everything the chains depend on, the generator's state included (its
    bytes: a printed state would follow NumPy's print options, which abbreviate arrays)."""
    digest = hashlib.sha256()
    digest.update(pickle.dumps((type(family).__name__, vars(family), sizes)))
    digest.update(pickle.dumps(rng.bit_generator.state))
    for tree in (prior, expected_stats):
        for leaf in tree:
            digest.update(np.ascontiguousarray(np.asarray(leaf, dtype=np.float64)).tobytes())
    for array in (X, responsibilities):
        array = np.ascontiguousarray(np.asarray(array, dtype=np.float64))
        digest.update(repr(array.shape).encode())
        digest.update(array.tobytes())
    return digest.hexdigest()


def run(
    family,
    prior,
    X: np.ndarray,
    responsibilities: np.ndarray,
    expected_stats,
    *,
    rng: np.random.Generator,
    num_chains: int,
    num_samples: int,
    num_warmup: int,
):
    """Data-augmentation chains over the rows ``X``, computed once for the same inputs.

    The chains are a deterministic function of their inputs and of ``rng``'s state, so a
    second call with the same fitted model, rows, sizes and generator state (the same
    ``random_state``) returns the same draws from a cache of the last `CACHED_RUNS` runs
    (at most `CACHED_BYTES` of draws), and leaves ``rng`` in the state the run would have
    left it; anything else (a refit, other rows) misses it. Parameters and returns as
    `chains`.
    """
    data = (family, prior, X, responsibilities, expected_stats)
    sizes = {"num_chains": num_chains, "num_samples": num_samples, "num_warmup": num_warmup}
    key = _fingerprint(*data, rng, tuple(sizes.values()))
    with _cache_lock:
        hit = _cache.get(key)
        if hit is not None:
            _cache.move_to_end(key)
    if hit is not None:
        means, covariances, end_state = hit
        rng.bit_generator.state = end_state
        return means.copy(), covariances.copy()
    means, covariances = chains(*data, rng=rng, **sizes)
    with _cache_lock:
        _cache[key] = (means.copy(), covariances.copy(), rng.bit_generator.state)
        while len(_cache) > CACHED_RUNS or (
            len(_cache) > 1
            and sum(m.nbytes + c.nbytes for m, c, _ in _cache.values()) > CACHED_BYTES
        ):
            _cache.popitem(last=False)
    return means, covariances


def chains(
    family,
    prior,
    X: np.ndarray,
    responsibilities: np.ndarray,
    expected_stats,
    *,
    rng: np.random.Generator,
    num_chains: int,
    num_samples: int,
    num_warmup: int,
):
    """Data-augmentation chains over the rows ``X`` (module docstring).

    Parameters
    ----------
    family : GaussianFamily
        Supplies ``conditional``, ``suff_stats``, ``posterior`` and ``sample_params``.
    prior : NormalInverseWishart
        The fitted prior, as JAX arrays.
    X : ndarray of shape (n_samples, n_features)
        The training rows, NaN where an entry is missing.
    responsibilities : ndarray of shape (n_samples, n_classes)
        Each row's class weights as at fit (one-hot times the sample weight).
    expected_stats : GaussianStats
        EM's expected statistics: the centre of the chains' starts.
    rng : numpy.random.Generator
        For the completions and the parameter draws (all in NumPy, float64: a sweep is a
        few small array operations, so compiled kernels would cost more in dispatch than
        they save).
    num_chains, num_samples, num_warmup : int

    Returns
    -------
    means : ndarray of shape (num_chains, num_samples, n_classes, n_features)
    covariances : ndarray of shape (num_chains, num_samples, ...)
        In the family's covariance shape.
    """
    weights = class_weights(responsibilities)
    prior, expected_stats = (
        type(tree)(*(np.asarray(leaf, dtype=np.float64) for leaf in tree))
        for tree in (prior, expected_stats)
    )
    start = family.posterior(prior, _tempered(expected_stats, START_WEIGHT))
    chains = []
    for _ in range(num_chains):
        params = _draw(family, rng, start)
        kept = []
        for sweep in range(num_warmup + num_samples):
            completed = family.conditional(params, X, weights, "sample", rng)
            stats = family.suff_stats(completed, responsibilities, np.float64)
            params = _draw(family, rng, family.posterior(prior, stats))
            if sweep >= num_warmup:
                kept.append(params)
        chains.append(kept)
    means = np.asarray([[draw.means for draw in chain] for chain in chains])
    covariances = np.asarray([[draw.covariances for draw in chain] for chain in chains])
    return means, covariances
