"""Reading a model file: validate everything, rebuild only whitelisted types, run nothing.

Arrays are read with ``np.load(..., allow_pickle=False)``, so a pickled member is refused
before any of it is unpickled; names of classes are looked up in `registry`, never
imported. Every problem with the file's contents is a [`ModelFileError`][bayesgen.ModelFileError].
"""

from __future__ import annotations

import io
import json
import math
import os
import stat
import warnings
import zipfile
import zlib
from contextlib import contextmanager

import numpy as np

from bayesgen._version import __version__
from bayesgen.model_files import registry
from bayesgen.model_files.decoding import Decoder
from bayesgen.model_files.encoding import ARRAY_KINDS, TAG, is_fitted_state
from bayesgen.model_files.errors import ModelFileError
from bayesgen.model_files.layout import (
    FORMAT_NAME,
    FORMAT_VERSION,
    HEADER_KEYS,
    HEADER_MEMBER,
    INFO_KEYS,
    describe_file,
)
from bayesgen.validation import caller_stacklevel, check_count

_NPY_MAGIC = b"\x93NUMPY"
#: The default cap on a model file's decompressed size (``max_bytes`` of `load`).
DEFAULT_MAX_BYTES = 2**30
# What zipfile and zlib raise for a damaged or unusual member: a failed CRC or bad header
# (BadZipFile), a corrupt deflate stream (zlib.error), a cut-off member (EOFError), an
# unsupported compression method (NotImplementedError), an encrypted member (RuntimeError),
# and a read error of the file itself (OSError). Each is a file we refuse, not a bug of ours.
_DAMAGED = (zipfile.BadZipFile, zlib.error, EOFError, NotImplementedError, RuntimeError, OSError)


def load(file, *, max_bytes=DEFAULT_MAX_BYTES):
    """Read an estimator from a model file written by ``save``.

    The loaded estimator predicts exactly (bit for bit) as the saved one did, and one
    that supports ``partial_fit`` continues from the stored statistics.

    Parameters
    ----------
    file : str, os.PathLike or binary file object
        A file written by `GenerativeClassifier.save` (``est.save(path)``).
    max_bytes : int, default=2**30 (1 GiB)
        Refuse a file whose members would inflate to more than this many bytes, checked
        from the zip's directory before anything is decompressed (a small file can claim
        gigabytes). Real models are far smaller; raise it for a model that is not.

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
        version, would inflate beyond ``max_bytes``, or holds anything outside the format
        (an unknown class, a pickled or object array, a malformed header, an array whose
        header claims more data than the member holds, a fitted estimator breaking its own
        invariants, see `bayesgen.model_files.invariants`); nothing in such a file is
        executed, and reading takes time linear in the number of members.

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
    source = describe_file(file)
    with _archive(file, source, max_bytes) as archive:
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
            shown = sorted(extra)[:5]
            more = f" and {len(extra) - len(shown)} more" if len(extra) > len(shown) else ""
            raise ModelFileError(source, f"unexpected members {shown}{more}")
    if type(estimator).__name__ != header["class"]:
        raise ModelFileError(
            source,
            f"the header says class {header['class']!r}, the estimator is a "
            f"{type(estimator).__name__}",
        )
    if header["fitted"] != is_fitted_state(vars(estimator)):
        said, held = (
            ("fitted", "no fitted attribute") if header["fitted"] else ("unfitted", "a fit")
        )
        raise ModelFileError(source, f"the header says the model is {said}, its state holds {held}")
    if header["bayesgen_version"] != __version__:
        warnings.warn(
            f"Model file {source} was written by bayesgen {header['bayesgen_version']}; this "
            f"is bayesgen {__version__}. Check its predictions before relying on it.",
            UserWarning,
            stacklevel=caller_stacklevel(),
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
        As [`load`][bayesgen.load], for the header.
    """
    source = describe_file(file)
    with _archive(file, source, DEFAULT_MAX_BYTES) as archive:
        header = _header(archive, source)
    return {key: header[key] for key in INFO_KEYS}


def _open(file, source: str):
    if not isinstance(file, str | os.PathLike):
        return file
    path = os.fspath(file)
    if os.path.exists(path) and not stat.S_ISREG(os.stat(path).st_mode):
        # /dev/zero, a FIFO or a folder: zipfile would read from it without end.
        raise ModelFileError(source, "not a regular file")
    return open(path, "rb")


@contextmanager
def _archive(file, source: str, max_bytes: int):
    max_bytes = check_count(max_bytes, "max_bytes")
    stream = _open(file, source)
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
            inflated = sum(info.file_size for info in archive.infolist())
            if inflated > max_bytes:
                raise ModelFileError(
                    source,
                    f"its members would inflate to {inflated} bytes, more than max_bytes="
                    f"{max_bytes}; pass a larger max_bytes to load a model this large",
                )
            yield archive
    finally:
        if stream is not file:
            stream.close()


def _member(archive: zipfile.ZipFile, member: str, source: str) -> bytes:
    try:
        archive.getinfo(member)  # a dict look-up; namelist() here made reading quadratic
    except KeyError:
        raise ModelFileError(source, f"missing member {member!r}") from None
    try:
        return archive.read(member)
    except _DAMAGED as error:
        raise ModelFileError(source, f"member {member!r} is damaged ({error})") from error


def _header(archive: zipfile.ZipFile, source: str) -> dict:
    try:
        archive.getinfo(HEADER_MEMBER)
    except KeyError:
        raise ModelFileError(
            source, f"no {HEADER_MEMBER} header member: not a bayesgen model file"
        ) from None
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
    _check_npy_size(data, member, source)
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


def _check_npy_size(data: bytes, member: str, source: str) -> None:
    """Refuse a ``.npy`` member whose header claims another size than the bytes it holds.

    NumPy allocates what the header claims before reading the data, so a 100-byte member
    claiming 10**12 items would end in MemoryError.
    """
    stream = io.BytesIO(data)
    try:
        version = np.lib.format.read_magic(stream)
        read_header = (
            np.lib.format.read_array_header_1_0
            if version == (1, 0)
            else np.lib.format.read_array_header_2_0
        )
        shape, _, dtype = read_header(stream)
    except (ValueError, OSError, EOFError, SyntaxError, TypeError) as error:
        raise ModelFileError(source, f"member {member!r} is damaged ({error})") from error
    if dtype.hasobject:
        return  # refused by np.load(allow_pickle=False) with its own message
    claimed = math.prod(shape) * dtype.itemsize
    held = len(data) - stream.tell()
    if claimed != held:
        raise ModelFileError(
            source,
            f"member {member!r} claims shape {shape} of {dtype} ({claimed} bytes) but holds "
            f"{held} bytes",
        )
