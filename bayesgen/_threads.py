"""One lock for the code that must not run in two threads at once.

NumPyro keeps its stack of effect handlers (``seed``, ``substitute``, ``trace``, the ones
``Predictive`` and ``MCMC`` install) in one module-level list shared by every thread. Two
threads running a story at the same time push onto and pop from the same stack, so each
sees the other's sites ("all sites must have unique names but got `class_prior`
duplicated") or its seed. Every run of a story under handlers therefore holds
`STORY_LOCK`. The posterior draws of ``predict_proba_draws`` and ``posterior`` hold it
too: two threads drawing at once (even from two different models) were seen to hang inside
JAX, and the draws are parallel inside already, so serialising them costs little.

The lock is re-entrant, so a locked method may call another.
"""

from __future__ import annotations

import functools
import threading

STORY_LOCK = threading.RLock()


def serialised(method):
    """Decorate ``method`` to run while holding `STORY_LOCK`.

    Parameters
    ----------
    method : callable

    Returns
    -------
    callable
        The same function, called with the lock held.
    """

    @functools.wraps(method)
    def locked(*args, **kwargs):
        with STORY_LOCK:
            return method(*args, **kwargs)

    return locked
