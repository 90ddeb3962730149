"""RegularisedGaussian: GaussianDA's point estimate (shrinkage, RDA, e1071's floor, reduced
rank) as a family of its own, checked against closed forms and the plain family."""

import numpy as np
import pytest
from sklearn.datasets import load_iris

from bayesgen import LDA, GaussianDA
from bayesgen.families.gaussian import GaussianFamily
from bayesgen.families.gaussian.regularised import RegularisedGaussian


def _iris():
    X, y = load_iris(return_X_y=True)
    return X, np.eye(3)[y]


@pytest.mark.parametrize("covariance_type", ["full", "tied", "diag", "spherical"])
@pytest.mark.parametrize("kind", ["mle", "map", "mean", "unbiased"])
def test_unregularised_is_the_gaussian_family(covariance_type, kind):
    """With every setting at its default the estimate is GaussianFamily's, exactly."""
    X, R = _iris()
    plain, regularised = GaussianFamily(covariance_type), RegularisedGaussian(covariance_type)
    stats = plain.suff_stats(X, R)
    prior, params = plain.estimate(stats, kind)
    prior_r, params_r = regularised.estimate(stats, kind)
    np.testing.assert_array_equal(params_r.means, params.means)
    np.testing.assert_array_equal(params_r.covariances, params.covariances)
    for a, b in zip(prior_r, prior, strict=True):
        np.testing.assert_array_equal(a, b)
    assert not regularised.is_regularised(3, 4)


def test_full_shrinkage_is_the_scaled_identity():
    """Intensity 1: each class covariance is tr(S_k)/d I, plus the ridge."""
    X, R = _iris()
    family = RegularisedGaussian("full", shrinkage=1.0, reg_covar=0.0)
    stats = family.suff_stats(X, R)
    _, params = family.estimate(stats, "mle")
    _, plain = GaussianFamily("full", reg_covar=0.0).estimate(stats, "mle")
    for shrunk, covariance in zip(params.covariances, plain.covariances, strict=True):
        expected = np.trace(covariance) / 4 * np.eye(4)
        np.testing.assert_allclose(shrunk, expected, rtol=1e-12, atol=1e-15)
    assert family.is_regularised(3, 4)


def test_rda_at_alpha_zero_is_the_pooled_covariance():
    """reg_alpha=0, reg_gamma=1: every class covariance is the tied estimate."""
    X, R = _iris()
    family = RegularisedGaussian("full", reg_alpha=0.0)
    _, params = family.estimate(family.suff_stats(X, R), "mle")
    tied = GaussianFamily("tied")
    _, pooled = tied.estimate(tied.suff_stats(X, R), "mle")
    for covariance in params.covariances:
        np.testing.assert_allclose(covariance, pooled.covariances, rtol=1e-12)


def test_reduced_rank_is_what_lda_predicts_with():
    """n_components=1: the means are LDA(n_components=1)'s, and differ from full rank."""
    X, y = load_iris(return_X_y=True)
    family = RegularisedGaussian("tied", n_components=1)
    _, params = family.estimate(family.suff_stats(X, np.eye(3)[y]), "mle")
    model = LDA(n_components=1).fit(X, y)
    np.testing.assert_allclose(params.means, model.means_, rtol=1e-12)
    full_rank = GaussianDA(covariance_type="tied").fit(X, y)
    assert not np.allclose(params.means, full_rank.means_)


def test_variance_floor_is_e1071s():
    """A variance whose standard deviation is at most eps becomes threshold**2."""
    X, R = _iris()
    X = X.copy()
    X[R[:, 0] == 1, 1] = 3.0  # constant within class 0
    family = RegularisedGaussian("diag", variance_floor=(0.5, 1e-3), reg_covar=0.0)
    _, params = family.estimate(family.suff_stats(X, R), "mle")
    assert params.covariances[0, 1] == 0.25
    assert params.covariances[1, 1] != 0.25


@pytest.mark.parametrize(
    ("settings", "named"),
    [
        ({"covariance_type": "tied", "reg_alpha": 0.5}, "reg_alpha"),
        ({"covariance_type": "full", "reg_gamma": 1.5}, "reg_gamma"),
        ({"covariance_type": "diag", "shrinkage": 0.2}, "shrinkage"),
        ({"covariance_type": "full", "shrinkage": "oas"}, "shrinkage"),
        ({"covariance_type": "full", "n_components": 1}, "n_components"),
    ],
)
def test_bad_settings_are_named(settings, named):
    covariance_type = settings.pop("covariance_type")
    with pytest.raises(ValueError, match=named):
        RegularisedGaussian(covariance_type, **settings)


def test_ledoit_wolf_without_moments_is_refused():
    X, R = _iris()
    family = RegularisedGaussian("full", shrinkage="ledoit-wolf")
    with pytest.raises(ValueError, match="fourth moments"):
        family.estimate(family.suff_stats(X, R), "mle")


def test_a_regularised_family_has_no_conjugate_posterior():
    """Its point estimate departs from the prior's posterior, so the family refuses it, in
    any estimator; the unregularised family's is GaussianFamily's."""
    from bayesgen import FamilyClassifier

    X, y = load_iris(return_X_y=True)
    model = FamilyClassifier(family=RegularisedGaussian("full", shrinkage=1.0)).fit(X, y)
    # The family's capability refuses first (exact_posterior_refusal), for any estimator.
    refusal = "This FamilyClassifier has a regularised point estimate"
    with pytest.raises(ValueError, match=refusal):
        model.predict_proba(X[:2], method="predictive")
    with pytest.raises(ValueError, match=refusal):
        model.posterior(5)
    X_, R = _iris()
    stats = GaussianFamily("full").suff_stats(X_, R)
    prior = GaussianFamily("full").prior(stats)
    for a, b in zip(
        RegularisedGaussian("full").posterior(prior, stats),
        GaussianFamily("full").posterior(prior, stats),
        strict=True,
    ):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"covariance_type": "diag", "reg_alpha": 0.5}, "reg_alpha applies to covariance_type"),
        ({"reg_gamma": 1.5}, "reg_gamma"),
        ({"covariance_type": "spherical", "shrinkage": 0.2}, "shrinkage applies to"),
        ({"shrinkage": "auto"}, "shrinkage must be None, 'ledoit-wolf' or a float"),
        ({"covariance_type": "tied", "n_components": 0}, "n_components must be None or an"),
        ({"covariance_type": "full", "n_components": 1}, "needs one shared covariance"),
    ],
)
def test_the_family_checks_its_regularisation(settings, message):
    """The family's own check (model files, FamilyClassifier and GaussianDA read it)."""
    with pytest.raises(ValueError, match=message):
        RegularisedGaussian(**settings).check()
    family = RegularisedGaussian("tied", shrinkage=0.3, n_components=1)
    assert family.check() is family
    from bayesgen import FamilyClassifier

    X, y = load_iris(return_X_y=True)
    with pytest.raises(ValueError, match=message):
        FamilyClassifier(family=RegularisedGaussian(**settings)).fit(X, y)


def test_a_ledoit_wolf_family_fits_complete_rows_only_and_says_so():
    assert RegularisedGaussian("full", shrinkage="ledoit-wolf").input_rows.missing_at_fit is False
    assert RegularisedGaussian("full", shrinkage=0.5).input_rows.missing_at_fit is True
    X, y = load_iris(return_X_y=True)
    gappy = X.copy()
    gappy[0, 0] = np.nan
    with pytest.raises(ValueError, match="missing"):
        GaussianDA(shrinkage="ledoit-wolf").fit(gappy, y)
    # ... while predicting integrates a missing entry out, as for every Gaussian.
    model = GaussianDA(shrinkage="ledoit-wolf").fit(X, y)
    assert np.all(np.isfinite(model.predict_proba(gappy[:3])))
