"""`GaussianMixtureFamily`: the mixture family over Gaussian leaves with MixtureDA's sites and
story."""

import numpy as np
import pytest
from numpyro import handlers
from sklearn.datasets import load_iris

from bayesgen import MixtureDA, stories
from bayesgen.families.class_prior import Dirichlet
from bayesgen.families.component_mixture import MixtureFamily
from bayesgen.families.gaussian import GaussianFamily
from bayesgen.families.gaussian_mixture import GaussianMixtureFamily

X, y = load_iris(return_X_y=True)


@pytest.mark.parametrize("covariance_type", ["full", "tied", "diag", "spherical"])
def test_sites_are_the_fitted_attributes_and_invert_exactly(covariance_type):
    model = MixtureDA(n_components=[1, 2, 3], covariance_type=covariance_type, random_state=0)
    model.fit(X, y)
    family, params = model.family_, model.joint_.params
    assert isinstance(family, GaussianMixtureFamily) and family.covariance_type == covariance_type
    sites = family.sites(params)
    assert sites.keys() == {"weights", "means", "covariances"}
    np.testing.assert_array_equal(sites["weights"], model.weights_)
    np.testing.assert_array_equal(sites["means"], model.means_)
    np.testing.assert_array_equal(sites["covariances"], model.covariances_)
    assert sites["means"].shape == (3, 3, 4)
    back = family.params_from_sites(sites)
    np.testing.assert_array_equal(back.weights, params.weights)
    np.testing.assert_array_equal(back.leaves.means, params.leaves.means)
    np.testing.assert_array_equal(back.leaves.covariances, params.leaves.covariances)


def test_a_copy_over_another_leaf_keeps_the_class():
    """Learning columns or re-laying a leaf keeps the story (``_like`` makes its own class)."""
    family = GaussianMixtureFamily(GaussianFamily("diag"), n_components=2)
    assert type(family.with_learned()) is GaussianMixtureFamily
    assert type(MixtureFamily(GaussianFamily("diag")).with_learned()) is MixtureFamily


def test_its_story_part_has_mixture_discriminant_sites():
    """The registered part draws ``weights``, ``means`` and ``covariances`` per class and
    component (the generic mixture's are ``component_weights`` and the leaf's over pairs)."""
    model = MixtureDA(n_components=2, covariance_type="diag", random_state=0).fit(X, y)
    family = model.family_
    part = stories.part(family.story_name)(
        family, family.story_prior(model.joint_.feature_prior, 4), 3
    )
    with handlers.seed(rng_seed=0):
        trace = handlers.trace(stories.classifier_story).get_trace(
            None, None, class_prior=Dirichlet(np.ones(3)), part=part, n_samples=5
        )
    shapes = {name: np.shape(site["value"]) for name, site in trace.items()}
    assert shapes["weights"] == (3, 2)
    assert shapes["means"] == (3, 2, 4)
    assert shapes["covariances"] == (3, 2, 4)
    assert "component_weights" not in shapes


def test_registered_under_its_own_name_so_a_model_file_keeps_it(tmp_path):
    """A classifier over MixtureDA's family saves and loads it as the same class (the
    generic mixture's name would bring back a MixtureFamily with other story sites)."""
    from bayesgen import FamilyClassifier, load, registry

    assert registry.family("gaussian-mixture") is GaussianMixtureFamily
    family = MixtureDA(n_components=2, covariance_type="diag", random_state=0).fit(X, y).family_
    model = FamilyClassifier(family=family, random_state=0).fit(X, y)
    model.save(tmp_path / "model.bgm")
    loaded = load(tmp_path / "model.bgm")
    assert type(loaded.family) is GaussianMixtureFamily
    assert loaded.family.covariance_type == "diag"
    np.testing.assert_array_equal(loaded.predict_proba(X), model.predict_proba(X))
