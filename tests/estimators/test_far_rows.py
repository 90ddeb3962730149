"""Issue 33: one finite row far out (entries beyond about 1e153) made predict, novelty and
tail_probability refuse the whole call, or gave that row the class prior.

The answer is computed independently here in extended precision (NumPy's long double has
an exponent range to about 1e4932, so the quadratic forms of these rows do not overflow):
the class probabilities, the density (``-inf`` exactly when it is below float64's range)
and the other rows' answers, which must not change.
"""

import warnings

import numpy as np
import pytest
from sklearn.datasets import load_wine

from bayesgen import LDA, QDA, GaussianDA, GaussianNB
from bayesgen.cli import main

MODELS = {
    "QDA": QDA,
    "LDA": LDA,
    "GaussianNB": GaussianNB,
    "spherical": lambda: GaussianDA(covariance_type="spherical"),
}


@pytest.fixture(scope="module")
def wine():
    return load_wine(return_X_y=True)


def _long_double_joint(model, row):
    """log p(x_o, k) - log p(x_o, 0) and log p(x_o, 0), in long double, from the fitted
    means and covariances. The differences are expanded, x'(A_k - A_0)x - 2x'(A_k m_k -
    A_0 m_0) + ..., so that a shared covariance's quadratic terms cancel exactly."""
    observed = ~np.isnan(row)
    x = row[observed].astype(np.longdouble)
    covariances = model._feature_family().full_covariances(model.joint_.params)
    terms = []
    for k, mean in enumerate(model.means_):
        block = covariances[k][np.ix_(observed, observed)]
        precision = np.linalg.inv(block).astype(np.longdouble)
        m = mean[observed].astype(np.longdouble)
        _, log_det = np.linalg.slogdet(block)
        constant = np.log(np.longdouble(model.class_prior_[k])) - 0.5 * (
            m @ precision @ m + log_det + observed.sum() * np.log(2 * np.pi)
        )
        terms.append((precision, precision @ m, constant))
    precision_0, linear_0, constant_0 = terms[0]
    first = -0.5 * (x @ precision_0 @ x) + x @ linear_0 + constant_0
    differences = np.array(
        [
            -0.5 * (x @ (precision - precision_0) @ x)
            + x @ (linear - linear_0)
            + (constant - constant_0)
            for precision, linear, constant in terms
        ]
    )
    return differences, first


@pytest.mark.parametrize("name", list(MODELS))
@pytest.mark.parametrize("value", [1e154, -1e300, 1.7e308])
@pytest.mark.parametrize("gappy", [False, True], ids=["complete", "one-missing"])
def test_a_far_row_gets_its_own_answer(wine, name, value, gappy):
    X, y = wine
    model = MODELS[name]().fit(X, y)
    rows = X[:4].copy()
    rows[1, 0] = value
    if gappy:
        rows[1, 3] = np.nan
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)  # no overflow warning escapes either
        proba = model.predict_proba(rows)
        scores = model.score_samples(rows)
    differences, first = _long_double_joint(model, rows[1])
    expected = np.exp(differences - np.max(differences))
    np.testing.assert_allclose(proba[1], (expected / expected.sum()).astype(float), atol=1e-12)
    density = first + np.max(differences) + np.log(np.sum(expected))
    # Where the quadratic form itself exceeds float64's range (a log density below about
    # half of its most negative value) the density is 0.
    if density < np.finfo(np.float64).min / 2:
        assert scores[1] == -np.inf
    else:
        np.testing.assert_allclose(scores[1], float(density), rtol=1e-6)
    # The other rows are answered as they are without the far one.
    others = np.delete(rows, 1, axis=0)
    np.testing.assert_array_equal(np.delete(proba, 1, axis=0), model.predict_proba(others))
    np.testing.assert_array_equal(np.delete(scores, 1), model.score_samples(others))


def test_tail_probability_ranks_a_far_row_below_every_training_row(wine):
    X, y = wine
    model = QDA().fit(X, y)
    rows = X[:3].copy()
    rows[1, 0] = 1e200
    tail = model.tail_probability(rows, random_state=0)
    # Below every training score: the randomised rank is U / (N + 1).
    assert 0 < tail[1] <= 1 / (len(X) + 1)
    np.testing.assert_allclose(
        tail[[0, 2]], model.tail_probability(rows[[0, 2]], random_state=0), atol=0.02
    )


def test_fit_still_refuses_values_whose_squares_overflow_its_sums(wine):
    X, y = wine
    X = X.copy()
    X[5, 2] = 1e200
    with pytest.raises(ValueError, match=r"X contains 1e\+200 \(first at row 5, column 2\)"):
        QDA().fit(X, y)


def test_the_command_line_predicts_a_far_row(tmp_path, wine):
    from click.testing import CliRunner

    X, y = wine
    table = tmp_path / "wine.csv"
    columns = [f"x{j}" for j in range(X.shape[1])]
    header = ",".join([*columns, "y"])
    table.write_text(
        header
        + "\n"
        + "\n".join(",".join(map(str, [*r.tolist(), c])) for r, c in zip(X, y, strict=True))
    )
    new = tmp_path / "new.csv"
    far = X[:2].copy()
    far[1, 0] = 1e200
    new.write_text(
        ",".join(columns) + "\n" + "\n".join(",".join(map(str, r.tolist())) for r in far)
    )
    runner = CliRunner()
    model = tmp_path / "m.bgm"
    fitted = runner.invoke(main, ["fit", str(table), "--target", "y", "--model", "qda",
                                  "--out", str(model)])  # fmt: skip
    assert fitted.exit_code == 0, fitted.output
    result = runner.invoke(main, ["predict", str(model), str(new), "--proba", "--novelty"])
    assert result.exit_code == 0, result.output
    lines = result.stdout.strip().splitlines()
    assert len(lines) == 3 and ",-inf," in lines[2]


def test_nan_parameters_still_give_nan_not_a_density_of_zero(wine):
    """Only an overflow of a finite model is read as density 0; NaN parameters (a bug
    elsewhere) must not turn into -inf silently."""
    from bayesgen.families.gaussian import GaussianFamily, GaussianParams

    X, _ = wine
    family = GaussianFamily("full")
    means = np.full((2, X.shape[1]), np.nan)
    covariances = np.stack([np.eye(X.shape[1])] * 2)
    scores = family.log_likelihood(GaussianParams(means, covariances), X[:3])
    assert np.isnan(scores).all()


def _caught(call):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = call()
    return result, caught


@pytest.mark.parametrize("name", ["PoissonNB", "KernelDensityDA", "MixedNB"])
def test_a_row_that_overflows_every_class_density_gets_the_prior_with_a_warning(name):
    """A finite row whose class densities overflow (inf - inf: NaN) under a family with no
    limit is one no class could score: the class prior and the warning, never NaN, and no
    NumPy warning; its density is 0 and the other rows keep their answers."""
    import pandas as pd
    from sklearn.datasets import load_iris

    import bayesgen

    X, y = load_iris(return_X_y=True)
    X = np.round(X * 2) if name == "PoissonNB" else X
    column = 3 if name == "MixedNB" else 0  # MixedNB: a Gaussian column (petal width)
    as_rows = (lambda a: pd.DataFrame(a, columns=list("abcd"))) if name == "MixedNB" else None
    rows = as_rows or (lambda a: a)
    settings = {"features": dict.fromkeys("abcd", "gaussian")} if name == "MixedNB" else {}
    model = getattr(bayesgen, name)(**settings).fit(rows(X), y)
    far = X[:3].copy()
    far[0, column] = 1e200 if name == "MixedNB" else 1e308
    proba, caught = _caught(lambda: model.predict_proba(rows(far)))
    assert len(caught) == 1
    assert str(caught[0].message).startswith("1 row(s) of X have probability zero under")
    assert caught[0].filename == __file__
    np.testing.assert_allclose(proba[0], model.class_prior_, rtol=1e-12)
    np.testing.assert_allclose(proba[1:], model.predict_proba(rows(X[1:3])), rtol=1e-12)
    density, caught = _caught(lambda: model.score_samples(rows(far)))
    assert not caught
    assert density[0] == -np.inf and np.all(np.isfinite(density[1:]))


def test_the_predictive_of_a_row_that_overflows_is_the_prior_with_a_warning(wine):
    X, y = wine
    model = QDA().fit(X, y)
    far = X[:2].copy()
    far[0, 0] = 1e308
    proba, caught = _caught(lambda: model.predict_proba(far, method="predictive"))
    assert [w.category for w in caught] == [UserWarning]
    from bayesgen.inference import parameter_posterior

    prior = parameter_posterior.predictive_class_prior(
        model._fit_settings().class_prior, model.joint_
    )
    np.testing.assert_allclose(proba[0], prior, rtol=1e-12)
    np.testing.assert_allclose(
        proba[1], model.predict_proba(X[1:2], method="predictive")[0], rtol=1e-12
    )


def test_a_multinomial_row_with_every_word_missing_is_explained_by_the_prior_alone(wine):
    """No observed word: the likelihood is 1 (Gamma(A) / Gamma(A + 0)), under the plug-in
    and under the predictive, so the posterior is the class prior of each."""
    from bayesgen import MultinomialNB
    from bayesgen.inference import parameter_posterior

    X, y = wine
    model = MultinomialNB().fit(np.round(X), y)
    empty = np.full((1, X.shape[1]), np.nan)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        predictive = model.predict_proba(empty, method="predictive")
        plugin = model.predict_proba(empty)
    prior = parameter_posterior.predictive_class_prior(
        model._fit_settings().class_prior, model.joint_
    )
    np.testing.assert_allclose(predictive[0], prior, rtol=1e-12)
    np.testing.assert_allclose(plugin[0], model.class_prior_, rtol=1e-12)


def test_nan_parameters_give_nan_probabilities_not_the_prior():
    """The overflow of a finite model is read as density 0 (the prior, with a warning);
    NaN parameters, a fault elsewhere, must not be hidden that way."""
    from sklearn.datasets import load_iris

    import bayesgen

    X, y = load_iris(return_X_y=True)
    model = bayesgen.PoissonNB().fit(np.round(X * 2), y)
    rates = np.array(model.joint_.params, dtype=float)
    rates[0, 0] = np.nan
    model.joint_ = model.joint_._replace(params=rates)
    proba = model.predict_proba(np.round(X[:2] * 2))
    assert np.isnan(proba).all()
    assert np.isnan(model.score_samples(np.round(X[:2] * 2))).all()
