"""``ClassStrata``: one latent class model per class, each fitted on its class's rows alone.

References: models fitted by hand on each class's rows (their log-densities, their learned
maps), the classes' shares, the exact class posterior given a value
$\\pi_k p_k(x_o) / \\sum_j \\pi_j p_j(x_o)$ (binomial error for drawn shares), and each
class's training correlation and range.
"""

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone

from bayesgen import LatentClassNB, TableSynthesizer
from bayesgen.class_strata import ClassStrata
from bayesgen.families.gaussian_copula import learn_scores

COPULA = {"length": "gaussian_copula", "mass": "gaussian_copula"}


def _species(n=600, seed=0):
    """Two classes on different parts of each column's range, strongly correlated within
    each, skewed so that a map learned from both bends each; a category beside."""
    rng = np.random.default_rng(seed)
    label = rng.choice(["small", "large"], n, p=[0.35, 0.65])
    shared = rng.normal(size=n)
    large = label == "large"
    length = np.where(large, 60.0, 30.0) + np.exp(0.6 * shared) * np.where(large, 6.0, 3.0)
    mass = np.where(large, 5000.0, 2000.0) + 400.0 * (0.9 * shared + 0.44 * rng.normal(size=n))
    table = pd.DataFrame(
        {
            "length": np.round(length, 2),
            "mass": np.round(mass, 1),
            "island": rng.choice(["a", "b"], n),
            "label": label,
        }
    )
    return table.drop(columns="label"), table["label"].to_numpy()


def test_each_class_is_a_model_of_its_own_rows():
    X, y = _species()
    strata = ClassStrata(features=COPULA, n_components=2, random_state=3).fit(X, y)
    np.testing.assert_array_equal(strata.classes_, ["large", "small"])
    np.testing.assert_allclose(strata.class_prior_, [np.mean(y == "large"), np.mean(y == "small")])
    own = [
        LatentClassNB(features=COPULA, n_components=2, max_iter=200, random_state=3).fit(
            X[y == label], np.zeros(int(np.sum(y == label)), dtype=int)
        )
        for label in strata.classes_
    ]
    expected = np.log(strata.class_prior_) + np.column_stack([m.score_samples(X) for m in own])
    np.testing.assert_allclose(strata.predict_joint_log_proba(X), expected, rtol=1e-12)
    # The copula's map of a column is learned from the class's rows alone.
    copula = strata.models_[1].family_.leaf.groups["gaussian_copula"][0]
    knots, scores = learn_scores(X["length"][y == "small"].to_numpy(dtype=float), 1024)
    np.testing.assert_allclose(copula.learned()["knots"][0], knots)
    np.testing.assert_allclose(copula.learned()["scores"][0], scores)


def test_within_class_correlations_kept_where_a_pooled_map_bends_them():
    X, y = _species(n=1500)
    strata = ClassStrata(features=COPULA, n_components=1).fit(X, y)
    pooled = LatentClassNB(features=COPULA, n_components=1).fit(X, y)
    worst = {}
    for name, model in (("strata", strata), ("pooled", pooled)):
        rows, labels = model.sample(40_000, random_state=1)
        worst[name] = max(
            abs(
                np.corrcoef(rows["length"][labels == k], rows["mass"][labels == k])[0, 1]
                - np.corrcoef(X["length"][y == k], X["mass"][y == k])[0, 1]
            )
            for k in ("small", "large")
        )
    assert worst["strata"] <= 0.05
    assert worst["pooled"] > 2 * worst["strata"]  # what the class's own maps are for


def test_given_a_value_the_class_is_drawn_from_its_exact_posterior():
    X, y = _species()
    strata = ClassStrata(features=COPULA, random_state=0).fit(X, y)
    # A length between the classes' ranges: in the tails of both copulas (support="model").
    between = np.linspace(X["length"][y == "small"].max(), X["length"][y == "large"].min(), 200)
    partial = X.iloc[np.zeros(between.size, dtype=int)].reset_index(drop=True)
    partial.loc[:, ["mass", "island"]] = np.nan
    partial["length"] = between
    joint = strata.predict_joint_log_proba(partial)
    posteriors = np.exp(joint - np.logaddexp.reduce(joint, axis=1, keepdims=True))
    chosen = np.argmin(np.abs(posteriors[:, 0] - 0.5))
    value, posterior = float(between[chosen]), posteriors[chosen]
    assert 0.1 < posterior[0] < 0.9
    rows, labels = strata.sample(4000, given={"length": value}, support="model", random_state=2)
    assert (rows["length"] == value).all()
    share = np.mean(labels == "large")
    assert abs(share - posterior[0]) <= 4 * np.sqrt(posterior[0] * posterior[1] / 4000) + 1e-12
    # Values one per row, and the class given: every row of that class holds its own value.
    values = np.quantile(X["mass"], [0.2, 0.8, 0.5])
    rows, labels = strata.sample(3, y=["small", "large", "small"], given={"mass": values})
    np.testing.assert_array_equal(labels, ["small", "large", "small"])
    np.testing.assert_array_equal(rows["mass"], values)


def test_a_value_outside_a_class_range_is_that_class_impossible_within_the_range():
    X, y = _species()
    strata = ClassStrata(features=COPULA, random_state=0).fit(X, y)
    only_large = float(X["mass"][y == "large"].max())
    _, labels = strata.sample(200, given={"mass": only_large}, support="training")
    assert (labels == "large").all()
    with pytest.raises(ValueError, match="given\\['mass'\\] = .* lies outside every class's"):
        strata.sample(5, given={"mass": float(X["mass"].max()) + 1.0}, support="training")
    # Each given value inside some class's range, but no class's range holds both.
    given = {"mass": only_large, "length": float(X["length"][y == "small"].min())}
    with pytest.raises(ValueError, match="probability zero under every class inside its"):
        strata.sample(5, given=given, support="training")


def test_bad_input_is_refused_by_name():
    X, y = _species(n=200)
    with pytest.raises(ValueError, match="X must be a pandas DataFrame"):
        ClassStrata().fit(X.to_numpy(), y)
    with pytest.raises(ValueError, match="y must hold one label per row"):
        ClassStrata().fit(X, y[:-1])
    strata = ClassStrata(features=COPULA).fit(X, y)
    with pytest.raises(ValueError, match=r"y must name classes among \['large', 'small'\]"):
        strata.sample(2, y="medium")
    with pytest.raises(ValueError, match="got \\['smaller'\\]"):  # not cut to 'small'
        strata.sample(2, y="smaller")
    with pytest.raises(ValueError, match="y must be one label or a 1-D sequence"):
        strata.sample(2, y=[])
    with pytest.raises(ValueError, match="X lacks the columns \\['mass'\\]"):
        strata.predict_joint_log_proba(X.drop(columns="mass"))
    with pytest.raises(ValueError, match="y has 1 missing labels"):
        ClassStrata().fit(X, np.where(np.arange(len(y)) == 3, None, y))
    with pytest.raises(ValueError, match=r"features names columns \['size'\]"):
        ClassStrata(features={"size": "gaussian_copula"}).fit(X, y)
    with pytest.raises(ValueError, match="X must be a pandas DataFrame"):
        strata.predict_joint_log_proba(X.to_numpy())
    with pytest.raises(ValueError, match="n_samples must be an integer >= 1"):
        strata.sample(0)
    with pytest.raises(ValueError, match="given has the column 'width'"):
        strata.sample(2, given={"width": 1.0})


def test_the_synthesizer_copula_is_per_class_with_a_target():
    X, y = _species(n=300)
    table = X.assign(label=y)
    synthesizer = TableSynthesizer(
        target="label", numeric_columns="gaussian_copula", n_components=(1,)
    ).fit(table)
    assert isinstance(synthesizer.model_, ClassStrata)
    # Each class inside its own training range (a pooled model's small class, truncated
    # to the range of every row, draws masses up to the large class's).
    for label in ("small", "large"):
        rows = synthesizer.sample(4000, y=label, random_state=0)
        for column in ("length", "mass"):
            drawn, real = rows[column], table[column][y == label]
            assert drawn.min() >= real.min() and drawn.max() <= real.max()
    again = clone(synthesizer).fit(table)
    pd.testing.assert_frame_equal(
        again.sample(50, random_state=1), synthesizer.sample(50, random_state=1)
    )
    plain = TableSynthesizer(numeric_columns="gaussian_copula", n_components=(1,)).fit(X)
    assert isinstance(plain.model_, LatentClassNB)


def test_a_column_a_class_never_observed_is_missing_in_all_its_rows():
    X, y = _species(n=300)
    small = y == "small"
    X["width"] = np.where(small, np.nan, X["length"] / 3.0)
    X["island"] = X["island"].astype("category")
    X.loc[small, "island"] = None
    X["tag"] = pd.array(np.where(small, None, np.arange(len(X)) % 4), dtype="Int64")
    X.loc[small, "mass"] = 2500.0  # one value in a class: its draws hold it
    features = {**COPULA, "width": "gaussian_copula"}
    strata = ClassStrata(features=features).fit(X, y)
    assert strata.observed_columns_ == [list(X.columns), ["length", "mass"]]
    rows, labels = strata.sample(400, support="training", random_state=0)
    drawn_small = labels == "small"
    assert rows.loc[drawn_small, ["width", "island", "tag"]].isna().all().all()
    assert (rows.loc[drawn_small, "mass"] == 2500.0).all()
    assert rows.loc[~drawn_small, ["width", "island", "tag"]].notna().all().all()
    # Rows of that class alone keep every column's training dtype.
    only_small, _ = strata.sample(5, y="small", random_state=0)
    pd.testing.assert_series_equal(only_small.dtypes, X.dtypes)
    # Its density is its model's over the columns it observed, and zero for a row with a
    # value in another: whatever the column's units, such a row is not of that class.
    own = LatentClassNB(features=COPULA, n_components=1, max_iter=200, random_state=0).fit(
        X.loc[small, ["length", "mass"]], np.zeros(int(small.sum()), dtype=int)
    )
    rows_of_small = X[small]
    expected = np.log(strata.class_prior_[1]) + own.score_samples(rows_of_small[["length", "mass"]])
    joint = strata.predict_joint_log_proba(rows_of_small)
    np.testing.assert_allclose(joint[:, 1], expected, rtol=1e-12)
    assert np.isneginf(strata.predict_joint_log_proba(X[~small])[:, 1]).all()
    for scale in (0.001, 1000.0):
        rescaled = ClassStrata(features=features).fit(X.assign(width=X["width"] * scale), y)
        _, labels = rescaled.sample(200, given={"width": float(X["width"].median()) * scale})
        assert (labels == "large").all()
    with pytest.raises(ValueError, match="class 'small' has no observed value of column 'width'"):
        strata.sample(3, y="small", given={"width": 20.0})


def test_values_given_one_per_row_draw_each_row_its_own_class():
    X, y = _species()
    strata = ClassStrata(features=COPULA).fit(X, y)
    masses = np.array([2000.0, 5000.0] * 50)
    rows, labels = strata.sample(100, given={"mass": masses}, random_state=0)
    np.testing.assert_array_equal(labels, np.where(masses < 3500, "small", "large"))
    np.testing.assert_array_equal(rows["mass"], masses)
    with pytest.raises(ValueError, match=r"given\['mass'\] must be one value or 3 values"):
        strata.sample(1, y=["small", "large", "small"], given={"mass": masses})


def test_each_class_runs_em_to_the_tolerance_given():
    X, y = _species()
    loose = ClassStrata(features=COPULA, n_components=2, tol=1e-2).fit(X, y)
    tight = ClassStrata(features=COPULA, n_components=2).fit(X, y)
    assert all(model.tol == 1e-2 for model in loose.models_)
    iterations = [(a.n_iter_, b.n_iter_) for a, b in zip(loose.models_, tight.models_, strict=True)]
    assert all(few <= many for few, many in iterations)
    assert any(few < many for few, many in iterations)


def _scores_covariance(X: pd.DataFrame) -> np.ndarray:
    """The covariance (over n) of a class's training rows on its own normal scores."""
    scores = np.column_stack(
        [np.interp(X[c], *learn_scores(X[c].to_numpy(dtype=float), 1024)) for c in X.columns]
    )
    return np.cov(scores.T, bias=True)


def test_the_scores_covariance_is_the_posterior_mean_or_mode_asked():
    # One component: the Normal-Inverse-Wishart prior's mean is the rows' own, its scale
    # Psi_0 their covariance C and nu_0 = d + 2, so Psi_n = (n + 1) C (plus the ridge).
    # The posterior mean is Psi_n / (nu_n - d - 1) = C, the mode Psi_n / (nu_n + d + 2)
    # = (n + 1) C / (n + 2d + 4).
    rng = np.random.default_rng(0)
    n, d = 30, 4
    X = pd.DataFrame(
        rng.multivariate_normal(np.zeros(d), 0.5 * np.eye(d) + 0.5, size=n), columns=list("abcd")
    )
    features = dict.fromkeys(X.columns, "gaussian_copula")
    C = _scores_covariance(X)
    for estimate, factor in (("mean", 1.0), ("map", (n + 1) / (n + 2 * d + 4))):
        strata = ClassStrata(features=features, estimate=estimate).fit(X, np.zeros(n, int))
        assert strata.models_[0].estimate == estimate
        fitted = strata.models_[0].joint_.params.leaves["gaussian_copula"].covariances[0]
        np.testing.assert_allclose(fitted, factor * C, rtol=1e-5)


def test_the_synthesizer_copula_keeps_each_column_spread():
    # 30 rows of 8 columns per class: the posterior mode would shrink each class's
    # scores' variances by 31 / 50 (standard deviations by 0.79).
    rng = np.random.default_rng(1)
    n, d = 30, 8
    columns = [f"x{j}" for j in range(d)]
    parts = [
        pd.DataFrame(
            rng.multivariate_normal(np.full(d, shift), 0.6 * np.eye(d) + 0.4, size=n),
            columns=columns,
        ).assign(label=label)
        for shift, label in ((0.0, "a"), (3.0, "b"))
    ]
    table = pd.concat(parts, ignore_index=True)
    synthesizer = TableSynthesizer(
        target="label",
        numeric_columns="gaussian_copula",
        n_components=(1,),
        rounding=None,
        support="model",
    ).fit(table)
    assert synthesizer.model_.estimate == "mean"
    for k, part in enumerate(parts):
        fitted = synthesizer.model_.models_[k].joint_.params.leaves["gaussian_copula"]
        np.testing.assert_allclose(
            fitted.covariances[0], _scores_covariance(part[columns]), rtol=1e-5
        )
        drawn = synthesizer.sample(20000, y=part["label"].iloc[0], random_state=k)
        ratio = drawn[columns].std() / part[columns].std()
        assert ratio.between(0.9, 1.1).all(), ratio
