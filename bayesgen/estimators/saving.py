"""``ModelFileMixin``: the ``save`` method every bayesgen estimator has.

The model-file format lives one layer up (``bayesgen.model_files``, which reads and writes
estimators); ``save`` reaches it only when called.
"""

from __future__ import annotations


class ModelFileMixin:
    """Adds `save`, writing the estimator to a data-only model file."""

    def save(self, path, *, metadata=None) -> None:
        """Write this estimator to a model file; read it back with [`bayesgen.load`][bayesgen.load].

        The file is a zip of a JSON header and ``.npy`` arrays (never a pickle) holding
        the constructor parameters and every fitted attribute, sufficient statistics
        included, so the loaded model predicts bit for bit as this one and can continue
        with ``partial_fit``. See ``docs/model-files.md`` for the format.

        Parameters
        ----------
        path : str, os.PathLike or binary file object
            Where to write; an existing file is replaced (atomically, for a path).
        metadata : dict, optional
            JSON-serialisable user data with string keys (say the name of the target
            column), returned by [`bayesgen.model_file_info`][bayesgen.model_file_info].

        Raises
        ------
        ModelFileError
            If the estimator holds a value the format cannot store (a ``RandomState`` as
            ``random_state``, a callable ``scoring``, a CV splitter object), naming it.
        ValueError
            If ``metadata`` is not a JSON-serialisable dict with string keys.

        Notes
        -----
        An unfitted estimator may be saved too: its parameters are stored, and it loads
        unfitted.
        """
        from bayesgen.model_files.writing import save_model

        save_model(self, path, metadata=metadata)
