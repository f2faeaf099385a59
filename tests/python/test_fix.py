"""reshape1.fix: the rewrites of `reshape1 fix`, as typed Python values, and the files it writes."""
from __future__ import annotations

import os
import pathlib
import struct

import pytest

import reshape1

RETAIL = "ir-models/face-detection-retail-0005/other.xml"
FD200 = "ir-models/face-detection-0200/face-detection-0200.xml"


def test_fix_rewrites_the_flattens_and_writes_a_model_that_reshapes(data_dir: pathlib.Path, tmp_path: pathlib.Path) -> None:
    report = reshape1.fix(data_dir / RETAIL, tmp_path / "fixed.xml")
    assert isinstance(report, reshape1.FixReport)
    assert report.fixed and not report.nothing_to_do and report.output == str(tmp_path / "fixed.xml")
    assert not report.refusals
    assert [(c.id, c.old_pattern, c.new_pattern, c.edit.const, c.old_value, c.new_value) for c in report.changes] == [
        (267, "[1,-1]", "[0,-1]", 266, 1, 0),
        (280, "[1,-1]", "[0,-1]", 279, 1, 0),
        (282, "[1,-1,2]", "[0,-1,2]", 281, 1, 0),
        (285, "[1,-1]", "[0,-1]", 284, 1, 0),
    ]
    assert report.checked[-1].startswith("reshapes to batch ?: yes")
    original = (data_dir / RETAIL).with_suffix(".bin").read_bytes()
    assert (tmp_path / "fixed.bin").read_bytes().startswith(original)
    after = reshape1.check_batch(tmp_path / "fixed.xml", batch=8)
    assert after.summary.reshapes and not [f for f in after.findings if f.finding != "scales_with_batch"]
    assert not reshape1.check(tmp_path / "fixed.xml").failed


def test_a_reshape_in_a_tensor_iterator_body_is_rewritten_there(data_dir: pathlib.Path, tmp_path: pathlib.Path) -> None:
    # The hand-made TensorIterator's body flattens each step with [0,-1]; written as [1,-1], it keeps the
    # model at batch 1, and fix turns it back in the body's own Const.
    model = data_dir / "models" / "tensor-iterator-lstm" / "model.xml"
    weights = bytearray(model.with_suffix(".bin").read_bytes())
    pattern = bytes(8) + b"\xff" * 8
    assert weights.count(pattern) == 1
    weights[weights.index(pattern)] = 1
    (tmp_path / "m.xml").write_bytes(model.read_bytes())
    (tmp_path / "m.bin").write_bytes(bytes(weights))
    report = reshape1.fix(tmp_path / "m.xml", tmp_path / "fixed.xml")
    assert report.fixed and not report.refusals
    [change] = report.changes
    assert (change.id, change.old_pattern, change.new_pattern, change.edit.const, change.new_value) == (4, "[1,-1]", "[0,-1]", 3, 0)
    assert change.within == (reshape1.Enclosing(id=3, name="lstm", type="TensorIterator"),)
    assert reshape1.check_batch(tmp_path / "fixed.xml", batch=8).summary.reshapes


def test_dry_run_nothing_to_do_and_refusals(data_dir: pathlib.Path, tmp_path: pathlib.Path) -> None:
    dry = reshape1.fix(data_dir / RETAIL, check_batches=[2, "?"])
    assert dry.fixed and dry.output is None and len(dry.checked) == 2
    clean = reshape1.fix(data_dir / FD200, tmp_path / "fd.xml")
    assert clean.nothing_to_do and clean.fixed and clean.output is None and not (tmp_path / "fd.xml").exists()
    with pytest.raises(reshape1.Error) as e:
        reshape1.fix(data_dir / RETAIL, data_dir / RETAIL)
    assert e.value.code == "invalid_argument"


ULTRAFACE = "onnx-models/ultraface-rfb-320/version-RFB-320_simplified.onnx"


@pytest.mark.parametrize(
    "model, out, message",
    [
        (RETAIL, "pipe.xml", "pipe.xml: is a FIFO (a pipe), not a regular file"),
        (RETAIL, "dir.xml", "dir.xml: is a directory, not a regular file"),
        (RETAIL, "model.txt", "model.txt: the output must end in .xml"),
        (RETAIL, "fine.xml", "fine.bin: is a FIFO (a pipe), not a regular file"),
        (ULTRAFACE, "pipe.onnx", "pipe.onnx: is a FIFO (a pipe), not a regular file"),
        (ULTRAFACE, "model.xml", "model.xml: the output of an ONNX model must end in .onnx"),
    ],
)
def test_outputs_refused_before_anything_is_written(
    data_dir: pathlib.Path, tmp_path: pathlib.Path, model: str, out: str, message: str
) -> None:
    # The same cases and messages as `reshape1 fix -o` (tests/cli/test_fix.py): one rule in the library.
    os.mkfifo(tmp_path / "pipe.xml")
    os.mkfifo(tmp_path / "pipe.onnx")
    os.mkfifo(tmp_path / "fine.bin")
    (tmp_path / "dir.xml").mkdir()
    before = sorted(p.name for p in tmp_path.iterdir())
    with pytest.raises(reshape1.Error) as e:
        reshape1.fix(data_dir / model, tmp_path / out)
    assert e.value.code == "invalid_argument"
    assert message in str(e.value)
    assert sorted(p.name for p in tmp_path.iterdir()) == before


def test_check_batches_are_read_as_the_command_line_reads_them(data_dir: pathlib.Path) -> None:
    # One parser for a batch (model::parse_batch): the same texts refused with the same words.
    with pytest.raises(reshape1.Error) as e:
        reshape1.fix(data_dir / RETAIL, check_batches=[2, "x"])
    assert e.value.code == "syntax" and str(e.value).startswith("check_batches=[2,x]: 'x': not a batch; give a number such as 8")
    with pytest.raises(reshape1.Error) as e:
        reshape1.fix(data_dir / RETAIL, check_batches=[0])
    assert e.value.code == "invalid_argument" and str(e.value).startswith("check_batches=[0]: '0' is not a batch")
    assert reshape1.fix(data_dir / RETAIL, check_batches=[-1]).checked[0].startswith("reshapes to batch ?: yes")
    # One batch is not a list of them: "16" would be read as batches 1 and 6.
    for one in ("16", 8):
        with pytest.raises(TypeError, match="check_batches takes a list of batches"):
            reshape1.fix(data_dir / RETAIL, check_batches=one)  # type: ignore[arg-type]



def test_a_refusal_says_why_as_a_code_with_what_it_names(data_dir: pathlib.Path) -> None:
    # A Concat with a constant of batch 1: no Reshape to rewrite, so fix leaves it, with the finding's code.
    report = reshape1.fix(data_dir / "models" / "concat-batch-const" / "model.xml")
    assert not report.fixed and not report.changes
    [refusal] = report.refusals
    assert (refusal.id, refusal.name, refusal.type) == (2, "joined", "Concat")
    assert refusal.code == "batch_finding"
    assert refusal.args == {"finding": "fails", "finding_code": "invalid_shape", "batch": "2"}
    assert refusal.reason.startswith("not a Reshape pattern: fails at batch 2")


def test_every_kind_of_finding_is_a_finding(data_dir: pathlib.Path) -> None:
    # check's Reshape and layer findings, check_batch's findings and fix's refusals share one base class: the
    # layer, a code and what it names, whichever answer they come from.
    concat = data_dir / "models" / "concat-batch-const" / "model.xml"
    checked = reshape1.check(data_dir / RETAIL)
    batch = reshape1.check_batch(data_dir / RETAIL, batch=8)
    refused = reshape1.fix(concat)
    findings: list[reshape1.Finding] = [*checked.findings, *checked.layers, *batch.findings, *refused.refusals]
    assert {type(f) for f in findings} == {reshape1.ReshapeFinding, reshape1.BatchFinding, reshape1.FixRefusal}
    for f in findings:
        assert isinstance(f, reshape1.Finding)
        assert f.code and isinstance(f.args, dict) and isinstance(f.id, int) and f.name and f.type
    assert [(f.type, f.code) for f in checked.findings][:1] == [("Reshape", "ok")]
    assert [(f.id, f.type, f.code, f.args) for f in batch.findings][:1] == [
        (267, "Reshape", "expects_image_per_index_folded", {"port": 0, "axis": 1, "factor": 12996})
    ]
    assert [(f.id, f.type, f.code) for f in refused.refusals] == [(2, "Concat", "batch_finding")]


def _shuffle_ir(directory: pathlib.Path) -> pathlib.Path:
    """A channel shuffle as OpenVINO IR: [1,6,10,14] viewed as [1,2,3,10,14], transposed, viewed back."""
    values = {"p": [1, 2, 3, 10, 14], "perm": [0, 2, 1, 3, 4], "q": [1, -1, 10, 14]}
    offsets, data = {}, b""
    for name, v in values.items():
        offsets[name] = len(data)
        data += struct.pack(f"<{len(v)}q", *v)

    def const(id_: int, name: str) -> str:
        n = len(values[name])
        return (f'<layer id="{id_}" name="{name}" type="Const" version="opset1"><data element_type="i64" shape="{n}" '
                f'offset="{offsets[name]}" size="{8 * n}"/><output><port id="0" precision="I64"><dim>{n}</dim></port>'
                "</output></layer>")

    def port(id_: int, dims: "list[int]") -> str:
        return f'<port id="{id_}" precision="FP32">' + "".join(f"<dim>{d}</dim>" for d in dims) + "</port>"

    layers = [
        '<layer id="0" name="x" type="Parameter" version="opset1"><data shape="1,6,10,14" element_type="f32"/>'
        f"<output>{port(0, [1, 6, 10, 14])}</output></layer>",
        const(1, "p"),
        f'<layer id="2" name="split_groups" type="Reshape" version="opset1"><data special_zero="true"/><input>{port(0, [1, 6, 10, 14])}'
        f'<port id="1" precision="I64"><dim>5</dim></port></input><output>{port(2, [1, 2, 3, 10, 14])}</output></layer>',
        const(3, "perm"),
        f'<layer id="4" name="t" type="Transpose" version="opset1"><input>{port(0, [1, 2, 3, 10, 14])}'
        f'<port id="1" precision="I64"><dim>5</dim></port></input><output>{port(2, [1, 3, 2, 10, 14])}</output></layer>',
        const(5, "q"),
        f'<layer id="6" name="merge_groups" type="Reshape" version="opset1"><data special_zero="true"/><input>{port(0, [1, 3, 2, 10, 14])}'
        f'<port id="1" precision="I64"><dim>4</dim></port></input><output>{port(2, [1, 6, 10, 14])}</output></layer>',
        f'<layer id="7" name="y" type="Result" version="opset1"><input>{port(0, [1, 6, 10, 14])}</input></layer>',
    ]
    edges = [(0, 0, 2, 0), (1, 0, 2, 1), (2, 2, 4, 0), (3, 0, 4, 1), (4, 2, 6, 0), (5, 0, 6, 1), (6, 2, 7, 0)]
    xml = ('<?xml version="1.0"?>\n<net name="shuffle" version="11">\n<layers>\n' + "\n".join(layers) + "\n</layers>\n<edges>\n"
           + "\n".join(f'<edge from-layer="{a}" from-port="{b}" to-layer="{c}" to-port="{d}"/>' for a, b, c, d in edges)
           + "\n</edges>\n</net>\n")
    (directory / "shuffle.xml").write_text(xml)
    (directory / "shuffle.bin").write_bytes(data)
    return directory / "shuffle.xml"


def test_fix_computes_a_pattern_from_its_input_shape(tmp_path: pathlib.Path) -> None:
    model = _shuffle_ir(tmp_path)
    out = tmp_path / "fixed.xml"
    report = reshape1.fix(model, out, shapes={"x": "[1,6,?,?]"})
    assert report.fixed, report.refusals
    assert [c.computed for c in report.changes] == ["[1,2,3,shape[2],shape[3]]", "[1,6,shape[3],shape[4]]"]
    first = report.changes[0]
    assert isinstance(first.edit, reshape1.IrEdit) and first.edit.const is None
    assert first.new_pattern == first.computed
    assert reshape1.check_batch(out, shapes={"x": "[1,6,20,42]"}).summary.verdict == "yes"
    assert reshape1.check_batch(model, shapes={"x": "[1,6,20,42]"}).summary.verdict == "no"
