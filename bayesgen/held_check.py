r"""A fit's finite check, held until its range pass settles it.

Before its statistics a fit reads its rows twice: `bayesgen.validation` checks that every
value is finite, by one sum of squares over the table, and
`bayesgen.training_range.column_ranges` records each column's least and greatest value,
by one more pass. The second pass tells what the first would: ranges with no infinity, no
NaN where none is allowed and no value whose square, summed over the rows, could overflow
belong to a table the check passes. Within `held_finite_check`, `check_rows` hands a dense
NumPy table's check to the holder instead of running it, and the fit settles it from the
ranges of that same table (`HeldChecks.settle`): the check runs, and raises as it always
did, only where the ranges leave any doubt (an infinity, a NaN not allowed, a value beyond
the overflow limit, a row of weight 0, which the ranges leave out, or another table). A
table without such values is read once where it was read twice.
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Callable

import numpy as np

_HOLDER = contextvars.ContextVar("held_finite_checks", default=None)


class HeldChecks:
    """The finite checks held within one `held_finite_check`."""

    def __init__(self):
        self._held = []

    def hold(self, X: np.ndarray, allow_nan: bool, check: Callable[[], None]) -> None:
        """Hold ``check()``, the finite check of the dense table ``X`` (NaN allowed or not)."""
        self._held.append((X, allow_nan, check))

    def settle(self, X, record, weights=None) -> None:
        """Run each held check that the ranges ``record`` of ``X`` do not settle.

        Parameters
        ----------
        X : array of shape (n_samples, n_features)
            The table the fit goes on with.
        record : ColumnRecord
            ``column_ranges(X, weights)``.
        weights : ndarray of shape (n_samples,), optional
            The row weights ``record`` was taken with: the ranges leave out the rows of
            weight 0, so where there is one the checks run.

        Raises
        ------
        ValueError
            As `bayesgen.validation.check_features` does for a value that is not finite or
            too large.
        """
        held, self._held = self._held, []
        every_row = weights is None or bool(np.all(np.asarray(weights) > 0))
        for table, allow_nan, check in held:
            if not (every_row and table is X and ranges_pass(record, table, allow_nan)):
                check()


def ranges_pass(record, X: np.ndarray, allow_nan: bool) -> bool:
    """Whether the check of ``X`` passes, as told by its ranges ``record``: no infinite
    end, no missing cell unless ``allow_nan``, and no end beyond the limit
    $\\sqrt{\\max / n}$ past which the sums of squares of ``n`` rows could overflow
    (`bayesgen.validation`'s ``_check_magnitude``). A column with no observed value has NaN
    ends, which say nothing."""
    if record.n_missing is None or (not allow_nan and np.any(record.n_missing > 0)):
        return False
    ends = np.concatenate([np.asarray(record.low), np.asarray(record.high)])
    ends = ends[~np.isnan(ends)]
    limit = np.sqrt(np.finfo(X.dtype).max / max(1, X.shape[0]))
    return bool(np.all(np.isfinite(ends)) and not np.any(np.abs(ends) > limit))


def current() -> HeldChecks | None:
    """The holder of the innermost `held_finite_check`, or None outside one."""
    return _HOLDER.get()


@contextlib.contextmanager
def held_finite_check():
    """Hold the finite checks of `check_rows` until ``settle`` (`HeldChecks`).

    Yields
    ------
    HeldChecks
        Its ``settle`` must be called with the fit's ranges before anything else uses the
        values; a check never settled is never run.
    """
    holder = HeldChecks()
    token = _HOLDER.set(holder)
    try:
        yield holder
    finally:
        _HOLDER.reset(token)
