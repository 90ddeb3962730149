"""``sample(given=...)``: draws from the exact conditional law, with no rejection.

References are closed forms on small fitted models: the class posterior given the given
values, $p(k \\mid x_o) \\propto \\pi_k\\,p(x_o \\mid k)$, and the law of the other
columns given the class (a conditional Gaussian, a Poisson), checked by frequencies and
Kolmogorov–Smirnov tests on many draws. The conditions are rare on purpose: values that
fewer than 1 % of the training rows reach.
"""

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import bayesgen
from bayesgen.conditioning import given_rows

N_DRAWS = 20_000
Z = 4.5  # standard errors allowed for a Monte Carlo frequency or mean


def _correlated(seed=0, n=600):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    means = np.array([[0.0, 0.0], [2.0, 1.0]])
    covariances = np.array([[[1.0, 0.8], [0.8, 1.0]], [[1.5, -0.6], [-0.6, 1.0]]])
    X = np.stack([rng.multivariate_normal(means[k], covariances[k]) for k in y])
    return X, y


def _check_frequencies(drawn_classes, probabilities):
    for k, p in enumerate(probabilities):
        share = np.mean(drawn_classes == k)
        allowed = Z * np.sqrt(p * (1 - p) / drawn_classes.size) + 1e-12
        assert abs(share - p) <= allowed, (k, share, p)


def test_qda_given_a_rare_value_draws_the_class_posterior_and_the_conditional_gaussian():
    X, y = _correlated()
    model = bayesgen.QDA().fit(X, y)
    value = float(np.quantile(X[:, 0], 0.995))  # fewer than 1 % of rows reach it
    assert np.mean(X[:, 0] >= value) < 0.01
    drawn, labels = model.sample(N_DRAWS, given={0: value}, random_state=0)
    assert np.all(drawn[:, 0] == value)
    means, covariances, prior = model.means_, model.covariances_, model.class_prior_
    log_joint = np.log(prior) + stats.norm.logpdf(value, means[:, 0], np.sqrt(covariances[:, 0, 0]))
    posterior = np.exp(log_joint - np.logaddexp.reduce(log_joint))
    _check_frequencies(labels, posterior)
    for k in range(2):
        rows = drawn[labels == k, 1]
        if rows.size < 200:
            continue
        slope = covariances[k, 1, 0] / covariances[k, 0, 0]
        mean = means[k, 1] + slope * (value - means[k, 0])
        sd = np.sqrt(covariances[k, 1, 1] - slope * covariances[k, 0, 1])
        assert stats.kstest(rows, stats.norm(mean, sd).cdf).pvalue > 1e-3, k


def test_given_a_class_too_draws_the_conditional_of_that_class():
    X, y = _correlated(seed=1)
    model = bayesgen.QDA().fit(X, y)
    drawn, labels = model.sample(N_DRAWS, y=0, given={1: -2.5}, random_state=1)
    assert np.all(labels == 0) and np.all(drawn[:, 1] == -2.5)
    means, covariances = model.means_[0], model.covariances_[0]
    slope = covariances[0, 1] / covariances[1, 1]
    mean = means[0] + slope * (-2.5 - means[1])
    sd = np.sqrt(covariances[0, 0] - slope * covariances[1, 0])
    assert stats.kstest(drawn[:, 0], stats.norm(mean, sd).cdf).pvalue > 1e-3


def test_a_mixture_given_a_value_weighs_each_class_by_its_components():
    X, y = _correlated(seed=2, n=800)
    model = bayesgen.MixtureDA(n_components=2, covariance_type="full", random_state=0).fit(X, y)
    value = float(np.quantile(X[:, 1], 0.005))
    drawn, labels = model.sample(N_DRAWS, given={1: value}, random_state=2)
    assert np.all(drawn[:, 1] == value)
    weights, means, covariances = model.weights_, model.means_, model.covariances_
    log_joint = np.log(model.class_prior_)[:, None] + np.log(weights)
    log_joint = log_joint + stats.norm.logpdf(value, means[..., 1], np.sqrt(covariances[..., 1, 1]))
    by_class = np.logaddexp.reduce(log_joint, axis=1)
    _check_frequencies(labels, np.exp(by_class - np.logaddexp.reduce(by_class)))
    for k in range(2):  # x0 given x1 and the class: a mixture of conditional Gaussians
        rows = drawn[labels == k, 0]
        component = np.exp(log_joint[k] - by_class[k])
        slope = covariances[k, :, 0, 1] / covariances[k, :, 1, 1]
        mean = means[k, :, 0] + slope * (value - means[k, :, 1])
        sd = np.sqrt(covariances[k, :, 0, 0] - slope * covariances[k, :, 1, 0])
        cdf = lambda x, w=component, m=mean, s=sd: np.sum(w * stats.norm.cdf(x[:, None], m, s), 1)  # noqa: E731
        assert stats.kstest(rows, cdf).pvalue > 1e-3, k


def test_poisson_counts_given_a_rare_count():
    rng = np.random.default_rng(3)
    y = rng.integers(0, 3, 900)
    rates = np.array([[1.0, 4.0, 2.0], [3.0, 1.0, 6.0], [6.0, 2.0, 1.0]])
    X = rng.poisson(rates[y])
    model = bayesgen.PoissonNB().fit(X, y)
    count = int(np.quantile(X[:, 0], 0.995)) + 1
    assert np.mean(X[:, 0] >= count) < 0.01
    drawn, labels = model.sample(N_DRAWS, given={0: count}, random_state=3)
    assert drawn.dtype == np.int64 and np.all(drawn[:, 0] == count)
    fitted = model.rates_
    log_joint = np.log(model.class_prior_) + stats.poisson.logpmf(count, fitted[:, 0])
    _check_frequencies(labels, np.exp(log_joint - np.logaddexp.reduce(log_joint)))
    for k in range(3):
        rows = drawn[labels == k, 2]
        if rows.size < 200:
            continue
        assert abs(rows.mean() - fitted[k, 2]) <= Z * np.sqrt(fitted[k, 2] / rows.size), k


def test_a_table_keeps_its_columns_and_a_rare_category_is_in_every_row():
    rng = np.random.default_rng(4)
    n = 1000
    y = rng.integers(0, 2, n)
    colour = np.where(rng.uniform(size=n) < 0.006, "violet", np.where(y == 1, "red", "blue"))
    frame = pd.DataFrame(
        {
            "size": rng.normal(10 + 5 * y, 2.0),
            "colour": pd.Categorical(colour, categories=["blue", "red", "violet"]),
            "count": rng.poisson(2 + 3 * y),
        }
    )
    model = bayesgen.MixedNB().fit(frame, y)
    drawn, labels = model.sample(500, given={"colour": "violet", "size": 12.5}, random_state=4)
    assert list(drawn.columns) == ["size", "colour", "count"]
    assert (drawn["colour"] == "violet").all() and (drawn["size"] == 12.5).all()
    assert isinstance(drawn["colour"].dtype, pd.CategoricalDtype)
    assert drawn["count"].dtype == frame["count"].dtype
    again, labels_again = model.sample(
        500, given={"colour": "violet", "size": 12.5}, random_state=4
    )
    pd.testing.assert_frame_equal(drawn, again)
    np.testing.assert_array_equal(labels, labels_again)


def test_one_value_per_row():
    X, y = _correlated(seed=5)
    model = bayesgen.LDA().fit(X, y)
    values = np.linspace(-1, 3, 7)
    drawn, labels = model.sample(given={0: values}, y=np.array([0, 1, 0, 1, 0, 1, 0]))
    np.testing.assert_array_equal(drawn[:, 0], values)
    np.testing.assert_array_equal(labels, [0, 1, 0, 1, 0, 1, 0])


def test_given_rows_are_missing_except_the_given_columns():
    rows, resolved = given_rows({1: 2.5}, 3, n_features=3)
    assert list(resolved) == [1] and resolved[1][0] == 1 and list(resolved[1][1]) == [2.5] * 3
    assert rows.shape == (3, 3) and np.all(np.isnan(rows[:, [0, 2]])) and np.all(rows[:, 1] == 2.5)
    text, _ = given_rows({0: "a"}, 2, n_features=2)
    assert text.dtype == object
    assert list(text[:, 0]) == ["a", "a"] and list(text[:, 1]) == [None] * 2


@pytest.mark.parametrize(
    ("given", "fragments"),
    [
        ({"petal": 1.0}, ["column positions", "'petal'"]),
        ({0: None}, ["missing", "given[0]"]),
        ({0: [1.0, 2.0]}, ["one value or 5 values", "given[0]", "n_samples=5"]),
        ({7: 1.0}, ["positions 0..3", "7"]),
        ({}, ["non-empty dict"]),
        ([1.0], ["non-empty dict"]),
        ({0: np.inf}, ["given:", "inf"]),
    ],
)
def test_bad_conditions_are_named(given, fragments):
    X, y = _correlated()
    model = bayesgen.QDA().fit(np.hstack([X, X]), y)
    with pytest.raises(ValueError) as error:
        model.sample(5, given=given)
    for fragment in fragments:
        assert fragment.lower() in str(error.value).lower(), str(error.value)


def test_a_table_refuses_text_in_a_number_column_and_an_undeclared_category():
    frame = pd.DataFrame(
        {"size": [1.0, 2.0, 3.0, 4.0], "colour": pd.Categorical(["a", "b", "a", "b"])}
    )
    model = bayesgen.MixedNB().fit(frame, [0, 1, 0, 1])
    with pytest.raises(ValueError, match="given\\['size'\\] must be a number"):
        model.sample(2, given={"size": "big"})
    with pytest.raises(ValueError, match="not one of the column's categories"):
        model.sample(2, given={"colour": "c"})
    with pytest.raises(ValueError, match="does not have; its columns are \\['size', 'colour'\\]"):
        model.sample(2, given={"weight": 1.0})


def test_a_condition_of_probability_zero_is_refused_not_replaced_by_the_prior():
    X = np.ones((20, 2))
    X[::2, 1] = 0
    y = np.repeat([0, 1], 10)
    model = bayesgen.BernoulliNB(estimate="mle").fit(X, y)  # feature 0 is always 1
    with pytest.raises(
        ValueError, match=r"probability zero \(or too small to represent\) under every class"
    ):
        model.sample(3, given={0: 0.0})
    X[:10, 0] = 0  # class 0 now always 0, class 1 always 1
    model = bayesgen.BernoulliNB(estimate="mle").fit(X, y)
    with pytest.raises(ValueError, match=r"too small to represent\) under the class y names"):
        model.sample(3, y=1, given={0: 0.0})
    drawn, labels = model.sample(50, given={0: 0.0}, random_state=0)
    assert np.all(labels == 0) and np.all(drawn[:, 0] == 0)


def test_a_negative_count_and_the_story_method_are_refused():
    rng = np.random.default_rng(6)
    model = bayesgen.PoissonNB().fit(rng.poisson(3, (50, 2)), rng.integers(0, 2, 50))
    with pytest.raises(ValueError, match="given: Negative values"):
        model.sample(2, given={0: -1})
    with pytest.raises(ValueError, match="method='story' does not apply"):
        model.sample(2, given={0: 1}, method="story")


def test_multinomial_nb_refuses_given_as_its_story_does_not_model_row_totals():
    rng = np.random.default_rng(7)
    model = bayesgen.MultinomialNB().fit(rng.poisson(3, (50, 3)), rng.integers(0, 2, 50))
    with pytest.raises(ValueError, match="row totals"):
        model.sample(2, given={0: 1})


def test_a_value_the_column_cannot_hold_is_refused_not_rounded():
    rng = np.random.default_rng(8)
    counts, labels = rng.poisson(3, (80, 2)), np.arange(80) % 2
    with pytest.raises(ValueError, match=r"given\[0\] = 2.5 \(row 0\) is not a value the column"):
        bayesgen.PoissonNB().fit(counts, labels).sample(3, given={0: 2.5}, random_state=0)
    frame = pd.DataFrame({"k": rng.poisson(3, 80), "x": rng.normal(size=80)})
    with pytest.raises(ValueError, match=r"given\['k'\] = 2.5 \(row 0\) is not a value"):
        bayesgen.MixedNB().fit(frame, labels).sample(3, given={"k": 2.5}, random_state=0)
    with pytest.raises(ValueError, match=r"given\['k'\] = 3.5 \(row 2\) is not a value"):
        bayesgen.MixedNB().fit(frame, labels).sample(given={"k": [1, 2, 3.5]}, y=[0, 1, 0])
    binary = bayesgen.BernoulliNB(binarize=0.5).fit(rng.uniform(0, 1, (80, 2)), labels)
    with pytest.raises(ValueError, match="is not a value the column holds"):
        binary.sample(3, given={0: 2.7}, random_state=0)
    drawn, _ = bayesgen.PoissonNB().fit(counts, labels).sample(3, given={0: 2.0}, random_state=0)
    assert drawn.dtype == np.int64 and np.all(drawn[:, 0] == 2)


def test_a_number_for_a_column_of_text_categories_is_refused():
    rng = np.random.default_rng(9)
    text = rng.choice(np.array(["1", "2", "A"], dtype=object), size=(60, 2))
    model = bayesgen.CategoricalNB().fit(text, np.arange(60) % 2)
    with pytest.raises(ValueError, match=r"given\[0\] = 1 is not text.*'1'"):
        model.sample(3, given={0: 1})
    drawn, _ = model.sample(3, given={0: "1"}, random_state=0)
    assert list(drawn[:, 0]) == ["1"] * 3


def test_a_table_with_number_column_names_is_conditioned_by_name():
    X, y = _correlated(seed=10)
    X = np.hstack([X, X[:, :1] * 2])
    for names in ([2, 0, 1], [10, 20, 30]):
        model = bayesgen.QDA().fit(pd.DataFrame(X, columns=names), y)
        drawn, _ = model.sample(4, given={names[0]: 5.0}, random_state=0)
        assert (drawn[names[0]] == 5.0).all() and not (drawn[names[2]] == 5.0).any()


def test_a_value_far_in_every_tail_draws_the_limit_class_as_predict_proba_does():
    """Both class densities underflow (the squared distance overflows), yet the class
    posterior has a limit (`FeatureFamily.limit_log_posterior`), as in predict_proba."""
    X, y = _correlated(seed=11)
    model = bayesgen.QDA().fit(X, y)
    row = np.array([[1e160, np.nan]])
    assert np.isneginf(model.predict_joint_log_proba(row)).all()
    expected = model.predict_proba(row)[0]
    assert expected.max() > 0.99
    drawn, labels = model.sample(5, given={0: 1e160}, random_state=0)
    assert np.all(labels == np.argmax(expected)) and np.all(drawn[:, 0] == 1e160)


def test_a_mixture_of_counts_draws_integers_given_a_count():
    from bayesgen.families.component_mixture import MixtureFamily
    from bayesgen.families.poisson import PoissonFamily

    rng = np.random.default_rng(12)
    counts, labels = rng.poisson(3, (120, 3)), np.arange(120) % 2
    family = MixtureFamily(PoissonFamily(), 2)
    model = bayesgen.FamilyClassifier(family=family, random_state=0).fit(counts, labels)
    drawn, _ = model.sample(5, given={1: 4}, random_state=0)
    assert drawn.dtype == np.int64 and np.all(drawn[:, 1] == 4)
