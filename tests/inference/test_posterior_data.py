"""The posterior as a function of a fitted value (`bayesgen.inference.posterior_data`): a
family and a value alone give the estimator's InferenceData; draws handed back are checked
against the value's sites; NUTS starts at the EM fit."""

import numpy as np
import pytest
from sklearn.datasets import load_iris

import bayesgen
from bayesgen.inference import posterior_data


@pytest.fixture(scope="module")
def iris():
    return load_iris(return_X_y=True)


def _arrays(idata):
    return {
        (group, name): np.asarray(values)
        for group in idata.groups()
        for name, values in getattr(idata, group).items()
    }


@pytest.mark.parametrize(
    "model, missing",
    [
        (bayesgen.QDA(), 0.0),
        (bayesgen.GaussianNB(priors=[0.2, 0.3, 0.5]), 0.0),
        (bayesgen.LDA(), 0.1),  # the chains of data augmentation
    ],
)
def test_a_family_and_a_value_alone_give_the_estimators_posterior(iris, model, missing):
    X, y = iris
    X = X.copy()
    X[np.random.default_rng(0).random(X.shape) < missing] = np.nan
    model.fit(X, y)
    labels = np.searchsorted(model.classes_, y[:20])
    alone = posterior_data.posterior_data(
        model.family_,
        model.joint_,
        model._fit_settings().class_prior,
        method="exact",
        num_samples=12,
        num_chains=None,
        num_warmup=5,
        rows=(X[:20], labels),
        observed_labels=y[:20],
        classes=model.classes_.tolist(),
        features=[f"x{j}" for j in range(4)],
        random_state=3,
    )
    through = model.posterior(12, num_warmup=5, X=X[:20], y=y[:20], random_state=3)
    assert alone.groups() == through.groups()
    a, b = _arrays(alone), _arrays(through)
    assert a.keys() == b.keys()
    for key in a:
        np.testing.assert_array_equal(a[key], b[key], err_msg=str(key))
    assert dict(alone.posterior.attrs).get("sampler") == dict(through.posterior.attrs).get(
        "sampler"
    )


def test_the_pointwise_log_likelihood_is_the_joint_density_under_each_draw(iris):
    X, y = iris
    model = bayesgen.QDA().fit(X, y)
    draws = model._exact_draws(np.random.default_rng(1), 3)
    labels = np.searchsorted(model.classes_, y[:6])
    labels[0] = -1  # unlabelled: the mixture density
    values = posterior_data.pointwise_log_likelihood(
        model.family_, model.joint_, X[:6], labels, draws
    )
    for s in range(3):
        covariances, means = draws["covariances"][s], draws["means"][s]
        prior = draws["class_prior"][s]
        log_joint = np.array(
            [
                [
                    np.log(prior[k]) + _gaussian_log_density(X[i], means[k], covariances[k])
                    for k in range(3)
                ]
                for i in range(6)
            ]
        )
        expected = log_joint[np.arange(6), np.maximum(labels, 0)]
        expected[0] = np.logaddexp.reduce(log_joint[0])
        np.testing.assert_allclose(values[s], expected, rtol=1e-12)


def _gaussian_log_density(x, mean, covariance):
    centred = x - mean
    _, logdet = np.linalg.slogdet(covariance)
    quadratic = centred @ np.linalg.solve(covariance, centred)
    return -0.5 * (x.size * np.log(2 * np.pi) + logdet + quadratic)


def test_draws_of_another_models_sites_are_refused_by_name_and_shape(iris):
    X, y = iris
    qda = bayesgen.QDA().fit(X, y)
    naive = bayesgen.GaussianNB().fit(X, y).posterior(5, random_state=0)
    # The same site names, other shapes: a clear error, not a failure inside the algebra.
    with pytest.raises(ValueError, match=r"'covariances' has draws of shape \(3, 4\)"):
        qda.predict_proba_draws(X[:3], posterior=naive)
    poisson = bayesgen.PoissonNB().fit(np.rint(X).astype(int), y).posterior(5, random_state=0)
    with pytest.raises(ValueError, match=r"has the variables \['class_prior', 'rates'\]"):
        qda.predict_proba_draws(X[:3], posterior=poisson)
    own = qda.posterior(5, random_state=0)
    assert qda.predict_proba_draws(X[:3], posterior=own).shape == (5, 3, 3)


def test_nuts_starts_at_the_fit_inside_the_support_only():
    X = np.array([[1, 0], [1, 1], [0, 0], [0, 1], [1, 0], [0, 0]])
    y = np.array(["a", "a", "b", "b", None, None], dtype=object)
    model = bayesgen.BernoulliNB(estimate="mle").fit(X, y)
    start = posterior_data.nuts_start(model.family_, model.joint_)
    probabilities = np.asarray(model.feature_log_prob_)
    # A probability of exactly 0 or 1 is on the edge of the Beta's support: no start there.
    assert np.any(np.exp(probabilities) == 0) or np.any(np.exp(probabilities) == 1)
    assert "feature_probs" not in start
    np.testing.assert_array_equal(start["class_prior"], model.class_prior_)
    inside = bayesgen.BernoulliNB().fit(X, y)
    start = posterior_data.nuts_start(inside.family_, inside.joint_)
    np.testing.assert_array_equal(start["feature_probs"], np.exp(inside.feature_log_prob_))
