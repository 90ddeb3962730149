"""EM over unlabelled rows as a function of values (bayesgen.inference.unlabelled_em):
what a run holds fixed, where its warnings point, and the class posterior under a value."""

import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import load_iris
from sklearn.exceptions import ConvergenceWarning

import bayesgen as bg


def _half_unlabelled():
    X, y = load_iris(return_X_y=True)
    y = y.copy()
    y[np.random.default_rng(0).random(y.size) < 0.5] = -1
    return X, y


def test_a_mixture_holds_the_prior_of_all_the_rows_through_em():
    """MixtureDA's empirical-Bayes prior depends on the rows' total weights only, which EM
    over unlabelled rows keeps: it is resolved from every row (unlabelled ones included),
    not from the labelled rows the first start is fitted from. The prior mean is then the
    mean of all rows, and each iteration climbs one objective."""
    X, y = _half_unlabelled()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model = bg.MixtureDA(n_components=2, estimate="map", random_state=0).fit(X, y)
    ridge, prior = model.joint_.frozen
    np.testing.assert_allclose(prior.mean, X.mean(axis=0), rtol=1e-12)
    labelled_mean = X[y >= 0].mean(axis=0)
    assert np.max(np.abs(prior.mean - labelled_mean)) > 1e-3  # the two differ here
    history = model.log_likelihood_history_
    assert np.all(np.diff(history) >= -1e-9 * np.abs(history[1:]))


@pytest.mark.parametrize("estimate", ["map", "mle"])
def test_float32_rows_keep_a_mixture_in_float32_through_em(estimate):
    """What a mixture's leaf holds through EM over unlabelled rows is resolved in the rows'
    precision, so float32 rows give float32 parameters, ridge and prior throughout."""
    X, y = _half_unlabelled()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model = bg.MixtureDA(
            n_components=2, covariance_type="tied", estimate=estimate, random_state=0
        ).fit(X.astype(np.float32), y)
    ridge, prior = model.joint_.frozen
    assert model.means_.dtype == model.covariances_.dtype == np.float32
    assert np.asarray(ridge).dtype == np.asarray(prior.mean).dtype == np.float32


@pytest.mark.parametrize(
    "make",
    [
        lambda: bg.GaussianDA(max_iter=2),
        lambda: bg.LDA(max_iter=2),
        lambda: bg.PoissonNB(max_iter=1),
        lambda: bg.MixtureDA(max_iter=1, random_state=0),
    ],
    ids=["GaussianDA", "LDA", "PoissonNB", "MixtureDA"],
)
def test_an_unconverged_em_warns_at_the_callers_fit(make):
    X, y = _half_unlabelled()
    with pytest.warns(ConvergenceWarning, match="unlabelled rows did not converge") as caught:
        make().fit(np.round(X * 2), y)
    unlabelled = [w for w in caught if "unlabelled rows" in str(w.message)]
    assert unlabelled and all(w.filename == __file__ for w in unlabelled)


def test_clustering_warns_at_the_callers_fit():
    X, _ = load_iris(return_X_y=True)
    with pytest.warns(UserWarning, match="no labelled rows") as caught:
        bg.LDA(n_classes=3, random_state=0).fit(X, np.full(X.shape[0], -1))
    assert [w.filename for w in caught if "no labelled rows" in str(w.message)] == [__file__]


@pytest.mark.parametrize("make", [bg.MultinomialNB, bg.PoissonNB, bg.GaussianNB])
def test_the_posterior_under_the_fitted_value_is_predict_proba(make):
    """Multiple imputation scores each posterior draw as a value; under the fitted value
    itself that is predict_proba, bit for bit, far rows included."""
    X, y = load_iris(return_X_y=True)
    X = np.round(X * 40)
    model = make().fit(X, y)
    rows = np.vstack([X[::7], [[1e306, 1.0, 1.0, 1.0]]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # neither scores a row as NaN or as impossible
        expected = model.predict_proba(rows)
        under = model._plugin_posterior(rows, log=False, value=model.joint_)
    np.testing.assert_array_equal(under, expected)


@pytest.mark.parametrize("make", [bg.PoissonNB, bg.GaussianNB], ids=lambda m: m.__name__)
def test_the_posterior_under_another_value_is_that_values(make):
    """Under another value (its parameters and class probabilities, as a posterior draw
    has), the class posterior is that value's own, not the fit's."""
    X, y = load_iris(return_X_y=True)
    X = np.round(X * 40)
    model = make().fit(X, y)
    other = make(**({"class_prior": [0.6, 0.3, 0.1]} if make is bg.PoissonNB else {})).fit(
        X[::2] + 3.0, y[::2]
    )
    if make is bg.GaussianNB:
        other.class_prior_ = np.array([0.6, 0.3, 0.1])
    rows = X[::5]
    under = model._plugin_posterior(rows, log=False, value=other.joint_)
    np.testing.assert_array_equal(under, other.predict_proba(rows))
    assert not np.allclose(under, model.predict_proba(rows))


def test_a_column_named_frame_is_a_column():
    """A DataFrame whose column is called "frame" is read as the table it is (a table
    wrapper keeps its DataFrame under that name)."""
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 300)
    values = np.column_stack([rng.normal(y, 1.0), rng.normal(-y, 1.0)])
    named = pd.DataFrame(values, columns=["frame", "b"])
    other = pd.DataFrame(values, columns=["a", "b"])
    gappy = values[:6].copy()
    gappy[0, 1] = np.nan
    models = [bg.GaussianNB().fit(table, y) for table in (named, other)]
    np.testing.assert_array_equal(models[0].data_min_, np.nanmin(values, axis=0))
    np.testing.assert_array_equal(models[0].n_missing_, [0.0, 0.0])
    tails = [
        model.tail_probability(pd.DataFrame(gappy, columns=table.columns), random_state=0)
        for model, table in zip(models, (named, other), strict=True)
    ]
    np.testing.assert_array_equal(tails[0], tails[1])
