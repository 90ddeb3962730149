"""MixedNB: per-column families whose log-likelihoods add up, one label per row."""

import jax
import numpy as np
import pandas as pd
import pytest
from numpyro.infer.util import log_density
from scipy import stats

import bayesgen
from bayesgen import BernoulliNB, CategoricalNB, GaussianNB, MixedNB, MultinomialNB, PoissonNB

# Heights (about 170 +- 7) are explained about equally well by a normal and a log-normal:
# the evidence may pick either on a given sample, so tests of other things name the family.
FEATURES = {"w1": "multinomial", "w2": "multinomial", "height": "gaussian"}


def _frame(n=300, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    frame = pd.DataFrame(
        {
            "height": rng.normal(170 + 5 * y, 7),
            "smoker": rng.random(n) < 0.2 + 0.2 * y,
            "visits": rng.poisson(1 + y),
            "city": rng.choice(["rome", "oslo", "lima"], n),
            "w1": rng.poisson(3, n),
            "w2": rng.poisson(2 + y, n),
        }
    )
    return frame, y


def test_dtypes_rule_families_out_and_the_evidence_picks_among_the_rest():
    """bool / 0-1 -> bernoulli and text -> categorical by dtype; numbers by evidence."""
    frame = pd.DataFrame(
        {
            "f": [0.5, -1.5, 2.5, 3.5],
            "b": [True, False, True, False],
            "binary": [0, 1, 1, 0],
            "count": [0, 3, 5, 2],
            "signed": [-1, 2, 3, -4],
            "positive": [0.5, 1.5, 2.5, 3.25],
            "text": ["a", "b", "a", "c"],
            "cat": pd.Categorical(["x", "y", "x", "y"]),
            "string": pd.array(["p", "q", "p", "q"], dtype="string"),
        }
    )
    model = MixedNB().fit(frame, [0, 1, 0, 1])
    by_dtype = {
        "f": "gaussian",
        "b": "bernoulli",
        "binary": "bernoulli",
        "text": "categorical",
        "cat": "categorical",
        "string": "categorical",
    }
    assert {c: model.feature_families_[c] for c in by_dtype} == by_dtype
    candidates = {
        "count": {"poisson", "gaussian", "categorical"},
        "signed": {"gaussian", "categorical"},
        "positive": {"gaussian", "exponential", "lognormal"},  # lognormal: column-only
    }
    assert {c: set(e) for c, e in model.family_log_evidence_.items()} == candidates
    for column, evidence in model.family_log_evidence_.items():
        assert model.feature_families_[column] == max(evidence, key=evidence.get)


def test_integer_columns_get_the_family_their_values_call_for():
    """A year is not a count, a rounded measurement is Gaussian, counts stay Poisson."""
    rng = np.random.default_rng(7)
    y = rng.integers(0, 3, 340)
    frame = pd.DataFrame(
        {
            # Penguins' "year": three levels, 2007-2009 (a Poisson would sample 1841-2140).
            "year": rng.integers(2007, 2010, y.size),
            # Pima's glucose: a rounded measurement, about 120 +- 30.
            "glucose": np.round(rng.normal(110 + 15 * y, 30)).astype(int),
            # Word counts: Poisson with class-dependent rates.
            "word": rng.poisson(np.array([0.3, 1.0, 2.5])[y]),
        }
    )
    model = MixedNB().fit(frame, y)
    assert model.feature_families_["year"] != "poisson"
    assert model.feature_families_["glucose"] == "gaussian"
    assert model.feature_families_["word"] == "poisson"
    X, _ = model.sample(500, random_state=0)
    assert X["year"].between(2007, 2009).all()


@pytest.mark.parametrize("table", ["pima", "pima2"])
def test_glucose_of_the_pima_indians_is_gaussian(table):
    """R's Pima.tr and PimaIndiansDiabetes2 (tests/fixtures/r): glucose is no count."""
    from pathlib import Path

    data = pd.read_csv(Path(__file__).parents[1] / "fixtures" / "r" / f"{table}_qda.csv")
    X = data.drop(columns=[c for c in data.columns if c == "class" or c.startswith("posterior")])
    model = MixedNB().fit(X, data["class"])
    glucose = "glu" if table == "pima" else "glucose"
    assert model.feature_families_[glucose] == "gaussian"
    assert "poisson" not in model.feature_families_.values()


def test_families_are_chosen_on_the_labelled_rows():
    """Unlabelled rows (-1) do not enter the evidence; the labelled ones decide."""
    rng = np.random.default_rng(8)
    y = rng.integers(0, 2, 200)
    frame = pd.DataFrame({"glucose": np.round(rng.normal(110 + 15 * y, 30)).astype(int)})
    partly = y.copy()
    partly[::4] = -1
    model = MixedNB(max_iter=5).fit(frame, partly)
    labelled = MixedNB().fit(frame[partly != -1], y[partly != -1])
    assert model.family_log_evidence_ == labelled.family_log_evidence_


def test_joint_is_the_sum_of_separately_fitted_family_models():
    """log p(x, k) = log pi_k + sum_g log p_g(x_g | k), each p_g fitted on its own columns."""
    frame, y = _frame()
    model = MixedNB(features=FEATURES, alpha=0.5).fit(frame, y)
    groups = {
        "gaussian": (GaussianNB(estimate="mean"), ["height"]),
        "bernoulli": (BernoulliNB(alpha=0.5), ["smoker"]),
        "poisson": (PoissonNB(alpha=0.5), ["visits"]),
        "categorical": (CategoricalNB(alpha=0.5), ["city"]),
        "multinomial": (MultinomialNB(alpha=0.5), ["w1", "w2"]),
    }
    expected = np.log(np.bincount(y) / len(y))
    for estimator, columns in groups.values():
        part = frame[columns].astype(float) if columns != ["city"] else frame[columns]
        fitted = estimator.fit(part, y)
        expected = expected + fitted.predict_joint_log_proba(part) - np.log(fitted.class_prior_)
    np.testing.assert_allclose(model.predict_joint_log_proba(frame), expected, rtol=1e-10)
    assert set(model.estimators_) == set(groups)


def test_partial_fit_with_a_late_category_equals_fit():
    """Chunks (the last one bringing a new city) merge into the model fitted at once."""
    frame, y = _frame()
    frame.loc[frame.index[-5:], "city"] = "kyiv"
    whole = MixedNB(features=FEATURES).fit(frame, y)
    chunked = MixedNB(features=FEATURES)
    for rows in np.array_split(np.arange(len(y)), 3):
        chunked.partial_fit(frame.iloc[rows], y[rows], classes=[0, 1, 2])
    np.testing.assert_allclose(
        chunked.predict_joint_log_proba(frame), whole.predict_joint_log_proba(frame), rtol=1e-10
    )


def test_sample_weights_equal_duplicated_rows():
    """sample_weight = w gives the model fitted on rows repeated w times."""
    frame, y = _frame(120)
    weights = np.random.default_rng(3).integers(0, 3, len(y))
    weighted = MixedNB(features=FEATURES).fit(frame, y, sample_weight=weights)
    repeated = MixedNB(features=FEATURES).fit(
        frame.loc[frame.index.repeat(weights)], np.repeat(y, weights)
    )
    np.testing.assert_allclose(
        weighted.predict_joint_log_proba(frame), repeated.predict_joint_log_proba(frame), rtol=1e-10
    )


def test_story_shares_one_label_between_the_families():
    """Story density = sum of each family's own story density minus the (G - 1) extra
    copies of log p(pi) + sum_i log pi_yi that each of those counts once."""
    frame, y = _frame(80)
    model = MixedNB(features=FEATURES).fit(frame, y)
    pi = model.class_prior_
    params = {"class_prior": pi}
    separate_total = 0.0
    with jax.enable_x64(True):
        for family, estimator in model.estimators_.items():
            columns = [c for c, f in model.feature_families_.items() if f == family]
            own = {"class_prior": pi, **_fitted_sites(estimator)}
            params.update(
                {f"{family}/{name}": v for name, v in own.items() if name != "class_prior"}
            )
            density, _ = log_density(estimator.story, (frame[columns], y), {}, own)
            separate_total += float(density)
        combined, trace = log_density(model.story, (frame, y), {}, params)
    assert "y" in trace and "gaussian/X" in trace and "multinomial/X" in trace
    shared = stats.dirichlet.logpdf(pi, np.ones(3)) + np.log(pi[y]).sum()
    extra_copies = (len(model.estimators_) - 1) * shared
    np.testing.assert_allclose(float(combined), separate_total - extra_copies, rtol=1e-9)


def _fitted_sites(estimator):
    if isinstance(estimator, GaussianNB):
        return {"means": estimator.means_, "covariances": estimator.covariances_}
    if isinstance(estimator, PoissonNB):
        return {"rates": estimator.rates_}
    if isinstance(estimator, CategoricalNB):
        return {f"category_probs_{j}": np.exp(t) for j, t in enumerate(estimator.feature_log_prob_)}
    return {"feature_probs": np.exp(estimator.feature_log_prob_)}


@pytest.mark.parametrize(
    ("features", "message"),
    [
        ({"nope": "gaussian"}, r"features names columns \['nope'\]"),
        ({"height": "weibull"}, r"features\['height'\] must be one of"),
        (["height"], "features must be a dict"),
    ],
)
def test_bad_features_argument(features, message):
    """Unknown columns or families in features= are named in the error."""
    frame, y = _frame(30)
    with pytest.raises(ValueError, match=message):
        MixedNB(features=features).fit(frame, y)


def test_unsupported_dtype_names_the_column():
    """A datetime column without an explicit family: ValueError naming it."""
    frame, y = _frame(30)
    frame["when"] = pd.date_range("2026-01-01", periods=30)
    with pytest.raises(ValueError, match="Column 'when' has dtype datetime64"):
        MixedNB().fit(frame, y)


def test_missing_values_are_handled_group_by_group():
    """NaN / None in any column: the joint is still the sum of the groups' own models,
    each fitted on its columns with their holes; impute fills only the holes."""
    frame, y = _frame()
    holes = frame.drop(columns=["w1", "w2"]).astype({"visits": float})
    rng = np.random.default_rng(5)
    for column in holes.columns:
        hidden = rng.random(len(holes)) < 0.15
        holes[column] = holes[column].astype(object).where(~hidden, None)
    holes["height"] = holes["height"].astype(float)
    holes["visits"] = holes["visits"].astype(float)
    features = {"smoker": "bernoulli", "visits": "poisson", "city": "categorical"}
    model = MixedNB(features=features).fit(holes, y)
    expected = np.log(np.bincount(y) / len(y))
    for estimator, columns in [
        (GaussianNB(estimate="mean"), ["height"]),
        (BernoulliNB(), ["smoker"]),
        (PoissonNB(), ["visits"]),
        (CategoricalNB(), ["city"]),
    ]:
        part = holes[columns] if columns == ["city"] else holes[columns].astype(float)
        fitted = estimator.fit(part, y)
        expected = expected + fitted.predict_joint_log_proba(part) - np.log(fitted.class_prior_)
    np.testing.assert_allclose(model.predict_joint_log_proba(holes), expected, rtol=1e-8)
    imputed = model.impute(holes)
    assert isinstance(imputed, pd.DataFrame) and not imputed.isna().any().any()
    observed = holes.notna().to_numpy()
    assert (imputed.to_numpy()[observed] == holes.to_numpy()[observed]).all()
    assert set(imputed["city"]) <= {"rome", "oslo", "lima"}
    assert set(imputed["smoker"]) <= {0, 1}  # True == 1 and False == 0


def test_an_exponential_column_needs_no_edit_in_mixed_nb():
    """features={col: "exponential"} uses the registered family and its ExponentialNB."""
    from bayesgen import ExponentialNB

    frame, y = _frame(200, seed=3)
    rng = np.random.default_rng(4)
    frame = frame[["height"]].assign(wait=rng.exponential(1.0 + y))
    features = {"wait": "exponential", "height": "gaussian"}
    model = MixedNB(features=features, alpha=0.5).fit(frame, y)
    assert model.feature_families_ == {"height": "gaussian", "wait": "exponential"}
    expected = np.log(np.bincount(y) / len(y))
    gaussian, exponential = GaussianNB(estimate="mean"), ExponentialNB(alpha=0.5, estimate="mean")
    for estimator, columns in ((gaussian, ["height"]), (exponential, ["wait"])):
        fitted = estimator.fit(frame[columns], y)
        part = fitted.predict_joint_log_proba(frame[columns])
        expected = expected + part - np.log(fitted.class_prior_)
    np.testing.assert_allclose(model.predict_joint_log_proba(frame), expected, rtol=1e-10)
    assert isinstance(model.estimators_["exponential"], ExponentialNB)


def test_column_families_are_the_registered_families_with_an_estimator():
    """The families MixedNB offers come from the registry, each naming a registered class
    or declaring itself a column-only family; a family that is neither is not offered."""
    from bayesgen import registry
    from bayesgen.estimators.mixed_nb import column_families

    offered = column_families()
    assert {"gaussian", "bernoulli", "categorical", "poisson", "multinomial"} <= set(offered)
    assert {"exponential", "lognormal"} <= set(offered)
    assert "gamma" not in offered and "mixture" not in offered
    for name, family in offered.items():
        assert registry.family(name) is family
        assert family.estimator in registry.estimators() or (
            family.estimator is None and family.column_family
        )


def test_columns_with_the_same_name_are_refused_by_name():
    """Issue 33: was a raw AttributeError from pandas."""
    frame = pd.DataFrame(np.arange(24.0).reshape(8, 3), columns=["a", "a", "b"])
    with pytest.raises(ValueError, match=r"X has columns with the same name, \['a'\]"):
        MixedNB().fit(frame, [0, 1] * 4)


def test_errors_from_a_column_group_name_mixed_nb():
    """A group's error speaks of the MixedNB the user fitted, not of a class they never made."""
    X, y = _frame(n=60, seed=2)
    X.loc[3, "height"] = np.nan  # a Gaussian column: fitted by EM over the missing entry
    model = MixedNB().fit(X, y)
    with pytest.raises(ValueError, match="This MixedNB's gaussian family was fitted") as caught:
        model.predict_proba_draws(X, 5)
    assert "GaussianNB" not in str(caught.value)
    negative = X.iloc[:1].assign(visits=-1)
    with pytest.raises(ValueError, match="MixedNB's poisson family models counts") as caught:
        model.predict(negative)
    assert "PoissonNB" not in str(caught.value)


def test_family_params_give_each_family_its_own_settings():
    """All-Gaussian columns with GaussianNB's own estimate are GaussianNB, to 1e-10."""
    from sklearn.datasets import load_breast_cancer

    X, y = load_breast_cancer(return_X_y=True, as_frame=True)
    X = X.iloc[:, :6]
    plain = GaussianNB().fit(X, y)
    gaussian = {column: "gaussian" for column in X.columns}  # the evidence prefers lognormal
    mixed = MixedNB(
        features=gaussian, family_params={"gaussian": {"estimate": plain.estimate}}
    ).fit(X, y)
    assert set(mixed.feature_families_.values()) == {"gaussian"}
    np.testing.assert_allclose(mixed.predict_proba(X), plain.predict_proba(X), rtol=1e-10)
    # Without it MixedNB's own estimate ("mean") applies: a different model.
    own = MixedNB(features=gaussian).fit(X, y)
    assert not np.allclose(own.predict_proba(X), plain.predict_proba(X))
    frame, labels = _frame(200, seed=5)
    counts = MixedNB(alpha=1.0, family_params={"poisson": {"alpha": 0.25}}).fit(frame, labels)
    assert counts.estimators_["poisson"].alpha == 0.25
    assert counts.estimators_["bernoulli"].alpha == 1.0


@pytest.mark.parametrize(
    ("family_params", "message"),
    [
        ([("gaussian", {})], "family_params must be a dict"),
        ({"weibull": {}}, "family_params names the family 'weibull'"),
        ({"gaussian": 3}, r"family_params\['gaussian'\] must be a dict"),
        ({"poisson": {"binarize": 0.5}}, r"\['binarize'\], which PoissonNB does not take"),
        ({"gaussian": {"estimate": "best"}}, "estimate"),
    ],
)
def test_bad_family_params(family_params, message):
    frame, y = _frame(50)
    with pytest.raises(ValueError, match=message):
        MixedNB(family_params=family_params).fit(frame, y)


def test_whole_sample_weights_choose_as_repeated_rows_do():
    rng = np.random.default_rng(9)
    y = rng.integers(0, 2, 120)
    frame = pd.DataFrame({"n": rng.poisson(3 + 2 * y), "m": rng.integers(0, 4, 120)})
    weights = rng.integers(0, 4, 120)
    weighted = MixedNB().fit(frame, y, sample_weight=weights)
    repeated = MixedNB().fit(frame.loc[np.repeat(frame.index, weights)], np.repeat(y, weights))
    for column, evidence in repeated.family_log_evidence_.items():
        assert weighted.family_log_evidence_[column] == pytest.approx(evidence, rel=1e-12)
    assert weighted.feature_families_ == repeated.feature_families_


def test_samples_keep_the_training_columns_and_dtypes():
    frame, y = _frame(200, seed=6)
    frame["city"] = frame["city"].astype("category")
    model = MixedNB().fit(frame, y)
    X, _ = model.sample(50, random_state=0)
    assert list(X.columns) == list(frame.columns)
    assert X.dtypes.to_dict() == frame.dtypes.to_dict()
    assert set(X["city"].cat.categories) == set(frame["city"].cat.categories)


def test_impute_keeps_each_column_s_dtype():
    """float32, string, category and bool columns come back as they went in (pandas 3 refused
    to write the filled float64 values into them: a TypeError)."""
    rng = np.random.default_rng(21)
    n = 60
    y = rng.integers(0, 2, n)
    frame = pd.DataFrame(
        {
            "f32": rng.normal(5, 1, n).astype(np.float32),
            "s": pd.array(rng.choice(["a", "b"], n), dtype="string"),
            "c": pd.Categorical(rng.choice(["x", "y"], n)),
            "counts": pd.array(rng.poisson(3, n), dtype="Int64"),
            "b": rng.random(n) < 0.5,
        }
    )
    for column in ("f32", "s", "c", "counts"):
        frame.loc[::5, column] = None
    model = MixedNB(features={"counts": "poisson"}).fit(frame, y)
    imputed = model.impute(frame)
    assert imputed.dtypes.to_dict() == frame.dtypes.to_dict()
    assert not imputed.isna().any().any()
    observed = frame.notna().to_numpy()
    assert (
        imputed.astype(object).to_numpy()[observed] == frame.astype(object).to_numpy()[observed]
    ).all()
    assert set(imputed["s"]) <= {"a", "b"} and set(imputed["c"]) <= {"x", "y"}


def test_an_imputed_value_the_column_cannot_hold_widens_it():
    """Whole numbers (Int64) modelled as Gaussian get fractional means: the column becomes
    float, as pandas widens it, holding the observed values and the class-mixture means."""
    rng = np.random.default_rng(22)
    y = rng.integers(0, 2, 60)
    frame = pd.DataFrame({"n": pd.array(rng.poisson(3 + 4 * y), dtype="Int64")})
    frame.loc[::6, "n"] = None
    model = MixedNB(features={"n": "gaussian"}).fit(frame, y)
    imputed = model.impute(frame)
    assert imputed["n"].dtype.kind == "f"
    observed = frame["n"].notna().to_numpy()
    np.testing.assert_array_equal(imputed["n"][observed], frame["n"][observed].astype(float))
    group = model.estimators_["gaussian"]
    expected = model.predict_proba(frame[~observed]) @ group.means_[:, 0]
    np.testing.assert_allclose(imputed["n"][~observed], expected, rtol=1e-10)


def test_column_groups_keep_their_order():
    """The groups' order is the order their story parts run and their rows and posterior
    draws take the random stream, so the same ``random_state`` gives the same draws from
    one release to the next. It is the families' registration order, which a family
    module importing another at its top would change (``families/complement.py`` imports
    the multinomial family only when used, for this)."""
    from bayesgen.estimators.mixed_nb import column_families

    order = ["bernoulli", "categorical", "poisson", "exponential", "gaussian", "lognormal"]
    # A family added later may register among them; theirs is the order that must not move.
    known = [*order, "multinomial"]
    assert [name for name in column_families() if name in known] == known
    X, y = _frame()
    model = MixedNB(features={"visits": "multinomial", "w1": "multinomial"}).fit(X, y)
    assert list(model.column_groups_) == [f for f in column_families() if f in model.column_groups_]
    assert list(model.estimators_) == list(model.column_groups_)


def test_float32_columns_are_computed_in_float64():
    """MixedNB computes in float64: a float32 table (with a gap) predicts, draws and scores
    exactly as its values in float64 do."""
    rng = np.random.default_rng(2)
    y = rng.integers(0, 2, 60)
    wide = pd.DataFrame({"a": rng.normal(y, 1.0), "b": rng.normal(-y, 2.0)})
    wide.loc[3, "a"] = np.nan
    narrow = wide.astype(np.float32)
    exact = narrow.astype(np.float64)
    found, expected = MixedNB().fit(narrow, y), MixedNB().fit(exact, y)
    for method in ("predict_proba", "predict_joint_log_proba", "score_samples"):
        result = getattr(found, method)(narrow)
        assert result.dtype == np.float64, method
        np.testing.assert_array_equal(result, getattr(expected, method)(exact), err_msg=method)


def test_a_fit_that_fails_after_choosing_the_families_leaves_the_model_unfitted():
    from sklearn.exceptions import NotFittedError

    X, y = _frame()
    model = MixedNB()
    # One class is a model of the table now; weights that leave one class still fail.
    weights = (np.asarray(y) == np.asarray(y)[0]).astype(float)
    with pytest.raises(ValueError, match="leaves fewer than two classes"):
        model.fit(X, y, sample_weight=weights)
    with pytest.raises(NotFittedError):
        model.predict(X)
    with pytest.raises(NotFittedError):
        model.estimators_  # noqa: B018 - the property is the call under test


def test_nullable_integers_and_text_categories_share_the_categorical_group(tmp_path):
    """An ``Int64`` column of few whole numbers and a ``Categorical`` of text are both
    categorical: NumPy has no one dtype for the pair, so each is read on its own (the
    integers as floats, as an ``Int64`` group alone is read). The model equals the one
    fitted on the same values in plain dtypes."""
    rng = np.random.default_rng(21)
    n = 300
    y = rng.integers(0, 2, n)
    counts = rng.integers(0, 4, n)
    colours = rng.choice(["red", "blue"], n)
    nullable = pd.DataFrame(
        {
            "count": pd.array(counts, dtype="Int64"),
            "colour": pd.Categorical(colours),
            "size": rng.normal(y, 1.0),
        }
    )
    nullable.loc[3, "count"] = pd.NA
    plain = nullable.astype({"count": "float64", "colour": object})
    model = MixedNB().fit(nullable, y)
    assert model.feature_families_ == {
        "count": "categorical",
        "colour": "categorical",
        "size": "gaussian",
    }
    reference = MixedNB().fit(plain, y)
    np.testing.assert_allclose(
        model.predict_joint_log_proba(nullable),
        reference.predict_joint_log_proba(plain),
        rtol=1e-12,
    )
    drawn, _ = model.sample(500, random_state=0)
    assert drawn["count"].dtype == "Int64" and set(drawn["count"]) <= set(range(4))
    assert isinstance(drawn["colour"].dtype, pd.CategoricalDtype)
    assert model.impute(nullable.iloc[:5])["count"].notna().all()
    model.save(tmp_path / "nullable.bgm")
    np.testing.assert_array_equal(
        bayesgen.load(tmp_path / "nullable.bgm").predict_proba(nullable),
        model.predict_proba(nullable),
    )


def test_a_category_column_never_observed_is_refused_where_it_would_be_drawn():
    """Chosen by evidence it is refused as a column of numbers with no value is; named, it
    classifies (it adds the same to every class) but has no category to draw or fill in."""
    rng = np.random.default_rng(22)
    n = 100
    y = rng.integers(0, 2, n)
    frame = pd.DataFrame(
        {"shade": pd.Categorical([None] * n, categories=["a", "b"]), "size": rng.normal(y, 1.0)}
    )
    with pytest.raises(ValueError, match="Column 'shade' has no observed value"):
        MixedNB().fit(frame, y)
    model = MixedNB(features={"shade": "categorical"}).fit(frame, y)
    alone = MixedNB().fit(frame[["size"]], y)
    np.testing.assert_allclose(
        model.predict_proba(frame), alone.predict_proba(frame[["size"]]), rtol=1e-12
    )
    for use in (lambda: model.sample(3, random_state=0), lambda: model.impute(frame.iloc[:3])):
        with pytest.raises(ValueError, match=r"column 0 \('shade'\) held no value in training"):
            use()
