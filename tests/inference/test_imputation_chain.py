"""Multiple imputation by data augmentation over the rows passed (a fit with unlabelled
rows has no closed-form posterior of its own): `bayesgen.inference.imputation_chain`."""

import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.utils import check_random_state

from bayesgen import LDA, QDA, FamilyClassifier, GaussianNB, MixedNB, MixtureDA
from bayesgen._precision import precision
from bayesgen.families.gaussian.regularised import RegularisedGaussian
from bayesgen.inference import imputation_chain
from bayesgen.inference.sampling import numpy_generator
from bayesgen.joint import family_of


@pytest.fixture(scope="module")
def few_rows():
    """Two Gaussian classes of 15 rows: the class means are uncertain."""
    rng = np.random.default_rng(0)
    X = np.r_[rng.normal([0, 0], 1, (15, 2)), rng.normal([3, 1], 1, (15, 2))]
    return X, np.r_[np.zeros(15), np.ones(15)]


def _semi_supervised(model, X, y):
    """``model`` fitted with a third of the rows unlabelled (EM)."""
    partly = np.where(np.arange(y.size) % 3 == 0, -1, y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # -1 beside integer-valued classes
        model.fit(X, partly)
    assert model.fitted_with_unlabeled_
    return model


def test_the_chain_draws_from_the_posterior_of_the_rows_passed(few_rows):
    """The training rows, every label given, and 10 blank rows of class 0: the chain's law
    of the blank rows' mean is that of the Normal–Inverse-Wishart posterior of the complete
    rows, Var[mu_0 | D] + E[Sigma_0 | D] / 10, as for a model fitted on them in closed form."""
    X, y = few_rows
    model = _semi_supervised(QDA(), X, y)
    n_blank, n_copies = 10, 400
    rows = np.r_[X, np.full((n_blank, 2), np.nan)]
    labels = np.r_[y, np.zeros(n_blank)]
    copies = model.impute(rows, method="sample", y=labels, n_imputations=n_copies, random_state=0)
    assert copies.shape == (n_copies, 40, 2)
    np.testing.assert_array_equal(copies[:, :30], np.broadcast_to(X, (n_copies, 30, 2)))
    reference = QDA().fit(X, y)
    with precision(np.float64):
        posterior = reference.family_.posterior(reference.prior_, reference.suff_stats_)
    kappa, dof, scale = (np.asarray(v)[0] for v in posterior[1:])
    expected_sigma = np.diag(scale) / (dof - 2 - 1)
    expected = expected_sigma / kappa + expected_sigma / n_blank
    between = copies[:, 30:].mean(axis=1).var(axis=0, ddof=1)
    # 400 copies 5 sweeps apart: a relative standard error of about 7-8 %.
    np.testing.assert_allclose(between, expected, rtol=0.25)
    np.testing.assert_allclose(
        copies[:, 30:].mean(axis=(0, 1)), np.asarray(posterior.mean)[0], atol=0.25
    )


def test_unlabelled_rows_take_classes_along_the_chain(few_rows):
    """Rows with nothing observed and no label are drawn over both classes; rows with one
    entry observed far inside a class are completed from that class."""
    X, y = few_rows
    model = _semi_supervised(QDA(), X, y)
    rows = np.r_[X, np.full((20, 2), np.nan), [[np.nan, -2.0]] * 5]
    copies = model.impute(rows, method="sample", n_imputations=60, random_state=1)
    assert not np.isnan(copies).any()
    blank_first = copies[:, 30:50, 0].ravel()
    # A mixture of the two classes' first coordinates (means about 0 and 3).
    assert np.mean(blank_first > 1.5) == pytest.approx(0.5, abs=0.15)
    assert np.all(copies[:, 50:, 1] == -2.0) and copies[:, 50:, 0].mean() < 1.0


def test_same_random_state_same_copies_and_a_frame_for_a_frame(few_rows):
    X, y = few_rows
    frame = pd.DataFrame({"x": X[:, 0], "colour": np.where(X[:, 1] > 0.5, "red", "blue")})
    gappy = frame.assign(x=np.where(np.arange(30) % 4 == 0, np.nan, frame["x"]))
    gappy.loc[1::5, "colour"] = None
    model = _semi_supervised(MixedNB(), frame, y)
    copies = model.impute(gappy, method="sample", n_imputations=3, random_state=4)
    again = model.impute(gappy, method="sample", n_imputations=3, random_state=4)
    assert isinstance(copies, list) and len(copies) == 3
    for copy, same in zip(copies, again, strict=True):
        pd.testing.assert_frame_equal(copy, same)
        assert list(copy.columns) == ["x", "colour"] and not copy.isna().any().any()
        assert set(copy["colour"]) <= {"red", "blue"}
        observed = gappy["x"].notna()
        np.testing.assert_array_equal(copy["x"][observed], gappy["x"][observed])
    assert not np.array_equal(copies[0]["x"], copies[1]["x"])


def test_a_class_no_row_is_drawn_into_keeps_its_place(few_rows):
    """A draw of labels that leaves a class empty is still a draw of the same model (its
    classes, its columns): the copies come back whole."""
    X, y = few_rows
    model = _semi_supervised(QDA(reg_covar=1e-3), X, y)
    rows = np.full((3, 2), np.nan)
    copies = model.impute(rows, method="sample", y=np.zeros(3), n_imputations=5, random_state=0)
    assert copies.shape == (5, 3, 2) and np.isfinite(copies).all()


def test_the_chain_is_a_function_of_the_value(few_rows):
    """The chain runs from the family, the fitted value and the fit settings alone; its
    copies are the estimator's."""
    X, y = few_rows
    model = _semi_supervised(QDA(), X, y)
    gappy = X.copy()
    gappy[::4, 1] = np.nan
    copies, n_impossible = imputation_chain.chain_copies(
        family_of(model._base_family(), model.joint_),
        model.joint_,
        model._fit_settings(),
        gappy.copy(),
        np.full(30, -1),
        2,
        numpy_generator(check_random_state(7)),
    )
    assert n_impossible == 0
    np.testing.assert_array_equal(
        np.stack(copies), model.impute(gappy, method="sample", n_imputations=2, random_state=7)
    )


def test_a_model_without_a_posterior_is_refused_before_any_draw(few_rows):
    X, y = few_rows
    mixture = _semi_supervised(MixtureDA(n_components=2, random_state=0), X, y)
    with pytest.raises(ValueError, match="This MixtureDA.*predict_proba_draws"):
        mixture.impute(X, method="sample", n_imputations=2)
    regularised = _semi_supervised(
        FamilyClassifier(family=RegularisedGaussian("full", shrinkage=0.5)), X, y
    )
    with pytest.raises(ValueError, match="This FamilyClassifier"):
        regularised.impute(X, method="sample", n_imputations=2)


@pytest.mark.parametrize("bad", [np.zeros(29), np.zeros((30, 1)), np.full(30, 7.0)])
def test_labels_that_do_not_fit_are_refused_by_name(few_rows, bad):
    X, y = few_rows
    model = _semi_supervised(QDA(), X, y)
    with pytest.raises(ValueError, match="y"):
        model.impute(X, method="sample", y=bad, n_imputations=2)


def test_the_chain_holds_the_fitted_prior():
    """Three rows of class 0 with two entries observed in all: the chain's law of the blank
    row is the posterior predictive under the fitted (data-derived) prior given those two
    entries, E[sigma^2] (1 + 1 / kappa) per feature. Resolving the prior again from the rows
    the chain completed collapsed it onto the observed values (a spread of 0.002)."""
    rng = np.random.default_rng(0)
    X = np.r_[rng.normal([0, 0], 1, (20, 2)), rng.normal([6, 6], 1, (20, 2))]
    y = np.r_[np.zeros(20), np.ones(20)]
    model = _semi_supervised(GaussianNB(), X, y)
    rows = np.array([[np.nan, 0.1], [0.2, np.nan], [np.nan, np.nan]])
    copies = model.impute(rows, method="sample", y=np.zeros(3), n_imputations=400, random_state=0)
    prior = model.joint_.feature_prior
    observed = np.array([0.2, 0.1])  # one entry per feature
    mean0 = np.asarray(prior.mean)[0]
    kappa0, dof0 = float(np.asarray(prior.mean_precision)), float(np.asarray(prior.dof))
    scale = np.asarray(prior.scale)[0] + kappa0 / (kappa0 + 1) * (observed - mean0) ** 2
    expected = scale / (dof0 + 1 - 2) * (1 + 1 / (kappa0 + 1))
    # 400 copies of a slowly mixing chain (two of six entries observed): about 15 %.
    np.testing.assert_allclose(copies[:, 2].var(axis=0, ddof=1), expected, rtol=0.4)


def test_refusals_of_the_model_hold_on_the_chain_and_the_marker_is_the_models(few_rows):
    """A covariance_estimator has no conjugate posterior however the model was fitted; and
    y's unknown rows are marked as the model marks them (unlabeled_marker)."""
    from sklearn.covariance import LedoitWolf

    X, y = few_rows
    for model in (LDA(covariance_estimator=LedoitWolf()).fit(X, y),):
        with pytest.raises(ValueError, match="covariance_estimator"):
            model.impute(X, method="sample", n_imputations=2)
    coded = np.where(y == 0, -1, 1)  # -1 is a class here
    model = QDA(unlabeled_marker=None).fit(X, coded)
    blank = np.full((200, 2), np.nan)
    copies = model.impute(
        blank, method="sample", y=np.full(200, -1), n_imputations=3, random_state=0
    )
    # Every row is of class -1 (mean about (0, 0)), none drawn over both classes.
    assert abs(copies[..., 0].mean() - model.means_[0, 0]) < 0.3
    asked = QDA(unlabeled_marker="?").fit(X, y)
    partly = np.where(np.arange(30) % 2, y.astype(object), "?")
    copies = asked.impute(X, method="sample", y=partly, n_imputations=2, random_state=0)
    assert copies.shape == (2, 30, 2)
