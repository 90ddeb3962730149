"""Out-of-core fitting: partial_fit over chunks read from disk equals the in-memory fit.

The two recipes of docs/out-of-core.md: a memory-mapped array read in row slices, and a
Parquet file read in record batches. Only one chunk is in memory at a time.
"""

import numpy as np
import pandas as pd
import pytest

from bayesgen import QDA, GaussianDA, MultinomialNB

pq = pytest.importorskip("pyarrow.parquet")
pa = pytest.importorskip("pyarrow")

N_ROWS, N_FEATURES, CHUNK = 2000, 5, 300  # the last chunk is short


def _data(kind):
    rng = np.random.default_rng(7)
    y = rng.integers(0, 3, N_ROWS)
    if kind == "counts":
        rates = rng.uniform(0.2, 5.0, (3, N_FEATURES))
        return rng.poisson(rates[y]).astype(np.float64), y
    mixing = rng.normal(size=(N_FEATURES, N_FEATURES))
    return rng.normal(size=(N_ROWS, N_FEATURES)) @ mixing + 2.0 * y[:, None] + 50.0, y


MODELS = {
    "GaussianDA-full": (lambda: GaussianDA(covariance_type="full"), "gaussian"),
    "GaussianDA-tied-map": (lambda: GaussianDA(covariance_type="tied", estimate="map"), "gaussian"),
    "MultinomialNB": (lambda: MultinomialNB(alpha=0.5), "counts"),
}
FITTED = ("class_count_", "class_prior_", "means_", "covariances_", "feature_log_prob_")


def _assert_same_model(chunked, reference, X):
    largest = 0.0
    for name in FITTED:
        if hasattr(reference, name):
            ours, theirs = getattr(chunked, name), getattr(reference, name)
            np.testing.assert_allclose(ours, theirs, rtol=1e-10, atol=1e-12, err_msg=name)
            largest = max(largest, float(np.max(np.abs(ours - theirs))))
    np.testing.assert_allclose(chunked.predict_proba(X), reference.predict_proba(X), atol=1e-10)
    return largest


@pytest.mark.parametrize("name", MODELS)
def test_chunks_of_a_memory_mapped_array(tmp_path, name):
    """np.memmap read CHUNK rows at a time through partial_fit == fit on all rows."""
    factory, kind = MODELS[name]
    X, y = _data(kind)
    np.save(tmp_path / "X.npy", X)
    np.save(tmp_path / "y.npy", y)

    X_disk = np.load(tmp_path / "X.npy", mmap_mode="r")  # a np.memmap: nothing read yet
    y_disk = np.load(tmp_path / "y.npy", mmap_mode="r")
    assert isinstance(X_disk, np.memmap)
    classes = np.unique(
        np.concatenate([np.unique(y_disk[i : i + CHUNK]) for i in range(0, y_disk.shape[0], CHUNK)])
    )
    model = factory()
    for start in range(0, X_disk.shape[0], CHUNK):
        rows = slice(start, start + CHUNK)
        model.partial_fit(np.asarray(X_disk[rows]), y_disk[rows], classes=classes)

    assert _assert_same_model(model, factory().fit(X, y), X) < 1e-9


@pytest.mark.parametrize("name", MODELS)
def test_record_batches_of_a_parquet_file(tmp_path, name):
    """A Parquet file read in record batches through partial_fit == fit on the whole table."""
    factory, kind = MODELS[name]
    X, y = _data(kind)
    columns = [f"x{j}" for j in range(N_FEATURES)]
    frame = pd.DataFrame(X, columns=columns).assign(label=np.array(["a", "b", "c"])[y])
    path = tmp_path / "rows.parquet"
    pq.write_table(pa.Table.from_pandas(frame), path, row_group_size=CHUNK)

    source = pq.ParquetFile(path)
    assert source.metadata.num_row_groups > 1
    labels = [batch.column(0).unique() for batch in source.iter_batches(columns=["label"])]
    classes = np.unique(np.concatenate([np.asarray(part, dtype=object) for part in labels]))
    model = factory()
    for batch in source.iter_batches(batch_size=CHUNK):
        chunk = batch.to_pandas()
        model.partial_fit(chunk[columns], chunk["label"].to_numpy(dtype=object), classes=classes)

    reference = factory().fit(frame[columns], frame["label"].to_numpy(dtype=object))
    np.testing.assert_array_equal(model.classes_, reference.classes_)
    np.testing.assert_array_equal(model.feature_names_in_, columns)
    assert _assert_same_model(model, reference, frame[columns]) < 1e-9


def _python_blocks(path):
    text = path.read_text(encoding="utf-8")
    return [block.split("```", 1)[0] for block in text.split("```python\n")[1:]]


def test_the_recipes_of_the_docs_run_and_fit_exactly(tmp_path, monkeypatch):
    """docs/out-of-core.md: the data, memmap and Parquet blocks run and match fit."""
    from pathlib import Path

    blocks = _python_blocks(Path(__file__).resolve().parents[1] / "docs" / "out-of-core.md")
    assert len(blocks) == 5 and "bayesgen.dask" in blocks[3]  # the Dask one: tests/test_dask
    monkeypatch.chdir(tmp_path)
    namespace = {}
    exec(blocks[0], namespace)  # noqa: S102 - our own documentation
    exec(blocks[1], namespace)  # noqa: S102
    X, y = np.load("X.npy"), np.load("y.npy")
    _assert_same_model(namespace["model"], GaussianDA().fit(X, y), X[:2000])
    exec(blocks[2], namespace)  # noqa: S102
    frame = pd.read_parquet("rows.parquet")
    reference = GaussianDA(covariance_type="tied").fit(
        frame.drop(columns="label"), frame["label"].to_numpy(dtype=object)
    )
    _assert_same_model(namespace["model"], reference, frame.drop(columns="label")[:2000])
    # The accelerator block (on the CPU device here): its model equals the NumPy fit.
    device = {"X": X.astype(np.float32), "y": y}
    exec(blocks[4], device)  # noqa: S102
    np.testing.assert_allclose(
        device["probabilities"],
        QDA().fit(device["X"], y).predict_proba(device["X"]),
        atol=1e-5,
    )
