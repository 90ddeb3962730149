"""bayesgen: generative classifiers written as NumPyro probabilistic programs.

Every classifier is a generative story ``y ~ Categorical(pi)``, ``x | y ~ p(x | y)`` with
conjugate priors, fitted in closed form from sufficient statistics and used through the
scikit-learn API. The estimator classes (``bayesgen.QDA``, ``bayesgen.PoissonNB``, ...) are
those registered in `bayesgen.registry`.
"""

from bayesgen import registry as _registry
from bayesgen.compilation_cache import enable_compilation_cache
from bayesgen.model_files import ModelFileError, load, model_file_info
from bayesgen.progress import show_progress

__version__ = "0.1.0"

# Looking the estimators up imports (and so registers) every one of them.
globals().update(_registry.estimators())

__all__ = [
    "ModelFileError",
    "__version__",
    "enable_compilation_cache",
    "load",
    "model_file_info",
    "show_progress",
]
__all__ += sorted(_registry.estimators())
