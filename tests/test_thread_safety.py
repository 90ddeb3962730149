"""Many threads calling one fitted model get the answers of serial calls (issue 19, item 6).

NumPyro's handler stack is shared by threads: without bayesgen's lock (``_threads.py``),
``sample`` from 16 threads failed with "all sites must have unique names".
"""

import threading

import numpy as np
import pytest
from sklearn.datasets import load_iris

import bayesgen

X, Y = load_iris(return_X_y=True)
N_THREADS = 16
JOIN_TIMEOUT_S = 240  # a hang fails the test instead of blocking the suite


def _calls(model, X_rows, gappy):
    """name -> function of a seed, each returning arrays to compare."""
    return {
        "predict_proba": lambda seed: model.predict_proba(X_rows),
        "score_samples": lambda seed: model.score_samples(X_rows),
        "sample": lambda seed: model.sample(6, random_state=seed),
        "impute": lambda seed: model.impute(gappy, method="sample", random_state=seed),
        "posterior": lambda seed: (
            model.posterior(8, random_state=seed).posterior["class_prior"].values
        ),
        "predict_proba_draws": lambda seed: model.predict_proba_draws(X_rows, 8, random_state=seed),
    }


def _in_threads(calls, n_threads):
    """Run every call with seeds 0..n_threads-1 spread over threads; return results, errors."""
    jobs = [(name, seed) for seed in range(n_threads) for name in calls]
    results, errors = {}, []
    barrier = threading.Barrier(n_threads)

    def work(index):
        barrier.wait()  # start together, so the calls overlap
        for name, seed in jobs[index::n_threads]:
            try:
                results[name, seed] = calls[name](seed)
            except Exception as error:  # collected and reported by the test
                errors.append(f"{name}: {error!r}")

    threads = [threading.Thread(target=work, args=(i,), daemon=True) for i in range(n_threads)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(JOIN_TIMEOUT_S)
    hung = sum(thread.is_alive() for thread in threads)
    return results, errors, hung


def _same(a, b) -> bool:
    if isinstance(a, tuple):
        return all(_same(x, z) for x, z in zip(a, b, strict=True))
    if hasattr(a, "toarray"):  # a sparse sample
        a, b = a.toarray(), b.toarray()
    a, b = np.asarray(a), np.asarray(b)
    return np.array_equal(a, b, equal_nan=a.dtype.kind == "f")


@pytest.mark.parametrize(
    "make",
    [lambda: bayesgen.QDA(), lambda: bayesgen.GaussianNB()],
    ids=["QDA", "GaussianNB"],
)
def test_sixteen_threads_agree_with_serial_calls(make):
    model = make().fit(X, Y)
    rows = X[::15]
    gappy = rows.copy()
    gappy[::2, 1] = np.nan
    calls = _calls(model, rows, gappy)
    serial = {(name, seed): calls[name](seed) for seed in range(N_THREADS) for name in calls}
    results, errors, hung = _in_threads(calls, N_THREADS)
    assert hung == 0, f"{hung} threads still running after {JOIN_TIMEOUT_S} s"
    assert errors == []
    assert set(results) == set(serial)
    different = [key for key in serial if not _same(results[key], serial[key])]
    assert different == []


def test_draws_of_two_models_in_two_threads_finish():
    """Two threads drawing from two different QDA models at once (a hang in issue 19)."""
    models = [bayesgen.QDA().fit(X, Y), bayesgen.QDA().fit(X[:, :3], Y)]
    calls = {
        "first": lambda seed: models[0].predict_proba_draws(X[:5], 20, random_state=seed),
        "second": lambda seed: models[1].predict_proba_draws(X[:5, :3], 20, random_state=seed),
    }
    results, errors, hung = _in_threads(calls, 2)
    assert hung == 0 and errors == []
    np.testing.assert_array_equal(results["first", 1], calls["first"](1))


def test_sample_from_sixteen_threads_for_discrete_models():
    """Sparse MultinomialNB and CategoricalNB failed 28-32 of 32 threaded calls before."""
    import scipy.sparse as sp

    rng = np.random.default_rng(0)
    counts = sp.csr_matrix(rng.poisson(2.0, size=(60, 5)).astype(float))
    categories = rng.integers(0, 3, size=(60, 2))
    labels = np.repeat([0, 1, 2], 20)
    for model in (
        bayesgen.MultinomialNB().fit(counts, labels),
        bayesgen.CategoricalNB().fit(categories, labels),
    ):
        calls = {"sample": lambda seed, model=model: model.sample(4, random_state=seed)}
        serial = {("sample", seed): calls["sample"](seed) for seed in range(N_THREADS)}
        results, errors, hung = _in_threads(calls, N_THREADS)
        assert hung == 0 and errors == []
        assert all(_same(results[key], serial[key]) for key in serial)
