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
    assert isinstance(first, reshape1.OnnxFixChange)
    assert (first.old_pattern, first.new_pattern, first.tensor, first.cloned_from) == ("[1,-1,2]", "[0,-1,2]", "327", None)
    assert not first.allowzero_cleared
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
