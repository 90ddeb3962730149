"""Writing a model file: the estimator as tagged JSON plus its arrays, in one zip."""

from __future__ import annotations

import datetime
import json
import os
import uuid
import warnings
import zipfile

import numpy as np

from bayesgen._memory import format_bytes
from bayesgen._version import __version__
from bayesgen.model_files import registry
from bayesgen.model_files.encoding import Encoder, is_fitted_state
from bayesgen.model_files.errors import ModelFileError
from bayesgen.model_files.layout import FORMAT_NAME, FORMAT_VERSION, HEADER_MEMBER, describe_file
from bayesgen.model_files.reading import DEFAULT_MAX_BYTES
from bayesgen.validation import caller_stacklevel


def check_metadata(metadata) -> dict:
    """User metadata: a dict with string keys that JSON stores exactly (no NaN, no objects).

    Raises
    ------
    ValueError
        Naming ``metadata`` and what it held.
    """
    if metadata is None:
        return {}
    if not isinstance(metadata, dict) or not all(isinstance(k, str) for k in metadata):
        raise ValueError(
            f"metadata must be a dict with string keys (or None); got {type(metadata).__name__}"
            f" {metadata!r:.200}."
        )
    try:
        text = json.dumps(metadata, allow_nan=False)
    except (TypeError, ValueError) as error:
        raise ValueError(
            f"metadata must be JSON-serialisable (strings, finite numbers, booleans, None, "
            f"lists and dicts with string keys); {error}."
        ) from error
    return json.loads(text)


def save_model(estimator, file, *, metadata=None) -> None:
    """Write ``estimator`` to a model file.

    Parameters
    ----------
    estimator : bayesgen estimator
        Fitted or not; an unfitted one is stored with its parameters only.
    file : str, os.PathLike or binary file object
        A path is written atomically (a temporary file in the same folder, then renamed).
    metadata : dict, optional
        JSON-serialisable user metadata with string keys, returned by
        [`bayesgen.model_file_info`][bayesgen.model_file_info].

    Raises
    ------
    ModelFileError
        If the estimator holds a value the format cannot store (a ``RandomState``, a
        callable, a CV splitter, ...), naming the attribute or parameter.
    ValueError
        If ``metadata`` is not a JSON-serialisable dict with string keys.
    """
    source = describe_file(file)
    if not registry.is_registered_estimator(estimator):
        raise ModelFileError(
            source,
            f"cannot store a {type(estimator).__qualname__}: model files hold bayesgen's own "
            f"estimators ({', '.join(sorted(registry.estimator_classes()))}).",
        )
    metadata = check_metadata(metadata)
    encoder = Encoder(source)
    tree = encoder.estimator(estimator, "estimator")
    header = {
        "format": FORMAT_NAME,
        "format_version": FORMAT_VERSION,
        "bayesgen_version": __version__,
        "saved_at": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "class": type(estimator).__name__,
        "fitted": is_fitted_state(tree["state"]),
        "metadata": metadata,
        "estimator": tree,
    }
    header_bytes = json.dumps(header, allow_nan=False).encode("utf-8")
    _warn_if_beyond_load_cap(
        source, len(header_bytes) + sum(a.nbytes for a in encoder.arrays.values())
    )
    if not isinstance(file, str | os.PathLike):
        _write_zip(file, header_bytes, encoder.arrays)
        return
    path = os.fspath(file)
    folder, name = os.path.split(os.path.abspath(path))
    # A new file beside the target, renamed over it once complete: a crash mid-write
    # never leaves a half-written model under the target's name.
    temporary = os.path.join(folder, f".{name}.{uuid.uuid4().hex}.tmp")
    try:
        with open(temporary, "xb") as stream:
            _write_zip(stream, header_bytes, encoder.arrays)
        os.replace(temporary, path)
    except BaseException:
        if os.path.exists(temporary):
            os.unlink(temporary)
        raise


def _warn_if_beyond_load_cap(source: str, n_bytes: int) -> None:
    """Warn when the file will inflate past what `bayesgen.load` opens by default."""
    if n_bytes > DEFAULT_MAX_BYTES:
        warnings.warn(
            f"{source} holds about {format_bytes(n_bytes)} of arrays, more than "
            f"bayesgen.load opens by default ({format_bytes(DEFAULT_MAX_BYTES)}): load it with "
            f"bayesgen.load(path, max_bytes={n_bytes + 2**20}); the command line cannot open it.",
            UserWarning,
            stacklevel=caller_stacklevel(),
        )


def _write_zip(stream, header_bytes: bytes, arrays: dict) -> None:
    with zipfile.ZipFile(stream, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(HEADER_MEMBER, header_bytes)
        for member, array in arrays.items():
            with archive.open(member, "w", force_zip64=True) as target:
                np.lib.format.write_array(target, array, allow_pickle=False)
