"""Conjugate families as pure JAX functions over NamedTuple pytrees.

Each family offers ``suff_stats`` (from data and a responsibilities matrix), ``merge``
(statistics of two batches), ``posterior`` (the conjugate update), ``point_estimate``,
``sample_params`` and, for feature families, ``log_likelihood``. No estimator code, no
scikit-learn, no global state lives here.
"""
