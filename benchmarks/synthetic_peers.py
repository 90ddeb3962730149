"""The peers of the synthetic-data benchmark, each as ``(fit, draw)``: sdv, copulas, CTGAN.

``fit(train, target) -> model`` and ``draw(model, n, seed, target) -> DataFrame`` with the
training columns. They need the benchmark environment of ``docs/synthetic-data.md`` (pandas
< 3): `benchmarks.synthetic_data` calls them only when their package imports.

``copulas``' ``GaussianMultivariate`` takes numbers without blanks only, so
`SdvStyleEncoding` turns a table into that the way sdv's default transformers do (a
category: a uniform draw inside its interval of cumulative frequency, blank as its own
category; a number with blanks: the mean in the blanks and a 0/1 "was blank" column; on the
way back numbers are clipped to the seen range and rounded to the seen decimals).
`class_conditional` fits any generator once per class (issue 20's class-conditional Gaussian
copula) and draws the classes at their training frequencies.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

_BLANK = "\x00blank"


def _is_number(values: pd.Series) -> bool:
    return pd.api.types.is_numeric_dtype(values) and not pd.api.types.is_bool_dtype(values)


def _decimals(observed: np.ndarray) -> int | None:
    """The fewest decimals (up to 6) that every observed value keeps, as rdt learns them."""
    for digits in range(7):
        if np.allclose(np.round(observed, digits), observed, rtol=0, atol=1e-9):
            return digits
    return None


class SdvStyleEncoding:
    """A table <-> numbers without blanks, as sdv's default transformers do it."""

    def fit(self, frame: pd.DataFrame, random_state=0) -> SdvStyleEncoding:
        self.columns_, self.dtypes_, self.margins_ = list(frame.columns), frame.dtypes, {}
        for column in self.columns_:
            values = frame[column]
            if _is_number(values):
                observed = values.dropna().to_numpy(dtype=float)
                self.margins_[column] = (
                    "number",
                    (observed.mean(), observed.min(), observed.max(), _decimals(observed)),
                    bool(values.isna().any()),
                )
            else:
                counts = values.astype(object).fillna(_BLANK).value_counts(sort=False)
                edges = np.concatenate([[0.0], np.cumsum(counts.to_numpy()) / counts.sum()])
                self.margins_[column] = ("category", (counts.index, edges), False)
        self._rng = np.random.default_rng(random_state)
        return self

    def transform(self, frame: pd.DataFrame) -> pd.DataFrame:
        out = {}
        for column in self.columns_:
            kind, margin, blanks = self.margins_[column]
            values = frame[column]
            if kind == "number":
                out[column] = values.astype(float).fillna(margin[0]).to_numpy()
                if blanks:
                    out[column + "#blank"] = values.isna().to_numpy(dtype=float)
            else:
                categories, edges = margin
                position = categories.get_indexer(values.astype(object).fillna(_BLANK))
                low, high = edges[position], edges[position + 1]
                out[column] = low + (high - low) * self._rng.uniform(size=position.size)
        return pd.DataFrame(out)

    def inverse_transform(self, numbers: pd.DataFrame) -> pd.DataFrame:
        out = {}
        for column in self.columns_:
            kind, margin, blanks = self.margins_[column]
            drawn = numbers[column].to_numpy(dtype=float)
            if kind == "number":
                _, low, high, decimals = margin
                drawn = np.clip(drawn, low, high)
                if decimals is not None:
                    drawn = np.round(drawn, decimals)
                series = pd.Series(drawn)
                if blanks:
                    series = series.where(numbers[column + "#blank"].to_numpy() < 0.5)
                whole = pd.api.types.is_integer_dtype(self.dtypes_[column])
                out[column] = series.astype(self.dtypes_[column]) if whole else series
            else:
                categories, edges = margin
                index = np.searchsorted(edges, np.clip(drawn, 0.0, 1.0), side="right") - 1
                index = np.clip(index, 0, len(categories) - 1)
                series = pd.Series(np.asarray(categories, dtype=object)[index])
                series = series.where(series != _BLANK, None)
                out[column] = series.astype(self.dtypes_[column])
        return pd.DataFrame(out)


def copulas_generator():
    """``copulas``' GaussianMultivariate (its default margins) on the sdv-style encoding."""
    from copulas.multivariate import GaussianMultivariate

    def fit(train, target):
        encoding, copula = SdvStyleEncoding().fit(train), GaussianMultivariate()
        copula.fit(encoding.transform(train))
        return encoding, copula

    def draw(model, n, seed, target):
        encoding, copula = model
        np.random.seed(seed)  # noqa: NPY002 (copulas draws from NumPy's global generator)
        return encoding.inverse_transform(copula.sample(n))

    return fit, draw


def sdv_generator(kind: str):
    """sdv's ``GaussianCopulaSynthesizer`` or ``CTGANSynthesizer``, with their defaults."""
    from sdv.metadata import Metadata
    from sdv.single_table import CTGANSynthesizer, GaussianCopulaSynthesizer

    make = {"gaussian_copula": GaussianCopulaSynthesizer, "ctgan": CTGANSynthesizer}[kind]

    def fit(train, target):
        metadata = Metadata.detect_from_dataframes({"table": train}, infer_keys=None)
        # A numeric class column (the wines' 0/1/2) is a category, not a number.
        metadata.update_column(target, table_name="table", sdtype="categorical")
        synthesizer = make(metadata)
        synthesizer.fit({"table": train})  # sdv 2 takes and returns {table name: frame}
        return synthesizer

    def draw(model, n, seed, target):
        np.random.seed(seed)  # noqa: NPY002 (so does sdv)
        if kind == "ctgan":
            import torch

            torch.manual_seed(seed)
        return model.sample(n)["table"]

    return fit, draw


def class_conditional(fit_one, draw_one):
    """Fit ``fit_one(rows, None)`` on each class's rows (the class column removed) and draw
    each class's rows at its training frequency: p(x, y) = p(y) p(x | y)."""

    def fit(train, target):
        counts = train[target].value_counts(sort=False)
        models = {
            label: fit_one(train.loc[train[target] == label].drop(columns=target), None)
            for label in counts.index
        }
        return models, counts / counts.sum(), train[target].dtype

    def draw(model, n, seed, target):
        models, shares, dtype = model
        rng = np.random.default_rng(seed)
        sizes = rng.multinomial(n, shares.to_numpy())
        parts = []
        for index, ((label, one), size) in enumerate(zip(models.items(), sizes, strict=True)):
            if size:
                # Each class its own seed: the peers reseed NumPy's global generator, so one
                # seed would give every class the same random numbers, row by row.
                rows = draw_one(one, int(size), seed + index, None).reset_index(drop=True)
                rows[target] = pd.Series([label] * int(size), dtype=dtype)
                parts.append(rows)
        rows = pd.concat(parts, ignore_index=True)
        return rows.iloc[rng.permutation(len(rows))].reset_index(drop=True)

    return fit, draw
