"""reshape1.check_batch: the report of `reshape1 check --batch`, as typed Python values."""
from __future__ import annotations

import json
import os
import pathlib
import subprocess
from typing import Any

import pytest

import reshape1

RETAIL = "ir-models/face-detection-retail-0005/other.xml"
FD200 = "ir-models/face-detection-0200/face-detection-0200.xml"


def test_swallowed_batch_names_the_reshapes_and_their_consts(data_dir: pathlib.Path) -> None:
    report = reshape1.check_batch(data_dir / RETAIL, batch=8)
    assert isinstance(report, reshape1.BatchReport)
    assert not report.summary.reshapes
    assert report.summary.line == "reshapes to batch 8: no: 2 Reshapes swallow the batch"
    assert [(f.finding, f.id, f.source and f.source.id, f.pattern_index) for f in report.findings] == [
        ("swallows_batch", 267, 266, 0),
        ("swallows_batch", 280, 279, 0),
    ]
    assert report.findings[0].hint == "pattern[0]: use 0 to copy the batch"
    assert (report.findings[0].hint_code, report.findings[0].hint_args) == (
        "copy_batch", {"pattern_index": 0, "write": "0"})
    (inp,) = report.inputs
    assert (inp.name, inp.batch_index, inp.batch_from) == ("input.1", 0, "first_dimension")
    assert tuple(inp.reshaped_to) == (8, 3, 300, 300)
    (out,) = report.outputs
    assert str(out.reshaped) == "[1,1,200,7]" and out.batch == "none"


def test_dynamic_batch_and_post_processing(data_dir: pathlib.Path) -> None:
    report = reshape1.check_batch(data_dir / FD200, batch="?")
    assert report.summary.reshapes and report.target == "batch ?"
    assert str(report.inputs[0].reshaped_to) == "[?@N,3,256,256]"
    (f,) = report.findings
    assert (f.finding, f.id, f.used_by, f.code, f.at) == ("scales_with_batch", 1144, 1145, "output_per_image", None)
    assert f.args == {"output_id": "1145", "output_name": "detection_out/sink_port_0"}
    (out,) = report.outputs
    assert out.batch == reshape1.BatchAxis(axis=2, factor=200)


def test_shapes_and_layouts(data_dir: pathlib.Path) -> None:
    report = reshape1.check_batch(data_dir / FD200, shapes={"image": (2, 3, 512, 512)}, layouts={"image": "NCHW"})
    assert report.target == "the given shapes" and report.summary.reshapes
    assert report.inputs[0].batch_from == "layout_option"
    assert str(report.outputs[0].reshaped) == "[1,1,400,7]"
    one_input = reshape1.check_batch(data_dir / FD200, shapes={"": "[1,3,512,512]"})
    assert str(one_input.inputs[0].reshaped_to) == "[1,3,512,512]"


def test_requests_the_model_cannot_take(data_dir: pathlib.Path) -> None:
    with pytest.raises(reshape1.Error) as e:
        reshape1.check_batch(data_dir / FD200, shapes={"nope": "[1,2]"})
    assert e.value.code == "invalid_argument" and "no input named 'nope'" in str(e.value)
    with pytest.raises(reshape1.Error) as layout:
        reshape1.check_batch(data_dir / FD200, batch=2, layouts={"image": "NCH"})
    assert layout.value.code == "invalid_argument"
    with pytest.raises(reshape1.Error):
        reshape1.check_batch(data_dir / FD200, batch="x")
    # An empty file name is refused, not taken as left out (the command line's `--bin ''`, `-o ''`).
    for call in (lambda: reshape1.check_batch(data_dir / FD200, batch=2, model_bin=""),
                 lambda: reshape1.fix(data_dir / FD200, output="")):
        with pytest.raises(reshape1.Error, match="an empty file name") as empty:
            call()
        assert empty.value.code == "invalid_argument"
    # A bool is an int to Python: True is not batch 1.
    for flag in (True, False):
        with pytest.raises(TypeError, match="batch must be an int or a str, not a bool"):
            reshape1.check_batch(data_dir / FD200, batch=flag)


def test_check_batch_agrees_with_the_command_line_tool(data_dir: pathlib.Path) -> None:
    tool = os.environ.get("RESHAPE1_CLI")
    if not tool:
        pytest.skip("RESHAPE1_CLI is not set (ctest sets it when the tool is built)")
    for model, batch in ((RETAIL, "8"), (RETAIL, "?"), (FD200, "4")):
        out = subprocess.run([tool, "check", "--json", "--batch", batch, str(data_dir / model)], capture_output=True,
                             text=True)
        cli = json.loads(out.stdout)
        report = reshape1.check_batch(data_dir / model, batch=int(batch) if batch.isdigit() else batch)
        assert report.summary.line == cli["summary"]["line"] and out.returncode == (0 if report.summary.reshapes else 1)
        assert [(f.finding, str(f.id), f.code, f.args, f.what, f.hint, f.hint_code, f.hint_args)
                for f in report.findings] == [
            (j["finding"], j["id"], j["code"], j["args"], j["what"], j["hint"], j["hint_code"], j["hint_args"])
            for j in cli["findings"]
        ]


def test_verdicts_and_the_fields_of_a_finding(tmp_path: pathlib.Path) -> None:
    # A Gather of image 0 on the batch axis: "no", with the input port and the axis that holds the batch;
    # an op without a rule: "cannot_tell", until assume_kept vouches for it.
    def model(op: str, name: str) -> pathlib.Path:
        xml = f"""<?xml version="1.0"?>
<net name="m" version="11"><layers>
<layer id="0" name="x" type="Parameter" version="opset1"><data shape="1,3" element_type="f32"/><output><port id="0" precision="FP32"><dim>1</dim><dim>3</dim></port></output></layer>
{op}
<layer id="9" name="out" type="Result" version="opset1"><input><port id="0" precision="FP32"><dim>1</dim><dim>3</dim></port></input></layer>
</layers><edges>
<edge from-layer="0" from-port="0" to-layer="3" to-port="0"/>
<edge from-layer="1" from-port="0" to-layer="3" to-port="1"/>
<edge from-layer="2" from-port="0" to-layer="3" to-port="2"/>
<edge from-layer="3" from-port="3" to-layer="9" to-port="0"/>
</edges></net>"""
        (tmp_path / f"{name}.xml").write_text(xml)
        (tmp_path / f"{name}.bin").write_bytes(bytes(16))
        return tmp_path / f"{name}.xml"

    consts = (
        '<layer id="1" name="i" type="Const" version="opset1"><data element_type="i64" shape="1" offset="0" size="8"/>'
        '<output><port id="0" precision="I64"><dim>1</dim></port></output></layer>'
        '<layer id="2" name="a" type="Const" version="opset1"><data element_type="i64" shape="" offset="8" size="8"/>'
        '<output><port id="0" precision="I64"/></output></layer>'
    )
    ports = ('<input><port id="0" precision="FP32"><dim>1</dim><dim>3</dim></port><port id="1" precision="I64"><dim>1</dim>'
             '</port><port id="2" precision="I64"/></input><output><port id="3" precision="FP32"><dim>1</dim><dim>3</dim>'
             '</port></output>')
    gather = model(consts + f'<layer id="3" name="g" type="Gather" version="opset8"><data batch_dims="0"/>{ports}</layer>',
                   "gather")
    report = reshape1.check_batch(gather, batch=4)
    assert report.summary.verdict == "no" and not report.summary.reshapes
    (f,) = report.findings
    assert (f.finding, f.id, f.port, f.axis, f.pattern_index) == ("drops_samples", 3, 0, 0, None)
    assert (f.code, f.args) == ("gathers_batch_with_fixed_indices", {"port": 0, "axis": 0})
    assert (f.hint_code, f.hint_args) == ("select_whole_batch", {})

    custom = model(consts + f'<layer id="3" name="c" type="MyOp" version="opset1">{ports}</layer>', "custom")
    report = reshape1.check_batch(custom, batch=4)
    assert report.summary.verdict == "cannot_tell"
    assert report.findings[0].finding == "cannot_tell" and "MyOp" in report.findings[0].hint
    assert report.findings[0].code == "rule_refused" and set(report.findings[0].args) == {"message"}
    assert (report.findings[0].hint_code, report.findings[0].hint_args) == ("vouch_op", {"op": "MyOp", "version": 1})
    with pytest.raises(reshape1.Error):
        reshape1.check_batch(custom, batch=4, assume_kept=[""])


def cli_json(args: list[str]) -> tuple[int, dict[str, Any]]:
    p = subprocess.run([os.environ["RESHAPE1_CLI"], "check", *args, "--json"], capture_output=True, text=True)
    return p.returncode, json.loads(p.stdout)


def test_minus_one_is_a_dynamic_batch(data_dir: pathlib.Path) -> None:
    assert reshape1.check_batch(data_dir / FD200, batch=-1).target == "batch ?"
    with pytest.raises(reshape1.Error):
        reshape1.check_batch(data_dir / FD200, batch=-2)
    if "RESHAPE1_CLI" in os.environ:
        rc, doc = cli_json([str(data_dir / FD200), "--batch", "-1"])
        assert rc == 0 and doc["target"] == "batch ?"
