"""Synthetic rows as a function of a fitted value (`bayesgen.inference.synthetic_rows`): a
`RowSource` built from a family and a value alone, with no estimator method, draws what the
estimator draws."""

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import load_iris

import bayesgen
from bayesgen import joint, training_range
from bayesgen.families.gaussian import GaussianFamily
from bayesgen.families.poisson import PoissonFamily
from bayesgen.frames import column_schema
from bayesgen.inference import imputation, synthetic_rows
from bayesgen.stories import fitted
from bayesgen.validation import class_indices


def _source(family, value, rule, n_features, schema=None):
    """A source made of the family and the value only: the story, the scores and the fill
    of rows with some columns given are the joint layer's and the family's functions."""

    def story(X=None, y=None, n_samples=None, **options):
        part = fitted.fitted_part(family, value, n_features, **options)
        fitted.fitted_story(family, value, rule, part, X, y, n_samples)

    def fill(rows, labels, seed):
        weights = imputation.label_weights(class_indices(value.classes, labels), len(value.classes))
        rng = np.random.default_rng(np.random.RandomState(seed).randint(2**31 - 1))
        rows = np.array(rows)
        filled = imputation.conditional_fill(family, value.params, rows, weights, "sample", rng)
        return imputation.with_observed(rows, filled)

    return synthetic_rows.RowSource(
        family=family,
        value=value,
        n_features=n_features,
        names=None,
        schema=schema,
        story=story,
        fixed_class_prior=rule.fixed is not None,
        features_from_draws=family.features_from_draws,
        joint_log_proba=lambda rows: joint.log_joint(family, value, np.asarray(rows, float)),
        limit_log_posterior=lambda rows, unscored, log_prior: None,
        impute=fill,
    )


@pytest.fixture(scope="module")
def qda():
    X, y = load_iris(return_X_y=True)
    return bayesgen.QDA().fit(X, y), X


@pytest.mark.parametrize(
    "request_",
    [
        {},
        {"method": "story"},
        {"support": "training", "rounding": "training"},
        {"given": {2: 4.5}},
    ],
    ids=["law", "story", "training", "given"],
)
def test_a_value_alone_draws_what_the_estimator_draws(qda, request_):
    model, X = qda
    rule = joint.ClassPriorRule(None, model.class_concentration_prior, "mle")
    source = _source(model.family_, model.joint_, rule, X.shape[1])
    options = dict(request_)
    method = options.pop("method", "numpy")
    drawn, labels = synthetic_rows.sample(source, 40, None, 7, method, **options)
    expected, expected_labels = model.sample(40, random_state=7, method=method, **options)
    np.testing.assert_array_equal(labels, expected_labels)
    np.testing.assert_array_equal(drawn, expected)


def test_a_value_fitted_without_an_estimator_keeps_to_its_record():
    """A value fitted by `bayesgen.joint.fit`, with the record of its rows, draws inside
    their range, with their gaps, on their grid, as a table of their columns."""
    X, y = load_iris(return_X_y=True)
    X = np.rint(X * 2)  # counts
    frame = pd.DataFrame(X, columns=["a", "b", "c", "d"])
    frame.iloc[::6, 1] = np.nan
    classes, index = np.unique(y, return_inverse=True)
    family = PoissonFamily()
    R = joint.responsibilities(index, np.ones(len(y)), len(classes))
    value = joint.fit(family, frame.to_numpy(), R, classes)
    value = value._replace(record=training_range.column_ranges(frame))
    source = _source(family, value, joint.ClassPriorRule(), 4, schema=column_schema(frame))
    drawn, _ = synthetic_rows.sample(source, 2000, None, 0, support="training", missing="training")
    assert list(drawn.columns) == ["a", "b", "c", "d"]
    observed = drawn.to_numpy()
    inside = (observed >= X.min(axis=0)) & (observed <= X.max(axis=0))
    assert np.all(inside | np.isnan(observed))
    assert np.isnan(observed[:, 1]).mean() == pytest.approx(1 / 6, abs=0.03)
    assert not np.isnan(observed[:, [0, 2, 3]]).any()


def test_a_value_fitted_without_an_estimator_rounds_to_its_grid():
    """Iris is measured to the millimetre: a Gaussian value's draws land on that grid only
    when asked to (``rounding="training"``), the given column left as it is."""
    X, y = load_iris(return_X_y=True)
    classes, index = np.unique(y, return_inverse=True)
    family = GaussianFamily("diag")
    R = joint.responsibilities(index, np.ones(len(y)), len(classes))
    value = joint.fit(family, X, R, classes)._replace(record=training_range.column_ranges(X))
    source = _source(family, value, joint.ClassPriorRule(), 4)
    raw, _ = synthetic_rows.sample(source, 500, None, 1)
    rounded, _ = synthetic_rows.sample(source, 500, None, 1, rounding="training")
    on_grid = lambda values: np.abs(values * 10 - np.round(values * 10)) < 1e-9  # noqa: E731
    assert not on_grid(raw).all()
    assert on_grid(rounded).all()
    np.testing.assert_allclose(rounded, raw, atol=0.05 + 1e-12)
    given, _ = synthetic_rows.sample(source, 50, None, 2, given={0: 5.123}, rounding="training")
    assert np.all(given[:, 0] == 5.123) and on_grid(given[:, 1:]).all()
