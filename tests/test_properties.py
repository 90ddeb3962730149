"""Property-based tests (Hypothesis) of the invariants every fit must keep (issue 19, item 7).

Shapes are fixed inside each property so that JAX compiles once per test; the examples are
few (``max_examples``) and undeadlined, so the file adds well under a minute.
"""

import io

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from sklearn.datasets import load_iris

import bayesgen

N_ROWS, N_FEATURES = 16, 3
FEW = settings(
    max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow], database=None
)
IRIS_X, IRIS_Y = load_iris(return_X_y=True)
IRIS_MODEL = bayesgen.QDA().fit(IRIS_X, IRIS_Y)

values = st.floats(-100, 100, allow_nan=False, allow_infinity=False)
tables = arrays(np.float64, (N_ROWS, N_FEATURES), elements=values).filter(
    lambda X: (
        np.all(np.ptp(X[: N_ROWS // 2], axis=0) > 1e-3)
        and np.all(np.ptp(X[N_ROWS // 2 :], axis=0) > 1e-3)
    )
)
LABELS = np.repeat([0, 1], N_ROWS // 2)


@FEW
@given(X=tables, permutation=st.permutations(range(N_ROWS)))
def test_fit_is_invariant_to_the_order_of_rows(X, permutation):
    order = np.asarray(permutation)
    base = bayesgen.GaussianNB().fit(X, LABELS)
    shuffled = bayesgen.GaussianNB().fit(X[order], LABELS[order])
    np.testing.assert_allclose(shuffled.predict_proba(X), base.predict_proba(X), atol=1e-9)


@FEW
@given(X=tables, split=st.integers(1, N_ROWS - 1))
def test_partial_fit_over_two_chunks_equals_fit(X, split):
    order = np.random.default_rng(split).permutation(N_ROWS)  # both classes in any chunk
    X, y = X[order], LABELS[order]
    whole = bayesgen.GaussianNB().fit(X, y)
    chunked = bayesgen.GaussianNB().partial_fit(X[:split], y[:split], classes=[0, 1])
    chunked.partial_fit(X[split:], y[split:])
    np.testing.assert_allclose(chunked.means_, whole.means_, rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(chunked.predict_proba(X), whole.predict_proba(X), atol=1e-9)


@FEW
@given(X=tables, weights=arrays(np.int64, N_ROWS, elements=st.integers(1, 3)))
def test_integer_sample_weights_equal_duplicated_rows(X, weights):
    weighted = bayesgen.QDA().fit(X, LABELS, sample_weight=weights.astype(float))
    duplicated = bayesgen.QDA().fit(np.repeat(X, weights, axis=0), np.repeat(LABELS, weights))
    np.testing.assert_allclose(
        weighted.predict_joint_log_proba(X), duplicated.predict_joint_log_proba(X), rtol=1e-7
    )


@FEW
@given(rows=arrays(np.float64, (5, 4), elements=st.floats(-1e6, 1e6)))
def test_probabilities_of_finite_rows_are_finite_and_sum_to_one(rows):
    probabilities = IRIS_MODEL.predict_proba(rows)
    assert np.all(np.isfinite(probabilities))
    assert np.all(probabilities >= 0)
    np.testing.assert_allclose(probabilities.sum(axis=1), 1.0, rtol=1e-12)


@FEW
@given(X=tables)
def test_save_and_load_predict_bit_for_bit(X):
    model = bayesgen.QDA().fit(X, LABELS)
    buffer = io.BytesIO()
    model.save(buffer)
    buffer.seek(0)
    loaded = bayesgen.load(buffer)
    np.testing.assert_array_equal(loaded.predict_proba(X), model.predict_proba(X))
    np.testing.assert_array_equal(loaded.score_samples(X), model.score_samples(X))


@FEW
@given(
    X=arrays(np.float64, (N_ROWS, 4), elements=st.sampled_from([0.0, 1.0])),
    column=st.integers(0, 3),
)
def test_a_missing_feature_is_integrated_out(X, column):
    """Naive Bayes with x_j missing equals the same model fitted without feature j."""
    full = bayesgen.BernoulliNB().fit(X, LABELS)
    kept = [j for j in range(4) if j != column]
    reduced = bayesgen.BernoulliNB().fit(X[:, kept], LABELS)
    gappy = X.copy()
    gappy[:, column] = np.nan
    np.testing.assert_allclose(
        full.predict_joint_log_proba(gappy), reduced.predict_joint_log_proba(X[:, kept]), rtol=1e-12
    )


@FEW
@given(
    X=tables,
    scales=arrays(np.float64, N_FEATURES, elements=st.sampled_from([1e-12, 1.0, 1e12])),
    shifts=arrays(np.float64, N_FEATURES, elements=st.floats(-10, 10)),
)
def test_fits_are_invariant_to_rescaling_each_feature(X, scales, shifts):
    """Predictions of data scaled by 1e-12 or 1e12 per column (and shifted) agree to 1e-8."""
    mapped = (X + shifts) * scales
    for model in (bayesgen.GaussianNB(), bayesgen.QDA()):
        original = model.fit(X, LABELS).predict_proba(X)
        transformed = model.fit(mapped, LABELS).predict_proba(mapped)
        np.testing.assert_allclose(transformed, original, atol=1e-8)
