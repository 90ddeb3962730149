r"""Numeric columns as a histogram per class: point masses and bins of the training values.

Each column $j$ learns, from all the training rows, its *atoms* $a_{j1} < \dots$ (values
that repeat in at least ``atom_share`` of the rows: the zeros of a zero-inflated column, the
levels of a column with few values) and its *bins*, consecutive intervals covering the
other values with about as many rows each. A value has one *cell*: its atom, its bin, or
the *outside* cell for a value beyond every bin and atom (or, in a column of whole numbers,
a value that is not whole). Given the class, the cell is categorical and the value uniform
within its bin:

$$
\theta_{kj} \sim \mathrm{Dirichlet}(\tfrac{s}{C_j} \mathbf 1), \qquad
c_j \mid y = k \sim \mathrm{Categorical}(\theta_{kj}), \qquad
x_j \mid c_j \sim \mathrm{Uniform}(\text{cell } c_j),
$$

so $p(x_j \mid k) = \theta_{kjc} / |c|$, with $|c|$ the bin's width (its number of whole
numbers, atoms left out, in a column of whole numbers) and 1 for an atom or the outside
cell: a density with respect to counting measure on the atoms plus length (or counting)
measure on the bins, the same measure for every class. Everything conjugate is the
categorical family's (`bayesgen.families.categorical`): statistics are cell counts and the
posterior is Dirichlet. The prior spreads ``smoothing`` $= s$ pseudo-counts evenly over a
column's $C_j$ cells (a Perks prior when $s = 1$), so a class with few rows keeps its
values where they were rather than over the column's whole range: every estimate but the
maximum likelihood is $(n_{kjc} + s / C_j) / (N_{kj} + s)$, the posterior mean under
$\mathrm{Dirichlet}(s / C_j)$. A ``"map"`` fit makes the same estimate: with fewer than one
pseudo-count per cell the Dirichlet's mode lies on the boundary (probability 0 for every
cell without a training row), so here it is the mode of the likelihood times
$\prod \theta^{s / C_j}$, the posterior mean. The posterior is
$\mathrm{Dirichlet}(s / C_j + n)$ whatever the estimate.

Drawn values never leave the training support: a bin's draws lie between its least and
greatest training value, the outside cell is never drawn, whole-number columns draw whole
numbers, and every atom comes back exactly. The shape within a class, skewed, bounded,
multimodal or with spikes, is whatever the training values had, at the bins' resolution;
a mixture of such leaves (``LatentClassNB``) adds the dependence between columns.

Bins are learned once, from the rows of the first fit; rows added by ``partial_fit`` are
counted in them (a value beyond them falls in the outside cell).
"""

from __future__ import annotations

import numbers
from typing import NamedTuple

import numpy as np

from bayesgen.families import class_prior, in_place
from bayesgen.families.categorical import CategoricalFamily, FixedCodes
from bayesgen.families.namespace import jax_numpy
from bayesgen.families.protocol import FeatureFamily, NoClosedForm, as_numbers, refuse_entries
from bayesgen.validation import check_positive_values

__all__ = ["HistogramFamily", "learn_cells"]

#: Bins a column gets when ``bins`` is None: about the square root of its rows outside the
#: atoms, at least `FEWEST_BINS` and at most `MOST_BINS`.
FEWEST_BINS, MOST_BINS = 4, 64


def _whole(values: np.ndarray) -> bool:
    return bool(values.size) and bool(np.all(values == np.round(values)))


def _default_bins(n_values: int) -> int:
    return int(np.clip(np.ceil(np.sqrt(n_values)), FEWEST_BINS, MOST_BINS))


def learn_cells(column: np.ndarray, bins, atom_share: float):
    """``(atoms, edges, whole)`` of one column's observed values (NaN skipped).

    Atoms are the values held by at least ``atom_share`` of the rows (and at least two);
    the other values are split into ``bins`` bins (None: `_default_bins`) of about equal
    row counts, each starting at a training value. Edges are that value for each bin and
    the greatest value for the last (half a unit out for whole numbers). Fewer than two
    distinct values left over become atoms too.
    """
    values = column[~np.isnan(column)]
    if values.size == 0:
        raise ValueError("it has no observed value to learn its atoms and bins from")
    unique, counts = np.unique(values, return_counts=True)
    is_atom = counts >= max(2.0, atom_share * values.size)
    if np.count_nonzero(~is_atom) < 2:
        is_atom[:] = True
    atoms, rest, rest_counts = unique[is_atom], unique[~is_atom], counts[~is_atom]
    whole = _whole(values)
    if rest.size == 0:
        return atoms, np.empty(0), whole
    n_bins = min(bins or _default_bins(int(rest_counts.sum())), rest.size)
    cumulative = np.cumsum(rest_counts)
    targets = cumulative[-1] * np.arange(1, n_bins) / n_bins
    starts = np.unique(np.r_[0, np.searchsorted(cumulative, targets, side="right")])
    starts = starts[starts < rest.size - 1]  # every bin ends above where it starts
    edges = np.r_[rest[starts], rest[-1]].astype(np.float64)
    if whole:
        edges = edges - 0.5
        edges[-1] = rest[-1] + 0.5
    return atoms.astype(np.float64), edges, whole


class FixedCells(NamedTuple):
    """Values of rows scored many times (an EM's iterations), with their cells found once
    (`HistogramFamily.fixed_rows`): finding them at every step took 2.46 s of
    `bayesgen.TableSynthesizer`'s fit of randhie (1,090 times; 14 now), docs/synthetic-data.md.
    The values must not change while it is in use."""

    values: np.ndarray
    #: Each entry's cell (`HistogramFamily.cell_codes`), its one-hot encoding kept.
    codes: FixedCodes
    #: (n_samples,) float64: $\\sum_j \\log |c_j|$ over each row's observed cells.
    log_cell_sizes: np.ndarray
    #: The family whose cells they are (another family finds its own from ``values``).
    family: HistogramFamily


class HistogramFamily(CategoricalFamily):
    """Histogram class densities of numeric columns with point masses (module docstring).

    A column-only family: ``MixedNB(features={"income": "histogram"})``,
    ``LatentClassNB`` over such columns, or ``FamilyClassifier(family=HistogramFamily())``.

    Parameters
    ----------
    smoothing : float, default=4.0
        $s > 0$: the pseudo-counts the prior spreads over each column's cells, per class
        (and component). Not ``MixedNB``'s ``alpha``, which counts per category. The
        default had the best held-out log-likelihood of the values tried (0.5 to 4 on the
        wines and the penguins, 1 to 16 on statsmodels' Fair and RAND tables;
        ``LatentClassNB`` with 5 or 20 components).
    bins : int, optional
        Bins of each column's values outside its atoms; default about the square root of
        their number, between 4 and 64.
    atom_share : float, default=0.01
        A value held by at least this share of a column's rows (and by two) is an atom.
    atoms, edges, whole : list, optional
        What `learn` found per column (sorted atoms; bin edges; whether the column holds
        whole numbers); set by fitting.
    """

    name = "histogram"
    sparse_class_weights = True  # its suff_stats is the categorical one of cell codes
    slices_classes = True  # the categorical probabilities of its cells
    estimator = None
    column_family = True
    column_values = "numbers"

    def __init__(
        self, smoothing=4.0, bins=None, atom_share=0.01, atoms=None, edges=None, whole=None
    ):
        sizes = ()
        if atoms is not None:
            sizes = [len(a) + max(len(e) - 1, 0) + 1 for a, e in zip(atoms, edges, strict=True)]
        super().__init__(sizes=sizes, unseen=True)
        self.smoothing = smoothing
        self.bins, self.atom_share = bins, atom_share
        self.atoms, self.edges, self.whole = atoms, edges, whole

    def check(self) -> HistogramFamily:
        """This family, once ``smoothing``, ``bins`` and ``atom_share`` are checked."""
        check_positive_values(self.smoothing, "smoothing")
        if self.bins is not None and (
            isinstance(self.bins, bool) or not isinstance(self.bins, numbers.Integral)
        ):
            raise ValueError(f"bins must be an integer >= 1 or None; got {self.bins!r}.")
        if self.bins is not None and self.bins < 1:
            raise ValueError(f"bins must be an integer >= 1 or None; got {self.bins!r}.")
        if not 0 < self.atom_share <= 1:
            raise ValueError(f"atom_share must be in (0, 1]; got {self.atom_share!r}.")
        return self

    def admits_column(self, column) -> bool:
        """False: the family is used where ``features=`` names it. (Its atoms carry
        probabilities and its bins densities, so its evidence does not compare with the
        densities of the continuous families.)"""
        return False

    column_log_evidence = FeatureFamily.column_log_evidence

    @classmethod
    def of(cls, owner) -> HistogramFamily:
        """The family of ``owner``'s ``smoothing``, ``bins`` and ``atom_share`` (those it
        has)."""
        names = cls.settings_read()
        return cls(**{name: getattr(owner, name) for name in names if hasattr(owner, name)})

    @classmethod
    def settings_read(cls) -> set[str]:
        """``smoothing``, ``bins`` and ``atom_share``."""
        return {"smoothing", "bins", "atom_share"}

    def check_columns(self, X, *, owner="X", columns=None) -> np.ndarray:
        """Real numbers (NaN missing); ±inf is refused."""
        X = as_numbers(X, owner, columns)
        refuse_entries(np.isinf(X), X, columns, f"{owner} models finite numbers")
        return X

    # ------------------------------------------------------------- the cells
    def learn(self, X, stats=None):
        """Atoms and bins of every column, learned once: a family that holds them keeps
        them (rows added later, or completed by data augmentation, are counted in them)."""
        if self.atoms is not None:
            return self, stats
        self.check()
        cells = []
        for j, column in enumerate(X.T):
            try:
                cells.append(
                    learn_cells(np.asarray(column, np.float64), self.bins, self.atom_share)
                )
            except ValueError as error:
                raise ValueError(
                    f"The histogram family cannot model its column {j}: {error}."
                ) from None
        atoms, edges, whole = (list(part) for part in zip(*cells, strict=True)) or ([], [], [])
        return self.with_learned(atoms=atoms, edges=edges, whole=whole), None

    def learned(self) -> dict:
        """``{"atoms": ..., "edges": ..., "whole": ...}``."""
        return {"atoms": self.atoms, "edges": self.edges, "whole": self.whole}

    def with_learned(self, *, atoms=None, edges=None, whole=None) -> HistogramFamily:
        """This family over the given atoms and bins."""
        return HistogramFamily(self.smoothing, self.bins, self.atom_share, atoms, edges, whole)

    def _column_cells(self, j: int):
        """``(atoms, edges, whole, n_atoms, n_bins)`` of column ``j``."""
        atoms, edges = np.asarray(self.atoms[j]), np.asarray(self.edges[j])
        return atoms, edges, bool(self.whole[j]), atoms.size, max(edges.size - 1, 0)

    def cell_codes(self, X, xp=np):
        """Each entry's cell, shape of ``X``: atoms first, then bins, then the outside cell;
        -1 where the entry is missing. ``xp`` is NumPy or ``jax.numpy`` (the story)."""
        columns = []
        for j in range(len(self.atoms)):
            atoms, edges, whole, n_atoms, n_bins = self._column_cells(j)
            x = X[:, j]
            code = xp.full(x.shape, n_atoms + n_bins, dtype=xp.int32)
            if n_bins:
                in_bins = (x >= edges[0]) & (x <= edges[-1])
                if whole:
                    in_bins = in_bins & (x == xp.round(x))
                index = xp.clip(
                    xp.searchsorted(xp.asarray(edges), x, side="right") - 1, 0, n_bins - 1
                )
                code = xp.where(in_bins, n_atoms + index, code)
            if n_atoms:
                position = xp.clip(xp.searchsorted(xp.asarray(atoms), x), 0, n_atoms - 1)
                code = xp.where(xp.asarray(atoms)[position] == x, position, code)
            columns.append(xp.where(xp.isnan(x), -1, code))
        return xp.stack(columns, axis=1) if columns else xp.zeros(X.shape, dtype=xp.int32)

    def log_cell_sizes(self) -> list:
        """Per column, $\\log |c|$ of every cell (0 for atoms and the outside cell)."""
        sizes = []
        for j in range(len(self.atoms)):
            atoms, edges, whole, n_atoms, n_bins = self._column_cells(j)
            widths = np.diff(edges)
            if whole:
                inside = [
                    np.count_nonzero((atoms > lo) & (atoms < hi))
                    for lo, hi in zip(edges[:-1], edges[1:], strict=True)
                ]
                widths = widths - np.asarray(inside, dtype=np.float64).reshape(widths.shape)
            sizes.append(np.r_[np.zeros(n_atoms), np.log(widths), 0.0])
        return sizes

    def _log_cell_size_of(self, codes: np.ndarray) -> np.ndarray:
        """$\\sum_j \\log |c_j|$ of each row's observed cells."""
        total = np.zeros(codes.shape[0])
        for j, sizes in enumerate(self.log_cell_sizes()):
            present = codes[:, j] >= 0
            total[present] += sizes[codes[present, j]]
        return total

    def fixed_rows(self, X) -> FixedCells:
        """Values ``X`` with their cells, the cells' one-hot encoding and each row's
        $\\sum_j \\log |c_j|$ found once (`FixedCells`)."""
        codes = self.cell_codes(np.asarray(X))
        return FixedCells(X, FixedCodes(codes), self._log_cell_size_of(codes), self)

    def _cells(self, X):
        """``(codes, log cell size of each row or None)`` of values or `FixedCells`."""
        if isinstance(X, FixedCells):
            if X.family is self:
                return X.codes, X.log_cell_sizes
            X = X.values
        return self.cell_codes(np.asarray(X)), None

    # ----------------------------------------------- the categorical law of the cells
    def suff_stats(self, X, responsibilities, dtype):
        """Class counts and each class's weighted count of every cell."""
        return super().suff_stats(self._cells(X)[0], responsibilities, dtype)

    def log_likelihood(self, params, X, *, row_terms: bool = True, log_params=None):
        """``(n_samples, n_classes)`` $\\log p(x \\mid k)$; without ``row_terms`` the cell
        sizes, equal for every class, are left out."""
        codes, log_sizes = self._cells(X)
        scores = super().log_likelihood(params, codes, log_params=log_params)
        if not row_terms:
            return scores
        if log_sizes is None:
            log_sizes = self._log_cell_size_of(codes)
        sizes = log_sizes.astype(scores.dtype, copy=False)[:, None]
        return in_place.add_in_place(scores, sizes, np.subtract)  # scores are new

    def predictive_log_likelihood(self, posterior, X):
        """The Dirichlet–categorical predictive of the cells, divided by their sizes."""
        codes, log_sizes = self._cells(X)
        scores = super().predictive_log_likelihood(posterior, codes)
        if log_sizes is None:
            log_sizes = self._log_cell_size_of(codes)
        return scores - log_sizes[:, None]

    # --------------------------------------------------------------- the prior
    def prior(self, stats):
        """The concentrations $s / C_j$ of every cell, side by side (n_cells,)."""
        return self._concentrations(np.asarray(stats.counts).dtype)

    def _concentrations(self, dtype) -> np.ndarray:
        return np.concatenate(
            [np.full(size, self.smoothing / size, dtype) for size in self.sizes]
        ).astype(dtype, copy=False)

    @staticmethod
    def _smoothed(kind: str) -> str:
        """The Dirichlet estimate behind ``kind``: ``"map"`` is the posterior mean (module
        docstring), the mode of the log-likelihood plus $\\sum (s / C_j) \\log\\theta$."""
        return "mean" if kind == "map" else kind

    def point_estimate(self, prior, stats, kind: str):
        """Every estimate but ``"mle"`` is $(n + s / C_j) / (N + s)$."""
        return super().point_estimate(prior, stats, self._smoothed(kind))

    def log_prior(self, prior, params, kind: str = "map") -> float:
        """$\\sum (s / C_j) \\log\\theta$ (none for ``"mle"``): the log prior whose mode the
        estimate is, the EM objective's."""
        return super().log_prior(prior, params, self._smoothed(kind))

    def prior_for(self, n_features=None, dtype=None, *, xp=None):
        """No data-free prior: the concentrations depend on the cells learned."""
        raise NoClosedForm("the histogram family's prior depends on the cells it learned")

    def block_concentrations(self, prior) -> list:
        """The prior concentration of each column's cells, one array per column."""
        return self.blocks(np.asarray(prior))

    # ------------------------------------------------------------- values
    def values_in_cells(self, codes: np.ndarray, positions: np.ndarray) -> np.ndarray:
        """Values of the cells ``codes`` at ``positions`` in [0, 1) within each bin (an atom
        is its value; a whole-number bin's position picks one of its whole numbers, atoms
        left out); NaN for the outside cell."""
        values = np.full(codes.shape, np.nan)
        for j in range(codes.shape[1]):
            atoms, edges, whole, n_atoms, n_bins = self._column_cells(j)
            code, u = codes[:, j], positions[:, j]
            is_atom = (code >= 0) & (code < n_atoms)
            values[is_atom, j] = atoms[code[is_atom]]
            in_bin = (code >= n_atoms) & (code < n_atoms + n_bins)
            b = code[in_bin] - n_atoms
            lo, hi = edges[b], edges[b + 1]
            if not whole:
                values[in_bin, j] = lo + u[in_bin] * (hi - lo)
                continue
            size = np.rint(np.exp(self.log_cell_sizes()[j][code[in_bin]])).astype(np.int64)
            value = np.ceil(lo) + np.minimum(np.floor(u[in_bin] * size), size - 1)
            for atom in atoms:  # ascending: step over each atom at or below the value
                value = value + ((value >= atom) & (atom > lo) & (atom < hi))
            values[in_bin, j] = value
        return values

    def cell_means(self) -> list:
        """Per column, the mean value of every cell (NaN for the outside cell)."""
        means = []
        for j in range(len(self.atoms)):
            atoms, edges, whole, n_atoms, n_bins = self._column_cells(j)
            lo, hi = edges[:-1], edges[1:]
            centre = (lo + hi) / 2
            if whole:
                totals = (np.ceil(lo) + np.floor(hi)) / 2 * (np.floor(hi) - np.ceil(lo) + 1)
                for atom in atoms:
                    totals = totals - np.where((atom > lo) & (atom < hi), atom, 0.0)
                size = np.exp(self.log_cell_sizes()[j][n_atoms : n_atoms + n_bins])
                centre = totals / size
            means.append(np.r_[atoms, centre, np.nan])
        return means

    def draw_features(self, params, classes, rng, **options) -> dict:
        """``{"X_j": cells, "X_j_position": uniforms}``: each row's cell drawn given its
        class, and where in the cell its value lies."""
        draws = super().draw_features(params, classes, rng, **options)
        for j in range(len(self.atoms)):
            draws[f"X_{j}_position"] = rng.random(classes.shape[0])
        return draws

    def features_from_draws(self, draws: dict) -> np.ndarray:
        """The drawn values (sites ``X_j`` hold cells, ``X_j_position`` positions)."""
        n = len(self.atoms)
        codes = np.stack([np.asarray(draws[f"X_{j}"]) for j in range(n)], axis=1)
        positions = np.stack([np.asarray(draws[f"X_{j}_position"]) for j in range(n)], axis=1)
        return self.values_in_cells(codes.astype(np.int64), positions)

    def mean(self, params) -> np.ndarray:
        """``(n_classes, n_features)``: each class's mean value (outside cell left out)."""
        seen = self._seen_probabilities(params)
        return np.stack([p @ m[:-1] for p, m in zip(seen, self.cell_means(), strict=True)], axis=1)

    def _seen_probabilities(self, params) -> list:
        """Per column, (n_classes, cells - 1): the cell probabilities without the outside
        cell, normalised."""
        blocks = self.blocks(np.asarray(params, dtype=np.float64))
        return [b[:, :-1] / b[:, :-1].sum(axis=1, keepdims=True) for b in blocks]

    def conditional(self, params, X, class_weights, method: str, rng):
        """Values with every NaN filled: ``"mean"``, the class mixture's mean (rounded in a
        column of whole numbers); ``"sample"``, a class drawn from the weights, then a
        cell given it and a value within the cell."""
        filled = np.array(X, dtype=np.float64, copy=True)
        chosen = class_prior.draw_classes(class_weights, rng) if method == "sample" else None
        for j, (seen, means) in enumerate(
            zip(self._seen_probabilities(params), self.cell_means(), strict=True)
        ):
            rows = np.flatnonzero(np.isnan(filled[:, j]))
            if rows.size == 0:
                continue
            if method == "mean":
                value = class_weights[rows] @ (seen @ means[:-1])
                filled[rows, j] = np.round(value) if self.whole[j] else value
                continue
            cumulative = np.cumsum(seen[chosen[rows]], axis=1)
            codes = np.minimum(
                (rng.random((rows.size, 1)) > cumulative).sum(axis=1), seen.shape[1] - 1
            )
            positions = np.zeros((rows.size, len(self.atoms)))
            positions[:, j] = rng.random(rows.size)
            full = np.full((rows.size, len(self.atoms)), -1)
            full[:, j] = codes
            filled[rows, j] = self.values_in_cells(full, positions)[:, j]
        return filled

    def encode(self, X) -> np.ndarray:
        """The values themselves (cells are found where they are read)."""
        return X

    def decode(self, values) -> np.ndarray:
        """The values themselves."""
        return values

    def parameter_dims(self, features: list) -> tuple[dict, dict]:
        """Each column's cell probabilities by (class, cell), cells named by their value or
        bin (``"<outside>"`` last)."""
        dims, coords = {}, {}
        for j in range(len(self.atoms)):
            atoms, edges, whole, _, _ = self._column_cells(j)
            if whole:  # the whole numbers each bin holds
                lows, highs = np.ceil(edges[:-1]).astype(int), np.floor(edges[1:]).astype(int)
                ends = zip(lows.tolist(), highs.tolist(), strict=True)
            else:
                ends = zip(edges[:-1].tolist(), edges[1:].tolist(), strict=True)
            bins = [f"[{lo!r}, {hi!r}]" for lo, hi in ends]
            dims[f"category_probs_{j}"] = ("class", f"cell_{j}")
            coords[f"cell_{j}"] = [repr(float(a)) for a in atoms] + bins + ["<outside>"]
        return dims, coords

    def story_cells(self):
        """``(cell_codes, log cell sizes)`` for the story, in ``jax.numpy``."""
        jnp = jax_numpy()
        return (
            lambda X: self.cell_codes(X, jnp),
            [jnp.asarray(s) for s in self.log_cell_sizes()],
        )
