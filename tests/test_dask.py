"""bayesgen.dask.fit on a multi-process LocalCluster equals the in-memory fit."""

import logging
import warnings

import numpy as np
import pandas as pd
import pytest

dask = pytest.importorskip("dask")
da = pytest.importorskip("dask.array")
dd = pytest.importorskip("dask.dataframe")
distributed = pytest.importorskip("distributed")

import bayesgen.dask as bgdask  # noqa: E402
from bayesgen import (  # noqa: E402
    BernoulliNB,
    CategoricalNB,
    ComplementNB,
    ExponentialNB,
    FamilyClassifier,
    GaussianDA,
    MixedNB,
    MultinomialNB,
    PoissonNB,
)
from bayesgen.families.component_mixture import MixtureFamily  # noqa: E402
from bayesgen.families.poisson import PoissonFamily  # noqa: E402

CHUNKS = (70, 130, 45, 155)  # uneven, 400 rows; one block lacks class 2 (rows sorted by y)
RTOL = 1e-10


@pytest.fixture(scope="module")
def client(exclusive_memory):
    """Two worker processes, one thread each; closed when the module's tests are done."""
    with warnings.catch_warnings():
        # The cluster's start-up may warn about its own environment (ports, memory limits).
        warnings.simplefilter("ignore")
        cluster = distributed.LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=True,
            dashboard_address=None,
            silence_logs=logging.ERROR,
            memory_limit=None,
        )
        client = distributed.Client(cluster)
    yield client
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        client.close()
        cluster.close()


def _gaussian_data(n=400, d=4, seed=0, separation=3.0):
    rng = np.random.default_rng(seed)
    y = np.sort(rng.integers(0, 3, n))
    X = rng.normal(size=(n, d)) @ rng.normal(size=(d, d)) + separation * y[:, None] + 10.0
    weights = rng.uniform(0.0, 3.0, n)
    return X, y, weights


def _count_data(n=400, d=6, seed=1, binary=False):
    rng = np.random.default_rng(seed)
    y = np.sort(rng.integers(0, 3, n))
    rates = rng.uniform(0.2, 4.0, (3, d))
    X = rng.poisson(rates[y]).astype(float)
    if binary:
        X = (X > 1).astype(float)
    return X, y, rng.uniform(0.0, 3.0, n)


def _dask(array, rows=CHUNKS):
    chunks = (rows,) if array.ndim == 1 else (rows, 2)  # columns split too: joined
    return da.from_array(array, chunks=chunks)


def _max_difference(fitted, reference):
    """Compare every fitted attribute; return the largest absolute difference of floats."""
    names = sorted(k for k in vars(reference) if k.endswith("_") and not k.startswith("_"))
    assert names == sorted(k for k in vars(fitted) if k.endswith("_") and not k.startswith("_"))
    largest = 0.0
    for name in names:
        ours, theirs = getattr(fitted, name), getattr(reference, name)
        leaves = zip(_leaves(ours), _leaves(theirs), strict=True)
        for left, right in leaves:
            left, right = np.asarray(left), np.asarray(right)
            assert left.shape == right.shape, name
            if left.dtype.kind == "f":
                finite = np.isfinite(right)
                scale = float(np.max(np.abs(right[finite]), initial=1.0))
                # Small entries of a vector (an eigenvector of scalings_) may differ by the
                # rounding of the largest: absolute tolerance relative to the array's scale.
                np.testing.assert_allclose(left, right, rtol=RTOL, atol=1e-11 * scale, err_msg=name)
                if finite.any():
                    largest = max(largest, float(np.max(np.abs(left - right)[finite])))
            else:
                np.testing.assert_array_equal(left, right, err_msg=name)
    return largest


def _leaves(value):
    if isinstance(value, tuple):  # the NamedTuple statistics and priors
        return [leaf for item in value for leaf in _leaves(item)]
    return [value]


GAUSSIAN_CASES = [
    (covariance_type, estimate)
    for covariance_type in ("full", "tied", "diag")
    for estimate in ("mle", "map")
]


@pytest.mark.parametrize(("covariance_type", "estimate"), GAUSSIAN_CASES)
def test_gaussian_fit_equals_in_memory_fit(client, covariance_type, estimate):
    """Per-block Gaussian statistics merged by Chan et al. on the workers == fit in memory."""
    X, y, weights = _gaussian_data()
    settings = {"covariance_type": covariance_type, "estimate": estimate}
    reference = GaussianDA(**settings).fit(X, y, sample_weight=weights)
    fitted = bgdask.fit(GaussianDA(**settings), _dask(X), _dask(y), _dask(weights))
    assert _max_difference(fitted, reference) < 1e-9
    np.testing.assert_allclose(fitted.predict_proba(X), reference.predict_proba(X), atol=1e-12)


@pytest.mark.parametrize(
    ("model", "binary"),
    [
        (MultinomialNB(), False),
        (BernoulliNB(), True),
        (PoissonNB(alpha=0.5), False),
        (ExponentialNB(beta=2.0), False),
        (FamilyClassifier(family=PoissonFamily(alpha=0.5), estimate="mean"), False),
        (ComplementNB(alpha=0.5, norm=True), False),
    ],
    ids=[
        "MultinomialNB",
        "BernoulliNB",
        "PoissonNB",
        "ExponentialNB",
        "FamilyClassifier",
        "ComplementNB",
    ],
)
def test_count_fit_equals_in_memory_fit(client, model, binary):
    """Count statistics are sums: the tree of block sums == the in-memory sums."""
    X, y, weights = _count_data(binary=binary)
    reference = model.fit(X, y, sample_weight=weights)
    fitted = bgdask.fit(type(model)(**model.get_params()), _dask(X), _dask(y), _dask(weights))
    assert _max_difference(fitted, reference) < 1e-11


def test_dataframe_with_a_label_column(client):
    """A dask DataFrame: y as the name of its label column or as a Series; names kept."""
    X, y, _ = _gaussian_data()
    frame = pd.DataFrame(X, columns=["a", "b", "c", "d"]).assign(
        label=np.array(["setosa", "versicolor", "virginica"])[y]
    )
    features = frame[["a", "b", "c", "d"]]
    reference = GaussianDA(covariance_type="tied").fit(features, frame["label"])
    distributed_frame = dd.from_pandas(frame, npartitions=3)
    by_name = bgdask.fit(GaussianDA(covariance_type="tied"), distributed_frame, "label")
    assert _max_difference(by_name, reference) < 1e-9
    by_series = bgdask.fit(
        GaussianDA(covariance_type="tied"),
        distributed_frame[["a", "b", "c", "d"]],
        distributed_frame["label"],
    )
    assert _max_difference(by_series, reference) < 1e-9
    np.testing.assert_array_equal(by_name.feature_names_in_, ["a", "b", "c", "d"])
    np.testing.assert_array_equal(by_name.predict(features), reference.predict(features))


def test_parquet_read_by_the_workers(client, tmp_path):
    """dd.read_parquet (Arrow strings for the labels): each worker reads its row groups."""
    X, y, _ = _count_data()
    frame = pd.DataFrame(X, columns=[f"w{j}" for j in range(X.shape[1])])
    frame["label"] = np.array(["ham", "spam", "eggs"])[y]
    frame.to_parquet(tmp_path / "rows.parquet", row_group_size=90)
    reference = MultinomialNB().fit(frame.drop(columns="label"), frame["label"])
    lazy = dd.read_parquet(tmp_path / "rows.parquet", split_row_groups=True)
    assert lazy.npartitions > 1
    fitted = bgdask.fit(MultinomialNB(), lazy, "label")
    assert _max_difference(fitted, reference) < 1e-11


def _unlabel(y, fraction=0.85, seed=3):
    rng = np.random.default_rng(seed)
    return np.where(rng.random(y.shape[0]) < fraction, -1, y)


@pytest.mark.parametrize(
    "model",
    [
        GaussianDA(covariance_type="full"),
        GaussianDA(covariance_type="tied", estimate="map"),
        GaussianDA(reg_alpha=0.5),  # regularised: the generic (unjitted) EM of the estimator
    ],
    ids=["full-mle", "tied-map", "full-rda"],
)
def test_gaussian_em_equals_in_memory_em(client, model):
    """E- and M-steps on the workers: the same iterations, history and parameters."""
    X, y, weights = _gaussian_data(seed=4, separation=0.7)
    y = _unlabel(y)
    reference = type(model)(**model.get_params()).fit(X, y, sample_weight=weights)
    # Equal blocks: each worker compiles the E-step once (the fit tests cover uneven ones).
    fitted = bgdask.fit(model, _dask(X, 100), _dask(y, 100), _dask(weights, 100))
    assert fitted.n_iter_ == reference.n_iter_ > 2 and fitted.converged_
    np.testing.assert_allclose(
        fitted.log_likelihood_history_, reference.log_likelihood_history_, rtol=1e-10
    )
    assert _max_difference(fitted, reference) < 1e-8


@pytest.mark.parametrize(
    ("model", "binary"),
    [(MultinomialNB(), False), (BernoulliNB(n_init=2, random_state=0), True)],
    ids=["MultinomialNB", "BernoulliNB-two-starts"],
)
def test_count_em_equals_in_memory_em(client, model, binary):
    """Count EM, including random starts drawn block by block in row order."""
    X, y, _ = _count_data(binary=binary)
    y = _unlabel(y)
    reference = type(model)(**model.get_params()).fit(X, y)
    fitted = bgdask.fit(model, _dask(X, 100), _dask(y, 100))
    assert fitted.n_iter_ == reference.n_iter_ and fitted.converged_
    np.testing.assert_allclose(
        fitted.log_likelihood_history_, reference.log_likelihood_history_, rtol=1e-10
    )
    assert _max_difference(fitted, reference) < 1e-9


def test_chunks_of_y_and_weights_need_not_match_those_of_X(client):
    """y and sample_weight are rechunked to X's rows; NumPy y is accepted."""
    X, y, weights = _gaussian_data()
    reference = GaussianDA().fit(X, y, sample_weight=weights)
    X_blocks = da.from_array(X, chunks=(100, 4))
    weight_blocks = da.from_array(weights, chunks=150)
    fitted = bgdask.fit(GaussianDA(), X_blocks, y, sample_weight=weight_blocks)
    assert _max_difference(fitted, reference) < 1e-9


def test_bad_input_is_named(client):
    X, y, weights = _gaussian_data()
    with pytest.raises(ValueError, match="y has 399 rows but X has 400"):
        bgdask.fit(GaussianDA(), _dask(X), da.from_array(y[:-1], chunks=100))
    with pytest.raises(ValueError, match="sample_weight has 10 rows but X has 400"):
        bgdask.fit(GaussianDA(), _dask(X), _dask(y), sample_weight=weights[:10])
    with pytest.raises(ValueError, match="X must be 2-D"):
        bgdask.fit(GaussianDA(), _dask(X[:, 0]), _dask(y))
    infinite = X.copy()
    infinite[250, 1] = np.inf
    with pytest.raises(ValueError, match=r"rows 245 to 399 of X .*X contains inf"):
        bgdask.fit(GaussianDA(), _dask(infinite), _dask(y))
    with pytest.raises(ValueError, match="Unknown label type"):
        bgdask.fit(GaussianDA(), _dask(X), _dask(y + 0.5))
    negative = np.where(np.arange(400) == 3, -1.0, weights)
    with pytest.raises(ValueError, match="rows 0 to 69 of X .*[Nn]egative"):
        bgdask.fit(GaussianDA(), _dask(X), _dask(y), _dask(negative))
    missing = X.copy()
    missing[5, 0] = np.nan
    with pytest.raises(ValueError, match="X contains NaN .*Impute"):
        bgdask.fit(GaussianDA(), _dask(missing), _dask(y))
    with pytest.raises(ValueError, match="supports .*GaussianDA .*got CategoricalNB"):
        bgdask.fit(CategoricalNB(), _dask(X), _dask(y))
    for mixed in (MixedNB(), MixedNB().fit(X[:, :1], y)):  # a fit's groups are not reused
        with pytest.raises(ValueError, match="supports .*ComplementNB.*got MixedNB"):
            bgdask.fit(mixed, _dask(X), _dask(y))
    with pytest.raises(ValueError, match="supports .*got FamilyClassifier"):
        mixture = FamilyClassifier(family=MixtureFamily(PoissonFamily(), 2))
        bgdask.fit(mixture, _dask(np.abs(X)), _dask(y))
    unlabelled = np.where(np.arange(400) % 5 == 0, -1, y)
    with pytest.raises(ValueError, match="80 unlabelled rows, and ComplementNB's scores are no"):
        bgdask.fit(ComplementNB(), _dask(np.abs(X)), _dask(unlabelled))
    with pytest.raises(ValueError, match="ledoit-wolf"):
        bgdask.fit(GaussianDA(shrinkage="ledoit-wolf"), _dask(X), _dask(y))
    with pytest.raises(ValueError, match="needs X to be a dask DataFrame"):
        bgdask.fit(GaussianDA(), _dask(X), "label")
