"""Bad input gets a clear ValueError naming the argument, never a silent wrong answer."""

import warnings

import numpy as np
import pytest
from sklearn.datasets import load_iris

from bayesgen import LDA, QDA, GaussianDA, GaussianNB

X, y = load_iris(return_X_y=True)


@pytest.mark.parametrize("value", [np.inf, -np.inf])
def test_infinite_features_are_rejected_in_fit_and_predict(value):
    """±inf in X: ValueError naming X and where."""
    bad = X.copy()
    bad[3, 2] = value
    with pytest.raises(ValueError, match=r"X contains -?inf \(first at row 3, column 2\)"):
        GaussianDA().fit(bad, y)
    model = GaussianDA().fit(X, y)
    with pytest.raises(ValueError, match="X must be finite"):
        model.predict(bad)


def test_wrong_number_of_features_at_predict():
    """Predicting with another feature count names X and both counts."""
    model = QDA().fit(X, y)
    with pytest.raises(ValueError, match="X has 3 features, but QDA is expecting 4"):
        model.predict_proba(X[:, :3])


def test_fewer_than_two_classes():
    """One class in y (where scikit-learn refuses it too: discriminant analysis), or only
    one class with positive weight, is refused. GaussianNB takes one class, as
    scikit-learn's does (tests/estimators/test_one_class.py)."""
    with pytest.raises(ValueError, match="at least two classes"):
        QDA().fit(X[:50], y[:50])
    weights = (y == 0).astype(float)
    with pytest.raises(ValueError, match="sample_weight leaves fewer than two classes"):
        GaussianNB().fit(X, y, sample_weight=weights)


def test_bad_sample_weight():
    """Wrong length or negative weights name sample_weight."""
    with pytest.raises(ValueError, match="sample_weight.shape"):
        LDA().fit(X, y, sample_weight=np.ones(3))
    with pytest.raises(ValueError, match="Negative values in data passed to `sample_weight`"):
        LDA().fit(X, y, sample_weight=-np.ones(len(y)))


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"covariance_type": "banana"}, "covariance_type must be one of"),
        ({"estimate": "median"}, "estimate must be one of"),
        ({"reg_covar": -1.0}, "reg_covar must be >= 0"),
        ({"mean_precision_prior": 0.0}, "mean_precision_prior must be > 0"),
        ({"class_concentration_prior": "one"}, "class_concentration_prior must be a finite"),
        ({"priors": [0.5, 0.5]}, r"priors must have one entry per class, shape \(3,\)"),
        ({"priors": [0.5, 0.5, 0.5]}, "priors must sum to one"),
        ({"mean_prior": np.zeros(3)}, r"mean_prior must be a finite array of shape \(4,\)"),
        ({"covariance_prior": np.eye(3)}, r"covariance_prior must have shape \(4, 4\)"),
        ({"covariance_prior": -np.eye(4)}, "symmetric positive definite"),
        ({"degrees_of_freedom_prior": 2.0}, "must exceed n_features - 1 = 3"),
    ],
)
def test_bad_hyperparameters_name_themselves(params, message):
    """Each invalid hyperparameter fails at fit with its own name in the message."""
    with pytest.raises(ValueError, match=message):
        GaussianDA(**params).fit(X, y)


def test_posterior_mean_that_does_not_exist_is_refused():
    """estimate='mean' with nu_k = nu_0 + N_k <= d + 1 (one row per class): no mean exists."""
    rows = [0, 50, 100]
    model = GaussianDA(estimate="mean", degrees_of_freedom_prior=3.5)
    with pytest.raises(ValueError, match="estimate='mean' needs a posterior covariance mean"):
        model.fit(X[rows], y[rows])


def test_non_numeric_features():
    """Strings in X: ValueError saying X must be numeric."""
    bad = X.astype(object)
    bad[0, 0] = "abc"
    with pytest.raises(ValueError, match="X must be numeric"):
        GaussianNB().fit(bad, y)


def test_partial_fit_needs_classes_first_and_known_labels():
    """partial_fit: classes on the first call; unseen labels later are errors."""
    with pytest.raises(ValueError, match="classes must be passed on the first call"):
        LDA().partial_fit(X, y)
    model = LDA().partial_fit(X[y < 2], y[y < 2], classes=[0, 1])
    with pytest.raises(ValueError, match=r"y contains labels \[2\] that are not in classes"):
        model.partial_fit(X, y)


def test_singular_covariance_without_ridge_is_an_error_not_nan():
    """reg_covar=0 with a constant feature: a clear error instead of NaN output."""
    constant = X.copy()
    constant[:, 1] = 1.0
    with pytest.raises(ValueError, match="singular .* use reg_covar > 0"):
        QDA(reg_covar=0).fit(constant, y)


def test_count_models_refuse_negative_counts_naming_the_column():
    """Negative counts: ValueError with the value, row and column (named for DataFrames)."""
    import pandas as pd

    from bayesgen import MultinomialNB, PoissonNB

    counts = np.abs(X).round()
    counts[4, 2] = -1
    for model in (MultinomialNB(), PoissonNB()):
        with pytest.raises(ValueError, match="Negative values .* -1.0 at row 4, column 2"):
            model.fit(counts, y)
    frame = pd.DataFrame(counts, columns=["a", "b", "c", "d"])
    with pytest.raises(ValueError, match=r"at row 4, column 2 \('c'\)"):
        MultinomialNB().fit(frame, y)


def test_bernoulli_without_binarize_refuses_non_binary_data():
    """BernoulliNB(binarize=None) on non-0/1 data suggests binarize=<threshold>."""
    from bayesgen import BernoulliNB

    with pytest.raises(ValueError, match=r"needs 0/1 .* binarize=<threshold>"):
        BernoulliNB().fit(X, y)


def test_discrete_bad_hyperparameters():
    """alpha of the wrong shape or sign, a negative beta, a bad class_prior: named errors."""
    from bayesgen import BernoulliNB, CategoricalNB, MultinomialNB, PoissonNB

    counts = np.abs(X).round()
    with pytest.raises(
        ValueError, match=r"alpha must be a positive number or an array of shape \(4,\)"
    ):
        MultinomialNB(alpha=np.ones(3)).fit(counts, y)
    with pytest.raises(ValueError, match="alpha must be positive"):
        MultinomialNB(alpha=0.0).fit(counts, y)
    with pytest.raises(ValueError, match="beta must be > 0"):
        PoissonNB(beta=-1.0).fit(counts, y)
    with pytest.raises(ValueError, match="class_prior must sum to one"):
        BernoulliNB(binarize=1.0, class_prior=[0.5, 0.5, 0.5]).fit(counts, y)
    with pytest.raises(ValueError, match="alpha must be > 0"):
        CategoricalNB(alpha=-2).fit(counts, y)
    with pytest.raises(ValueError, match="fit_prior must be True or False"):
        MultinomialNB(fit_prior="yes").fit(counts, y)


def test_count_models_refuse_infinite_values():
    """±inf in count data is an error (NaN is a missing value, see test_missing_discrete)."""
    from bayesgen import MultinomialNB, PoissonNB

    counts = np.abs(X).round()
    counts[1, 1] = np.inf
    for model in (MultinomialNB(), PoissonNB()):
        with pytest.raises(ValueError, match="X must be finite"):
            model.fit(counts, y)


@pytest.mark.parametrize("alpha", ["x", None, True, [[1.0, 2.0]]], ids=repr)
@pytest.mark.parametrize("name", ["PoissonNB", "MultinomialNB", "ComplementNB", "BernoulliNB"])
def test_a_concentration_that_is_no_number_is_named(name, alpha):
    """Not NumPy's "could not convert string to float": the error names alpha and shows it."""
    import bayesgen

    counts = (np.abs(X) > 3).astype(int)
    with pytest.raises(ValueError, match=r"^alpha must be a positive number or an array of shape"):
        getattr(bayesgen, name)(alpha=alpha).fit(counts, y)


def _bad(call, error, message):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # and no NumPy warning on the way
        with pytest.raises(error, match=message):
            call()


def test_inputs_that_are_no_numbers_or_no_labels_are_named():
    """Each of these failed inside NumPy, pandas or NumPyro with a message naming no
    argument (a hostile-input sweep); each is now refused by name."""
    import pandas as pd

    import bayesgen

    model = QDA().fit(X, y)
    na = pd.DataFrame(X[:3]).astype(object)
    na.iloc[0, 0] = pd.NA
    _bad(lambda: model.predict(na), TypeError, r"X must be numeric for QDA.*'Float64'")
    _bad(lambda: QDA().fit(na, y[:3]), TypeError, "X must be numeric for QDA")
    mixed = np.array(["b", 1] * 75, dtype=object)
    _bad(lambda: QDA().fit(X, mixed), ValueError, r"labels of types \['int', 'str'\]")
    _bad(lambda: model.sample(2, y=np.array([0, None], dtype=object)), ValueError, r"\[None\]")
    _bad(lambda: QDA(priors="abc").fit(X, y), TypeError, "priors must be an array of real")
    _bad(lambda: QDA(priors={"a": 1}).fit(X, y), TypeError, "priors must be an array of real")
    ragged = [[0, 1], [1]]
    _bad(lambda: model.predict(X[:2], cost=ragged), TypeError, "cost must be an array of real")
    complex_cost = np.ones((3, 3)) * (1 + 1j)
    _bad(lambda: model.predict(X[:2], cost=complex_cost), TypeError, "complex numbers")
    shifted = np.array([0.5, 0.25, 0.25]) + 0j
    _bad(lambda: model.with_class_prior(shifted), TypeError, "prior must be an array of real")
    _bad(lambda: model.story(n_samples=0), ValueError, "n_samples must be an integer >= 1")
    _bad(lambda: model.story(X[:2], n_samples=3), ValueError, "n_samples=3 but X or y has 2")
    _bad(lambda: model.story(X[:3], y[:2]), ValueError, "inconsistent numbers of samples")
    _bad(lambda: bayesgen.load(None), TypeError, "file must be a path")
    _bad(lambda: model.save(3), TypeError, "file must be a path")
    _bad(lambda: model.predict_proba_draws(X[:2], posterior="x"), TypeError, "InferenceData")
    frame = pd.DataFrame(X, columns=list("abcd"))
    weights = np.r_[np.inf, np.ones(149)]
    _bad(lambda: bayesgen.MixedNB().fit(frame, y, sample_weight=weights), ValueError, "infinity")


@pytest.mark.parametrize("name", ["QDA", "MixedNB", "LatentClassNB"])
def test_impute_takes_one_known_label_per_row(name):
    import bayesgen

    model = getattr(bayesgen, name)(**({"random_state": 0} if name == "LatentClassNB" else {}))
    model.fit(X, y)
    gappy = X[:4].copy()
    gappy[0, 1] = np.nan
    for labels in (0, [0, 1], [0, 1, 2, 0, 1], np.zeros((4, 1))):
        with pytest.raises(ValueError, match=r"y must have one label per row of X, shape \(4,\)"):
            model.impute(gappy, y=labels)
    filled = model.impute(gappy, y=[0, 0, 1, 1])
    assert np.isfinite(np.asarray(filled, dtype=float)).all()


def test_multinomial_lengths_are_whole_row_totals():
    """lengths of 1.5 were truncated to 1 without a word; -3, NaN, a string or the wrong
    count failed inside NumPy; an unfitted model raised AttributeError."""
    from sklearn.exceptions import NotFittedError

    from bayesgen import MultinomialNB

    counts = np.round(np.abs(X) * 2)
    model = MultinomialNB().fit(counts, y)
    for lengths in (-3, 1.5, np.nan, "a", [[1, 2]]):
        with pytest.raises(ValueError, match="lengths must be a whole number >= 0"):
            model.sample(2, lengths=lengths, random_state=0)
    with pytest.raises(ValueError, match="lengths must have one total per row, 3; got 2"):
        model.sample(3, lengths=[1, 2], random_state=0)
    with pytest.raises(ValueError, match="n_samples must be an integer >= 1; got True"):
        model.sample(True)
    with pytest.raises(NotFittedError):
        MultinomialNB().sample(2)
    rows = model.sample(3, lengths=[5, 6, 7], random_state=0)[0]
    np.testing.assert_array_equal(rows.sum(axis=1), [5, 6, 7])
    np.testing.assert_array_equal(model.sample(3, lengths=[5], random_state=0)[0].sum(1), 5)
    story = model.sample(y=[0, 1], lengths=[4, 6], method="story", random_state=0)[0]
    np.testing.assert_array_equal(story.sum(axis=1), [4, 6])


def test_dates_are_refused_not_read_as_nanoseconds():
    """A date column in place of a number: MixedNB's log-normal column read it as
    nanoseconds and predicted; QDA failed inside NumPy's type promotion."""
    import pandas as pd

    import bayesgen

    frame = pd.DataFrame(X, columns=list("abcd"))
    dated = frame.iloc[:3].assign(a=pd.to_datetime(["2020-01-01"] * 3))
    mixed = bayesgen.MixedNB(features={"a": "lognormal"}).fit(frame, y)
    with pytest.raises(ValueError, match=r"Column 'a' has dtype datetime64.*convert it"):
        mixed.predict(dated)
    with pytest.raises(TypeError, match="X must be numeric for QDA"):
        QDA().fit(frame, y).predict(dated)
    with pytest.raises(ValueError, match="got dates or durations"):
        from bayesgen.families.protocol import as_numbers

        as_numbers(np.array(["2020-01-01"], dtype="datetime64[D]").reshape(1, 1))


@pytest.mark.parametrize("name", ["QDA", "KernelDensityDA", "PoissonNB"])
def test_given_values_beyond_floating_point_are_refused_not_drawn_as_nan(name):
    """sample(given={0: 1e308}) drew NaN columns (QDA), columns of 1e307 (kernel density) or
    failed with int64's least value and NumPy warnings (Poisson)."""
    import bayesgen

    rows = np.round(np.abs(X) * 2) if name == "PoissonNB" else X
    model = getattr(bayesgen, name)().fit(rows, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ValueError, match=r"given.*\[0\]"):
            model.sample(3, given={0: 1e308}, random_state=0)
        drawn = model.sample(3, given={0: 5.0}, random_state=0)[0]
    assert np.all(np.isfinite(drawn)) and np.all(drawn[:, 0] == 5.0)


def test_settings_that_are_no_family_of_the_kind_are_named():
    import pandas as pd
    from sklearn.utils import get_tags

    import bayesgen
    from bayesgen.families.composite import CompositeFamily
    from bayesgen.families.poisson import PoissonFamily

    assert get_tags(bayesgen.MixedNB(features=3)).estimator_type == "classifier"
    with pytest.raises(ValueError, match="features must be a dict"):
        bayesgen.MixedNB(features=3).fit(pd.DataFrame(X), y)
    composite = CompositeFamily({"poisson": (PoissonFamily(), [0, 1])})
    with pytest.raises(ValueError, match=r"MixedNB\(features="):
        bayesgen.FamilyClassifier(family=composite).fit(np.round(np.abs(X[:, :2])), y)
    for name in ("mean_prior", "covariance_prior"):
        with pytest.raises(TypeError, match=f"{name} must be an array of real numbers"):
            QDA(**{name: "x"}).fit(X, y)


def test_sparse_rows_keep_scikit_learns_message():
    """Not rewritten as 'X must be numeric' (its text says '.toarray()' to convert)."""
    import scipy.sparse as sp

    with pytest.raises(TypeError, match=r"dense data is required"):
        QDA().fit(sp.csr_matrix(X), y)


@pytest.mark.parametrize("stray", [2.0, 0.5, -0.5])
@pytest.mark.parametrize("layout", ["dense", "csr"])
def test_bernoulli_names_the_first_entry_that_is_not_0_or_1(stray, layout):
    """0, 1 and NaN pass the binary check, whatever else X holds; any other value is named
    with its row and column (a negative one as a negative count)."""
    import scipy.sparse as sp

    from bayesgen import BernoulliNB

    binary = (np.arange(48).reshape(12, 4) % 3 == 0).astype(float)
    binary[2, 1] = np.nan
    labels = np.arange(12) % 2
    fitted = BernoulliNB().fit(binary if layout == "dense" else sp.csr_matrix(binary), labels)
    assert np.isfinite(fitted.feature_log_prob_).all()
    binary[7, 3] = stray
    rows = binary if layout == "dense" else sp.csr_matrix(binary)
    message = "Negative values" if stray < 0 else "needs 0/1"
    with pytest.raises(ValueError, match=rf"{message}.* row 7, column 3"):
        BernoulliNB().fit(rows, labels)
