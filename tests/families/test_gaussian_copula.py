"""GaussianCopulaFamily: a Gaussian on normal scores, checked against SciPy's closed forms,
quadrature and the Gaussian family's own story on the scores."""

import jax
import numpy as np
import pandas as pd
import pytest
from numpyro.infer.util import log_density
from scipy import integrate, special, stats

import bayesgen
from bayesgen import FamilyClassifier, LatentClassNB, MixedNB
from bayesgen.families.gaussian import GaussianFamily
from bayesgen.families.gaussian_copula import GaussianCopulaFamily, expected_value, learn_scores


def _data(n=400, seed=0):
    """Two classes of skewed, dependent columns: a gamma, its square with noise (a
    near-function of it, as a radius and an area), and a 1-7 scale."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    size = rng.gamma(2.0 + 2.0 * y, 1.5)
    area = size**2 * np.exp(rng.normal(0, 0.1, n))
    scale = np.clip(np.round(2 + 2 * y + 0.5 * size + rng.normal(0, 1, n)), 1, 7)
    return np.column_stack([size, area, scale]), y


def test_each_value_owns_its_cell_with_its_share_of_a_standard_normal():
    column = np.array([3.0, 1.0, 1.0, 2.0, 3.0, 3.0, np.nan, 7.0])
    knots, scores = learn_scores(column, 100)
    np.testing.assert_allclose(knots, [0.5, 1.5, 2.5, 5.0, 9.0])  # midpoints, ends mirrored
    n = 7
    np.testing.assert_allclose(special.ndtr(scores), (np.array([0, 2, 3, 6, 7]) + 0.5) / (n + 1))
    cells = np.diff(special.ndtr(scores))
    np.testing.assert_allclose(cells, np.array([2, 1, 3, 1]) / (n + 1))  # c_i / (n + 1)


def test_many_values_keep_the_ends_and_at_most_n_knots():
    column = np.random.default_rng(1).normal(size=5000)
    knots, scores = learn_scores(column, 50)
    assert knots.size <= 50 and np.all(np.diff(knots) > 0) and np.all(np.diff(scores) > 0)
    full, full_scores = learn_scores(column, 10_000)
    assert knots[0] == full[0] and knots[-1] == full[-1]
    assert scores[0] == full_scores[0] and scores[-1] == full_scores[-1]
    merged = learn_scores(np.array([1.0, np.nextafter(1.0, 2.0), np.nextafter(1.0, 2.0) * 1]), 10)
    assert merged[0].size == 2 and merged[0][1] > merged[0][0]  # a float step: one piece
    np.testing.assert_allclose(special.ndtr(merged[1]), [0.5 / 4, 3.5 / 4])
    with pytest.raises(ValueError, match="n_knots must be an integer >= 2; got 1"):
        learn_scores(column, 1)
    one = learn_scores(np.array([4.0, 4.0, np.nan]), 10)
    np.testing.assert_array_equal(one[0], [4.0])
    np.testing.assert_array_equal(one[1], [0.0])


def test_encode_and_decode_are_inverse_and_increasing_beyond_the_range():
    X, _ = _data()
    family, _ = GaussianCopulaFamily().learn(X)
    wide = np.column_stack(
        [np.linspace(-5, 40, 301), np.linspace(-50, 2000, 301), np.linspace(-3, 12, 301)]
    )
    Z = family.encode(wide)
    assert np.all(np.diff(Z, axis=0) > 0)
    np.testing.assert_allclose(family.decode(Z), wide, rtol=1e-12, atol=1e-9)
    gappy = wide.copy()
    gappy[::3, 1] = np.nan
    assert np.array_equal(np.isnan(family.encode(gappy)), np.isnan(gappy))
    # The training column's scores are close to standard normal.
    scores = family.encode(X)[:, 0]
    assert abs(scores.mean()) < 0.01 and abs(scores.std() - 1) < 0.02


def test_a_missing_entry_of_a_column_of_one_value_stays_missing():
    """A column of one training value maps x to x - v; its missing entries are integrated
    out as any others (np.interp on one knot would answer 0 for NaN: the value itself)."""
    X, y = _data()
    X = np.column_stack([X[:, 0], np.full(len(X), 2500.0)])
    rows = np.array([[np.nan, np.nan], [3.0, np.nan], [np.nan, 2500.0]])
    family, _ = GaussianCopulaFamily().learn(X)
    assert np.isnan(family.encode(rows)).tolist() == np.isnan(rows).tolist()
    model = _fitted(X, y)
    alone = _fitted(X[:, :1], y)
    joint = model.predict_joint_log_proba(rows)
    np.testing.assert_allclose(joint[0], np.log(model.class_prior_), rtol=1e-12)
    np.testing.assert_allclose(
        joint[1], alone.predict_joint_log_proba(rows[1:2, :1])[0], rtol=1e-12
    )


def _fitted(X, y, kind="mean"):
    return FamilyClassifier(family=GaussianCopulaFamily(), estimate=kind).fit(X, y)


def _log_slopes(family, X):
    """sum_j log T_j'(x_j) over observed entries: the slope of the piece of the knots (in
    the values) that each entry lies on, the end pieces running on."""
    total = np.zeros(X.shape[0])
    for j, (knots, scores) in enumerate(zip(family.knots, family.scores, strict=True)):
        piece = np.clip(np.searchsorted(knots, X[:, j], side="right") - 1, 0, knots.size - 2)
        slope = np.diff(scores)[piece] / np.diff(knots)[piece]
        total += np.where(np.isnan(X[:, j]), 0.0, np.log(slope))
    return total


def test_log_likelihood_is_scipy_s_normal_of_the_scores_plus_the_log_slopes():
    X, y = _data(n=300, seed=2)
    rows = X[:12] * 1.03 + 0.01  # off the knots, where the slope is unambiguous
    rows[::4, 2] = np.nan
    rows[1::4, 0] = np.nan
    model = _fitted(X, y)
    family, (means, covariances) = model.family_, model.joint_.params
    Z = family.encode(rows)
    slopes = _log_slopes(family, rows)
    for i, z in enumerate(Z):
        seen = ~np.isnan(z)
        for k in range(2):
            expected = stats.multivariate_normal.logpdf(
                z[seen], means[k][seen], covariances[k][np.ix_(seen, seen)]
            )
            joint = model.predict_joint_log_proba(rows[i : i + 1])[0, k]
            np.testing.assert_allclose(
                joint, np.log(model.class_prior_[k]) + expected + slopes[i], rtol=1e-12
            )


def test_the_density_of_a_column_integrates_to_one():
    """Gauss-Legendre on each piece between knots (the density is smooth there) and SciPy's
    quad on the two unbounded tails: sum_k p(x, k) integrates to 1."""
    X, y = _data(n=300, seed=3)
    model = _fitted(X[:, [1]], y)
    knots = model.family_.knots[0]

    def density(x):
        return np.exp(model.predict_joint_log_proba(np.reshape(x, (-1, 1)))).sum(axis=1)

    nodes, weights = np.polynomial.legendre.leggauss(40)
    total = 0.0
    for low, high in zip(knots[:-1], knots[1:], strict=True):
        total += (high - low) / 2 * weights @ density((high - low) / 2 * nodes + (high + low) / 2)
    for low, high in ((-np.inf, knots[0]), (knots[-1], np.inf)):
        total += integrate.quad(lambda x: density(x)[0], low, high, epsabs=1e-12)[0]
    np.testing.assert_allclose(total, 1.0, rtol=1e-8)


def test_expected_value_is_the_integral_of_the_inverse_map():
    X, _ = _data(n=200, seed=4)
    family, _ = GaussianCopulaFamily().learn(X)
    for j in range(3):
        knots, scores = family.knots[j], family.scores[j]
        ends = np.r_[-np.inf, scores, np.inf]  # T^-1 is linear on each piece: quad per piece
        for mean, variance in ((0.0, 1.0), (1.3, 0.2), (-2.5, 4.0)):

            def integrand(z, mean=mean, variance=variance, j=j):
                value = family.decode(np.full((1, 3), z))[0, j]
                return value * stats.norm.pdf(z, mean, np.sqrt(variance))

            exact = sum(
                integrate.quad(integrand, low, high, epsabs=1e-13, epsrel=1e-12)[0]
                for low, high in zip(ends[:-1], ends[1:], strict=True)
            )
            closed = expected_value(np.array([mean]), np.array([variance]), knots, scores)[0]
            np.testing.assert_allclose(closed, exact, rtol=1e-8)


def test_impute_mean_is_each_class_s_conditional_mean_of_the_value_mixed():
    X, y = _data(n=300, seed=5)
    model = _fitted(X, y, kind="map")
    family, (means, covariances) = model.family_, model.joint_.params
    rows = X[:6].copy()
    rows[:, 1] = np.nan
    filled = model.impute(rows)
    weights = model.predict_proba(rows)
    z = family.encode(rows)
    for i in range(rows.shape[0]):
        expected = 0.0
        for k in range(2):
            seen = [0, 2]
            gain = covariances[k][1, seen] @ np.linalg.inv(covariances[k][np.ix_(seen, seen)])
            mean = means[k][1] + gain @ (z[i, seen] - means[k][seen])
            variance = covariances[k][1, 1] - gain @ covariances[k][seen, 1]
            value = expected_value(
                np.array([mean]), np.array([variance]), family.knots[1], family.scores[1]
            )[0]
            expected += weights[i, k] * value
        np.testing.assert_allclose(filled[i, 1], expected, rtol=1e-9)
        np.testing.assert_array_equal(filled[i, [0, 2]], rows[i, [0, 2]])


def test_given_a_value_draws_follow_the_exact_conditional_law():
    X, y = _data(n=300, seed=6)
    frame = pd.DataFrame(X, columns=["size", "area", "scale"])
    model = MixedNB(features=dict.fromkeys(frame.columns, "gaussian_copula")).fit(frame, y)
    given = float(np.quantile(X[:, 0], 0.995))  # a rare size
    drawn, labels = model.sample(20_000, given={"size": given}, random_state=0)
    assert (drawn["size"] == given).all()
    row = np.array([[given, np.nan, np.nan]])
    mean_area = model.impute(pd.DataFrame(row, columns=frame.columns))["area"].iloc[0]
    spread = drawn["area"].std() / np.sqrt(len(drawn))
    assert abs(drawn["area"].mean() - mean_area) < 5 * spread
    share = model.predict_proba(pd.DataFrame(row, columns=frame.columns))[0, 1]
    assert abs((labels == 1).mean() - share) < 5 * np.sqrt(share * (1 - share) / len(labels))


def test_draws_keep_the_rank_dependence_within_each_class():
    X, y = _data(n=2000, seed=7)
    model = _fitted(X, y, kind="map")
    drawn, labels = model.sample(20_000, random_state=0)
    for k in range(2):
        real = stats.spearmanr(X[y == k]).statistic
        synthetic = stats.spearmanr(drawn[labels == k]).statistic
        assert np.max(np.abs(real - synthetic)) < 0.05


def test_the_story_is_the_gaussian_story_of_the_scores_plus_the_jacobian():
    """Same parameters substituted: the story's log density on rows with gaps is the
    Gaussian story's on their scores plus the Jacobian; on complete rows both fits are
    closed-form, and their joints differ by the Jacobian too."""
    X, y = _data(n=120, seed=8)
    complete = X.copy()
    X[::5, 1] = np.nan
    model = _fitted(X, y)
    on_scores = FamilyClassifier(family=GaussianFamily(), estimate="mean").fit(
        model.family_.encode(X), y
    )
    means, covariances = model.joint_.params
    params = {"class_prior": model.class_prior_, "means": means, "covariances": covariances}
    with jax.enable_x64(True):
        density, _ = log_density(model.story, (X, y), {}, params)
        reference, _ = log_density(on_scores.story, (model.family_.encode(X), y), {}, params)
    jacobian = model.family_.log_jacobian(model.family_.encode(X)).sum()
    np.testing.assert_allclose(float(density), float(reference) + jacobian, rtol=1e-10)
    model = _fitted(complete, y)
    scores = model.family_.encode(complete)
    on_scores = FamilyClassifier(family=GaussianFamily(), estimate="mean").fit(scores, y)
    np.testing.assert_allclose(on_scores.joint_.params.means, model.joint_.params.means)
    rows = np.arange(len(y))
    joint = model.predict_joint_log_proba(complete)[rows, y].sum()
    scores_joint = on_scores.predict_joint_log_proba(scores)[rows, y].sum()
    jacobian = model.family_.log_jacobian(scores).sum()
    np.testing.assert_allclose(joint, scores_joint + jacobian, rtol=1e-10)


def test_as_a_mixed_nb_group_and_a_latent_class_leaf_saved_and_loaded(tmp_path):
    X, y = _data(n=600, seed=9)
    frame = pd.DataFrame(X, columns=["size", "area", "scale"])
    frame["kind"] = np.where(y == 1, "a", "b")
    frame.loc[::7, "area"] = np.nan
    features = dict.fromkeys(["size", "area", "scale"], "gaussian_copula")
    model = MixedNB(features=features).fit(frame, y)
    assert model.feature_families_["size"] == "gaussian_copula"
    model.save(tmp_path / "mixed.bgm")
    np.testing.assert_array_equal(
        bayesgen.load(tmp_path / "mixed.bgm").predict_proba(frame), model.predict_proba(frame)
    )
    latent = LatentClassNB(n_components=3, features=features, max_iter=300, random_state=0)
    latent.fit(frame, y)
    history = latent.log_likelihood_history_
    assert np.all(np.diff(history) >= -1e-8 * np.abs(history[1:]))  # EM never goes down
    drawn, _ = latent.sample(2000, random_state=0)
    assert drawn["scale"].between(frame["scale"].min() - 1, frame["scale"].max() + 1).all()
    latent.save(tmp_path / "latent.bgm")
    np.testing.assert_array_equal(
        bayesgen.load(tmp_path / "latent.bgm").predict_proba(frame), latent.predict_proba(frame)
    )
    never = MixedNB().fit(frame, y).feature_families_
    assert "gaussian_copula" not in never.values()  # only where features= names it


def test_bad_values_and_settings_are_refused_by_name():
    X, y = _data(n=60, seed=10)
    frame = pd.DataFrame(X, columns=["size", "area", "scale"])
    frame.loc[4, "area"] = np.inf
    features = dict.fromkeys(frame.columns, "gaussian_copula")
    with pytest.raises(ValueError, match=r"row 4, column 'area'.*must be finite"):
        MixedNB(features=features).fit(frame, y)
    with pytest.raises(ValueError, match=r"row 4, column 1.*models finite numbers"):
        GaussianCopulaFamily().check_columns(frame.to_numpy(), columns=None)
    with pytest.raises(ValueError, match="n_knots must be an integer >= 2; got 1"):
        FamilyClassifier(family=GaussianCopulaFamily(n_knots=1)).fit(X, y)
    with pytest.raises(ValueError, match="n_knots must be an integer >= 2; got 'many'"):
        FamilyClassifier(family=GaussianCopulaFamily(n_knots="many")).fit(X, y)
    blank = X.copy()
    blank[:, 1] = np.nan
    with pytest.raises(ValueError, match="column 1: it has no observed value"):
        FamilyClassifier(family=GaussianCopulaFamily()).fit(blank, y)


def test_em_over_gaps_and_unlabelled_rows_runs_on_the_scores():
    """Missing entries and unlabelled rows: the same fit as the Gaussian family's on the
    scores (the map learned from every row), its history shifted by the Jacobian."""
    X, y = _data(n=400, seed=11)
    X[::4, 1] = np.nan
    y = np.where(y == 1, "yes", "no").astype(object)
    y[::3] = None
    settings = {"estimate": "map", "max_iter": 500, "tol": 1e-10, "unlabeled_marker": None}
    model = FamilyClassifier(family=GaussianCopulaFamily(), **settings).fit(X, y)
    scores = model.family_.encode(X)
    on_scores = FamilyClassifier(family=GaussianFamily(), **settings).fit(scores, y)
    np.testing.assert_allclose(model.joint_.params.means, on_scores.joint_.params.means, rtol=1e-6)
    np.testing.assert_allclose(model.predict_proba(X), on_scores.predict_proba(scores), atol=1e-6)
    assert abs(model.joint_.params.means).max() < 3  # scores, not raw values


def test_float32_rows_stay_float32():
    X, y = _data(n=200, seed=12)
    model = _fitted(X.astype(np.float32), y)
    rows = X[:5].astype(np.float32)
    rows[:, 1] = np.nan
    assert model.impute(rows).dtype == np.float32
    assert model.sample(10, random_state=0)[0].dtype == np.float32
