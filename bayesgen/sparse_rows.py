"""Products of a CSR matrix, its rows cut into pieces that run side by side in threads.

SciPy's sparse products run on one core and let go of the GIL, so a CSR matrix cut into
ranges of rows (views of its arrays, never copies of the stored values) multiplies on every
core BLAS may use (`bayesgen._parallel.run_pieces`). On the benchmark's bag of words
(200,000 x 100,000, 100 words a row, 20 classes; 2 cores) this took the product with the
class weights from 0.58 s to about half that. The class sums of labelled rows
(`weighted_sums`) are now taken a class at a time where the classes hold enough stored
values and none most of them: 0.17-0.19 s there against 0.08 s.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from bayesgen._parallel import run_pieces, thread_count

#: Fewest stored values a piece is given: below it, handing work to a thread costs more
#: than it saves.
PIECE_VALUES = 2**20
#: Fewest stored values a class for summing class by class (`weighted_sums`): each class
#: costs a copy of its rows and a Python call, about 20 microseconds.
CLASS_VALUES = 2**15


class KeptRows(sp.csr_matrix):
    """A CSR matrix that is never changed once made and keeps the ranges of rows its
    products are taken in (`times`), for rows an EM multiplies at every iteration.

    Making a range costs 16-18 microseconds (SciPy's constructor and checks):
    `bayesgen.TableSynthesizer`'s fit of Fair cut 13,387 of them (0.24 s), of randhie 23,780
    (0.39 s), where it now makes 293 and 458 (`bayesgen.families.categorical.FixedCodes`
    makes these matrices).
    """

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._ranges = {}

    def row_range(self, start: int, stop: int) -> sp.csr_matrix:
        """Rows ``start:stop`` (`_row_range`), made once."""
        piece = self._ranges.get((start, stop))
        if piece is None:
            piece = self._ranges[start, stop] = _row_range(self, start, stop)
        return piece


def _row_range(X: sp.csr_matrix, start: int, stop: int) -> sp.csr_matrix:
    """Rows ``start:stop`` of ``X`` as a CSR matrix over views of its value and index
    arrays (slicing a CSR matrix would copy them, and so would SciPy's constructor, where
    it narrows 64-bit indices that fit in 32 bits): the arrays are set, not passed."""
    first, last = X.indptr[start], X.indptr[stop]
    piece = sp.csr_matrix((stop - start, X.shape[1]), dtype=X.dtype)
    piece.data = X.data[first:last]
    piece.indices = X.indices[first:last]
    piece.indptr = X.indptr[start : stop + 1] - first
    return piece


def row_cuts(X) -> np.ndarray:
    """Row bounds of the pieces ``X`` is cut into: one per thread at most, each holding at
    least `PIECE_VALUES` stored values (a single piece for a small or non-CSR ``X``)."""
    n_rows = X.shape[0]
    pieces = 1
    if sp.issparse(X) and X.format == "csr" and X.nnz >= 2 * PIECE_VALUES:
        pieces = max(1, min(thread_count(), X.nnz // PIECE_VALUES, n_rows))
    # Cut at equal numbers of stored values, not of rows: the work is per stored value.
    if pieces == 1:
        return np.array([0, n_rows])
    targets = np.linspace(0, X.nnz, pieces + 1)[1:-1]
    inner = np.searchsorted(X.indptr, targets)
    return np.concatenate([[0], inner, [n_rows]])


def times(X, matrix: np.ndarray) -> np.ndarray:
    """``X @ matrix`` for a sparse ``X`` and a dense ``(n_features, k)`` ``matrix``, laid out
    column by column (a ``(k, n_samples)`` array, transposed), so that reductions over the
    ``k`` columns read contiguous memory (`bayesgen.inference.log_space`).

    A CSR ``X`` with many stored values is multiplied in ranges of rows, in threads, each
    writing its own rows of the result.
    """
    matrix = np.ascontiguousarray(matrix)  # SciPy is several times slower on a transposed view
    dtype = np.result_type(X.dtype, matrix.dtype)
    result = np.empty((matrix.shape[1], X.shape[0]), dtype=dtype)
    if not (sp.issparse(X) and X.format == "csr" and X.shape[0]):
        result.T[...] = X @ matrix
        return result.T
    cuts = row_cuts(X)

    def multiply(piece: int) -> None:
        _product_in_blocks(X, matrix, result, cuts[piece], cuts[piece + 1])

    run_pieces(multiply, range(cuts.size - 1), in_threads=cuts.size > 2)
    return result.T


#: Most entries of one block of a product's rows (`_product_in_blocks`): 64 KiB of float64,
#: below the size from which the C library hands out zeroed memory freshly mapped.
PRODUCT_BLOCK_ENTRIES = 2**13
#: Fewest rows of such a block: a product of many columns (classes times components) pays
#: about 30 microseconds a block, and blocks of a few rows made one of 1,000 x 1,000 take
#: 14.9 ms where one product took 10.6 ms.
PRODUCT_BLOCK_ROWS = 64
#: Most entries of a product taken in such blocks. A larger one is mostly multiply-adds,
#: and its blocks' calls cost more than its fresh memory: MultinomialNB's predict_proba of
#: 200,000 x 20 took 0.26 s in one product a piece, 0.27 s in blocks.
BLOCKED_PRODUCT_ENTRIES = 2**20


def _product_in_blocks(X, matrix: np.ndarray, result: np.ndarray, start: int, stop: int):
    """``result[:, start:stop] = (X[start:stop] @ matrix).T``, a block of rows at a time.

    SciPy makes each product's result with ``numpy.zeros``; one of many rows is memory the
    C library maps afresh at every call, and an EM calls this at every iteration. On this
    project's machine (a virtual machine that takes freed memory back) writing it cost
    about 7 microseconds a page: of the 24 s `bayesgen.TableSynthesizer` took to fit
    randhie, 6.5 s went to this product (14,133 rows times 40 columns, 843 calls). Blocks
    of `PRODUCT_BLOCK_ENTRIES` entries (but never fewer than `PRODUCT_BLOCK_ROWS` rows)
    come from memory the library keeps. Each row is summed by SciPy in the same order
    whatever the block. A product of more than `BLOCKED_PRODUCT_ENTRIES` entries is one
    block.
    """
    rows = max(PRODUCT_BLOCK_ROWS, PRODUCT_BLOCK_ENTRIES // max(1, matrix.shape[1]))
    if result.size > BLOCKED_PRODUCT_ENTRIES:
        rows = stop - start
    for first in range(start, stop, rows):
        last = min(first + rows, stop)
        piece = X.row_range(first, last) if isinstance(X, KeptRows) else _row_range(X, first, last)
        result[:, first:last] = (piece @ matrix).T


def weighted_sums(weights: sp.csr_matrix, X) -> np.ndarray:
    """``weights.T @ X`` as a dense array, for sparse ``weights`` of shape
    ``(n_samples, k)`` (a few entries a row) and sparse ``X``.

    A CSR ``X`` with many stored values a class, none holding more than a thread's share,
    is summed a class at a time (`_classes_apart`, `_class_by_class`; float32 values and
    weights are multiplied and summed in float64 and rounded once).
    Otherwise SciPy's product: SciPy converts a product's right operand to the left's
    format, so the weights are turned to ``X``'s (one entry a row) rather than ``X`` to
    theirs (every stored value: on the benchmark's bag of words that conversion was half of
    MultinomialNB's fit), and a CSR ``X`` with many stored values is summed in ranges of
    rows, in threads, where the pieces' ``(k, n_features)`` partial sums take no more memory
    than ``X``'s values.
    """
    dtype = X.dtype
    by_class = _classes_apart(weights, X)
    if by_class is not None:
        return _class_by_class(by_class, X).astype(dtype, copy=False)
    cuts = row_cuts(X)
    n_partial = weights.shape[1] * X.shape[1] * (cuts.size - 1)
    if cuts.size == 2 or n_partial > X.nnz:
        by_row = weights.T.astype(dtype).asformat(X.format)
        return (by_row @ X).toarray()
    weights = weights.tocsr()

    def add_up(piece: int) -> np.ndarray:
        start, stop = cuts[piece], cuts[piece + 1]
        by_row = _row_range(weights, start, stop).T.astype(dtype).tocsr()
        return (by_row @ _row_range(X, start, stop)).toarray()

    partial = run_pieces(add_up, range(cuts.size - 1))
    total = partial[0]
    for more in partial[1:]:
        total += more
    return total


def _classes_apart(weights, X):
    """``weights`` as a CSC matrix (its columns the classes) where ``weights.T @ X`` is
    summed a class at a time (`_class_by_class`), else None: a CSR ``X`` with on average at
    least `CLASS_VALUES` stored values a class, at least as many stored values as the sums
    have entries (many classes of few rows stay with SciPy's product, one pass whatever
    their number), and no class holding more than one thread's share of them (a class is
    summed in one thread: one of 90 % of the rows made the sums 1.2-2.2 times slower than
    SciPy's product, where even classes made them 1.2-4 times faster)."""
    n_classes = weights.shape[1]
    if not (
        sp.issparse(X)
        and X.format == "csr"
        and X.nnz >= max(n_classes * X.shape[1], n_classes * CLASS_VALUES)
    ):
        return None
    by_class = weights.tocsc()
    classes = np.repeat(np.arange(n_classes), np.diff(by_class.indptr))
    lengths = np.diff(X.indptr)[by_class.indices]
    largest = np.bincount(classes, weights=lengths, minlength=n_classes).max()
    return by_class if largest * thread_count() <= X.nnz else None


def _class_by_class(by_class: sp.csc_matrix, X: sp.csr_matrix) -> np.ndarray:
    """``by_class.T @ X`` (float64), each class's rows copied out of ``X`` and their
    values counted into the class's sums by `numpy.bincount`, classes in threads.

    Each sum runs over the class's rows in order, as SciPy's product does. SciPy's product
    of two sparse matrices makes a sparse result in two passes over a linked list of
    columns; on the benchmark's bag of words (200,000 x 100,000, 100 words a row, 20
    classes, 2 cores) it took 0.17-0.19 s, copying out each class's rows 0.10 s and their
    counts 0.03-0.04 s, in threads 0.08 s for both.
    """
    lengths = np.diff(X.indptr)

    def sums_of(k: int) -> np.ndarray:
        entries = slice(by_class.indptr[k], by_class.indptr[k + 1])
        rows, weights = by_class.indices[entries], by_class.data[entries]
        part = X[rows]
        values = part.data
        if not np.all(weights == 1.0):  # float32 products are exact in float64
            repeated = np.repeat(weights, lengths[rows]).astype(np.float64, copy=False)
            values = values.astype(np.float64, copy=False) * repeated
        return np.bincount(part.indices, weights=values, minlength=X.shape[1])

    return np.stack(run_pieces(sums_of, range(by_class.shape[1])))
