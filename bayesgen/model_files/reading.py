"""Reading a model file: validate everything, rebuild only whitelisted types, run nothing.

Arrays are read with ``np.load(..., allow_pickle=False)``, so a pickled member is refused
before any of it is unpickled; names of classes are looked up in :mod:`.registry`, never
imported. Every problem with the file's contents is a :class:`ModelFileError`.
"""

from __future__ import annotations

import io
import json
import os
import warnings
import zipfile
import zlib
from contextlib import contextmanager

import numpy as np

from bayesgen.model_files import registry
from bayesgen.model_files.decoding import Decoder
from bayesgen.model_files.encoding import ARRAY_KINDS, TAG
from bayesgen.model_files.errors import ModelFileError
from bayesgen.model_files.layout import (
    FORMAT_NAME,
    FORMAT_VERSION,
    HEADER_KEYS,
    HEADER_MEMBER,
    INFO_KEYS,
    describe_file,
)

_NPY_MAGIC = b"\x93NUMPY"
# What zipfile and zlib raise for a damaged or unusual member: a failed CRC or bad header
# (BadZipFile), a corrupt deflate stream (zlib.error), a cut-off member (EOFError), an
# unsupported compression method (NotImplementedError), an encrypted member (RuntimeError),
# and a read error of the file itself (OSError). Each is a file we refuse, not a bug of ours.
_DAMAGED = (zipfile.BadZipFile, zlib.error, EOFError, NotImplementedError, RuntimeError, OSError)


def load(file):
    """Read an estimator from a model file written by ``save``.

    The loaded estimator predicts exactly (bit for bit) as the saved one did, and one
    that supports ``partial_fit`` continues from the stored statistics.

    Parameters
    ----------
    file : str, os.PathLike or binary file object
        A file written by :meth:`GenerativeClassifier.save` (``est.save(path)``).

    Returns
    -------
    estimator
        The estimator, of the class it was saved as; unfitted if it was saved unfitted.

    Raises
    ------
    FileNotFoundError
        If there is no file at ``file``.
    ModelFileError
        If the file is not a bayesgen model file, is damaged, comes from a newer format
        version, or holds anything outside the format (an unknown class, a pickled or
        object array, a malformed header); nothing in such a file is executed.

    Warns
    -----
    UserWarning
        If the file was written by another bayesgen version.

    Examples
    --------
    >>> import tempfile, os
    >>> import numpy as np
    >>> import bayesgen
    >>> from sklearn.datasets import load_iris
    >>> X, y = load_iris(return_X_y=True)
    >>> model = bayesgen.QDA().fit(X, y)
    >>> path = os.path.join(tempfile.mkdtemp(), "iris.npz")
    >>> model.save(path, metadata={"target": "species"})
    >>> loaded = bayesgen.load(path)
    >>> bool(np.array_equal(loaded.predict_proba(X), model.predict_proba(X)))
    True
    """
    import bayesgen

    source = describe_file(file)
    with _archive(file, source) as archive:
        header = _header(archive, source)
        decoder = Decoder(source, lambda member: _array(archive, member, source))
        try:
            estimator = decoder.decode(header["estimator"], "estimator")
        except ModelFileError:
            raise
        except (TypeError, ValueError, KeyError, AttributeError, RecursionError) as error:
            raise ModelFileError(source, f"the estimator could not be rebuilt ({error})") from error
        extra = set(archive.namelist()) - {HEADER_MEMBER} - decoder.members
        if extra:
            raise ModelFileError(source, f"unexpected members {sorted(extra)}")
    if type(estimator).__name__ != header["class"]:
        raise ModelFileError(
            source,
            f"the header says class {header['class']!r}, the estimator is a "
            f"{type(estimator).__name__}",
        )
    if header["bayesgen_version"] != bayesgen.__version__:
        warnings.warn(
            f"Model file {source} was written by bayesgen {header['bayesgen_version']}; this "
            f"is bayesgen {bayesgen.__version__}. Check its predictions before relying on it.",
            UserWarning,
            stacklevel=2,
        )
    return estimator


def model_file_info(file) -> dict:
    """What a model file's header says, without rebuilding the estimator.

    Parameters
    ----------
    file : str, os.PathLike or binary file object

    Returns
    -------
    dict
        ``{"format", "format_version", "bayesgen_version", "saved_at", "class", "fitted",
        "metadata"}``: the format name (``"bayesgen-model"``) and version, the bayesgen
        version that wrote it, the UTC time it was written (ISO 8601), the estimator's
        class name, whether it was fitted, and the ``metadata`` passed to ``save``.

    Raises
    ------
    FileNotFoundError, ModelFileError
        As :func:`load`, for the header.
    """
    source = describe_file(file)
    with _archive(file, source) as archive:
        header = _header(archive, source)
    return {key: header[key] for key in INFO_KEYS}


@contextmanager
def _archive(file, source: str):
    stream = open(os.fspath(file), "rb") if isinstance(file, str | os.PathLike) else file
    try:
        try:
            archive = zipfile.ZipFile(stream)
        except zipfile.BadZipFile as error:
            raise ModelFileError(
                source,
                f"not a zip archive, or a truncated one ({error}); a bayesgen model file is a "
                f"zip of {HEADER_MEMBER} and .npy arrays",
            ) from error
        except _DAMAGED as error:
            raise ModelFileError(source, f"the zip archive is damaged ({error})") from error
        with archive:
            names = archive.namelist()
            if len(names) != len(set(names)):
                raise ModelFileError(source, "the zip archive names a member twice")
            yield archive
    finally:
        if stream is not file:
            stream.close()


def _member(archive: zipfile.ZipFile, member: str, source: str) -> bytes:
    if member not in archive.namelist():
        raise ModelFileError(source, f"missing member {member!r}")
    try:
        return archive.read(member)
    except _DAMAGED as error:
        raise ModelFileError(source, f"member {member!r} is damaged ({error})") from error


def _header(archive: zipfile.ZipFile, source: str) -> dict:
    if HEADER_MEMBER not in archive.namelist():
        raise ModelFileError(source, f"no {HEADER_MEMBER} header member: not a bayesgen model file")
    try:
        header = json.loads(
            _member(archive, HEADER_MEMBER, source).decode("utf-8"),
            parse_constant=_refuse_constant,
        )
    except (UnicodeDecodeError, ValueError, RecursionError) as error:
        if isinstance(error, ModelFileError):
            raise
        raise ModelFileError(source, f"{HEADER_MEMBER} is not valid JSON ({error})") from error
    if not isinstance(header, dict) or header.get("format") != FORMAT_NAME:
        found = header.get("format") if isinstance(header, dict) else header
        raise ModelFileError(
            source, f"format is {found!r:.100}, expected {FORMAT_NAME!r}: not a bayesgen model file"
        )
    version = header.get("format_version")
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise ModelFileError(source, f"format_version {version!r:.100} is not a positive integer")
    if version > FORMAT_VERSION:
        raise ModelFileError(
            source,
            f"format_version {version} is newer than this bayesgen reads (up to "
            f"{FORMAT_VERSION}); upgrade bayesgen to load it",
        )
    unknown, missing = set(header) - set(HEADER_KEYS), set(HEADER_KEYS) - set(header)
    if unknown or missing:
        raise ModelFileError(
            source, f"header has unknown keys {sorted(unknown)} and lacks keys {sorted(missing)}"
        )
    expected = {
        "bayesgen_version": str,
        "saved_at": str,
        "class": str,
        "fitted": bool,
        "metadata": dict,
        "estimator": dict,
    }
    for key, kind in expected.items():
        if not isinstance(header[key], kind):
            raise ModelFileError(source, f"header {key!r} must be a JSON {kind.__name__}")
    if header["class"] not in registry.estimator_classes():
        raise ModelFileError(
            source, f"unknown estimator class {header['class']!r:.100} (not a bayesgen estimator)"
        )
    if header["estimator"].get(TAG) != "estimator":
        raise ModelFileError(source, "header 'estimator' is not an estimator record")
    return header


def _refuse_constant(name: str):
    raise ValueError(f"{name} is not JSON")


def _array(archive: zipfile.ZipFile, member: str, source: str) -> np.ndarray:
    data = _member(archive, member, source)
    if not data.startswith(_NPY_MAGIC):
        raise ModelFileError(source, f"member {member!r} is not a .npy array")
    try:
        array = np.load(io.BytesIO(data), allow_pickle=False)
    except ValueError as error:
        if "allow_pickle" in str(error):
            raise ModelFileError(
                source,
                f"member {member!r} holds an object array (pickled Python objects), which "
                "model files never contain; it was not unpickled",
            ) from error
        raise ModelFileError(source, f"member {member!r} is damaged ({error})") from error
    except (OSError, EOFError, SyntaxError) as error:
        raise ModelFileError(source, f"member {member!r} is damaged ({error})") from error
    if array.dtype.kind not in ARRAY_KINDS or array.dtype.fields is not None:
        raise ModelFileError(source, f"member {member!r} has dtype {array.dtype}, not plain data")
    return array
