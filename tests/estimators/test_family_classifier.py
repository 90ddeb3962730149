"""``FamilyClassifier``: any family as the class densities, with no estimator code per family.

References: the estimators of the same family (equal to rounding), a mixture of one
component (the leaf itself), the story's own log density (NumPyro against SciPy), the
model-file round trip, and the dependence a per-class mixture keeps where naive Bayes
cannot.
"""

import json
import zipfile

import jax
import numpy as np
import pytest
from numpyro.infer.util import log_density
from scipy import stats
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import GridSearchCV, cross_val_score

import bayesgen
from bayesgen import FamilyClassifier, PoissonNB
from bayesgen.families.bernoulli import BernoulliFamily
from bayesgen.families.categorical import CategoricalFamily
from bayesgen.families.component_mixture import MixtureFamily
from bayesgen.families.poisson import PoissonFamily
from bayesgen.model_files.errors import ModelFileError


def _dependent_counts(seed=0, n=600):
    """Every count is 1 or 8 half the time in both classes; class 1 flips the middle one."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    high = rng.integers(0, 2, n)
    pattern = np.array([[0, 0, 0], [0, 1, 0]])[y]
    return rng.poisson(np.where((high[:, None] + pattern) % 2 == 1, 8.0, 1.0)), y


def test_a_per_class_mixture_keeps_the_dependence_naive_bayes_loses():
    X, y = _dependent_counts()
    X_test, y_test = _dependent_counts(seed=1)
    model = FamilyClassifier(family=MixtureFamily(PoissonFamily(), 2), random_state=0)
    assert model.fit(X, y).score(X_test, y_test) > 0.9
    assert PoissonNB().fit(X, y).score(X_test, y_test) < 0.7


def test_a_closed_form_family_is_its_own_estimator():
    X, y = _dependent_counts()
    ours = FamilyClassifier(family=PoissonFamily(alpha=0.5), estimate="mean").fit(X, y)
    theirs = PoissonNB(alpha=0.5).fit(X, y)
    np.testing.assert_allclose(
        ours.predict_joint_log_proba(X), theirs.predict_joint_log_proba(X), rtol=1e-13
    )
    chunked = FamilyClassifier(family=PoissonFamily(alpha=0.5), estimate="mean")
    chunked.partial_fit(X[:300], y[:300], classes=[0, 1]).partial_fit(X[300:], y[300:])
    np.testing.assert_allclose(chunked.predict_proba(X), theirs.predict_proba(X), rtol=1e-12)
    # The exact posterior of a conjugate family works through the value too.
    draws = ours.predict_proba_draws(X[:4], 50, random_state=0)
    assert draws.shape == (50, 4, 2)


def test_one_component_is_the_leaf():
    X, y = _dependent_counts()
    one = FamilyClassifier(family=MixtureFamily(BernoulliFamily(), 1), random_state=0)
    leaf = FamilyClassifier(family=BernoulliFamily())
    flags = (X > 3).astype(float)
    np.testing.assert_allclose(
        one.fit(flags, y).predict_joint_log_proba(flags),
        leaf.fit(flags, y).predict_joint_log_proba(flags),
        rtol=1e-12,
    )


def test_the_story_log_density_is_the_closed_form_joint_plus_the_log_prior():
    X, y = _dependent_counts(n=120)
    model = FamilyClassifier(family=MixtureFamily(PoissonFamily(alpha=2.0, beta=0.5), 2))
    model.set_params(random_state=0).fit(X, y)
    weights, rates = model.joint_.params
    params = {"class_prior": model.class_prior_, "component_weights": weights, "rates": rates}
    with jax.enable_x64(True):
        density, _ = log_density(model.story, (X, y), {}, params)
    joint = model.predict_joint_log_proba(X)[np.arange(len(y)), y].sum()
    prior = stats.dirichlet.logpdf(model.class_prior_, np.ones(2))
    prior += sum(stats.dirichlet.logpdf(w, np.ones(2)) for w in weights)
    prior += stats.gamma.logpdf(rates, 2.0, scale=1 / 0.5).sum()
    np.testing.assert_allclose(float(density), prior + joint, rtol=1e-10)


def test_a_mixture_of_kernel_densities_has_the_story_of_its_leaves():
    """The leaf's story holds its fitted centres and kernels (`story_prior` given the
    leaves' parameters), so the story's log density is the closed-form joint plus the
    weights' and class probabilities' log priors."""
    from sklearn.datasets import load_iris

    from bayesgen.families.kernel_density_family import KernelDensityFamily

    X, y = load_iris(return_X_y=True)
    X = X[::3, :2]
    y = y[::3]
    model = FamilyClassifier(family=MixtureFamily(KernelDensityFamily(), 2), max_iter=5)
    with pytest.warns(ConvergenceWarning):
        model.set_params(random_state=0).fit(X, y)
    weights = model.joint_.params.weights
    params = {"class_prior": model.class_prior_, "component_weights": weights}
    with jax.enable_x64(True):
        density, _ = log_density(model.story, (X, y), {}, params)
    joint = model.predict_joint_log_proba(X)[np.arange(len(y)), y].sum()
    prior = stats.dirichlet.logpdf(model.class_prior_, np.ones(3))
    prior += sum(stats.dirichlet.logpdf(w, np.ones(2)) for w in weights)
    np.testing.assert_allclose(float(density), prior + joint, rtol=1e-10)
    drawn, labels = model.sample(4, method="story", random_state=0)
    assert drawn.shape == (4, 2) and set(labels) <= set(model.classes_)


def test_synthetic_rows_and_imputation_come_from_the_mixture():
    X, y = _dependent_counts(n=2000)
    model = FamilyClassifier(family=MixtureFamily(PoissonFamily(), 2), random_state=0).fit(X, y)
    drawn, labels = model.sample(20000, y=1, random_state=0)
    assert set(labels) == {1}
    # Within class 1 the first two counts move against each other, as in the data.
    real = np.corrcoef(X[y == 1].T)[0, 1]
    assert real < -0.5
    assert np.corrcoef(drawn.T)[0, 1] == pytest.approx(real, abs=0.05)
    gappy = X[:200].astype(float)
    gappy[:, 1] = np.nan
    filled = model.impute(gappy, y=y[:200])
    # The observed first count says which component, so the middle one is recovered.
    low, high = X[:200, 0] <= 2, X[:200, 0] >= 6
    agrees = (filled[:, 1] >= 5) == (X[:200, 1] >= 5)
    assert agrees[low | high].mean() > 0.85


def test_a_latent_class_model_of_categories():
    rng = np.random.default_rng(3)
    y = rng.integers(0, 2, 800)
    z = rng.integers(0, 2, 800)
    yes = rng.random((800, 3)) < np.where(z[:, None] == y[:, None], 0.9, 0.1)
    X = np.where(yes, "yes", "no").astype(object)
    model = FamilyClassifier(family=MixtureFamily(CategoricalFamily(), 2), random_state=0)
    model.fit(X, y)
    assert [list(c) for c in model.family_.leaf.categories] == [["no", "yes"]] * 3
    drawn, _ = model.sample(5, random_state=0)
    assert set(np.unique(drawn)) <= {"yes", "no"}
    gappy = X[:5].copy()
    gappy[:, 0] = None
    assert set(model.impute(gappy)[:, 0]) <= {"yes", "no"}


def test_model_files_keep_the_family_and_predict_bit_for_bit(tmp_path):
    X, y = _dependent_counts()
    family = MixtureFamily(PoissonFamily(alpha=0.5), 3, weight_concentration=2.0)
    model = FamilyClassifier(family=family, random_state=0).fit(X, y)
    model.save(tmp_path / "model.bgm")
    loaded = bayesgen.load(tmp_path / "model.bgm")
    assert repr(loaded.family) == repr(family)
    np.testing.assert_array_equal(loaded.predict_proba(X), model.predict_proba(X))


def test_a_file_naming_an_unknown_family_is_refused(tmp_path):
    X, y = _dependent_counts()
    path = tmp_path / "model.bgm"
    FamilyClassifier(family=PoissonFamily()).fit(X, y).save(path)
    with zipfile.ZipFile(path) as archive:
        members = {name: archive.read(name) for name in archive.namelist()}
    header = json.loads(members["header.json"])
    header["estimator"]["params"]["family"]["name"] = "os.system"
    members["header.json"] = json.dumps(header).encode()
    damaged = tmp_path / "damaged.bgm"
    with zipfile.ZipFile(damaged, "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    with pytest.raises(ModelFileError, match="unknown feature family 'os.system'"):
        bayesgen.load(damaged)


def test_it_works_in_scikit_learn_model_selection():
    X, y = _dependent_counts(n=300)
    search = GridSearchCV(
        FamilyClassifier(random_state=0),
        {"family": [PoissonFamily(), MixtureFamily(PoissonFamily(), 2)]},
        cv=3,
    ).fit(X, y)
    assert isinstance(search.best_params_["family"], MixtureFamily)
    assert cross_val_score(clone(search.best_estimator_), X, y, cv=3).mean() > 0.85


def test_unlabelled_rows_with_a_one_component_mixture_are_the_leaf_s_em():
    """One component: the memberships are all 1, so the EM over (class, component) is the
    leaf's own EM over the classes, step for step."""
    X, y = _dependent_counts(n=300)
    labels = np.where(np.arange(300) % 3 == 0, y, -1)
    mixture = FamilyClassifier(family=MixtureFamily(PoissonFamily(), 1), tol=1e-10)
    leaf = FamilyClassifier(family=PoissonFamily(), tol=1e-10)
    mixture.fit(X, labels), leaf.fit(X, labels)
    assert mixture.fitted_with_unlabeled_ and leaf.fitted_with_unlabeled_
    assert mixture.n_iter_ == leaf.n_iter_
    np.testing.assert_allclose(mixture.predict_proba(X), leaf.predict_proba(X), rtol=1e-10)
    # The objectives differ by the weights' prior, a constant for one component.
    np.testing.assert_allclose(
        np.diff(mixture.log_likelihood_history_),
        np.diff(leaf.log_likelihood_history_),
        rtol=1e-8,
        atol=1e-8,
    )


def test_unlabelled_rows_help_a_mixture_and_its_objective_never_falls():
    X, y = _dependent_counts(n=800)
    X_test, y_test = _dependent_counts(seed=1)
    labelled = np.zeros(800, dtype=bool)
    for k in (0, 1):
        labelled[np.flatnonzero(y == k)[:12]] = True
    family = MixtureFamily(PoissonFamily(), 2)
    alone = FamilyClassifier(family=family, random_state=0).fit(X[labelled], y[labelled])
    model = FamilyClassifier(family=family, random_state=0, max_iter=300)
    model.fit(X, np.where(labelled, y, -1))
    history = model.log_likelihood_history_
    assert model.converged_ and model.n_iter_ == history.size > 1
    assert np.all(np.diff(history) >= -1e-9 * np.abs(history[1:]))
    assert model.score(X_test, y_test) >= alone.score(X_test, y_test)
    assert model.score(X_test, y_test) > 0.9
    # Not "fitted with unlabelled rows: use NUTS": NUTS does not apply to a mixture either.
    with pytest.raises(ValueError, match="no closed-form posterior.*label switching"):
        model.posterior(10, method="exact")
    with pytest.raises(ValueError, match="method='nuts'.*not supported.*exchangeable"):
        model.posterior(10, method="nuts", X=X, y=np.where(labelled, y, -1))


def test_bad_input_is_refused_with_its_name():
    X, y = _dependent_counts(n=100)
    with pytest.raises(ValueError, match="family must be a feature family .* got str"):
        FamilyClassifier(family="poisson").fit(X, y)
    with pytest.raises(ValueError, match="n_components must be an integer >= 1, a sequence"):
        FamilyClassifier(family=MixtureFamily(PoissonFamily(), 0)).fit(X, y)
    with pytest.raises(ValueError, match="Negative values .* models counts"):
        FamilyClassifier(family=PoissonFamily()).fit(-X, y)
    with pytest.raises(ValueError, match="X contains inf"):
        FamilyClassifier(family=PoissonFamily()).fit(np.where(X > 5, np.inf, X), y)
    mixture = FamilyClassifier(family=MixtureFamily(PoissonFamily(), 2), random_state=0)
    assert not hasattr(mixture, "partial_fit")
    mixture.fit(X, y)
    with pytest.raises(ValueError, match="mixture family has no closed-form posterior"):
        mixture.posterior(10)


def test_a_fit_that_stops_early_says_so():
    X, y = _dependent_counts(n=300)
    model = FamilyClassifier(family=MixtureFamily(PoissonFamily(), 2), max_iter=2, tol=0.0)
    with pytest.warns(ConvergenceWarning, match="did not converge"):
        model.set_params(random_state=0).fit(X, y)
    assert model.n_iter_ == 2 and not model.converged_
    assert model.log_likelihood_history_.shape == (2,)


def _damaged(tmp_path, change):
    X, y = _dependent_counts(n=60)
    path = tmp_path / "model.bgm"
    FamilyClassifier(family=MixtureFamily(PoissonFamily(), 2), random_state=0).fit(X, y).save(path)
    with zipfile.ZipFile(path) as archive:
        members = {name: archive.read(name) for name in archive.namelist()}
    header = json.loads(members["header.json"])
    change(header, members)
    members["header.json"] = json.dumps(header).encode()
    damaged = tmp_path / "damaged.bgm"
    with zipfile.ZipFile(damaged, "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return damaged


def _family_arguments(header):
    return header["estimator"]["params"]["family"]["arguments"]


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        (lambda h, m: _family_arguments(h).update(leaf=5), "leaf must be a feature family"),
        (lambda h, m: _family_arguments(h).update(n_components=-1), "n_components must be"),
        (
            lambda h, m: _family_arguments(h).update(weight_concentration=-1.0),
            "weight_concentration must be positive",
        ),
        (
            lambda h, m: _family_arguments(h).update(n_components=3),
            "statistics of 2 components per class do not fit a mixture of n_components=3",
        ),
        (
            lambda h, m: h["estimator"]["params"].update(
                family={"$type": "family", "name": "gamma", "arguments": {}}
            ),
            "joint_ does not fit the estimator's family",
        ),
    ],
    ids=["leaf", "components", "concentration", "components-vs-value", "other-family"],
)
def test_a_file_whose_family_is_damaged_or_contradicts_its_value_is_refused(
    tmp_path, change, problem
):
    with pytest.raises(ModelFileError, match=problem):
        bayesgen.load(_damaged(tmp_path, change))


@pytest.mark.parametrize(
    ("make", "problem"),
    [
        (lambda shape: np.full(shape, np.nan), "joint_.params hold NaN"),
        (lambda shape: np.ones((shape[0], shape[1] + 1)), "joint_.params have shapes"),
    ],
    ids=["nan", "shape"],
)
def test_a_file_whose_parameters_are_damaged_is_refused(tmp_path, make, problem):
    import io

    def change(header, members):
        rates = header["estimator"]["state"]["joint_"]["fields"]["params"]["fields"]["leaves"]
        array = make(tuple(rates["shape"]))
        rates["shape"] = list(array.shape)
        buffer = io.BytesIO()
        np.save(buffer, array)
        members[rates["member"]] = buffer.getvalue()

    with pytest.raises(ModelFileError, match=problem):
        bayesgen.load(_damaged(tmp_path, change))


def test_a_fit_too_large_for_one_responsibilities_matrix_is_still_one_em(monkeypatch):
    """Labelled rows are added in chunks beyond RESPONSIBILITY_ENTRIES; a mixture's EM
    takes all rows at once instead, and fits as it does below the limit."""
    from bayesgen.joint import fitting

    X, y = _dependent_counts(n=300)
    family = MixtureFamily(PoissonFamily(), 2)
    whole = FamilyClassifier(family=family, random_state=0).fit(X, y)
    monkeypatch.setattr(fitting, "RESPONSIBILITY_ENTRIES", 60)
    chunked = FamilyClassifier(family=family, random_state=0).fit(X, y)
    np.testing.assert_array_equal(chunked.predict_proba(X), whole.predict_proba(X))


def test_rows_of_weight_zero_teach_a_mixture_no_category():
    X = np.array([["a"], ["b"], ["a"], ["b"], ["zzz"]], dtype=object)
    y = np.array([0, 1, 0, 1, 0])
    weights = np.array([1.0, 1.0, 1.0, 1.0, 0.0])
    model = FamilyClassifier(family=MixtureFamily(CategoricalFamily(), 2), random_state=0)
    model.fit(X, y, sample_weight=weights)
    assert [list(c) for c in model.family_.leaf.categories] == [["a", "b"]]


def test_a_mixture_of_categorical_leaves_with_a_component_count_per_class():
    """A latent-class model with M_k per class through FamilyClassifier, no estimator code
    of its own: a class of one component is the categorical family's own fit of its rows."""
    from bayesgen.families.categorical import CategoricalFamily

    rng = np.random.default_rng(3)
    y = rng.integers(0, 2, 300)
    component = rng.integers(0, 2, 300)
    X = np.where(
        component[:, None] == 1, rng.integers(0, 2, (300, 4)), rng.integers(2, 4, (300, 4))
    )
    X[y == 0] = rng.integers(0, 4, (np.sum(y == 0), 4))
    mixture = MixtureFamily(CategoricalFamily(), (1, 2))
    model = FamilyClassifier(family=mixture, random_state=0).fit(X, y)
    weights = model.joint_.params.weights
    np.testing.assert_array_equal(weights[0], [1.0, 0.0])
    assert np.all(weights[1] > 0.3)
    single = FamilyClassifier(family=CategoricalFamily()).fit(X[y == 0], y[y == 0])
    np.testing.assert_allclose(
        np.asarray(model.joint_.params.leaves)[0], np.asarray(single.joint_.params)[0], rtol=1e-10
    )


def test_the_story_of_a_count_per_class_draws_only_each_classs_own_components():
    """With n_components (1, 3) the story restricts each class's weights to its own
    components, so its draws give class 0 component 0 only, and both ways of drawing
    (NumPy and the story) give the same component shares for class 1."""
    rng = np.random.default_rng(0)
    y = np.arange(600) % 2
    X = rng.poisson(
        np.where(y[:, None] == 0, 2.0, rng.choice([1.0, 6.0, 15.0], 600)[:, None]), (600, 2)
    )
    model = FamilyClassifier(family=MixtureFamily(PoissonFamily(), (1, 3)), random_state=0)
    model.fit(X, y)
    weights = model.joint_.params.weights
    np.testing.assert_array_equal(weights[0], [1.0, 0.0, 0.0])
    labels = np.repeat([0, 1], 2000)
    story, _ = model.sample(y=labels, random_state=1, method="story")
    drawn, _ = model.sample(y=labels, random_state=1)
    assert story.shape == drawn.shape == (4000, 2)
    # Class 0 is one Poisson component: its rows' mean is its rates, both ways.
    rates = np.asarray(model.joint_.params.leaves)[0]
    for rows in (story[:2000], drawn[:2000]):
        np.testing.assert_allclose(rows.mean(axis=0), rates, atol=4 * np.sqrt(rates.max() / 2000))
    # Class 1's rows: the same mixture both ways (their means within sampling error).
    spread = np.sqrt(drawn[2000:].var(axis=0) / 2000)
    assert np.all(np.abs(story[2000:].mean(axis=0) - drawn[2000:].mean(axis=0)) < 5 * spread)


@pytest.mark.parametrize("covariance_type", ["full", "tied", "diag"])
def test_a_gaussian_family_fits_missing_entries_by_the_same_em_as_gaussian_da(covariance_type):
    """A family that cannot skip missing entries gets EM over them, as GaussianDA does (it
    used to fail with a 'singular covariance' from NaN statistics), and partial_fit then
    refuses rows with missing entries."""
    from sklearn.datasets import load_iris

    from bayesgen import GaussianDA
    from bayesgen.families.gaussian import GaussianFamily

    X, y = load_iris(return_X_y=True)
    X = X.copy()
    X[np.random.default_rng(5).random(X.shape) < 0.15] = np.nan
    generic = FamilyClassifier(family=GaussianFamily(covariance_type), estimate="map").fit(X, y)
    own = GaussianDA(covariance_type=covariance_type, estimate="map").fit(X, y)
    assert generic.n_iter_ == own.n_iter_ > 1 and generic.converged_
    np.testing.assert_allclose(generic.joint_.params.means, own.means_, rtol=1e-12)
    np.testing.assert_allclose(generic.joint_.params.covariances, own.covariances_, rtol=1e-12)
    with pytest.raises(ValueError, match="partial_fit cannot add rows with missing values"):
        generic.partial_fit(X[:5], y[:5])
