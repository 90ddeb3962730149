"""scikit-learn's shared estimator checks, run on every estimator."""

import pytest
from sklearn.utils.estimator_checks import estimator_checks_generator

from bayesgen import LDA, QDA, GaussianDA, GaussianNB

ESTIMATORS = [
    GaussianDA(),
    GaussianDA(covariance_type="spherical", estimate="map"),
    GaussianDA(covariance_type="diag", estimate="mean"),
    GaussianDA(covariance_type="tied", estimate="mean"),
    LDA(),
    QDA(),
    GaussianNB(),
]

# bayesgen converts every input to NumPy before JAX sees it, so the Array API input check
# does not apply (scikit-learn itself skips it unless SCIPY_ARRAY_API is set); every
# other check runs and must pass.
NOT_APPLICABLE = {"check_array_api_input"}


def _check_name(check) -> str:
    return getattr(check, "func", check).__name__


CHECKS = [
    pytest.param(estimator, check, id=f"{estimator!r}-{_check_name(check)}")
    for template in ESTIMATORS
    for estimator, check in estimator_checks_generator(template, legacy=True)
    if _check_name(check) not in NOT_APPLICABLE
]


@pytest.mark.parametrize(("estimator", "check"), CHECKS)
def test_sklearn_compatible_estimator(estimator, check):
    check(estimator)
