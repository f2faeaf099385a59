"""ONNX models in reshape1.check and reshape1.check_batch: paths told apart from IR by content, and models
in memory as bytes or as an object with SerializeToString() (what onnx.ModelProto has)."""
from __future__ import annotations

import pathlib
import shutil

import pytest

import reshape1

SIMPLIFIED = "onnx-models/ultraface-rfb-320/version-RFB-320_simplified.onnx"
EXPORTED = "onnx-models/ultraface-rfb-320/version-RFB-320.onnx"


class FakeProto:
    """Stands for onnx.ModelProto (the onnx package is not a dependency): it serialises itself."""

    def __init__(self, data: bytes) -> None:
        self.data = data

    def SerializeToString(self) -> bytes:  # noqa: N802 (protobuf's name)
        return self.data


def test_an_onnx_path_is_checked_at_a_batch(data_dir: pathlib.Path) -> None:
    report = reshape1.check_batch(data_dir / SIMPLIFIED, batch=4)
    assert report.summary.verdict == "no"
    assert report.summary.line == "reshapes to batch 4: no: 8 Reshapes swallow the batch"
    assert {f.finding for f in report.findings} == {"swallows_batch"}
    assert report.findings[0].source is not None and report.findings[0].source.what == "initializer '327'"
    exported = reshape1.check_batch(data_dir / EXPORTED, batch=4)
    assert exported.summary.verdict == "yes"
    assert exported.notes == [
        "input 'input' declares its batch (dimension 0) as 1: ONNX Runtime refuses another batch until that "
        "dimension is a dim_param"
    ]
    assert reshape1.check_batch(data_dir / EXPORTED, batch=1).notes == []


def test_an_onnx_model_in_memory(data_dir: pathlib.Path) -> None:
    data = (data_dir / EXPORTED).read_bytes()
    for model in (data, bytearray(data), memoryview(data), FakeProto(data)):
        assert reshape1.check_batch(model, batch=2).summary.verdict == "yes"
    report = reshape1.check(data)
    assert not report.failed
    assert len(report.findings) == 9 and report.model == ""


class TextProto:
    """An object whose SerializeToString() gives text: it must not be taken as a path to read."""

    def __init__(self, text: str) -> None:
        self.text = text

    def SerializeToString(self) -> str:  # noqa: N802 (protobuf's name)
        return self.text


def test_serialize_to_string_must_give_bytes(data_dir: pathlib.Path) -> None:
    path = str(data_dir / EXPORTED)  # a real model's path: read, it would answer as if it were the object
    for call in (lambda m: reshape1.check(m), lambda m: reshape1.check_batch(m, batch=2), lambda m: reshape1.fix(m)):
        with pytest.raises(TypeError) as e:
            call(TextProto(path))
        assert str(e.value) == "TextProto.SerializeToString() returned str, not the model's bytes"


def test_the_format_is_told_by_content_not_name(data_dir: pathlib.Path, tmp_path: pathlib.Path) -> None:
    renamed = tmp_path / "model.xml"
    shutil.copy(data_dir / SIMPLIFIED, renamed)
    assert reshape1.check_batch(renamed, batch=4).summary.verdict == "no"
    empty = tmp_path / "empty.onnx"
    empty.write_bytes(b"")
    with pytest.raises(reshape1.Error) as e:
        reshape1.check(empty)
    assert e.value.code == "bad_file"
    assert str(e.value) == f"{empty}: not a model: an empty file; give an OpenVINO IR .xml or an .onnx file"


def test_wrong_model_arguments(data_dir: pathlib.Path) -> None:
    with pytest.raises(TypeError):
        reshape1.check(42)  # type: ignore[arg-type]
    with pytest.raises(reshape1.Error) as e:
        reshape1.check(b"\x08\x07\x12\xff\xff")
    assert e.value.code == "bad_file"
    assert "not an ONNX model" in str(e.value)
    with pytest.raises(reshape1.Error) as e:
        reshape1.check_batch(data_dir / SIMPLIFIED, batch=4, model_bin=data_dir / SIMPLIFIED)
    assert e.value.code == "invalid_argument"


def test_fix_an_onnx_file(data_dir: pathlib.Path, tmp_path: pathlib.Path) -> None:
    out = tmp_path / "fixed.onnx"
    report = reshape1.fix(data_dir / SIMPLIFIED, out)
    assert report.fixed and report.output == str(out) and out.exists()
    assert len(report.changes) == 8
    first = report.changes[0]
    assert isinstance(first, reshape1.FixChange) and isinstance(first.edit, reshape1.OnnxEdit)
    assert (first.old_pattern, first.new_pattern, first.edit.tensor, first.edit.cloned_from) == ("[1,-1,2]", "[0,-1,2]", "327", None)
    assert not first.edit.allowzero_cleared
    assert report.freed[:3] == ["input 'input' dimension 0", "output 'scores' dimension 0", "output 'boxes' dimension 0"]
    assert len(report.freed) == 102 and all(f.startswith("value_info '") for f in report.freed[3:])
    assert reshape1.check_batch(out, batch=4).summary.verdict == "yes"


def test_fix_an_onnx_model_in_memory(data_dir: pathlib.Path) -> None:
    data = (data_dir / SIMPLIFIED).read_bytes()
    report = reshape1.fix(data)
    assert report.fixed and isinstance(report.output, bytes)
    assert reshape1.check_batch(report.output, batch=3).summary.verdict == "yes"
    # An object without FromString gets bytes back; one with it (as onnx.ModelProto has), its own kind.
    assert reshape1.fix(FakeProto(data)).output == report.output

    class Proto(FakeProto):
        @classmethod
        def FromString(cls, b: bytes) -> "Proto":  # noqa: N802 (protobuf's name)
            return cls(b)

    back = reshape1.fix(Proto(data)).output
    assert isinstance(back, Proto) and back.data == report.output


def test_fix_refuses_what_does_not_fit_an_onnx_model(data_dir: pathlib.Path, tmp_path: pathlib.Path) -> None:
    for kwargs in ({"output": tmp_path / "x.xml"}, {"layouts": {"nope": "NCHW"}}, {"model_bin": data_dir / SIMPLIFIED}):
        with pytest.raises(reshape1.Error) as e:
            reshape1.fix(data_dir / SIMPLIFIED, **kwargs)  # type: ignore[arg-type]
        assert e.value.code == "invalid_argument"
    with pytest.raises(reshape1.Error):
        reshape1.fix((data_dir / SIMPLIFIED).read_bytes(), tmp_path / "y.onnx")
    assert not list(tmp_path.iterdir())


def test_fix_takes_layouts_for_an_onnx_model(data_dir: pathlib.Path) -> None:
    # The batch named by the layout, as the dim_param would: the same eight rewrites.
    report = reshape1.fix(data_dir / SIMPLIFIED, layouts={"input": "NCHW"})
    assert report.fixed and len(report.changes) == 8
    assert report.freed[0] == "input 'input' dimension 0"


def _field(number: int, payload: bytes | int) -> bytes:
    """One protobuf field: a varint (wire type 0) for an int, length-delimited (2) for bytes."""

    def varint(v: int) -> bytes:
        out = bytearray()
        while True:
            byte, v = v & 0x7F, v >> 7
            out.append(byte | (0x80 if v else 0))
            if not v:
                return bytes(out)

    if isinstance(payload, int):
        return varint(number << 3) + varint(payload)
    return varint(number << 3 | 2) + varint(len(payload)) + payload


def _external_pattern_model(location: str) -> bytes:
    """A ModelProto: y = Reshape(x [1,6], pattern), the pattern an initializer in the external file `location`."""
    dims = lambda *ds: _field(2, b"".join(_field(1, _field(1, d)) for d in ds))  # noqa: E731 (Tensor.shape)
    value = lambda name, *ds: _field(1, name.encode()) + _field(2, _field(1, _field(1, 1) + dims(*ds)))  # noqa: E731
    initializer = (_field(1, 2) + _field(2, 7) + _field(8, b"pattern")
                   + _field(13, _field(1, b"location") + _field(2, location.encode())) + _field(14, 1))
    node = _field(1, b"x") + _field(1, b"pattern") + _field(2, b"y") + _field(3, b"flat") + _field(4, b"Reshape")
    graph = (_field(1, node) + _field(2, b"g") + _field(5, initializer) + _field(11, value("x", 1, 6))
             + _field(12, value("y", 1, 6)))
    return _field(1, 7) + _field(8, _field(2, 13)) + _field(7, graph)


def test_a_model_in_memory_has_no_directory_for_its_external_data(
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The bytes name a file of the working directory: reading it would put any file's bytes in the report
    # (the pattern). A model in memory lies in no directory, so its external data is refused.
    (tmp_path / "secret.bin").write_bytes((1).to_bytes(8, "little") + (6).to_bytes(8, "little"))
    monkeypatch.chdir(tmp_path)
    model = _external_pattern_model("secret.bin")
    for call in (lambda: reshape1.check(model), lambda: reshape1.check_batch(FakeProto(model), batch=2),
                 lambda: reshape1.fix(model)):
        with pytest.raises(reshape1.Error) as info:
            call()
        assert info.value.code == "bad_file"
        assert "its data is in the external file 'secret.bin', but a model read from memory has no directory" in str(
            info.value)
    # The same model as a file finds its data beside it.
    (tmp_path / "m.onnx").write_bytes(model)
    assert reshape1.check_batch(tmp_path / "m.onnx", batch=2).summary.verdict == "no"


def test_base_dir_says_where_a_model_in_memory_finds_its_external_data(
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = tmp_path / "data"
    data.mkdir()
    (data / "pattern.bin").write_bytes((1).to_bytes(8, "little", signed=True) + (-1).to_bytes(8, "little", signed=True))
    monkeypatch.chdir(tmp_path)  # not where the data is: only base_dir leads to it
    model = _external_pattern_model("pattern.bin")
    plain = reshape1.check(model, base_dir=data)
    assert plain.failed is False
    assert [r.pattern for r in plain.findings] == ["[1,-1]"]
    batch = reshape1.check_batch(FakeProto(model), batch=2, base_dir=str(data).encode())  # a bytes path too
    assert batch.summary.verdict == "no" and [f.finding for f in batch.findings] == ["swallows_batch"]
    fixed = reshape1.fix(model, base_dir=data)
    assert [(c.old_pattern, c.new_pattern) for c in fixed.changes] == [("[1,-1]", "[0,-1]")]
    assert isinstance(fixed.output, bytes)
    # The rules of a file's external data hold for base_dir too: nothing outside it.
    escape = _external_pattern_model("../pattern.bin")
    with pytest.raises(reshape1.Error) as info:
        reshape1.check(escape, base_dir=data)
    assert info.value.code == "bad_file" and "goes up a directory" in str(info.value)
    # A file has a directory of its own; an empty name is a mistake, not "no base_dir".
    (data / "m.onnx").write_bytes(model)
    for call in (lambda: reshape1.check(data / "m.onnx", base_dir=data),
                 lambda: reshape1.check_batch(data / "m.onnx", batch=2, base_dir=data),
                 lambda: reshape1.fix(data / "m.onnx", base_dir=data)):
        with pytest.raises(reshape1.Error) as info:
            call()
        assert info.value.code == "invalid_argument"
        assert str(info.value).startswith("base_dir: only for an ONNX model read from memory, not from a file")
    with pytest.raises(reshape1.Error) as info:
        reshape1.check(model, base_dir="")
    assert info.value.code == "invalid_argument" and "base_dir: an empty directory name" in str(info.value)


def test_new_sizes_name_the_constants_that_may_stand_for_one(data_dir: pathlib.Path) -> None:
    # At 640x480 the simplified UltraFace reshapes its heads with constants 4 (a box's coordinates) and 2
    # (its classes), which equal a feature map's height upstream at 320x240, or half of one: reshape1 cannot
    # tell which they stand for, until the caller vouches for them.
    report = reshape1.check_batch(data_dir / SIMPLIFIED, shapes={"input": "[1,3,480,640]"})
    assert report.summary.verdict == "cannot_tell"
    assert {(f.code, f.args["size"]) for f in report.findings} == {("baked_size", 4), ("baked_size", 2)}
    sources = [f.source.what for f in report.findings if f.source is not None]
    assert len(sources) == len(report.findings)
    vouched = reshape1.check_batch(data_dir / SIMPLIFIED, shapes={"input": "[1,3,480,640]"}, assume_constant=sources)
    assert vouched.summary.verdict == "yes"
    source = report.findings[0].source
    assert source is not None
    # One string would be read letter by letter: refused, as an unknown name is.
    with pytest.raises(TypeError, match="assume_constant takes a list of names"):
        reshape1.check_batch(data_dir / SIMPLIFIED, shapes={"input": "[1,3,480,640]"}, assume_constant=source.what)  # type: ignore[arg-type]
    with pytest.raises(reshape1.Error, match="no constant or pooling window named 'nope'") as e:
        reshape1.check_batch(data_dir / SIMPLIFIED, shapes={"input": "[1,3,480,640]"}, assume_constant=["nope"])
    assert e.value.code == "invalid_argument"
