"""Hostile or damaged model files raise ModelFileError naming the problem; nothing runs."""

import datetime
import io
import json
import pathlib
import zipfile

import numpy as np
import pytest
from sklearn.datasets import load_iris

import bayesgen
from bayesgen import ModelFileError

X, Y = load_iris(return_X_y=True)


class Payload:
    """Unpickling this creates the file ``marker``: proof that code ran."""

    def __init__(self, marker: pathlib.Path):
        self.marker = marker

    def __reduce__(self):
        return (pathlib.Path.touch, (self.marker,))


@pytest.fixture(scope="module")
def model():
    return bayesgen.QDA(shrinkage="ledoit-wolf").fit(X, Y)


@pytest.fixture
def saved(model, tmp_path):
    path = tmp_path / "model.npz"
    model.save(path, metadata={"target": "species"})
    return path


def _members(path) -> dict:
    with zipfile.ZipFile(path) as archive:
        return {name: archive.read(name) for name in archive.namelist()}


def _write(path, members: dict, compression=zipfile.ZIP_DEFLATED):
    with zipfile.ZipFile(path, "w", compression=compression) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return path


def _with_header(saved, tmp_path, change) -> pathlib.Path:
    """A copy of ``saved`` whose header went through ``change(header)`` (in place)."""
    members = _members(saved)
    header = json.loads(members["header.json"])
    change(header)
    members["header.json"] = json.dumps(header).encode()
    return _write(tmp_path / "changed.npz", members)


def _expect(path, *patterns, header_is_valid=False):
    """``load`` raises ModelFileError naming the file and the patterns; so does
    ``model_file_info`` unless the problem lies past the header it reads."""
    readers = [bayesgen.load]
    if header_is_valid:
        assert bayesgen.model_file_info(path)["format"] == "bayesgen-model"
    else:
        readers.append(bayesgen.model_file_info)
    for reader in readers:
        with pytest.raises(ModelFileError) as raised:
            reader(path)
        message = str(raised.value)
        assert str(path) in message
        for pattern in patterns:
            assert pattern in message, message


def _state(header):
    return header["estimator"]["state"]


def _value_field(header, field):
    """The node of one field of the fitted value ``joint_``."""
    return _state(header)["joint_"]["fields"][field]


def _with_value_array(saved, tmp_path, part, field, array) -> pathlib.Path:
    """A copy of ``saved`` whose value's ``part`` (its ``record`` of the training columns,
    its kept ``rows``) holds ``array`` as ``field`` (the member and the header's shape both
    changed, so the file reads)."""
    members = _members(saved)
    header = json.loads(members["header.json"])
    node = _value_field(header, part)["fields"][field]
    node["shape"] = list(array.shape)
    buffer = io.BytesIO()
    np.save(buffer, array)
    members[node["member"]] = buffer.getvalue()
    members["header.json"] = json.dumps(header).encode()
    return _write(tmp_path / "changed.npz", members)


def test_a_valid_file_loads_and_its_header_reads(saved, model):
    info = bayesgen.model_file_info(saved)
    assert info["format"] == "bayesgen-model"
    assert info["format_version"] == 1
    assert info["bayesgen_version"] == bayesgen.__version__
    assert info["class"] == "QDA"
    assert info["fitted"] is True
    assert info["metadata"] == {"target": "species"}
    assert datetime.datetime.fromisoformat(info["saved_at"]).tzinfo == datetime.UTC
    assert set(info) == {
        "format",
        "format_version",
        "bayesgen_version",
        "saved_at",
        "class",
        "fitted",
        "metadata",
    }
    np.testing.assert_array_equal(bayesgen.load(saved).predict_proba(X), model.predict_proba(X))


def test_a_missing_file_is_file_not_found(tmp_path):
    with pytest.raises(FileNotFoundError, match="nowhere.npz"):
        bayesgen.load(tmp_path / "nowhere.npz")
    with pytest.raises(FileNotFoundError):
        bayesgen.model_file_info(tmp_path / "nowhere.npz")


def test_not_a_zip(tmp_path):
    path = tmp_path / "text.npz"
    path.write_bytes(b"hello, I am not a model\n" * 10)
    _expect(path, "not a zip archive")


def test_a_truncated_zip(saved, tmp_path):
    path = tmp_path / "truncated.npz"
    path.write_bytes(saved.read_bytes()[: saved.stat().st_size // 2])
    _expect(path, "truncated")


def test_a_damaged_member(saved, tmp_path):
    """A flipped byte in the stored header: the zip's CRC check catches it."""
    path = _write(tmp_path / "stored.npz", _members(saved), compression=zipfile.ZIP_STORED)
    data = bytearray(path.read_bytes())
    where = data.index(b'"bayesgen-model"')
    data[where + 1] = ord("B")
    path.write_bytes(bytes(data))
    _expect(path, "member 'header.json' is damaged")


def _patch_zip_headers(data: bytearray, offset: int, value: int) -> None:
    """Overwrite a 2-byte field of every local and central header (offsets from each
    signature: the flags are at 6 and 8, the method at 8 and 10)."""
    for signature, extra in ((b"PK\x03\x04", 0), (b"PK\x01\x02", 2)):
        start = data.find(signature)
        while start != -1:
            data[start + offset + extra : start + offset + extra + 2] = value.to_bytes(2, "little")
            start = data.find(signature, start + 4)


def test_an_unsupported_compression_method(saved, tmp_path):
    """zipfile raises NotImplementedError for a method it does not know (99: AES)."""
    path = tmp_path / "aes.npz"
    data = bytearray(saved.read_bytes())
    _patch_zip_headers(data, 8, 99)
    path.write_bytes(bytes(data))
    _expect(path, "is damaged", "compression method")


def test_an_encrypted_member(saved, tmp_path):
    """zipfile raises RuntimeError for an encrypted member (flag bit 0)."""
    path = tmp_path / "encrypted.npz"
    data = bytearray(saved.read_bytes())
    _patch_zip_headers(data, 6, 1)
    path.write_bytes(bytes(data))
    _expect(path, "is damaged", "encrypted")


def test_no_header(saved, tmp_path):
    members = _members(saved)
    del members["header.json"]
    _expect(_write(tmp_path / "headless.npz", members), "no header.json")


def test_a_plain_npz_is_not_a_model_file(tmp_path):
    path = tmp_path / "plain.npz"
    np.savez(path, a=np.arange(3))
    _expect(path, "no header.json")


def test_header_not_json(saved, tmp_path):
    members = _members(saved)
    members["header.json"] = b"{not json"
    _expect(_write(tmp_path / "bad.npz", members), "not valid JSON")


def test_header_with_a_nan_constant(saved, tmp_path):
    members = _members(saved)
    members["header.json"] = members["header.json"].replace(b'"n_iter_": 1', b'"n_iter_": NaN')
    assert b"NaN" in members["header.json"]
    _expect(_write(tmp_path / "nan.npz", members), "not valid JSON")


def test_wrong_format_name(saved, tmp_path):
    path = _with_header(saved, tmp_path, lambda h: h.update(format="sklearn-pickle"))
    _expect(path, "'sklearn-pickle'", "not a bayesgen model file")


def test_future_format_version(saved, tmp_path):
    path = _with_header(saved, tmp_path, lambda h: h.update(format_version=2))
    _expect(path, "format_version 2 is newer")


def test_format_version_not_an_integer(saved, tmp_path):
    path = _with_header(saved, tmp_path, lambda h: h.update(format_version="1"))
    _expect(path, "format_version '1' is not a positive integer")


def test_unknown_header_key(saved, tmp_path):
    path = _with_header(saved, tmp_path, lambda h: h.update(command="rm -rf /"))
    _expect(path, "unknown keys ['command']")


def test_unknown_class(saved, tmp_path):
    def change(header):
        header["class"] = header["estimator"]["class"] = "os.system"

    _expect(_with_header(saved, tmp_path, change), "unknown estimator class 'os.system'")


def test_unknown_nested_class(saved, tmp_path):
    def change(header):
        header["estimator"]["class"] = "subprocess.Popen"

    path = _with_header(saved, tmp_path, change)
    _expect(path, "unknown estimator class 'subprocess.Popen'", header_is_valid=True)


def test_unknown_state_type(saved, tmp_path):
    def change(header):
        _value_field(header, "class_stats")["name"] = "subprocess.Popen"

    _expect(_with_header(saved, tmp_path, change), "unknown state type", header_is_valid=True)


def test_unknown_tag(saved, tmp_path):
    def change(header):
        _state(header)["n_iter_"] = {"$type": "pickle", "data": "gASVAAAA"}

    _expect(_with_header(saved, tmp_path, change), "unknown $type 'pickle'", header_is_valid=True)


def test_dunder_attribute(saved, tmp_path):
    def change(header):
        _state(header)["__class__"] = "GaussianNB"

    _expect(
        _with_header(saved, tmp_path, change), "'__class__'", "not allowed", header_is_valid=True
    )


def test_unknown_parameter(saved, tmp_path):
    def change(header):
        header["estimator"]["params"]["callback"] = "os.system"

    _expect(
        _with_header(saved, tmp_path, change), "no parameters ['callback']", header_is_valid=True
    )


def test_object_dtype_in_the_header(saved, tmp_path):
    def change(header):
        _state(header)["classes_"]["dtype"] = "|O"

    _expect(
        _with_header(saved, tmp_path, change), "dtype object is not allowed", header_is_valid=True
    )


def test_header_disagrees_with_the_array(saved, tmp_path):
    def change(header):
        _state(header)["classes_"]["shape"] = [4]

    _expect(_with_header(saved, tmp_path, change), "the header says", header_is_valid=True)


def test_object_array_holding_an_estimator(saved, tmp_path):
    def change(header):
        _state(header)["extra_"] = {
            "$type": "object_array",
            "shape": [1],
            "items": [{"$type": "estimator", "class": "GaussianNB", "params": {}, "state": {}}],
        }

    _expect(_with_header(saved, tmp_path, change), "object array items", header_is_valid=True)


def test_extra_member(saved, tmp_path):
    members = _members(saved)
    members["arrays/999.npy"] = members["arrays/0.npy"]
    _expect(_write(tmp_path / "extra.npz", members), "unexpected members", header_is_valid=True)


def test_missing_member(saved, tmp_path):
    members = _members(saved)
    del members["arrays/0.npy"]
    _expect(_write(tmp_path / "missing.npz", members), "missing member", header_is_valid=True)


def test_a_pickled_object_array_is_refused_and_never_unpickled(saved, tmp_path):
    marker = tmp_path / "code-ran"
    payload = io.BytesIO()
    np.save(payload, np.array([Payload(marker)], dtype=object), allow_pickle=True)
    members = _members(saved)
    members["arrays/0.npy"] = payload.getvalue()
    path = _write(tmp_path / "pickled.npz", members)

    _expect(path, "object array", "arrays/0.npy", header_is_valid=True)
    assert not marker.exists()

    # The payload is live: NumPy with pickles allowed runs it.
    np.load(io.BytesIO(payload.getvalue()), allow_pickle=True)
    assert marker.exists()


def test_a_raw_pickle_member_is_refused_and_never_unpickled(saved, tmp_path):
    import pickle

    marker = tmp_path / "code-ran"
    members = _members(saved)
    members["arrays/0.npy"] = pickle.dumps(Payload(marker))
    _expect(_write(tmp_path / "pickle.npz", members), "not a .npy array", header_is_valid=True)
    assert not marker.exists()
    pickle.loads(members["arrays/0.npy"])
    assert marker.exists()


def test_another_bayesgen_version_warns(saved, tmp_path):
    path = _with_header(saved, tmp_path, lambda h: h.update(bayesgen_version="0.0.1"))
    with pytest.warns(UserWarning, match="written by bayesgen 0.0.1"):
        bayesgen.load(path)


# ---------------------------------------------------------------- saving


def test_save_refuses_what_the_format_cannot_hold(tmp_path):
    model = bayesgen.GaussianNB(random_state=np.random.RandomState(0)).fit(X, Y)
    with pytest.raises(ModelFileError, match="random_state.*RandomState"):
        model.save(tmp_path / "model.npz")
    scored = bayesgen.RDACV(scoring=lambda est, X, y: 0.0, reg_alphas=[1], reg_gammas=[1])
    with pytest.raises(ModelFileError, match="scoring"):
        scored.save(tmp_path / "model.npz")
    assert list(tmp_path.iterdir()) == []  # nothing half-written is left behind


def test_save_refuses_a_subclass(tmp_path):
    class MyQDA(bayesgen.QDA):
        pass

    with pytest.raises(ModelFileError, match="MyQDA"):
        bayesgen.model_files.save_model(MyQDA(), tmp_path / "model.npz")


@pytest.mark.parametrize(
    "metadata", [{"x": float("nan")}, {1: "a"}, {"x": {1, 2}}, ["target"], {"x": object()}]
)
def test_save_refuses_metadata_json_cannot_hold(metadata, tmp_path):
    model = bayesgen.GaussianNB().fit(X, Y)
    with pytest.raises(ValueError, match="metadata"):
        model.save(tmp_path / "model.npz", metadata=metadata)


def test_save_replaces_a_file_and_writes_to_file_objects(model, tmp_path):
    path = tmp_path / "model.npz"
    path.write_bytes(b"old")
    model.save(str(path), metadata={"n": 1})
    assert bayesgen.model_file_info(path)["metadata"] == {"n": 1}
    assert [p.name for p in tmp_path.iterdir()] == ["model.npz"]

    buffer = io.BytesIO()
    model.save(buffer)
    buffer.seek(0)
    loaded = bayesgen.load(buffer)
    np.testing.assert_array_equal(loaded.predict_proba(X), model.predict_proba(X))


# Small but hostile files (issue 19): sizes and counts checked before anything is allocated.


def _class_prior_node(header):
    """The node of the class probabilities ``class_prior_`` is read off."""
    return _value_field(header, "class_probabilities")


def test_a_feature_count_larger_than_the_arrays_is_refused(saved, tmp_path):
    def change(header):
        _state(header)["n_features_in_"] = 10**30

    _expect(
        _with_header(saved, tmp_path, change),
        f"n_features_in_ = {10**30} but the largest array",
        header_is_valid=True,
    )


@pytest.mark.parametrize(
    ("rows", "problem"),
    [(-1.0, "n_samples_seen_ must be a number >= 0"), ("abc", "n_samples_seen_ must be")],
)
def test_broken_missing_counts_are_refused(saved, tmp_path, rows, problem):
    def change(header):
        _value_field(header, "record")["fields"]["n_rows"] = rows

    _expect(_with_header(saved, tmp_path, change), problem, header_is_valid=True)

    wider = _with_value_array(saved, tmp_path, "record", "n_missing", np.zeros(7))
    _expect(wider, "n_missing_ has 7 entries for n_features_in_ = 4", header_is_valid=True)


@pytest.mark.parametrize(
    ("name", "field"), [("data_decimals_", "decimals"), ("data_step_", "step")]
)
def test_broken_grids_are_refused(saved, tmp_path, name, field):
    wider = _with_value_array(saved, tmp_path, "record", field, np.zeros(7))
    _expect(wider, f"{name} has 7 entries for n_features_in_ = 4", header_is_valid=True)
    negative = _with_value_array(saved, tmp_path, "record", field, np.full(4, -1.0))
    _expect(negative, f"{name} must hold values in [0, ", header_is_valid=True)


@pytest.mark.parametrize(("name", "field"), [("data_min_", "low"), ("data_max_", "high")])
def test_broken_ranges_are_refused(saved, tmp_path, name, field):
    wider = _with_value_array(saved, tmp_path, "record", field, np.zeros(7))
    _expect(wider, f"{name} has 7 entries for n_features_in_ = 4", header_is_valid=True)
    flat = _with_value_array(saved, tmp_path, "record", field, np.zeros((2, 2)))
    _expect(flat, f"{name} must be a 1-D array of floats", header_is_valid=True)


def test_a_record_with_half_a_grid_is_refused(saved, tmp_path):
    def change(header):
        del _value_field(header, "record")["fields"]["decimals"]

    changed = _with_header(saved, tmp_path, change)
    _expect(changed, "joint_.record holds decimals and step only together", header_is_valid=True)


@pytest.mark.parametrize(
    ("field", "array", "problem"),
    [
        ("X", np.zeros((150, 7)), "joint_.rows has 7 columns for n_features_in_ = 4"),
        ("X", np.full((150, 4), np.inf), "joint_.rows must hold finite numbers"),
        ("weights", np.zeros((150, 2)), "joint_.rows must hold rows (n, n_features) and"),
        ("weights", -np.ones((150, 3)), "joint_.rows must hold finite class weights >= 0"),
    ],
)
def test_broken_kept_rows_are_refused(tmp_path, field, array, problem):
    """The rows a gappy Gaussian fit keeps for its posterior are checked on reading."""
    gappy = X.copy()
    gappy[::5, 1] = np.nan
    path = tmp_path / "gappy.npz"
    bayesgen.QDA().fit(gappy, Y).save(path)
    changed = _with_value_array(path, tmp_path, "rows", field, array)
    _expect(changed, problem, header_is_valid=True)


def _gaussian_family_classifier():
    from bayesgen.families.gaussian import GaussianFamily

    return bayesgen.FamilyClassifier(family=GaussianFamily())


@pytest.mark.parametrize(
    "make",
    [bayesgen.QDA, bayesgen.PoissonNB, bayesgen.MixtureDA, _gaussian_family_classifier],
    ids=["complete", "counts", "mixture", "family-classifier-gappy"],
)
def test_kept_rows_where_no_fit_kept_them_are_refused(tmp_path, make):
    """Rows behind a posterior belong to a GaussianDA fitted by EM over missing entries;
    put into another value (a complete fit, a count model, a mixture's, a fit by EM that
    keeps none), they would silently replace its posterior, or break it."""
    from bayesgen.joint import KeptRows

    rows = np.rint(X) if make is bayesgen.PoissonNB else X.copy()
    if make is _gaussian_family_classifier:
        rows[::5, 1] = np.nan  # fitted by EM over the missing entries: frozen is set
    model = make().fit(rows, Y)
    model.joint_ = model.joint_._replace(rows=KeptRows(rows[:5], np.eye(3)[Y[:5]]))
    path = tmp_path / "model.npz"
    model.save(path)
    problem = "joint_.rows belong to a GaussianDA fitted by EM over missing entries"
    _expect(path, problem, header_is_valid=True)


@pytest.mark.parametrize("value", [5, "abc", None])
def test_classes_that_are_not_an_array_are_refused(saved, tmp_path, value):
    def change(header):
        _state(header)["classes_"] = value

    _expect(
        _with_header(saved, tmp_path, change),
        "classes_ must be a non-empty 1-D array",
        header_is_valid=True,
    )


@pytest.mark.parametrize(
    ("prior", "problem"),
    [([np.nan, 0.5, 0.5], "finite"), ([0.2, 0.2, 0.2], "sum to 1"), ([1.0, 0.0], "shape (3,)")],
)
def test_a_broken_class_prior_is_refused(saved, tmp_path, prior, problem):
    members = _members(saved)
    header = json.loads(members["header.json"])
    member = _class_prior_node(header)["member"]
    _class_prior_node(header)["shape"] = [len(prior)]
    members["header.json"] = json.dumps(header).encode()
    buffer = io.BytesIO()
    np.save(buffer, np.asarray(prior))
    members[member] = buffer.getvalue()
    _expect(_write(tmp_path / "prior.npz", members), "class_prior_", problem, header_is_valid=True)


def test_an_array_header_claiming_more_than_it_holds_is_refused(saved, tmp_path):
    members = _members(saved)
    header = json.loads(members["header.json"])
    member = _class_prior_node(header)["member"]
    _class_prior_node(header)["shape"] = [10**12]
    members["header.json"] = json.dumps(header).encode()
    buffer = io.BytesIO()
    np.lib.format.write_array_header_1_0(
        buffer, {"descr": "<f8", "fortran_order": False, "shape": (10**12,)}
    )
    members[member] = buffer.getvalue() + b"\0" * 24
    _expect(
        _write(tmp_path / "claims.npz", members),
        "claims shape (1000000000000,)",
        "holds 24 bytes",
        header_is_valid=True,
    )


def test_a_file_that_would_inflate_past_max_bytes_is_refused(saved, tmp_path):
    with pytest.raises(ModelFileError, match="max_bytes=1000"):
        bayesgen.load(saved, max_bytes=1000)
    members = _members(saved)
    members["padding.bin"] = b"\0" * 3_000_000  # deflates to a few KiB
    path = _write(tmp_path / "bomb.npz", members)
    assert path.stat().st_size < 100_000
    with pytest.raises(ModelFileError, match="would inflate to 30"):
        bayesgen.load(path, max_bytes=2_000_000)
    with pytest.raises(ValueError, match="max_bytes must be an integer"):
        bayesgen.load(saved, max_bytes=0)


def test_a_device_is_not_read():
    with pytest.raises(ModelFileError, match="not a regular file"):
        bayesgen.load("/dev/zero")


def test_many_members_are_read_in_linear_time(saved, tmp_path, monkeypatch):
    """The member list is read a fixed number of times, not once per member (quadratic)."""
    members = _members(saved)
    members.update({f"extra/{i}": b"" for i in range(20_000)})
    path = _write(tmp_path / "many.npz", members)
    listings = []
    namelist = zipfile.ZipFile.namelist
    monkeypatch.setattr(
        zipfile.ZipFile, "namelist", lambda self: listings.append(1) or namelist(self)
    )
    with pytest.raises(ModelFileError, match="and 19995 more"):
        bayesgen.load(path)
    assert 1 <= len(listings) <= 3


def test_a_fitted_header_over_an_empty_state_is_refused(saved, tmp_path):
    """Issue 33: such a file loaded, and `bayesgen info` then raised AttributeError."""
    members = _members(saved)
    header = json.loads(members["header.json"])
    _state(header).clear()
    arrays = {name: data for name, data in members.items() if name != "header.json"}
    assert arrays  # the fitted model's arrays, which the emptied state no longer names
    path = _write(tmp_path / "emptied.npz", {"header.json": json.dumps(header).encode()})
    _expect(
        path,
        "the header says the model is fitted, its state holds no fitted attribute",
        header_is_valid=True,
    )
    unfitted = tmp_path / "unfitted.npz"
    bayesgen.QDA().save(unfitted)
    members = _members(unfitted)
    header = json.loads(members["header.json"])
    header["fitted"] = True
    members["header.json"] = json.dumps(header).encode()
    _expect(
        _write(tmp_path / "claims.npz", members),
        "the header says the model is fitted",
        header_is_valid=True,
    )


def test_save_warns_when_the_file_is_beyond_what_load_opens_by_default(
    model, tmp_path, monkeypatch
):
    """Issue 33: a model written above the load cap could not be opened, with no word said."""
    from bayesgen.model_files import writing

    monkeypatch.setattr(writing, "DEFAULT_MAX_BYTES", 1000)  # this model's arrays are larger
    path = tmp_path / "large.npz"
    with pytest.warns(UserWarning, match=r"more than bayesgen.load opens by default .*max_bytes="):
        model.save(path)
    with pytest.raises(ModelFileError, match="more than max_bytes=1000"):
        bayesgen.load(path, max_bytes=1000)
    np.testing.assert_array_equal(bayesgen.load(path).predict_proba(X), model.predict_proba(X))
