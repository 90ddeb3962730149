"""Write ``family_settings/``: model files of FamilyClassifier over families whose settings
the families did not check yet (at e3d1b4c): a Poisson prior rate per feature, a 0-d array
prior weight, an infinite log-normal prior weight (a fixed variance).

Run on e3d1b4c (``PYTHONPATH=<that checkout> python make_family_setting_files.py``); the
test reads the files and the class probabilities stored beside them.
"""

from pathlib import Path

import numpy as np
from sklearn.datasets import load_iris

from bayesgen import FamilyClassifier
from bayesgen.families.gaussian import GaussianFamily
from bayesgen.families.lognormal import LogNormalFamily
from bayesgen.families.poisson import PoissonFamily

FOLDER = Path(__file__).parent / "family_settings"

CASES = {
    "poisson-beta-per-feature": PoissonFamily(beta=np.array([1.0, 2.0, 1.0, 1.0])),
    "gaussian-0d-prior-weight": GaussianFamily("diag", mean_precision_prior=np.array(2.0)),
    "lognormal-infinite-prior-weight": LogNormalFamily(degrees_of_freedom_prior=np.inf),
}


def rows():
    """Iris, rounded and shifted to positive whole numbers (every family reads them)."""
    X, y = load_iris(return_X_y=True)
    return np.round(X) + 1, y


if __name__ == "__main__":
    FOLDER.mkdir(exist_ok=True)
    X, y = rows()
    for case, family in CASES.items():
        model = FamilyClassifier(family=family).fit(X, y)
        model.save(FOLDER / f"{case}.bgm")
        np.save(FOLDER / f"{case}.npy", model.predict_proba(X))
