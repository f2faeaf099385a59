"""The report classes bind the JSON of `reshape1 ... --json`: every key an attribute of that name, with the
same value (ids as ints, shapes as Shape objects), on every model at hand. A key the JSON gains and Python
does not bind fails here (reshape1 refuses to build the report), and so does a value that differs."""
from __future__ import annotations

import dataclasses
import json
import os
import pathlib
import subprocess
from typing import Any, List

import pytest

import reshape1

# Prose written for each front end: options spelled `--layout x=NCHW` on the command line and
# `layouts['x']=NCHW` in Python (tests/python/test_same_mistakes.py compares those spellings).
SPELLED = {"hint", "what", "message", "line", "reason", "checked", "notes"}


def same_fields(j: Any, p: Any, path: str) -> None:
    assert dataclasses.is_dataclass(p), path
    bound = {f.name for f in dataclasses.fields(p)}
    assert set(j) <= bound, (path, set(j) - bound)
    for key, value in j.items():
        if key in SPELLED:
            assert isinstance(getattr(p, key), type(value)), (path, key)
            continue
        same(value, getattr(p, key), f"{path}.{key}")


def same(j: Any, p: Any, path: str) -> None:
    if isinstance(j, dict) and isinstance(p, dict):  # a finding's args: names to numbers and texts
        assert j == p, path
    elif isinstance(j, dict) and isinstance(p, reshape1.FixChange):
        # The format's keys of a fix change (an IR's Const, an ONNX tensor) are bound in its edit.
        edit = {f.name for f in dataclasses.fields(p.edit)}
        assert edit <= set(j), (path, edit - set(j))
        same_fields({k: v for k, v in j.items() if k in edit}, p.edit, f"{path}.edit")
        same_fields({k: v for k, v in j.items() if k not in edit}, p, path)
    elif isinstance(j, dict):
        same_fields(j, p, path)
    elif isinstance(j, list):
        assert isinstance(p, (list, tuple)) and len(j) == len(p), path
        for i, (a, b) in enumerate(zip(j, p)):
            same(a, b, f"{path}[{i}]")
    elif isinstance(p, reshape1.Shape):
        assert str(p) == j, path
    elif isinstance(p, int) and not isinstance(p, bool) and isinstance(j, str):
        assert j == str(p), path  # an id
    else:
        assert j == p and type(j) is type(p), (path, j, p)


def models(data_dir: pathlib.Path) -> List[pathlib.Path]:
    shared = data_dir.parents[2] / "shared"
    found = [*data_dir.glob("ir-models/*/*.xml"), *data_dir.glob("models/*/*.xml"), *data_dir.glob("onnx-models/*/*.onnx")]
    found += [*shared.glob("ir-models/*/*.xml"), *shared.glob("onnx-models/*/*.onnx")]
    return sorted(found)


def cli(*args: str) -> Any:
    p = subprocess.run([os.environ["RESHAPE1_CLI"], *args, "--json"], capture_output=True, text=True)
    return json.loads(p.stdout)


@pytest.fixture
def tool() -> None:
    if "RESHAPE1_CLI" not in os.environ:
        pytest.skip("RESHAPE1_CLI is not set (ctest sets it when the tool is built)")


def test_check_and_check_batch_bind_every_key(data_dir: pathlib.Path, tool: None) -> None:
    checked = models(data_dir)
    assert len(checked) >= 5  # the test data's own; ../shared's beside the checkout add 25 (as in CI)
    for model in checked:
        same(cli("check", str(model)), reshape1.check(model), f"{model.name} check")
        for batch in ("4", "?"):
            same(cli("check", str(model), "--batch", batch), reshape1.check_batch(model, batch), f"{model.name} {batch}")


def test_fix_binds_every_key(data_dir: pathlib.Path, tmp_path: pathlib.Path, tool: None) -> None:
    for model in models(data_dir):
        if model.stat().st_size > 2_000_000:
            continue  # the large ones take seconds each and add no key
        suffix = model.suffix
        out = tmp_path / f"fixed{suffix}"
        report = reshape1.fix(model, out)
        expected = cli("fix", str(model), "-o", str(tmp_path / f"cli{suffix}"))
        expected["output"] = expected["output"] and str(out)  # the same report, written elsewhere
        same(expected, report, f"{model.name} fix")
        for path in tmp_path.iterdir():
            path.unlink()


def test_a_report_refuses_a_key_it_does_not_bind() -> None:
    with pytest.raises(TypeError, match=r"Enclosing binds no field \['depth'\]"):
        reshape1._from_json(reshape1.Enclosing, {"id": "1", "name": "b", "type": "Loop", "depth": 2})  # type: ignore[attr-defined]
    enclosing = reshape1._from_json(reshape1.Enclosing, {"id": "1", "name": "b", "type": "Loop"})  # type: ignore[attr-defined]
    assert enclosing == reshape1.Enclosing(id=1, name="b", type="Loop")
    with pytest.raises(dataclasses.FrozenInstanceError):
        enclosing.id = 2  # type: ignore[misc]


DYNAMIC = """<?xml version="1.0"?>
<net name="m" version="11"><layers>
<layer id="0" name="image" type="Parameter" version="opset1"><data shape="1,?" element_type="f32"/><output><port id="0" precision="FP32"><dim>1</dim><dim>-1</dim></port></output></layer>
<layer id="1" name="out" type="Result" version="opset1"><input><port id="0" precision="FP32"><dim>1</dim><dim>-1</dim></port></input></layer>
</layers><edges><edge from-layer="0" from-port="0" to-layer="1" to-port="0"/></edges></net>"""


def test_a_shape_whose_symbol_is_named_after_a_layer(tmp_path: pathlib.Path) -> None:
    # A dynamic dimension of an input is a symbol named after it (image.1), which the notation cannot read
    # back: the report's Shape is the one the library computed, not its text parsed.
    (tmp_path / "m.xml").write_text(DYNAMIC)
    (tmp_path / "m.bin").write_bytes(b"")
    out = reshape1.check_batch(tmp_path / "m.xml", 4).outputs[0]
    assert str(out.reshaped) == "[4,?@image.1]" and out.reshaped.dims[1].symbol == "image.1"
    with pytest.raises(reshape1.Error):
        reshape1.Shape(str(out.reshaped))
    if "RESHAPE1_CLI" in os.environ:
        same(cli("check", str(tmp_path / "m.xml"), "--batch", "4"), reshape1.check_batch(tmp_path / "m.xml", 4), "m")
