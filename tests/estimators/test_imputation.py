"""impute(): only NaN entries change, with the model's conditional means or draws."""

import numpy as np
import pytest
from scipy import stats
from sklearn.datasets import load_digits, load_wine

from bayesgen import LDA, QDA, BernoulliNB, CategoricalNB, GaussianDA, MultinomialNB, PoissonNB


def _mask(X, rate, seed):
    rng = np.random.default_rng(seed)
    masked = X.astype(float).copy()
    missing = rng.random(X.shape) < rate
    missing[missing.all(axis=1), 0] = False  # keep one observed entry per row
    masked[missing] = np.nan
    return masked, missing


def test_gaussian_mean_imputation_is_the_mixture_of_conditional_means():
    """E[x_m | x_o] = sum_k p(k | x_o) (mu_km + S_mo S_oo^-1 (x_o - mu_ko)), by brute force."""
    X, y = load_wine(return_X_y=True)
    model = QDA().fit(X, y)
    masked, missing = _mask(X[:30], 0.3, 0)
    imputed = model.impute(masked)
    weights = model.predict_proba(masked)
    for i in range(30):
        m, o = missing[i], ~missing[i]
        expected = np.zeros(m.sum())
        for k in range(3):
            S = model.covariances_[k]
            conditional = model.means_[k, m] + S[np.ix_(m, o)] @ np.linalg.solve(
                S[np.ix_(o, o)], X[i, o] - model.means_[k, o]
            )
            expected += weights[i, k] * conditional
        np.testing.assert_allclose(imputed[i, m], expected, rtol=1e-9)
    np.testing.assert_array_equal(imputed[~missing], X[:30][~missing])


def test_gaussian_draws_given_the_class_have_the_conditional_moments():
    """method='sample' with y: draws of one row's missing block match N(mean, cov)."""
    X, y = load_wine(return_X_y=True)
    model = LDA().fit(X, y)
    row = X[5].copy()
    row[[1, 4, 6]] = np.nan
    rows = np.tile(row, (4000, 1))
    draws = model.impute(rows, method="sample", y=np.full(4000, y[5]), random_state=1)[:, [1, 4, 6]]
    conditional = model.impute(row[None], y=[y[5]])[0, [1, 4, 6]]
    S = model.covariances_
    m, o = np.isin(np.arange(13), [1, 4, 6]), ~np.isin(np.arange(13), [1, 4, 6])
    covariance = S[np.ix_(m, m)] - S[np.ix_(m, o)] @ np.linalg.solve(
        S[np.ix_(o, o)], S[np.ix_(o, m)]
    )
    spread = np.sqrt(np.diag(covariance))
    np.testing.assert_array_less(
        np.abs(draws.mean(axis=0) - conditional), 5 * spread / np.sqrt(4000)
    )
    np.testing.assert_allclose(np.cov(draws.T), covariance, rtol=0.1, atol=0.1 * spread.max() ** 2)
    again = model.impute(rows[:5], method="sample", y=np.full(5, y[5]), random_state=1)
    np.testing.assert_array_equal(
        again, model.impute(rows[:5], method="sample", y=np.full(5, y[5]), random_state=1)
    )


@pytest.mark.parametrize("covariance_type", ["full", "tied"])
def test_gaussian_imputation_beats_column_means_on_wine(covariance_type):
    """Held-out wines with 20% of entries hidden: model imputation has a lower standardised
    squared error than filling each column with its training mean."""
    X, y = load_wine(return_X_y=True)
    train, test = np.arange(0, 178, 2), np.arange(1, 178, 2)
    model = GaussianDA(covariance_type=covariance_type).fit(X[train], y[train])
    masked, missing = _mask(X[test], 0.2, 2)
    scale = X[train].std(axis=0)
    ours = (model.impute(masked) - X[test]) / scale
    baseline = (np.where(missing, X[train].mean(axis=0), X[test]) - X[test]) / scale
    assert np.mean(ours[missing] ** 2) < 0.8 * np.mean(baseline[missing] ** 2)


@pytest.mark.parametrize(
    "model", [BernoulliNB(binarize=7), PoissonNB(), MultinomialNB(), CategoricalNB()]
)
def test_discrete_imputation_gives_valid_values_and_beats_the_column_mode(model):
    """Digits with 20% of pixels hidden: imputed values are valid, and given the class they
    are closer to the truth than each column's training mode. (Mixed over p(k | x_o) they
    need not be: naive Bayes is overconfident, and a wrong class imputes a wrong stroke.)"""
    X, y = load_digits(return_X_y=True)
    truth = (X > 7).astype(float) if isinstance(model, BernoulliNB) else X
    model.fit(X[:1200], y[:1200])
    masked, missing = _mask(X[1200:], 0.2, 3)
    for method in ("mean", "sample"):
        imputed = model.impute(masked, method=method, random_state=4).astype(float)
        assert np.all(imputed[missing] == np.round(imputed[missing])) and np.all(imputed >= 0)
        if isinstance(model, BernoulliNB):
            assert set(np.unique(imputed[missing])) <= {0.0, 1.0}
        np.testing.assert_array_equal(
            imputed[~missing],
            masked[~missing] if not isinstance(model, BernoulliNB) else truth[1200:][~missing],
        )
    mode = stats.mode(truth[:1200], axis=0).mode
    baseline = np.abs(np.broadcast_to(mode, missing.shape)[missing] - truth[1200:][missing])
    given_class = model.impute(masked, y=y[1200:]).astype(float)
    ours = np.abs(given_class[missing] - truth[1200:][missing])
    assert ours.mean() < 0.8 * baseline.mean()


def test_bad_impute_arguments():
    """Unknown method or a y of the wrong length: ValueError."""
    X, y = load_wine(return_X_y=True)
    model = QDA().fit(X, y)
    with pytest.raises(ValueError, match="method must be one of"):
        model.impute(X[:2], method="median")
    with pytest.raises(ValueError, match="y must have one label per row"):
        model.impute(X[:2], y=[0])


@pytest.mark.parametrize("make", [LDA, lambda: PoissonNB(alpha=0.5)], ids=["LDA", "PoissonNB"])
def test_a_dataframe_is_imputed_into_a_dataframe(make):
    """impute(DataFrame) is a DataFrame: the same index and columns, observed cells as
    given, and the filled cells those of the same model imputing the array; a float32
    column stays float32. With n_imputations, a list of such DataFrames."""
    import pandas as pd

    X, y = load_wine(return_X_y=True)
    X = X[:, :5] if make is LDA else np.round(X[:, [2, 4, 12]])
    rng = np.random.default_rng(4)
    gappy = np.where(rng.random(X.shape) < 0.2, np.nan, X)
    names = [f"c{j}" for j in range(X.shape[1])]
    frame = pd.DataFrame(gappy, columns=names, index=np.arange(1000, 1000 + len(X)))
    frame[names[0]] = frame[names[0]].astype(np.float32)
    on_frame, on_array = make().fit(frame, y), make().fit(frame.to_numpy(np.float64), y)
    filled = on_frame.impute(frame)
    assert isinstance(filled, pd.DataFrame)
    assert list(filled.columns) == names and filled.index.equals(frame.index)
    assert filled[names[0]].dtype == np.float32 and filled.notna().all().all()
    observed = frame.notna().to_numpy()
    np.testing.assert_array_equal(filled.to_numpy()[observed], frame.to_numpy()[observed])
    expected = on_array.impute(frame.to_numpy(np.float64))
    np.testing.assert_allclose(filled.to_numpy(np.float64), expected, rtol=1e-6)
    copies = on_frame.impute(frame, method="sample", n_imputations=2, random_state=0)
    arrays = on_array.impute(
        frame.to_numpy(np.float64), method="sample", n_imputations=2, random_state=0
    )
    assert len(copies) == 2 and all(isinstance(copy, pd.DataFrame) for copy in copies)
    for copy, array in zip(copies, arrays, strict=True):
        np.testing.assert_allclose(copy.to_numpy(np.float64), array, rtol=1e-6)
