"""Refusing, at once, a full-covariance fit too wide for this machine.

A full covariance per class stores ``d x d`` numbers per class and factorises each in
``d**3 / 3`` operations. On 150 rows x 10,000 columns, QDA held 3 x 800 MB matrices and ran
past 500 s without a word. Such a fit is refused before any work, naming the cost and the
alternatives: a diagonal covariance (``d`` numbers per class, linear time), or fewer
features.
"""

from __future__ import annotations

from bayesgen._memory import check_fits, format_bytes

#: Full-covariance fits costing more floating-point operations than this are refused
#: (about a minute on two cores; a wine-sized model costs ~10**4).
MAX_COVARIANCE_OPERATIONS = 3e11
_COPIES = 4  # statistics, posterior scale, covariances_, a Cholesky factor: d x d each


def check_covariance_cost(covariance_type: str, n_classes: int, n_features: int) -> None:
    """Raise before fitting if the covariance matrices would not fit in memory or time.

    Parameters
    ----------
    covariance_type : {"full", "tied", "diag", "spherical"}
        Only ``"full"`` (one matrix per class) and ``"tied"`` (one) are checked.
    n_classes, n_features : int

    Raises
    ------
    MemoryError
        If the ``d x d`` matrices exceed the memory available, naming the size.
    ValueError
        If factorising them would take more than `MAX_COVARIANCE_OPERATIONS`,
        naming ``covariance_type`` and the alternatives.
    """
    if covariance_type not in ("full", "tied"):
        return
    matrices = n_classes if covariance_type == "full" else 1
    alternative = "use covariance_type='diag' (d numbers per class, linear in d), or fewer features"
    if covariance_type == "full":
        alternative += ", or covariance_type='tied' with shrinkage (one shared matrix)"
    what = f"covariance_type={covariance_type!r} with {n_features} features"
    n_bytes = _COPIES * matrices * n_features**2 * 8
    check_fits(n_bytes, f"{what} ({matrices} matrices of {n_features}^2)", alternative=alternative)
    operations = matrices * n_features**3
    if operations > MAX_COVARIANCE_OPERATIONS:
        raise ValueError(
            f"{what} and {n_classes} classes needs {matrices} covariance matrices of "
            f"{n_features} x {n_features} ({format_bytes(n_bytes)}) and about "
            f"{operations:.1e} operations to factorise them (many minutes); {alternative}."
        )
