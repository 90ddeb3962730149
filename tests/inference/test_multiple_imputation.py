"""``impute(X, method="sample", n_imputations=m)``: copies under posterior parameter draws."""

import numpy as np
import pandas as pd
import pytest

from bayesgen import QDA, GaussianNB, MixedNB
from bayesgen._precision import precision


@pytest.fixture(scope="module")
def few_rows():
    """Two Gaussian classes of 15 rows: the class means are uncertain."""
    rng = np.random.default_rng(0)
    X = np.r_[rng.normal([0, 0], 1, (15, 2)), rng.normal([3, 1], 1, (15, 2))]
    return X, np.r_[np.zeros(15), np.ones(15)]


def test_between_imputation_variance_is_the_posterior_variance_of_the_mean(few_rows):
    """Rows with nothing observed, of a known class: the mean of a copy's imputed entries
    is a draw of mu_k plus noise, so across copies its variance is the Normal–Inverse-Wishart
    Var[mu_k | D] = Psi / (kappa (nu - d - 1)) plus E[Sigma_k | D] / n."""
    X, y = few_rows
    model = QDA().fit(X, y)
    n_rows, n_copies = 500, 400
    copies = model.impute(
        np.full((n_rows, 2), np.nan),
        method="sample",
        y=np.zeros(n_rows),
        n_imputations=n_copies,
        random_state=1,
    )
    assert copies.shape == (n_copies, n_rows, 2)
    with precision(np.float64):
        posterior = model.family_.posterior(model.prior_, model.suff_stats_)
    kappa, dof, scale = (np.asarray(v)[0] for v in posterior[1:])
    expected_sigma = np.diag(scale) / (dof - 2 - 1)
    expected = expected_sigma / kappa + expected_sigma / n_rows
    between = copies.mean(axis=1).var(axis=0, ddof=1)
    # A variance from 400 copies has a relative standard error of about 7%.
    np.testing.assert_allclose(between, expected, rtol=0.25)
    # Under the fitted parameters alone the spread would be Sigma / n, 100 times smaller.
    assert np.all(between > 20 * np.diag(model.covariances_[0]) / n_rows)
    np.testing.assert_allclose(copies.mean(axis=(0, 1)), np.asarray(posterior.mean)[0], atol=0.1)


def test_copies_keep_observed_entries_and_differ_elsewhere(few_rows):
    X, y = few_rows
    model = GaussianNB().fit(X, y)
    gappy = X.copy()
    gappy[::3, 0] = np.nan
    copies = model.impute(gappy, method="sample", n_imputations=3, random_state=0)
    observed = ~np.isnan(gappy)
    for copy in copies:
        np.testing.assert_array_equal(copy[observed], gappy[observed])
        assert not np.isnan(copy).any()
    assert np.all(copies[0][~observed] != copies[1][~observed])
    again = model.impute(gappy, method="sample", n_imputations=3, random_state=0)
    np.testing.assert_array_equal(copies, again)


def test_model_fitted_on_gappy_rows_imputes_by_data_augmentation(few_rows):
    X, y = few_rows
    gappy = X.copy()
    gappy[np.random.default_rng(3).random(X.shape) < 0.3] = np.nan
    gappy[0] = X[0]
    model = QDA().fit(gappy, y)
    assert model.fitted_with_missing_
    copies = model.impute(gappy, method="sample", y=y, n_imputations=4, random_state=0)
    observed = ~np.isnan(gappy)
    assert copies.shape == (4, *X.shape)
    assert np.all(copies[:, observed] == gappy[observed])
    assert np.unique(copies[:, ~observed], axis=0).shape[0] == 4
    unlabelled = model.impute(gappy, method="sample", n_imputations=2, random_state=0)
    assert not np.isnan(unlabelled).any()
    partly = np.where(np.arange(y.size) % 2 == 0, y, -1)
    some = model.impute(gappy, method="sample", y=partly, n_imputations=2, random_state=0)
    assert np.all(some[:, observed] == gappy[observed]) and not np.isnan(some).any()


def test_rows_without_a_label_mix_over_the_classes(few_rows):
    """y = -1 rows are imputed over p(k | x_o); labelled rows given their class."""
    X, y = few_rows
    model = QDA().fit(X, y)
    gappy = X.copy()
    gappy[[0, 25]] = np.nan  # nothing observed: p(k | x_o) is the class prior (1/2, 1/2)
    partly = np.where(np.arange(y.size) < 10, y, -1)
    assert partly[0] == 0 and partly[25] == -1
    copies = model.impute(gappy, method="sample", y=partly, n_imputations=300, random_state=0)
    means = model.means_[:, 0]
    assert abs(copies[:, 0, 0].mean() - means[0]) < 0.3
    assert abs(copies[:, 25, 0].mean() - means.mean()) < 0.4


@pytest.mark.parametrize("bad", [0, -1, 1.5, True])
def test_n_imputations_below_one_is_refused(few_rows, bad):
    X, y = few_rows
    model = GaussianNB().fit(X, y)
    with pytest.raises(ValueError, match="n_imputations"):
        model.impute(X, method="sample", n_imputations=bad)


def test_n_imputations_needs_sampling(few_rows):
    X, y = few_rows
    with pytest.raises(ValueError, match="n_imputations needs method='sample'"):
        GaussianNB().fit(X, y).impute(X, n_imputations=2)


def test_mixed_nb_copies_are_frames_whose_gaussian_spread_is_the_posterior_one(few_rows):
    """MixedNB: a list of DataFrames (training dtypes, seen categories only); the Gaussian
    column's between-copy variance is GaussianNB's Normal–Inverse-Gamma one for that column
    (same data, same default prior), far above the fitted parameters' spread."""
    X, y = few_rows
    frame = pd.DataFrame({"x": X[:, 0], "colour": np.where(X[:, 1] > 0.5, "red", "blue")})
    model = MixedNB().fit(frame, y)
    n_rows, n_copies = 300, 300
    blank = pd.DataFrame({"x": np.full(n_rows, np.nan), "colour": [None] * n_rows})
    copies = model.impute(
        blank, method="sample", y=np.zeros(n_rows), n_imputations=n_copies, random_state=2
    )
    assert isinstance(copies, list) and len(copies) == n_copies
    assert all(list(copy.columns) == ["x", "colour"] for copy in copies)
    assert set(pd.concat(copies)["colour"]) <= {"red", "blue"}
    assert not any(copy.isna().any().any() for copy in copies)
    reference = GaussianNB().fit(X[:, :1], y)
    with precision(np.float64):
        posterior = reference.family_.posterior(reference.prior_, reference.suff_stats_)
    kappa, dof, scale = (float(np.asarray(v)[0].ravel()[0]) for v in posterior[1:])
    expected_sigma = scale / (dof - 2)
    expected = expected_sigma / kappa + expected_sigma / n_rows
    between = np.var([copy["x"].mean() for copy in copies], ddof=1)
    # A variance from 300 copies has a relative standard error of about 8%.
    np.testing.assert_allclose(between, expected, rtol=0.3)
    assert between > 5 * reference.var_[0, 0] / n_rows
    # Partly labelled rows keep their order and index.
    partial = model.impute(
        frame.assign(x=np.where(np.arange(30) % 2, np.nan, frame["x"])),
        method="sample",
        y=np.where(np.arange(30) % 3, y, -1),
        n_imputations=2,
        random_state=0,
    )
    assert list(partial[0].index) == list(frame.index)
    np.testing.assert_array_equal(partial[1]["x"].to_numpy()[::2], frame["x"].to_numpy()[::2])
    with pytest.raises(ValueError, match="n_imputations must be >= 1"):
        model.impute(blank, method="sample", n_imputations=0)


def test_a_request_larger_than_memory_is_refused_before_any_draw(few_rows, monkeypatch):
    """Issue 33: impute(n_imputations=10**7) had no size check."""
    from bayesgen import _memory

    X, y = few_rows
    model = GaussianNB().fit(X, y)
    gappy = X.copy()
    gappy[::3, 0] = np.nan
    monkeypatch.setattr(_memory, "available_bytes", lambda: 10 * 2**20)  # 10 MiB free
    # 10**7 copies of 30 rows x 2 features (and 2 x 2 draws each), 8 bytes a value: 4.8 GiB.
    with pytest.raises(
        MemoryError,
        match=r"impute\(n_imputations=10000000\) of 30 rows would "
        r"need about 4\.8 GiB of memory; 10\.0 MiB is available",
    ):
        model.impute(gappy, method="sample", n_imputations=10**7)
    assert model.impute(gappy, method="sample", n_imputations=3).shape == (3, 30, 2)
