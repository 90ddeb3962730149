"""Model files: ``est.save(path)`` and ``bayesgen.load(path)``, data only, never pickle.

A model file is a zip holding ``header.json`` (format name and version, bayesgen version,
date, class, user metadata, and the estimator as tagged JSON) and the numeric arrays as
``.npy`` members. Reading rebuilds only whitelisted bayesgen types and never unpickles.
"""

from bayesgen.model_files.errors import ModelFileError
from bayesgen.model_files.layout import FORMAT_NAME, FORMAT_VERSION
from bayesgen.model_files.reading import load, model_file_info
from bayesgen.model_files.writing import save_model

__all__ = [
    "FORMAT_NAME",
    "FORMAT_VERSION",
    "ModelFileError",
    "load",
    "model_file_info",
    "save_model",
]
