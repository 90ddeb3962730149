"""The "first answer" section: what a fresh process pays before its first result.

Every row runs in fresh subprocesses (``runs`` of them, the median reported), bayesgen and
scikit-learn doing the same work side by side, as a new user or a short script meets them:
import, fit + predict_proba of LDA, QDA and GaussianNB on the wine data, 5-fold
cross-validation, the first posterior uses of a fitted QDA, the command line on a 200-row
CSV (second run, compilation cache warm), and 200 fits with varied row counts in one
process (XLA compilations and resident-memory growth).
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]


@dataclass
class Row:
    """One measured row: bayesgen and (where it has one) scikit-learn."""

    work: str
    bayesgen: float
    sklearn: float | None
    unit: str = "s"

    @property
    def ratio(self) -> float | None:
        """bayesgen / scikit-learn, when both exist."""
        return None if self.sklearn in (None, 0) else self.bayesgen / self.sklearn


def _environment(extra: dict | None = None) -> dict:
    environment = {**os.environ, **(extra or {})}
    environment.setdefault("XLA_FLAGS", "--xla_cpu_enable_concurrency_optimized_scheduler=false")
    environment["PYTHONPATH"] = str(ROOT) + os.pathsep + environment.get("PYTHONPATH", "")
    return environment


def _wall(argv: list[str], environment: dict, cwd: str) -> float:
    """Wall-clock seconds of one fresh process (interpreter start-up included)."""
    start = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, text=True, env=environment, cwd=cwd)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(argv[:4])} failed:\n{done.stderr[-2000:]}")
    return seconds


def _median_wall(argv, runs, environment, cwd) -> float:
    return statistics.median(_wall(argv, environment, cwd) for _ in range(runs))


def _child_json(code: str, environment: dict, cwd: str) -> dict:
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=environment, cwd=cwd
    )
    if done.returncode != 0:
        raise RuntimeError(f"benchmark subprocess failed:\n{done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


_LOAD = "import numpy as np; X = np.load('X.npy'); y = np.load('y.npy')\n"
_SKLEARN = {
    "LDA": "from sklearn.discriminant_analysis import LinearDiscriminantAnalysis as M",
    "QDA": "from sklearn.discriminant_analysis import QuadraticDiscriminantAnalysis as M",
    "GaussianNB": "from sklearn.naive_bayes import GaussianNB as M",
}
_CV = "from sklearn.model_selection import cross_val_score; cross_val_score(M(), X, y, cv=5)"

_USES = """
import json, time, warnings
import numpy as np
warnings.simplefilter("ignore")
X = np.load("X.npy"); y = np.load("y.npy")
import bayesgen
model = bayesgen.QDA().fit(X, y)
start = time.perf_counter()
{call}
print(json.dumps({{"seconds": time.perf_counter() - start}}))
"""
USES = {
    "sample(1000)": "model.sample(1000, random_state=0)",
    "posterior(1000)": "model.posterior(1000, random_state=0)",
    "predict_proba_draws(X[:5], 400)": "model.predict_proba_draws(X[:5], 400, random_state=0)",
}

_VARIED = """
import json, warnings
import numpy as np
warnings.simplefilter("ignore")
import {module}
def rss_mib():
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("VmRSS")) / 1024
compiles = [0]
if "{library}" == "bayesgen":
    import jax.monitoring
    jax.monitoring.register_event_duration_secs_listener(
        lambda event, seconds, **kw: compiles.__setitem__(0, compiles[0] + 1)
        if event == "/jax/core/compile/backend_compile_duration" else None)
rng = np.random.default_rng(0)
X_all = rng.normal(size=({last}, 10)); y_all = rng.integers(0, 3, {last}); X_all[y_all == 1] += 1.0
after_ten = None
for i, n in enumerate(range({first}, {last})):
    {model}.fit(X_all[:n], y_all[:n]).predict_proba(X_all[:n])
    if i == 9:
        after_ten = rss_mib()
print(json.dumps({{"compiles": compiles[0], "growth": rss_mib() - after_ten}}))
"""


def _write_tables(directory: Path) -> None:
    from sklearn.datasets import load_wine

    X, y = load_wine(return_X_y=True)
    np.save(directory / "X.npy", X)
    np.save(directory / "y.npy", y)
    rng = np.random.default_rng(0)
    n = 200
    means = rng.normal(scale=2.0, size=(3, 5))
    labels = rng.integers(0, 3, n)
    features = means[labels] + rng.normal(size=(n, 5))
    header = "a,b,c,d,e,class\n"
    rows = [
        ",".join(f"{v:.4f}" for v in row) + f",k{c}"
        for row, c in zip(features, labels, strict=True)
    ]
    (directory / "table.csv").write_text(header + "\n".join(rows) + "\n")
    holes = [
        ",".join("" if rng.random() < 0.1 else f"{v:.4f}" for v in row) + f",k{c}"
        for row, c in zip(features, labels, strict=True)
    ]
    (directory / "holes.csv").write_text(header + "\n".join(holes) + "\n")


def run(runs: int = 5, varied: tuple[int, int] = (2000, 2200), quick: bool = False) -> list[Row]:
    """Measure every row; ``runs`` fresh processes per figure (medians).

    ``quick`` (the test suite's smoke run) measures one model, one posterior use and two
    commands only.
    """
    models = ["QDA"] if quick else list(_SKLEARN)
    uses = dict(list(USES.items())[:1]) if quick else USES
    commands = dict(list(_COMMANDS.items())[:2]) if quick else _COMMANDS
    rows = []
    environment = _environment()
    python = sys.executable
    with tempfile.TemporaryDirectory() as scratch:
        where = Path(scratch)
        _write_tables(where)
        cwd = str(where)

        def both(ours: str, theirs: str) -> tuple[float, float]:
            return (
                _median_wall([python, "-c", ours], runs, environment, cwd),
                _median_wall([python, "-c", theirs], runs, environment, cwd),
            )

        mine, theirs = both(
            "import bayesgen", "import sklearn.naive_bayes, sklearn.discriminant_analysis"
        )
        rows.append(Row("import", mine, theirs))
        help_seconds = _median_wall(
            [python, "-m", "bayesgen.cli", "--help"], runs, environment, cwd
        )
        rows.append(Row("`bayesgen --help`", help_seconds, None))
        for name in models:
            reference = _SKLEARN[name]
            ours = _LOAD + f"import bayesgen; bayesgen.{name}().fit(X, y).predict_proba(X)"
            theirs = _LOAD + reference + "; M().fit(X, y).predict_proba(X)"
            mine, other = both(ours, theirs)
            rows.append(
                Row(
                    f"import + fit + predict_proba, {name}, wine",
                    mine,
                    other,
                )
            )
        for name in models:
            reference = _SKLEARN[name]
            ours = _LOAD + f"import bayesgen; M = bayesgen.{name}\n" + _CV
            theirs = _LOAD + reference + "\n" + _CV
            mine, other = both(ours, theirs)
            rows.append(
                Row(
                    f"import + 5-fold CV, {name}, wine",
                    mine,
                    other,
                )
            )
        for label, call in uses.items():
            code = _USES.format(call=call)
            seconds = statistics.median(
                _child_json(code, environment, cwd)["seconds"] for _ in range(runs)
            )
            rows.append(Row(f"QDA first {label} (the call alone)", seconds, None))
        rows += _command_line(where, runs, commands)
        first, last = varied
        results = {
            library: _child_json(
                _VARIED.format(module=module, library=library, model=model, first=first, last=last),
                environment,
                cwd,
            )
            for library, module, model in (
                ("bayesgen", "bayesgen", "bayesgen.QDA()"),
                (
                    "scikit-learn",
                    "sklearn.discriminant_analysis",
                    "sklearn.discriminant_analysis.QuadraticDiscriminantAnalysis()",
                ),
            )
        }
        calls = f"{last - first} QDA fit + predict_proba, rows {first}…{last - 1}"
        compiles = results["bayesgen"]["compiles"]
        rows.append(Row(f"{calls}: XLA compilations", compiles, None, ""))
        growth, reference = results["bayesgen"]["growth"], results["scikit-learn"]["growth"]
        rows.append(
            Row(
                f"{calls}: RSS growth after call 10",
                growth,
                reference,
                "MiB",
            )
        )
    return rows


_COMMANDS = {
    "fit": ["fit", "table.csv", "--target", "class", "--out", "model.bgm"],
    "predict --proba": ["predict", "model.bgm", "table.csv", "--proba", "--out", "p.csv"],
    "sample -n 1000": ["sample", "model.bgm", "-n", "1000", "--out", "s.csv"],
    "impute": ["impute", "model.bgm", "holes.csv", "--out", "f.csv"],
}


# The same work as each command, as the short scikit-learn script a user would write: read
# the CSV with pandas, fit (and pickle) or unpickle a QuadraticDiscriminantAnalysis, and
# write a CSV. It has no sampler, so "sample" draws with NumPy from the pickled model's means
# and covariances; "impute" fills the blanks with a SimpleImputer (less work than ours).
_SKLEARN_SCRIPTS = {
    "fit": """
import pickle, pandas as pd
from sklearn.discriminant_analysis import QuadraticDiscriminantAnalysis
table = pd.read_csv("table.csv")
model = QuadraticDiscriminantAnalysis(store_covariance=True)
model.fit(table.drop(columns="class"), table["class"])
with open("model.pkl", "wb") as file:
    pickle.dump(model, file)
""",
    "predict --proba": """
import pickle, pandas as pd
with open("model.pkl", "rb") as file:
    model = pickle.load(file)
table = pd.read_csv("table.csv")
proba = model.predict_proba(table.drop(columns="class"))
out = pd.DataFrame(proba, columns=[f"p({c})" for c in model.classes_])
out.insert(0, "predicted", model.classes_[proba.argmax(axis=1)])
out.to_csv("p_sklearn.csv", index=False)
""",
    "sample -n 1000": """
import pickle, numpy as np, pandas as pd
with open("model.pkl", "rb") as file:
    model = pickle.load(file)
rng = np.random.default_rng(0)
labels = rng.choice(len(model.classes_), size=1000, p=model.priors_)
rows = np.empty((1000, model.means_.shape[1]))
for k in range(len(model.classes_)):
    chosen = labels == k
    rows[chosen] = rng.multivariate_normal(model.means_[k], model.covariance_[k], chosen.sum())
out = pd.DataFrame(rows, columns=model.feature_names_in_)
out["class"] = model.classes_[labels]
out.to_csv("s_sklearn.csv", index=False)
""",
    "impute": """
import pandas as pd
from sklearn.impute import SimpleImputer
table = pd.read_csv("holes.csv")
features = table.drop(columns="class")
filled = pd.DataFrame(SimpleImputer().fit_transform(features), columns=features.columns)
filled.assign(**{"class": table["class"]}).to_csv("f_sklearn.csv", index=False)
""",
}


def _command_line(where: Path, runs: int, commands: dict) -> list[Row]:
    """Each command on the 200-row CSV, timed on runs after a first (cache-filling) one,
    beside the same work as a scikit-learn script (`_SKLEARN_SCRIPTS`)."""
    environment = _environment({"XDG_CACHE_HOME": str(where / "cache")})
    environment.pop("BAYESGEN_COMPILATION_CACHE", None)
    command = [sys.executable, "-m", "bayesgen.cli"]
    rows = []
    for label, arguments in commands.items():
        _wall(command + arguments, environment, str(where))  # the first run fills the cache
        seconds = _median_wall(command + arguments, runs, environment, str(where))
        script = [sys.executable, "-c", _SKLEARN_SCRIPTS[label]]
        reference = _median_wall(script, runs, environment, str(where))
        rows.append(
            Row(
                f"`bayesgen {label}`, 200-row CSV, second run",
                seconds,
                reference,
            )
        )
    return rows


def table(title: str, rows: list[Row]) -> list[str]:
    """The section's Markdown table (ratios written as plain numbers)."""
    lines = [
        f"### {title}",
        "",
        "| work | bayesgen | scikit-learn | bayesgen / scikit-learn |",
        "| --- | ---: | ---: | ---: |",
    ]
    for row in rows:
        value = f"{row.bayesgen:.0f}" if row.unit == "" else f"{row.bayesgen:.2f} {row.unit}"
        other = "" if row.sklearn is None else f"{row.sklearn:.2f} {row.unit}"
        ratio = "" if row.ratio is None else f"{row.ratio:.2f}"
        lines.append(f"| {row.work} | {value} | {other} | {ratio} |")
    return lines + [""]
