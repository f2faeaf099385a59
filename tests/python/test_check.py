"""reshape1.check: the findings of `reshape1 check`, as typed Python values."""
from __future__ import annotations

import json
import os
import pathlib
import shutil
import subprocess

import pytest

import reshape1

MODEL = "ir-models/face-detection-retail-0005/other.xml"


def test_check_gives_one_finding_per_reshape_with_shapes(data_dir: pathlib.Path) -> None:
    report = reshape1.check(data_dir / MODEL)
    assert isinstance(report, reshape1.CheckReport)
    assert report.findings and not report.failed
    for f in report.findings:
        assert f.verdict == "ok" and f.error is None
        assert isinstance(f.input, reshape1.Shape) and isinstance(f.declared, reshape1.Shape)
        assert f.inferred is not None and str(f.inferred) == str(f.declared)
        if f.inferred.is_static:
            assert tuple(f.inferred) == tuple(f.declared)


def test_check_agrees_with_the_command_line_tool(data_dir: pathlib.Path) -> None:
    tool = os.environ.get("RESHAPE1_CLI")
    if not tool:
        pytest.skip("RESHAPE1_CLI is not set (ctest sets it when the tool is built)")
    out = subprocess.run([tool, "check", "--json", str(data_dir / MODEL)], capture_output=True, text=True, check=True)
    cli = json.loads(out.stdout)
    report = reshape1.check(data_dir / MODEL)
    assert [(f.id, f.name, f.verdict, str(f.input), f.pattern, str(f.declared), f.hint, f.warnings) for f in report.findings] == [
        (int(j["id"]), j["name"], j["verdict"], j["input"], j["pattern"], j["declared"], j["hint"], j["warnings"])
        for j in cli["findings"]
    ]
    assert [(f.issue, f.id, f.name) for f in report.layers] == [(j["issue"], int(j["id"]), j["name"]) for j in cli["layers"]]


def test_a_layer_whose_declared_shape_disagrees_is_a_layer_finding(tmp_path: pathlib.Path, data_dir: pathlib.Path) -> None:
    # The model with one Reshape's declared output hand-edited: the self-check and the Reshape verdict see it.
    source = data_dir / MODEL
    text = source.read_text(encoding="utf-8")
    report = reshape1.check(source)
    target = report.findings[0]
    declared = tuple(target.declared)
    edited = [d + 1 if i == len(declared) - 1 else d for i, d in enumerate(declared)]
    shutil.copy(source.with_suffix(".bin"), tmp_path / "m.bin")
    marker = f'<layer id="{target.id}"'
    start = text.index(marker)
    port = text.index("<output>", start)
    last = text.rindex("<dim>", port, text.index("</output>", port))
    end = text.index("</dim>", last)
    (tmp_path / "m.xml").write_text(text[:last] + f"<dim>{edited[-1]}" + text[end:], encoding="utf-8")
    broken = reshape1.check(tmp_path / "m.xml")
    assert broken.failed
    assert [f.verdict for f in broken.findings if f.id == target.id] == ["shape_mismatch"]
    mismatches = [f for f in broken.layers if f.issue == "shape_mismatch"]
    assert mismatches and all(f.port is not None and f.declared is not None for f in mismatches)


@pytest.mark.parametrize(("edit", "message", "hint"), [
    (('<edge from-layer="1" from-port="0" to-layer="2" to-port="1"/>', ""),
     "layer 'a; b' (id 2): nothing is connected to input port 1", "the model cannot be read"),
    (('special_zero="false"', 'special_zero="no; yes"'),
     "layer 'a; b' (id 2): attribute 'special_zero' is 'no; yes'", "write true, false, 1 or 0"),
    (('to-layer="2" to-port="1"', 'to-layer="2" to-port="7"'), "layer 'a; b' (id 2) has no input port 7", ""),
])
def test_a_name_or_value_with_a_semicolon_stays_in_the_readers_message(
        data_dir: pathlib.Path, tmp_path: pathlib.Path, edit: tuple[str, str], message: str, hint: str) -> None:
    """The Reshape of tests/data/models/semicolon-name is named "a; b" ("; " starts a whole message's hint)."""
    model = data_dir / "models" / "semicolon-name"
    folder = tmp_path / "x; y"  # the file's path holds one too
    folder.mkdir()
    (folder / "m.xml").write_text((model / "model.xml").read_text(encoding="utf-8").replace(*edit), encoding="utf-8")
    (folder / "m.bin").write_bytes((model / "model.bin").read_bytes())
    with pytest.raises(reshape1.Error) as e:
        reshape1.check(folder / "m.xml")
    assert e.value.code == "bad_file"
    assert e.value.hint == hint
    assert e.value.message.startswith(str(folder / "m.xml"))
    assert e.value.message.endswith(message + (f"; {hint}" if hint else ""))


def test_an_unreadable_model_raises_reshape1_error(tmp_path: pathlib.Path) -> None:
    (tmp_path / "m.xml").write_text("<net", encoding="utf-8")
    (tmp_path / "m.bin").write_bytes(b"")
    with pytest.raises(reshape1.Error) as e:
        reshape1.check(tmp_path / "m.xml")
    assert e.value.code == "bad_file"
    with pytest.raises(reshape1.Error) as missing:
        reshape1.check(tmp_path / "absent.xml")
    assert missing.value.code == "io"


def test_check_names_the_enclosing_layers_inside_bodies(data_dir: pathlib.Path) -> None:
    report = reshape1.check(data_dir / "models/tensor-iterator-lstm/model.xml")
    assert not report.failed and report.layers == []
    (step,) = report.findings
    assert step.name == "step" and step.verdict == "ok" and str(step.inferred) == "[1,16]"
    assert step.within == (reshape1.Enclosing(id=3, name="lstm", type="TensorIterator"),)
    top = reshape1.check(data_dir / MODEL)
    assert all(f.within == () for f in top.findings)


def parameter_model(tmp_path: pathlib.Path, attribute: str, dims: str) -> pathlib.Path:
    port = "".join(f"<dim>{d}</dim>" for d in dims.split(","))
    xml = f"""<?xml version="1.0"?>
<net name="p" version="11"><layers>
<layer id="0" name="x" type="Parameter" version="opset1"><data shape="{attribute}" element_type="f32"/><output><port id="0" precision="FP32">{port}</port></output></layer>
<layer id="1" name="out" type="Result" version="opset1"><input><port id="0">{port}</port></input></layer>
</layers><edges><edge from-layer="0" from-port="0" to-layer="1" to-port="0"/></edges></net>"""
    (tmp_path / "p.xml").write_text(xml)
    (tmp_path / "p.bin").write_bytes(b"")
    return tmp_path / "p.xml"


@pytest.mark.parametrize(
    "attribute,dims,issue,propagated",
    [
        ("2,3", "1,3", "shape_mismatch", "[2,3]"),  # the attribute is what OpenVINO builds the Parameter from
        ("1..8,3", "-1,3", None, None),  # an interval, which the port's -1 cannot write: it stays 1..8
        ("1,3", "1,3", None, None),
    ],
)
def test_a_parameter_is_its_shape_attribute(tmp_path: pathlib.Path, attribute: str, dims: str, issue: str | None,
                                            propagated: str | None) -> None:
    model = parameter_model(tmp_path, attribute, dims)
    found = [(f.issue, f.id, f.port, str(f.declared), str(f.propagated)) for f in reshape1.check(model).layers
             if f.id == 0]
    assert found == ([] if issue is None else [(issue, 0, 0, f"[{dims.replace('-1', '?')}]", propagated)])
    batch = reshape1.check_batch(model, batch=4)
    assert str(batch.inputs[0].declared) == f"[{attribute}]"
    tool = os.environ.get("RESHAPE1_CLI")
    if tool and issue is not None:
        out = subprocess.run([tool, "check", "--json", str(model)], capture_output=True, text=True)
        layers = json.loads(out.stdout)["layers"]
        assert [(j["issue"], j["id"], j["propagated"]) for j in layers if j["id"] == "0"] == [(issue, "0", propagated)]
