"""One BLAS thread around loops of many small LAPACK calls.

OpenBLAS wakes its thread pool for every call, which costs far more than the work on a
matrix of a dozen rows. Measured on 2 cores: 1,200 calls of
``scipy.linalg.solve_triangular`` on 13 x 13 factors (the classes of 400 posterior draws
of a 3-class QDA, scored at once by ``predict_proba_draws``) took 4.7 s with OpenBLAS's
default threads and 0.09 s with one; 10 such calls on 30 x 30 factors (five posterior
draws of a 2-class QDA side by side, multiple imputation of breast cancer) took 8 ms
(median; 20 ms and more one time in ten) against 6.5 ms with one. The limit is the one
`bayesgen._parallel` sets while its pieces run (the process's, set by the first caller in
and restored by the last one out, through threadpoolctl's controller made once: about 15
microseconds), so it is set around loops of at least `MANY_CALLS` calls; the results are
the same either way.
"""

from __future__ import annotations

import contextlib

#: Fewest small LAPACK calls in a loop for which limiting the threads pays.
MANY_CALLS = 16


def single_blas_thread(n_calls: int):
    """A context in which BLAS runs one thread, when a loop makes ``n_calls`` calls.

    Parameters
    ----------
    n_calls : int
        How many small LAPACK calls the loop inside makes; below `MANY_CALLS` the context
        does nothing.

    Returns
    -------
    contextlib.AbstractContextManager
    """
    if n_calls < MANY_CALLS:
        return contextlib.nullcontext()
    from bayesgen._parallel import blas_on_one_thread

    return blas_on_one_thread()
