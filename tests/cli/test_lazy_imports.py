"""`import bayesgen`, `bayesgen --help` and the plain path import nothing heavy (issue 17)."""

import subprocess
import sys

import click
import numpy as np
import pandas as pd
import pytest

import bayesgen
from bayesgen import registry
from bayesgen.cli import COMMANDS, command_help, main

HEAVY = ("jax", "numpyro", "arviz", "matplotlib", "pyarrow", "dask")


def _modules_after(code: str) -> set[str]:
    """Heavy modules (and pandas) imported by ``code`` in a fresh interpreter."""
    probe = (
        f"{code}\nimport sys\n"
        f"print('MODULES:' + ','.join(m for m in {(*HEAVY, 'pandas')!r} if m in sys.modules))"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    )
    listed = result.stdout.rpartition("MODULES:")[2].strip()
    return set(filter(None, listed.split(",")))


def test_importing_the_package_imports_nothing_heavy():
    assert _modules_after("import bayesgen") & set(HEAVY) == set()


@pytest.mark.parametrize("argument", ["--help", "--version"])
def test_help_and_version_import_neither_the_models_nor_pandas(argument):
    code = f"from bayesgen.cli import main\nmain([{argument!r}], standalone_mode=False)"
    assert _modules_after(code) == set()


def test_listed_short_help_is_what_click_shows_for_each_imported_command():
    limit = 45
    for name in COMMANDS:
        command = main.get_command(click.Context(main), name)
        assert isinstance(command, click.Command)
        assert click.Command(name, help=command_help(name)).get_short_help_str(limit) == (
            command.get_short_help_str(limit)
        )
    assert main.get_command(click.Context(main), "train") is None


def test_public_names_resolve_on_first_use():
    estimators = registry.estimators()
    assert set(estimators) <= set(bayesgen.__all__)
    assert {"load", "ModelFileError", "enable_compilation_cache", "__version__"} <= set(
        bayesgen.__all__
    )
    assert bayesgen.QDA is estimators["QDA"]
    assert set(bayesgen.__all__) <= set(dir(bayesgen))
    namespace = {}
    exec("from bayesgen import *", namespace)
    assert namespace["PoissonNB"] is estimators["PoissonNB"]
    with pytest.raises(AttributeError, match="no attribute 'Nonexistent'"):
        bayesgen.Nonexistent  # noqa: B018


# Every estimator whose fit, predictions, synthetic rows and posterior draws on NumPy data
# run in NumPy (issue 17): the plain path imports none of HEAVY. pyarrow comes with pandas,
# which scikit-learn imports itself, so what counts is what the bayesgen calls add to
# `import sklearn.base`.
_PLAIN_PATH = """
import sys
import numpy as np
import sklearn.base
from sklearn.model_selection import cross_val_score
before = set(sys.modules)
rng = np.random.default_rng(0)
y = np.repeat([0, 1, 2], 20)
X = rng.normal(size=(60, 4)) + y[:, None]
data = {{"binary": (X > 1).astype(float), "counts": np.floor(np.abs(X) * 3),
        "codes": np.floor(np.abs(X)).clip(0, 3), "real": X, "positive": np.abs(X)}}
data["mixed"] = np.column_stack([X[:, :2], data["binary"][:, 2], data["counts"][:, 3]])
data["gappy"] = np.where(rng.random(X.shape) < 0.2, np.nan, X)
import bayesgen
for name, options, kind in {cases!r}:
    for model in (getattr(bayesgen, name)(**options).fit(data[kind], y),):
        model.predict(data[kind])
        model.predict_proba(data[kind])
        model.predict_log_proba(data[kind])
        if hasattr(model, "score_samples"):
            model.score_samples(data[kind])
        if kind == "gappy":
            model.impute(data[kind])
        if name != "ComplementNB":  # no story: it refuses both
            model.sample(20, random_state=0)
            model.predict_proba_draws(data[kind][:3], 20, random_state=0)
    cross_val_score(getattr(bayesgen, name)(**options), data[kind], y, cv=3)
added = set(sys.modules) - before
print("MODULES:" + ",".join(m for m in {heavy!r} if m in added))
"""

PLAIN_GROUPS = {
    "gaussian": [
        ("LDA", {}, "real"),
        ("QDA", {}, "real"),
        ("GaussianNB", {}, "real"),
        *(("GaussianDA", {"covariance_type": c}, "real") for c in ("full", "tied", "diag")),
        ("GaussianDA", {"covariance_type": "spherical", "estimate": "map"}, "real"),
        # EM over missing entries, with the NIW log prior in its objective.
        ("GaussianDA", {"covariance_type": "full", "estimate": "map"}, "gappy"),
        ("LDA", {}, "gappy"),
    ],
    "discrete": [
        ("BernoulliNB", {}, "binary"),
        ("MultinomialNB", {}, "counts"),
        ("ComplementNB", {}, "counts"),
        ("PoissonNB", {}, "counts"),
        ("CategoricalNB", {}, "codes"),
        ("ExponentialNB", {}, "positive"),
        ("MixedNB", {}, "mixed"),
    ],
}


@pytest.mark.parametrize("group", PLAIN_GROUPS)
def test_plain_fit_and_predictions_import_nothing_heavy(group):
    code = _PLAIN_PATH.format(cases=PLAIN_GROUPS[group], heavy=HEAVY)
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr[-3000:]
    assert result.stdout.rpartition("MODULES:")[2].strip() == ""


_PRECISION_BEFORE_JAX = """
import sys
import numpy as np
from bayesgen._precision import precision
with precision(np.float64):
    assert "jax" not in sys.modules
    import jax.numpy as jnp
    inside = jnp.ones(2).dtype
    with precision(np.float32):
        nested = jnp.ones(2).dtype
    again = jnp.ones(2).dtype
print("DTYPES:", inside, nested, again, jnp.ones(2).dtype)
"""


def test_a_precision_block_entered_before_jax_is_imported_holds_once_it_is():
    result = subprocess.run(
        [sys.executable, "-c", _PRECISION_BEFORE_JAX], capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert result.stdout.rpartition("DTYPES:")[2].split() == [
        "float64",
        "float32",
        "float64",
        "float32",
    ]


def test_the_command_line_fits_and_predicts_without_jax(tmp_path):
    rng = np.random.default_rng(0)
    labels = np.repeat(["x", "y"], 20)
    table = pd.DataFrame(rng.normal(size=(40, 2)), columns=["a", "b"]).assign(label=labels)
    table.to_csv(tmp_path / "data.csv", index=False)
    model, data = str(tmp_path / "m.bgm"), str(tmp_path / "data.csv")
    calls = [
        ["fit", data, "--target", "label", "--model", "qda", "--out", model],
        ["predict", model, data, "--proba", "--out", str(tmp_path / "p.csv")],
        ["predict", model, data, "--uncertainty", "0.9", "--out", str(tmp_path / "u.csv")],
        ["sample", model, "-n", "50", "--out", str(tmp_path / "s.csv")],
    ]
    code = (
        "import sys\nfrom bayesgen.cli import main\n"
        f"for args in {calls!r}:\n    main(args, standalone_mode=False)\n"
    )
    assert _modules_after(code) & {"jax", "numpyro", "arviz", "matplotlib", "dask"} == set()
    assert list(pd.read_csv(tmp_path / "p.csv").columns) == ["predicted", "p(x)", "p(y)"]
    assert pd.read_csv(tmp_path / "s.csv").shape == (50, 3)
