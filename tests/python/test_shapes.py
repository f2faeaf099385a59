"""reshape1.shapes(): every tensor's propagated shape, and the ONNX copy that declares them, from a path, from
bytes and from an object with SerializeToString (as onnx.ModelProto), against the command line's --json."""
from __future__ import annotations

import json
import os
import pathlib
import subprocess

import pytest

import reshape1

ULTRAFACE = "onnx-models/ultraface-rfb-320/version-RFB-320.onnx"
RETAIL = "ir-models/face-detection-retail-0005/other.xml"


class Proto:
    """Stands for onnx.ModelProto: its bytes, and FromString to make one of the same class."""

    def __init__(self, data: bytes) -> None:
        self.data = data

    def SerializeToString(self) -> bytes:  # noqa: N802 (protobuf's name)
        return self.data

    @classmethod
    def FromString(cls, data: bytes) -> "Proto":  # noqa: N802
        return cls(data)


def test_a_path_lists_every_tensor(data_dir: pathlib.Path) -> None:
    r = reshape1.shapes(data_dir / ULTRAFACE, shapes={"input": "[?@N,3,240,320]"})
    assert r.output is None
    assert r.tensors[0].name == "input" and str(r.tensors[0].shape) == "[?@N,3,240,320]"
    assert r.tensors[0].declared is not None and r.tensors[0].declared.is_static
    boxes = next(t for t in r.tensors if t.name == "boxes")
    assert str(boxes.shape) == "[?@N,4420,4]" and boxes.type == "f32"
    assert r.summary.tensors == len(r.tensors) == r.summary.rank_known and r.gaps == []


def test_the_report_is_the_command_lines(data_dir: pathlib.Path) -> None:
    if "RESHAPE1_CLI" not in os.environ:
        pytest.skip("the command line is not built")
    path = data_dir / ULTRAFACE
    p = subprocess.run([os.environ["RESHAPE1_CLI"], "shapes", str(path), "--json"], capture_output=True, text=True)
    doc = json.loads(p.stdout)
    r = reshape1.shapes(path)
    assert [(t.name, t.id, t.op, str(t.shape)) for t in r.tensors] == [
        (t["name"], int(t["id"]), t["op"], t["shape"]) for t in doc["tensors"]
    ]


def test_output_writes_the_copy_and_bytes_come_back_with_it(data_dir: pathlib.Path, tmp_path: pathlib.Path) -> None:
    path = data_dir / ULTRAFACE
    r = reshape1.shapes(path, shapes={"input": "[?@N,3,240,320]"}, output=tmp_path / "s.onnx")
    assert r.output == str(tmp_path / "s.onnx") and (tmp_path / "s.onnx").exists()
    again = reshape1.shapes(tmp_path / "s.onnx")
    assert all(t.declared is not None for t in again.tensors)
    data = path.read_bytes()
    from_bytes = reshape1.shapes(data, shapes={"input": "[?@N,3,240,320]"})
    assert from_bytes.output == (tmp_path / "s.onnx").read_bytes()
    from_proto = reshape1.shapes(Proto(data), shapes={"input": "[?@N,3,240,320]"})
    assert isinstance(from_proto.output, Proto) and from_proto.output.data == from_bytes.output


def test_a_loop_body_tensor_names_the_layers_around_it() -> None:
    if "RESHAPE1_ONNX_FIXTURES" not in os.environ:
        pytest.skip("the ONNX fixtures are not built")
    r = reshape1.shapes(pathlib.Path(os.environ["RESHAPE1_ONNX_FIXTURES"]) / "loop_growing.onnx")
    top = next(t for t in r.tensors if t.name == "grown")
    assert top.within == ()
    acc = next(t for t in r.tensors if t.name == "acc")
    assert str(acc.shape) == "[?@N,?]" and [w.name for w in acc.within] == ["grow"]
    inner = next(t for t in r.tensors if t.name == "s_sum")
    assert [w.name for w in inner.within] == ["grow", "inner"] and str(inner.shape) == "[?@N,1]"


def test_an_ir_is_listed_and_its_copy_written_with_its_weights(data_dir: pathlib.Path, tmp_path: pathlib.Path) -> None:
    model = data_dir / RETAIL
    r = reshape1.shapes(model)
    assert r.output is None and all(":" in t.name for t in r.tensors)
    first = r.tensors[0]
    free = "[?," + ",".join(str(d) for d in list(first.shape)[1:]) + "]"
    copy = reshape1.shapes(model, shapes={first.layer: free}, output=tmp_path / "copy.xml")
    assert copy.output == str(tmp_path / "copy.xml")
    assert (tmp_path / "copy.bin").read_bytes() == model.with_suffix(".bin").read_bytes()
    again = reshape1.shapes(tmp_path / "copy.xml")
    assert again.tensors[0].declared is not None and not again.tensors[0].declared.is_static
    with pytest.raises(reshape1.Error) as info:
        reshape1.shapes(model, output=tmp_path / "ir.onnx")
    assert info.value.code == "invalid_argument" and not (tmp_path / "ir.onnx").exists()


def test_bad_arguments(data_dir: pathlib.Path) -> None:
    with pytest.raises(TypeError):
        reshape1.shapes(data_dir / ULTRAFACE, shapes="[1,3,240,320]")  # type: ignore[arg-type]
    with pytest.raises(reshape1.Error) as info:
        reshape1.shapes(b"\x08\x07", output="x.onnx")
    assert info.value.code == "invalid_argument"
