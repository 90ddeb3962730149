"""Fitting under ``sklearn.config_context(array_api_dispatch=True)`` on NumPy input.

scikit-learn's array API mode needs ``SCIPY_ARRAY_API=1`` before SciPy is imported, so the
fits run in a fresh interpreter.
"""

import os
import subprocess
import sys
import textwrap
from pathlib import Path

SCRIPT = textwrap.dedent(
    """
    import numpy as np
    import sklearn
    from sklearn.datasets import load_iris

    from bayesgen import QDA, MixedNB

    X, y = load_iris(return_X_y=True)
    with sklearn.config_context(array_api_dispatch=True):
        mixed = MixedNB().fit(X, y)
        weighted = QDA().fit(X, y, sample_weight=np.ones(len(y)))
    plain_mixed = MixedNB().fit(X, y)
    np.testing.assert_allclose(mixed.predict_proba(X), plain_mixed.predict_proba(X))
    np.testing.assert_allclose(weighted.predict_proba(X), QDA().fit(X, y).predict_proba(X))
    print("ok")
    """
)


def test_mixed_nb_and_sample_weights_under_array_api_dispatch():
    env = dict(os.environ, SCIPY_ARRAY_API="1")
    result = subprocess.run(
        [sys.executable, "-c", SCRIPT],
        env=env,
        cwd=Path(__file__).parents[2],  # this checkout's bayesgen
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert result.stdout.strip().endswith("ok")
