"""Many classes: fit adds rows in chunks instead of building an n x K matrix (issue 19)."""

import numpy as np
import pytest
import scipy.sparse as sp

import bayesgen
from bayesgen.joint import fitting


def test_row_chunks_cover_every_row_once_within_the_budget(monkeypatch):
    monkeypatch.setattr(fitting, "RESPONSIBILITY_ENTRIES", 100)
    chunks = fitting.row_chunks(1003, 7)
    assert chunks[0] == slice(0, 14) and chunks[-1].stop == 1003
    covered = np.concatenate([np.arange(1003)[chunk] for chunk in chunks])
    np.testing.assert_array_equal(covered, np.arange(1003))
    assert all((chunk.stop - chunk.start) * 7 <= 100 for chunk in chunks)
    assert fitting.row_chunks(5, 10**9) == [slice(i, i + 1) for i in range(5)]


@pytest.mark.parametrize(
    ("make", "counts"),
    [
        (lambda: bayesgen.MultinomialNB(), True),
        (lambda: bayesgen.GaussianNB(), False),
        (lambda: bayesgen.QDA(reg_covar=1e-3), False),
        (lambda: bayesgen.MixedNB(features={0: "poisson", 1: "gaussian"}), True),
    ],
    ids=["MultinomialNB", "GaussianNB", "QDA", "MixedNB"],
)
def test_a_chunked_fit_equals_the_one_pass_fit(monkeypatch, make, counts):
    rng = np.random.default_rng(0)
    n_classes = 40
    y = np.repeat(np.arange(n_classes), 5)
    X = rng.poisson(3.0, size=(y.shape[0], 3)) if counts else rng.normal(size=(y.shape[0], 3))
    X = X.astype(float)
    weights = rng.uniform(0.5, 2.0, size=y.shape[0])
    one_pass = make().fit(X, y, sample_weight=weights)
    monkeypatch.setattr(fitting, "RESPONSIBILITY_ENTRIES", 7 * n_classes)  # 29 chunks of 7 rows
    chunked = make().fit(X, y, sample_weight=weights)
    np.testing.assert_allclose(chunked.class_count_, one_pass.class_count_, rtol=1e-12)
    np.testing.assert_allclose(
        chunked.predict_joint_log_proba(X), one_pass.predict_joint_log_proba(X), rtol=1e-9
    )


def test_a_chunked_fit_of_sparse_counts(monkeypatch):
    rng = np.random.default_rng(1)
    y = np.repeat(np.arange(30), 4)
    X = sp.random(120, 50, density=0.1, format="csr", random_state=1, data_rvs=rng.random)
    X.data = np.ceil(X.data * 5)
    one_pass = bayesgen.MultinomialNB().fit(X, y)
    monkeypatch.setattr(fitting, "RESPONSIBILITY_ENTRIES", 300)
    chunked = bayesgen.MultinomialNB().fit(X, y)
    np.testing.assert_allclose(chunked.feature_log_prob_, one_pass.feature_log_prob_, rtol=1e-12)


@pytest.mark.parametrize(
    "make", [lambda: bayesgen.QDA(reg_covar=1e-3), lambda: bayesgen.MultinomialNB()]
)
def test_chunked_predictions_equal_one_pass_predictions(monkeypatch, make):
    rng = np.random.default_rng(2)
    y = np.repeat(np.arange(12), 6)
    X = rng.poisson(3.0, size=(y.shape[0], 4)).astype(float)
    model = make().fit(X, y)
    one_pass = model.predict_proba(X)
    monkeypatch.setattr(fitting, "RESPONSIBILITY_ENTRIES", 12 * 4 * 5)  # 5 rows at a time
    np.testing.assert_allclose(model.predict_proba(X), one_pass, rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize(
    "make",
    [
        lambda: bayesgen.LDA(),
        lambda: bayesgen.MixedNB(features={0: "gaussian", 1: "gaussian", 2: "poisson"}),
    ],
    ids=["LDA", "MixedNB"],
)
def test_rows_with_missing_entries_are_not_chunked(monkeypatch, make):
    """EM over missing entries needs every row at once: where a fit would cut the rows
    into chunks (many classes), rows with missing entries are fitted whole, as in one pass
    (chunks used to reach partial_fit's refusal of missing values)."""
    rng = np.random.default_rng(1)
    n_classes = 20
    y = np.repeat(np.arange(n_classes), 6)
    X = np.column_stack(
        [rng.normal(size=(y.shape[0], 2)) + y[:, None] % 3, rng.poisson(2.0, y.shape[0])]
    ).astype(float)
    X[rng.random(X.shape) < 0.1] = np.nan
    one_pass = make().fit(X, y)
    monkeypatch.setattr(fitting, "RESPONSIBILITY_ENTRIES", 7 * n_classes)
    assert len(fitting.row_chunks(X.shape[0], n_classes)) > 1
    chunked = make().fit(X, y)
    np.testing.assert_allclose(chunked.predict_proba(X), one_pass.predict_proba(X), rtol=1e-12)
    assert chunked.joint_.frozen is not None
