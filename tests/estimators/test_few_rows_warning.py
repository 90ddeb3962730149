"""A full covariance fitted from fewer rows than features warns and names the remedy."""

import warnings

import numpy as np
import pytest

from bayesgen import LDA, QDA, GaussianDA
from bayesgen.validation import FewRowsWarning


def _data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(46, 9))
    y = np.array(["big"] * 40 + ["small"] * 6)
    return X, y


def test_qda_warns_naming_the_class_and_the_remedies():
    X, y = _data()
    with pytest.warns(FewRowsWarning, match=r"'small' \(6 rows\).*reg_covar.*estimate='map'"):
        QDA().fit(X, y)
    with pytest.warns(FewRowsWarning, match="shrinkage"):
        QDA(estimate="unbiased").fit(X, y)


@pytest.mark.parametrize(
    "model",
    [QDA(estimate="map"), QDA(shrinkage=0.2), LDA(), GaussianDA(covariance_type="diag")],
)
def test_no_warning_where_the_covariance_is_proper(model):
    X, y = _data()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model.fit(X, y)
