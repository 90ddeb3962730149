"""Posteriors against R's MASS::lda, MASS::qda and e1071::naiveBayes on real data sets.

The CSV files in tests/fixtures/r/ hold each data set and R's posterior of every training
row; tests/fixtures/r/make_r_fixtures.R made them (R is not needed here). R's conventions:
class proportions as priors, the unbiased covariances (``estimate="unbiased"``), no ridge
(``reg_covar=0``), and Laplace smoothing over the levels seen (``unseen_category=False``).
"""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from bayesgen import LDA, QDA, CategoricalNB, GaussianDA, GaussianNB

FIXTURES = Path(__file__).parents[1] / "fixtures" / "r"
GAUSSIAN = {"lda": LDA, "qda": QDA, "naive_bayes": GaussianNB}


def _read(name):
    table = pd.read_csv(FIXTURES / f"{name}.csv", keep_default_na=False, na_values=[""])
    posterior = [column for column in table.columns if column.startswith("posterior_")]
    features = [column for column in table.columns if column not in posterior + ["class"]]
    return table[features], table["class"].to_numpy(str), table[posterior]


def _r_posterior(posterior, classes):
    return posterior[[f"posterior_{label}" for label in classes]].to_numpy()


@pytest.mark.parametrize(
    "name",
    sorted(
        path.stem
        for path in FIXTURES.glob("*.csv")
        if path.stem.rsplit("_", 1)[-1] in ("lda", "qda") or path.stem.endswith("naive_bayes")
        # e1071's floor (threshold) changes these two; tested below with it.
        if path.stem not in ("house_votes_naive_bayes", "breast_cancer_naive_bayes")
        if path.stem != "fgl_naive_bayes"
    ),
)
def test_gaussian_posteriors_equal_r(name):
    X, y, posterior = _read(name)
    model_name = name.split("_", 1)[1]
    model = GAUSSIAN[model_name](estimate="unbiased", reg_covar=0).fit(X.to_numpy(float), y)
    np.testing.assert_allclose(
        model.predict_proba(X.to_numpy(float)), _r_posterior(posterior, model.classes_), atol=1e-10
    )


def test_fgl_equals_e1071_with_its_threshold():
    """Issue 33: fgl has features constant within a class (Fe and K in Tabl, say), whose
    standard deviation of 0 e1071 floors at threshold=0.001, and densities that underflow
    to 0, which it floors too. GaussianNB(threshold=0.001) does both."""
    X, y, posterior = _read("fgl_naive_bayes")
    X = X.to_numpy(float)
    model = GaussianNB(estimate="unbiased", reg_covar=0, threshold=0.001).fit(X, y)
    np.testing.assert_allclose(
        model.predict_proba(X), _r_posterior(posterior, model.classes_), atol=1e-10
    )
    assert np.any(np.sqrt(model.var_) == 0.001)  # the floor was needed
    with pytest.raises(ValueError, match="singular"):
        GaussianNB(estimate="unbiased", reg_covar=0).fit(X, y)


def test_breast_cancer_equals_e1071_with_its_threshold():
    """e1071's default laplace=0 leaves categories a class never shows at probability 0;
    predict.naiveBayes floors them at threshold=0.001. NA entries are left out."""
    X, y, posterior = _read("breast_cancer_naive_bayes")
    X = X.to_numpy(object)
    X[pd.isna(X)] = None
    model = CategoricalNB(estimate="mle", unseen_category=False, threshold=0.001).fit(X, y)
    np.testing.assert_allclose(
        model.predict_proba(X), _r_posterior(posterior, model.classes_), atol=1e-10
    )
    # Without the floor a zero probability decides rows alone: far from R.
    unfloored = CategoricalNB(estimate="mle", unseen_category=False).fit(X, y)
    assert np.abs(unfloored.predict_proba(X) - model.predict_proba(X)).max() > 0.1


@pytest.mark.parametrize(
    "kwargs, match",
    [({"threshold": 0}, "threshold"), ({"threshold": "a"}, "threshold"),
     ({"threshold": 0.001, "eps": -1}, "eps"), ({"threshold": 0.001, "eps": np.nan}, "eps")],
)  # fmt: skip
@pytest.mark.parametrize("model", [GaussianNB, CategoricalNB])
def test_bad_thresholds_are_named(model, kwargs, match):
    with pytest.raises(ValueError, match=match):
        model(**kwargs).fit([[0.0], [1.0]], [0, 1])


def test_house_votes_equal_e1071_without_the_unseen_category():
    X, y, posterior = _read("house_votes_naive_bayes")
    X = X.to_numpy(object)
    X[pd.isna(X)] = None  # R's NA: left out of the counts and of the likelihood
    model = CategoricalNB(unseen_category=False).fit(X, y)
    np.testing.assert_allclose(
        model.predict_proba(X), _r_posterior(posterior, model.classes_), atol=1e-10
    )
    # With the extra category the smoothing differs (the issue measured 0.013).
    default = CategoricalNB().fit(X, y)
    assert np.abs(default.predict_proba(X) - model.predict_proba(X)).max() > 1e-3


def test_unbiased_divisors_are_the_textbook_ones():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3))
    y = np.repeat([0, 1, 2], [10, 13, 17])
    counts = np.bincount(y)
    deviations = [X[y == k] - X[y == k].mean(axis=0) for k in range(3)]
    scatter = [d.T @ d for d in deviations]
    full = GaussianDA(covariance_type="full", estimate="unbiased", reg_covar=0).fit(X, y)
    tied = GaussianDA(covariance_type="tied", estimate="unbiased", reg_covar=0).fit(X, y)
    diag = GaussianDA(covariance_type="diag", estimate="unbiased", reg_covar=0).fit(X, y)
    for k in range(3):
        np.testing.assert_allclose(full.covariances_[k], np.cov(X[y == k].T), rtol=1e-12)
        np.testing.assert_allclose(diag.covariances_[k], X[y == k].var(axis=0, ddof=1))
    np.testing.assert_allclose(tied.covariances_, sum(scatter) / (40 - 3), rtol=1e-12)
    np.testing.assert_allclose(full.class_prior_, counts / 40)
    np.testing.assert_allclose(full.means_[1], X[y == 1].mean(axis=0))


def test_the_floor_is_decided_in_double_precision_as_r_does():
    """A float32 row's density underflows at about exp(-104); e1071 works in doubles, so the
    floor must not depend on the input's precision (second read of issue 33's floor)."""
    X = np.array([[0.0, 0.0], [1.0, 0.1], [0.5, 0.2], [10.0, 0.0], [11.0, 0.1], [10.5, 0.2]])
    y = np.array([0, 0, 0, 1, 1, 1])
    model = GaussianNB(threshold=0.001).fit(X, y)
    row = np.array([[16.0, 0.0]])
    np.testing.assert_allclose(
        model.score_samples(row.astype(np.float32)), model.score_samples(row), rtol=1e-5
    )
