"""The Parzen-window classifier: ``KernelDensityDA``, a Gaussian kernel density per class.

Seed ``001_8fd34bf03af75598.txt`` §4.1, "Connection Between Metric and Bayesian
Classifiers". The maths (frequency-weighted class covariances, bandwidth factors, the
chunked kernel-mixture density, the conditionals for imputation) is in
`bayesgen.families.kernel_density`, and `bayesgen.families.kernel_density_family` puts it
behind the family contract; this module is the scikit-learn class, a view of its fitted
value ``joint_``.
"""

from __future__ import annotations

from bayesgen.estimators.base import GenerativeClassifier
from bayesgen.estimators.fitted_attribute import fitted_attribute
from bayesgen.estimators.hyperparameters import EM_KEYWORDS
from bayesgen.families.estimates import check_estimate_kind
from bayesgen.families.kernel_density_family import KernelDensityFamily
from bayesgen.inference.semi_supervised import EM_ITERATION_DOC, EM_PARAMETERS_DOC

_PARAMETERS_DOC = (
    """
    bandwidth : {"scott", "silverman"} or float, default="scott"
        The factor $h$ of ``scipy.stats.gaussian_kde``'s ``bw_method``: Scott's
        rule $n_k^{-1/(d+4)}$, Silverman's $(n_k(d+2)/4)^{-1/(d+4)}$ with the
        class size $n_k = \\sum_i w_{ik}$, or a positive number used as it is. The
        kernel covariance is $H_k = h_k^2 \\hat\\Sigma_k$.
    bandwidth_scope : {"class", "shared"}, default="class"
        ``"class"``: each class its own data covariance $\\hat\\Sigma_k$ and factor
        (from $n_k$). ``"shared"``: one kernel for every class, the pooled
        within-class covariance $\\sum_k (n_k - 1)\\hat\\Sigma_k / \\sum_k (n_k - 1)$
        and one factor from $\\sum_k n_k$; the kernel's normalisation then cancels
        from $p(y \\mid x)$ (seed §4.1).
    reg_covar : float, default=1e-6
        Ridge added to each data covariance before scaling, relative to each feature's
        variance over all training rows: $H_k = h_k^2(\\hat\\Sigma_k +
        \\lambda\\,\\mathrm{diag}(v))$, as in ``GaussianDA``. It keeps a constant feature or
        a class with fewer rows than features usable. A positive value is raised to at
        least ``n_features`` times the machine epsilon; ``0`` disables it, and a singular
        kernel is then an error.
    priors : array-like of shape (n_classes,), optional
        Known class probabilities; when given they are used as they are, not estimated.
    class_concentration_prior : float, default=1.0
        Concentration $\\alpha$ of the symmetric Dirichlet prior on the class
        probabilities.
    estimate : {"mle", "map", "mean"}, default="mle"
        Point estimate of the class probabilities (the class densities have no prior).
"""
    + EM_ITERATION_DOC
    + EM_PARAMETERS_DOC
)

_ATTRIBUTES_DOC = """
    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        Class labels, sorted.
    class_count_ : ndarray of shape (n_classes,)
        Weighted number of training rows per class.
    class_prior_ : ndarray of shape (n_classes,)
        Class probabilities used for prediction.
    bandwidth_ : ndarray of shape (n_classes,)
        The factor $h_k$ of each class (all equal for ``"shared"``).
    kernel_covariances_ : ndarray of shape (n_classes, n_features, n_features)
        $H_k$, the ridge included.
    training_X_ : ndarray of shape (n_train, n_features)
        The kernel centres: every training row.
    training_weights_ : ndarray of shape (n_train, n_classes)
        $w_{ik}$, the weight of row $i$ in class $k$.
    ridge_ : ndarray of shape (n_features,)
        What was added to the diagonal of every data covariance (before scaling by
        $h_k^2$).
    n_iter_ : int
        EM iterations run; 1 without unlabelled rows.
    converged_ : bool
    fitted_with_unlabeled_ : bool
        Whether the last fit had unlabelled rows (EM over them; no exact posterior then).
    log_likelihood_history_ : ndarray of shape (n_iter_,)
        With unlabelled rows, the leave-one-out objective after each iteration of the
        self-training loop (it is recorded, not ascended; see
        `bayesgen.inference.unlabelled_em`); empty
        without.
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Only when ``X`` had string column names.
"""


class KernelDensityDA(GenerativeClassifier):
    model_name = "kde-da"
    __doc__ = (
        """Parzen-window classifier: a Gaussian kernel density estimate per class.

    $$
    p(x \\mid k) = \\frac{1}{n_k} \\sum_i w_{ik}\\, \\mathcal N(x;\\, x_i, H_k),
    \\qquad n_k = \\sum_i w_{ik}, \\qquad H_k = h_k^2\\, \\hat\\Sigma_k, \\qquad
    p(k \\mid x) \\propto \\pi_k\\, p(x \\mid k),
    $$

    where $w_{ik}$ is the sample weight of row $i$ if it is labelled
    $k$ (zero otherwise; EM's responsibility for an unlabelled row),
    $\\hat\\Sigma_k$ the frequency-weighted class covariance (denominator
    $n_k - 1$) and $h_k$ the bandwidth factor of the class size $n_k$.
    A weight of $w$ counts as $w$ copies of a row, so with integer weights the
    class density is ``scipy.stats.gaussian_kde(X_k.T, bw_method=bandwidth)`` of the rows
    repeated. Missing features (NaN) are integrated out when predicting (the kernel's
    marginal, $H_{k,oo}$); training rows must be complete.

    Unlabelled rows (``y = -1``) get soft weights $w_{ik}$ from an EM-style
    self-training loop: each is weighted by its leave-one-out class probabilities
    $p(k \\mid x_i)$ under the other rows' kernels, until these stop changing. The
    kernels are fixed before the loop (from the labelled rows and the unlabelled ones
    spread evenly over the classes) and kept in the fitted model. A kernel density has no
    parameters for EM to maximise, so no objective is guaranteed to rise.

    The generative story
    ([`bayesgen.stories.kernel_density.kernel_density_story`][bayesgen.stories.kernel_density_story])
    draws a label, a kernel centre ``"kernel_center"`` of that class, then
    $x \\sim \\mathcal N(x_c, H_k)$. The class densities have no parameters with a
    prior, so there is no posterior to sample (``posterior`` raises).

    Parameters
    ----------
"""
        + _PARAMETERS_DOC
        + _ATTRIBUTES_DOC
        + """
    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from bayesgen.estimators.kernel_density import KernelDensityDA
    >>> X, y = load_iris(return_X_y=True)
    >>> model = KernelDensityDA().fit(X, y)
    >>> model.bandwidth_.round(3)  # Scott's factor 50 ** (-1 / (4 + 4)) for every class
    array([0.613, 0.613, 0.613])
    >>> model.predict(X[[0, 60, 120]])
    array([0, 1, 2])
    >>> rows = X[:1].copy()
    >>> rows[0, 2:] = float("nan")  # petal length and width missing
    >>> model.impute(rows).round(2)
    array([[5.1 , 3.5 , 1.49, 0.28]])
    >>> from sklearn.model_selection import cross_val_score
    >>> round(float(cross_val_score(KernelDensityDA(), X, y, cv=5).mean()), 3)
    0.967
"""
    )

    hyperparameters = {
        "bandwidth": "scott",
        "bandwidth_scope": "class",
        "reg_covar": 1e-6,
        "priors": None,
        "class_concentration_prior": 1.0,
        "estimate": "mle",
        **EM_KEYWORDS,
    }

    # ------------------------------------------------------------ the value
    bandwidth_ = fitted_attribute(
        lambda self, value: value.feature_prior.bandwidth,
        doc="The factor of each class's kernel.",
    )
    ridge_ = fitted_attribute(
        lambda self, value: value.feature_prior.ridge,
        doc="What was added to the diagonal of every data covariance.",
    )
    kernel_covariances_ = fitted_attribute(
        lambda self, value: value.params.kernel_covariances, doc="$H_k$, the ridge included."
    )
    training_X_ = fitted_attribute(
        lambda self, value: value.params.training_X, doc="The kernel centres."
    )
    training_weights_ = fitted_attribute(
        lambda self, value: value.params.training_weights,
        doc="The weight of each centre in each class.",
    )

    def _base_family(self) -> KernelDensityFamily:
        return KernelDensityFamily.of(self)

    # ------------------------------------------------------------------ hooks
    def _check_hyperparameters(self):
        check_estimate_kind(self.estimate)
        super()._check_hyperparameters()

    def _class_prior_settings(self):
        return self.priors, self.class_concentration_prior, self.estimate
