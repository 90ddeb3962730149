"""The layout of a model file: a zip holding one JSON header and numbered ``.npy`` arrays.

::

    header.json        the header (UTF-8 JSON, keys below)
    arrays/0.npy       numeric arrays in NumPy's .npy format, never pickled
    arrays/1.npy
    ...

The header is ``{"format": "bayesgen-model", "format_version": 1, "bayesgen_version": ...,
"saved_at": ..., "class": ..., "fitted": ..., "metadata": {...}, "estimator": {...}}``,
where ``"estimator"`` is the tagged JSON of `encoding`. ``FORMAT_VERSION`` rises
whenever the layout or the tag grammar changes in a way an older reader would misread.
"""

from __future__ import annotations

import os

FORMAT_NAME = "bayesgen-model"
FORMAT_VERSION = 1
HEADER_MEMBER = "header.json"
HEADER_KEYS = (
    "format",
    "format_version",
    "bayesgen_version",
    "saved_at",
    "class",
    "fitted",
    "metadata",
    "estimator",
)
# What model_file_info reports: the header without the estimator itself.
INFO_KEYS = HEADER_KEYS[:-1]


def describe_file(file) -> str:
    """The file as error messages name it: its path, or the name of a file object.

    Raises
    ------
    TypeError
        When ``file`` is neither a path nor a binary file object.
    """
    if isinstance(file, str | os.PathLike):
        return repr(os.fspath(file))
    if not (hasattr(file, "read") or hasattr(file, "write")):
        raise TypeError(
            "file must be a path (str or os.PathLike) or a binary file object; got "
            f"{type(file).__name__} {file!r:.60}."
        )
    name = getattr(file, "name", None)
    return repr(name) if isinstance(name, str) else f"<{type(file).__name__} object>"
