"""LatentClassNB: a mixture of MixedNB components per class, checked against MixedNB, EM's
guarantee, the table it was fitted on, its own story and bad input."""

import jax
import numpy as np
import pandas as pd
import pytest
from numpyro import handlers
from palmerpenguins import load_penguins
from scipy import stats
from scipy.special import logsumexp
from sklearn.datasets import load_wine

import bayesgen
from bayesgen import LatentClassNB, MixedNB
from bayesgen._precision import precision


def _table(n=600, seed=0, missing=True):
    """Two classes; inside each, a hidden group z moves a number, a category, a count and a
    flag together (so the columns depend on each other given the class)."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    z = rng.integers(0, 2, n)
    frame = pd.DataFrame(
        {
            "a": 3.0 * z + y + rng.normal(size=n),
            "b": np.where(z == 1, "high", "low"),
            "c": rng.poisson(1 + 3 * z),
            "d": (z == 1) ^ (rng.random(n) < 0.1),
        }
    )
    frame["b"] = frame["b"].astype("category")
    if missing:
        frame.loc[::17, "a"] = np.nan
        frame.loc[::13, "b"] = np.nan
    return frame, y


def test_one_component_is_mixed_nb():
    frame, y = _table()
    latent = LatentClassNB(n_components=1, alpha=1.0, estimate="mean").fit(frame, y)
    naive = MixedNB().fit(frame, y)
    np.testing.assert_allclose(
        latent.predict_joint_log_proba(frame), naive.predict_joint_log_proba(frame), atol=1e-10
    )
    np.testing.assert_array_equal(latent.weights_, np.ones((2, 1)))


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")  # tol=0
@pytest.mark.parametrize("init_params", ["random", "kmeans"])
def test_em_objective_never_decreases(init_params):
    frame, y = _table(missing=False)
    model = LatentClassNB(
        n_components=3, init_params=init_params, random_state=1, max_iter=30, tol=0
    ).fit(frame, y)
    history = model.log_likelihood_history_
    assert history.size >= 5
    assert np.all(np.diff(history) >= -1e-9 * np.abs(history[:-1]))


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")  # tol=0
@pytest.mark.parametrize(("n_components", "seed"), [(2, 5), (2, 10), (3, 5), (3, 10)])
def test_em_over_unlabelled_rows_never_decreases(n_components, seed):
    # The components' EM continues from the current parameters inside each M-step; run
    # anew from its starts (before) it lowered the objective on these wines by 0.2-1.8 %.
    frame = load_wine(as_frame=True).frame
    y = frame.pop("target").to_numpy().astype(object)
    y[np.random.default_rng(seed).random(y.size) < 0.5] = -1
    model = LatentClassNB(n_components=n_components, random_state=seed, max_iter=60)
    history = model.fit(frame, y).log_likelihood_history_
    assert history.size >= 3 and model.fitted_with_unlabeled_
    assert np.all(np.diff(history) >= -1e-9 * np.abs(history[:-1]))


def test_em_over_unlabelled_rows_keeps_the_columns_the_first_fit_learned():
    # Continued from the current parameters, the components' EM stays over the histogram
    # cells and categories of the first fit (re-learned from every row, they no longer
    # matched the parameters: a shape error).
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 300).astype(object)
    y[rng.random(300) < 0.5] = -1
    frame = pd.DataFrame(
        {
            "x": rng.normal(size=300),
            "c": rng.choice(["a", "b"], 300).astype(object),
        }
    )
    frame.loc[(y == -1) & (rng.random(300) < 0.3), "c"] = "only unlabelled"
    model = LatentClassNB(n_components=2, features={"x": "histogram"}, random_state=0)
    history = model.fit(frame, y).log_likelihood_history_
    assert np.all(np.diff(history) >= -1e-9 * np.abs(history[:-1]))
    probabilities = model.predict_proba(frame)
    assert np.isfinite(probabilities).all()
    np.testing.assert_allclose(probabilities.sum(axis=1), 1.0)


def test_em_objective_is_the_fitted_log_likelihood():
    """The last objective, without its prior term, is sum_i log p(x_i | y_i)."""
    frame, y = _table(missing=False)
    model = LatentClassNB(random_state=0, tol=0, max_iter=20).fit(frame, y)
    joint = model.predict_joint_log_proba(frame)
    data = np.sum(joint[np.arange(y.size), y] - np.log(model.class_prior_[y]))
    np.testing.assert_allclose(
        model.log_likelihood_history_[-1] - _feature_log_prior(model), data, rtol=1e-9
    )


def test_keeps_the_dependence_within_a_class_that_naive_bayes_loses():
    """Correlation of the number with the flag within class 0, on the real rows and on
    2000 drawn rows; its standard error is about (1 - r^2) / sqrt(n)."""
    frame, y = _table(n=1000, missing=False)
    real = np.corrcoef(frame["a"][y == 0], frame["d"][y == 0])[0, 1]
    n = 2000
    margin = 4 * ((1 - real**2) / np.sqrt(n) + (1 - real**2) / np.sqrt((y == 0).sum()))
    drawn = {}
    for model in (LatentClassNB(random_state=0), MixedNB()):
        X, _ = model.fit(frame, y).sample(n, y=0, random_state=0)
        drawn[type(model).__name__] = np.corrcoef(X["a"], X["d"])[0, 1]
    assert real > 0.6
    assert abs(drawn["LatentClassNB"] - real) < margin
    assert abs(drawn["MixedNB"]) < 4 / np.sqrt(n)


def test_samples_stay_in_each_columns_support():
    frame, y = _table()
    model = LatentClassNB(random_state=0).fit(frame, y)
    X, labels = model.sample(500, random_state=3)
    assert list(X.columns) == list(frame.columns)
    assert X["c"].dtype == frame["c"].dtype and (X["c"] >= 0).all()
    assert X["d"].dtype == bool
    assert isinstance(X["b"].dtype, pd.CategoricalDtype)
    assert set(X["b"]) <= {"high", "low"}
    assert X.notna().all().all() and set(labels) <= {0, 1}
    given, labels = model.sample(50, y=1, random_state=3)
    assert (labels == 1).all() and given.shape == (50, 4)


def test_impute_reads_a_missing_category_off_the_other_columns():
    """Given the class, b is independent of a under MixedNB but fixed by it here."""
    frame, y = _table(n=1000, missing=False)
    frame = frame[["a", "b"]]  # MixedNB.impute cannot yet fill a table with a complete
    # integer or bool column (it writes floats into it)
    hidden = frame.copy()
    hidden.loc[::4, "b"] = np.nan
    rows = hidden["b"].isna()
    accuracy = {}
    for model in (LatentClassNB(random_state=0), MixedNB()):
        filled = model.fit(frame, y).impute(hidden, y=y)
        accuracy[type(model).__name__] = np.mean(filled["b"][rows] == frame["b"][rows])
        assert filled.notna().all().all()
    assert accuracy["LatentClassNB"] > 0.9 > 0.7 > accuracy["MixedNB"]


def test_story_log_density_is_the_closed_form():
    """The rows' sites of the story (labels and the component factor) add up to
    sum_i log pi_yi + log sum_m w_km p(x_i | k, m) = the joint log-probabilities."""
    frame, y = _table(n=200)
    model = LatentClassNB(random_state=0).fit(frame, y)
    sites = {
        "class_prior": model.class_prior_,
        "component_weights": model.weights_,
        # the fitted components' parameters as the story names them
        **model._composite().sites(model.joint_.params.leaves),
    }
    with jax.enable_x64(True):
        trace = handlers.trace(handlers.substitute(model.story, data=sites)).get_trace(frame, y)
        rows = sum(
            float(np.sum(trace[name]["fn"].log_prob(trace[name]["value"])))
            for name in ("y", "component")
        )
        weights = trace["component_weights"]
        weights_density = np.asarray(weights["fn"].log_prob(weights["value"]))
    joint = model.predict_joint_log_proba(frame)
    np.testing.assert_allclose(rows, joint[np.arange(y.size), y].sum(), rtol=1e-10)
    np.testing.assert_allclose(
        weights_density,
        [stats.dirichlet.logpdf(w, np.ones(2)) for w in model.weights_],
        rtol=1e-10,
    )


def test_score_samples_is_the_mixture_over_classes_and_components():
    frame, y = _table(n=200)
    model = LatentClassNB(random_state=0).fit(frame, y)
    groups = model._composite()  # every pair (class, component) is a class of the groups
    with precision(np.float64):
        encoded = groups.encode(model._check_X(frame, reset=False))
        flat = np.asarray(groups.log_likelihood(model.joint_.params.leaves, encoded))
    components = flat.reshape(len(frame), -1, model.n_components)
    expected = logsumexp(
        components + np.log(model.weights_) + np.log(model.class_prior_)[:, None], axis=(1, 2)
    )
    np.testing.assert_allclose(model.score_samples(frame), expected, rtol=1e-12)


def test_save_and_load_round_trip(tmp_path):
    frame, y = _table(n=300)
    model = LatentClassNB(n_components=3, random_state=0).fit(frame, y)
    model.save(tmp_path / "latent.bgm")
    loaded = bayesgen.load(tmp_path / "latent.bgm")
    np.testing.assert_array_equal(
        loaded.predict_joint_log_proba(frame), model.predict_joint_log_proba(frame)
    )
    np.testing.assert_array_equal(loaded.weights_, model.weights_)
    pd.testing.assert_frame_equal(
        loaded.sample(20, random_state=1)[0], model.sample(20, random_state=1)[0]
    )


@pytest.mark.parametrize(
    ("params", "named"),
    [
        ({"n_components": 0}, "n_components"),
        ({"n_components": 1.5}, "n_components"),
        ({"n_init_components": 0}, "n_init_components"),
        ({"init_params": "spectral"}, "init_params"),
        ({"weight_concentration_prior": 0}, "weight_concentration_prior"),
        ({"warm_start": "yes"}, "warm_start"),
        ({"features": {"a": "nonsense"}}, "features['a']"),
    ],
)
def test_bad_settings_name_the_argument(params, named):
    frame, y = _table(n=50)
    with pytest.raises(ValueError, match=named.replace("[", r"\[")):
        LatentClassNB(**params).fit(frame, y)


def test_infinite_values_and_too_few_rows_are_refused():
    frame, y = _table(n=50)
    infinite = frame.copy()
    infinite.loc[3, "a"] = np.inf
    with pytest.raises(ValueError, match="inf.*'a'"):
        LatentClassNB().fit(infinite, y)
    with pytest.raises(ValueError, match="n_components=40"):
        LatentClassNB(n_components=40).fit(frame, y)
    model = LatentClassNB(random_state=0).fit(frame, y)
    with pytest.raises(ValueError, match="cannot add rows with partial_fit"):
        model.partial_fit(frame, y)
    with pytest.raises(ValueError, match="no closed-form posterior"):
        model.posterior()


def test_the_command_line_knows_the_model():
    from bayesgen.cli.model_choice import MODELS

    assert MODELS["latent-class-nb"] is LatentClassNB


def test_penguins_keep_bill_length_and_body_mass_together_within_a_species():
    """Among Gentoo penguins, long bills go with heavy birds (r = 0.67 on 123 rows); the
    margin is four standard errors (1 - r^2) / sqrt(n) of the real and of the drawn r."""
    penguins = load_penguins()
    y = penguins.pop("species")
    gentoo = penguins[y == "Gentoo"].dropna(subset=["bill_length_mm", "body_mass_g"])
    real = np.corrcoef(gentoo["bill_length_mm"], gentoo["body_mass_g"])[0, 1]
    n = 4000
    margin = 4 * (1 - real**2) * (1 / np.sqrt(len(gentoo)) + 1 / np.sqrt(n))
    drawn = {}
    for model in (LatentClassNB(random_state=0), MixedNB()):
        X, _ = model.fit(penguins, y).sample(n, y="Gentoo", random_state=0)
        drawn[type(model).__name__] = np.corrcoef(X["bill_length_mm"], X["body_mass_g"])[0, 1]
    assert abs(drawn["LatentClassNB"] - real) < margin
    assert abs(drawn["MixedNB"]) < 4 / np.sqrt(n)


def _feature_log_prior(model) -> float:
    """The family's log prior density of the fitted parameters (EM's objective's part)."""
    value = model.joint_
    return float(model.family_.log_prior(value.feature_prior, value.params, kind=model.estimate))


@pytest.mark.parametrize("seed", [0, 1])
def test_warm_start_continues_from_the_last_fit_s_objective(seed):
    """EM from the memberships under the last fit's parameters: its first M-step cannot fall
    below that fit's objective (EM's guarantee), and a refit on the same rows stops within
    a few iterations of where the cold fit took many."""
    frame, y = _table(missing=True, seed=seed)
    model = LatentClassNB(n_components=3, random_state=seed, max_iter=300).fit(frame, y)
    cold_history = model.log_likelihood_history_
    model.set_params(warm_start=True).fit(frame, y)
    warm_history = model.log_likelihood_history_
    assert warm_history[0] >= cold_history[-1] - 1e-9 * abs(cold_history[-1])
    assert np.all(np.diff(warm_history) >= -1e-9 * np.abs(warm_history[:-1]))
    assert warm_history.size < cold_history.size


def test_warm_start_on_more_rows_starts_from_their_memberships_under_the_last_fit():
    """A fit on a part of the rows, then warm on all of them: the first objective equals
    the one reached from the memberships of every row under the part's parameters,
    computed here from the fitted family, and lies above a cold fit's first objective."""
    frame, y = _table(n=900, seed=2)
    part = LatentClassNB(n_components=3, random_state=0).fit(frame[:600], y[:600])
    family = part._feature_family()
    checked = part._check_X(frame, reset=False)
    expected, _ = family.memberships(part.joint_.params, family.encode(checked))
    seen = {}
    original = LatentClassNB._em_starts

    def recorded(self, X, R):
        seen["starts"] = original(self, X, R)
        return seen["starts"]

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(LatentClassNB, "_em_starts", recorded)
        part.set_params(warm_start=True).fit(frame, y)
    assert len(seen["starts"]) == 1
    np.testing.assert_allclose(seen["starts"][0], np.asarray(expected), rtol=1e-12)
    cold = LatentClassNB(n_components=3, random_state=0).fit(frame, y)
    assert part.log_likelihood_history_[0] > cold.log_likelihood_history_[0]


@pytest.mark.parametrize(
    "change",
    ["n_components", "classes", "columns", "unfitted", "unlabelled"],
)
def test_warm_start_falls_back_to_the_usual_start(change):
    """Where the last fit's components, classes or columns differ, or there is no labelled
    fit to start from, a warm fit is the cold fit: the same predictions bit for bit."""
    frame, y = _table(seed=3)
    settings = {"n_components": 2, "random_state": 0}
    warm = LatentClassNB(**settings, warm_start=True)
    if change == "n_components":
        warm.set_params(n_components=3).fit(frame, y)
        warm.set_params(n_components=2)
    elif change == "classes":
        warm.fit(frame, np.where(y == 1, 2, y))
    elif change == "columns":
        warm.fit(frame.drop(columns="d"), y)
    elif change == "unlabelled":
        partly = y.astype(object)
        partly[::4] = None
        warm.fit(frame, partly)
    warm.fit(frame, y)
    cold = LatentClassNB(**settings).fit(frame, y)
    np.testing.assert_array_equal(warm.predict_proba(frame), cold.predict_proba(frame))
    np.testing.assert_array_equal(warm.log_likelihood_history_, cold.log_likelihood_history_)


def test_warm_start_takes_a_category_and_a_value_the_last_fit_never_saw():
    """New rows with a category the last fit never saw and a far value: the last fit
    scores them (an unseen category has its share of the prior), so the fit starts warm,
    and learns the new category."""
    frame, y = _table(seed=4, missing=False)
    model = LatentClassNB(n_components=2, random_state=0, warm_start=True).fit(frame, y)
    more = frame.copy()
    more["b"] = more["b"].cat.add_categories(["middle"])
    more.loc[:20, "b"] = "middle"
    more.loc[0, "a"] = 1e3
    model.fit(more, y)
    cold = LatentClassNB(n_components=2, random_state=0).fit(more, y)
    assert not np.array_equal(model.log_likelihood_history_, cold.log_likelihood_history_)
    assert "middle" in model.sample(4000, random_state=0)[0]["b"].astype(str).unique()
    assert np.isfinite(model.log_likelihood_history_).all()


@pytest.mark.parametrize("before", ["partial_fit", "unseen_category", "failed_fit"])
def test_warm_start_after_a_last_fit_that_cannot_start_it_is_the_cold_fit(before):
    """A last fit by ``partial_fit`` (no ``fitted_with_unlabeled_``) starts the next one;
    one whose settings changed since so that it cannot score the rows (a category it
    refuses), or a fit that failed half-way after it on rows of other column families,
    leaves the usual start: the same history as a cold fit, and no trace of the start on
    the model."""
    frame, y = _table(seed=7, missing=False)
    settings = {"n_components": 2, "random_state": 0}
    warm = LatentClassNB(**settings, warm_start=True)
    cold = LatentClassNB(**settings)
    if before == "partial_fit":
        more = frame.copy()
        more["b"] = more["b"].cat.add_categories(["middle"])
        more.loc[:20, "b"] = "middle"
        warm.partial_fit(frame, y, classes=[0, 1])
        assert "fitted_with_unlabeled_" not in vars(warm)
        warm.fit(more, y)
        cold.fit(more, y)
        assert not np.array_equal(warm.log_likelihood_history_, cold.log_likelihood_history_)
    else:
        if before == "unseen_category":
            strict = {"family_params": {"categorical": {"unseen_category": False}}}
            warm.fit(frame, y)
            warm.set_params(**strict)
            cold.set_params(**strict)
            more = frame.copy()
            more["b"] = more["b"].cat.add_categories(["middle"])
            more.loc[:20, "b"] = "middle"
        else:
            warm.set_params(features={"c": "poisson"}).fit(frame, y)
            more = frame.assign(c=frame["c"] - 2.5)  # other families: no Poisson column
            with pytest.raises(ValueError, match="n_components"):
                warm.set_params(features=None, n_components=10_000).fit(more, y)
            warm.set_params(n_components=2)
        warm.fit(more, y)
        cold.fit(more, y)
        np.testing.assert_array_equal(warm.log_likelihood_history_, cold.log_likelihood_history_)
    assert "_warm_start" not in vars(warm)


def test_warm_start_after_rows_the_last_fit_s_families_refuse_is_the_cold_fit():
    """The last fit took a column of counts; the new rows hold negative values there, which
    its family refuses: the new fit chooses its own families and starts as a cold one."""
    frame, y = _table(seed=5, missing=False)
    warm = LatentClassNB(n_components=2, random_state=0, warm_start=True)
    warm.set_params(features={"c": "poisson"}).fit(frame, y)
    shifted = frame.assign(c=frame["c"] - 2.5)
    warm.set_params(features=None).fit(shifted, y)
    cold = LatentClassNB(n_components=2, random_state=0).fit(shifted, y)
    assert warm.feature_families_ == cold.feature_families_
    assert warm.feature_families_["c"] != "poisson"
    np.testing.assert_array_equal(warm.log_likelihood_history_, cold.log_likelihood_history_)


def test_warm_start_before_unlabelled_rows_starts_their_em_from_the_last_fit():
    """A warm fit with unlabelled rows: the components' first fit starts from the last
    fit's memberships, and the EM over the unlabelled rows never decreases."""
    frame, y = _table(seed=6, missing=False)
    partly = y.astype(object)
    partly[::3] = None
    warm = LatentClassNB(n_components=2, random_state=0, warm_start=True).fit(frame, y)
    warm.fit(frame, partly)
    cold = LatentClassNB(n_components=2, random_state=0).fit(frame, partly)
    assert warm.fitted_with_unlabeled_ and cold.fitted_with_unlabeled_
    history = warm.log_likelihood_history_
    assert np.all(np.diff(history) >= -1e-9 * np.abs(history[:-1]))
    assert not np.array_equal(history, cold.log_likelihood_history_)
