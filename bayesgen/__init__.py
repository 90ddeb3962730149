"""bayesgen: generative classifiers written as NumPyro probabilistic programs.

Every classifier is a generative story ``y ~ Categorical(pi)``, ``x | y ~ p(x | y)`` with
conjugate priors, fitted in closed form from sufficient statistics and used through the
scikit-learn API.
"""

from bayesgen.compilation_cache import enable_compilation_cache
from bayesgen.estimators import (
    LDA,
    QDA,
    RDACV,
    BernoulliNB,
    CategoricalNB,
    GaussianDA,
    GaussianNB,
    KernelDensityDA,
    MixedNB,
    MixtureDA,
    MultinomialNB,
    PoissonNB,
)
from bayesgen.model_files import ModelFileError, load, model_file_info
from bayesgen.progress import show_progress

__version__ = "0.1.0"

__all__ = [
    "LDA",
    "QDA",
    "RDACV",
    "BernoulliNB",
    "CategoricalNB",
    "GaussianDA",
    "GaussianNB",
    "KernelDensityDA",
    "MixedNB",
    "MixtureDA",
    "ModelFileError",
    "MultinomialNB",
    "PoissonNB",
    "__version__",
    "enable_compilation_cache",
    "load",
    "model_file_info",
    "show_progress",
]
