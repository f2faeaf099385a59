#!/usr/bin/env python3
"""Runs `reshape1 shapes` on shipped models: the table, --json, --shape, -o (the copy written, the input
untouched, no temporary file left, what it refuses), and on the shipped IRs at a free batch (the copy's
ports, read back, declare what was propagated)."""
import json
import os
import pathlib
import sys
import tempfile

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from harness import Results, run as run_binary  # noqa: E402

BINARY = os.path.abspath(sys.argv[1])
ROOT = pathlib.Path(__file__).resolve().parents[2]
ULTRAFACE = ROOT / "tests" / "data" / "onnx-models" / "ultraface-rfb-320" / "version-RFB-320_simplified.onnx"
# The model before onnx-simplifier: its Reshapes copy the batch (the simplified one writes it as 1).
ULTRAFACE_FULL = ULTRAFACE.with_name("version-RFB-320.onnx")
RETAIL = ROOT / "tests" / "data" / "ir-models" / "face-detection-retail-0005" / "other.xml"
results = Results()
check = results.check


def run(*args):
    return run_binary(BINARY, [str(a) for a in args])


rc, out, err = run("shapes", ULTRAFACE)
lines = out.splitlines()
check("shapes exits 0", rc == 0, f"{rc} {err}")
check("a table of every tensor", lines[0].split() == ["tensor", "op", "shape", "type", "declared"], lines[:1])
check("the input first", lines[1].split() == ["input", "Parameter-1", "[1,3,240,320]", "f32", "[1,3,240,320]"], lines[1])
check("the summary", lines[-1] == "111 tensors: 111 of known rank, 111 static; 0 layers where propagation stops", lines[-1])

rc, out, err = run("shapes", ULTRAFACE_FULL, "--shape", "input=[?@N,3,240,320]", "--json")
doc = json.loads(out)
check("--json exits 0", rc == 0, f"{rc} {err}")
check("--json keys", list(doc) == ["model", "output", "tensors", "gaps", "summary"], list(doc))
check("--json tensor keys", list(doc["tensors"][0]) == ["name", "id", "layer", "op", "output", "shape", "type", "declared"],
      doc["tensors"][0])
boxes = next(t for t in doc["tensors"] if t["name"] == "boxes")
check("a size given by name follows to the outputs", boxes["shape"] == "[?@N,4420,4]" and boxes["declared"] == "[1,4420,4]",
      boxes)
check("--json summary", doc["summary"]["rank_known"] == doc["summary"]["tensors"] and doc["output"] is None,
      doc["summary"])
rc, out, err = run("shapes", ULTRAFACE, "--shape", "input=[?@N,3,240,320]", "--json")
boxes = next(t for t in json.loads(out)["tensors"] if t["name"] == "boxes")
check("a model that writes the batch as 1 does not follow it", boxes["shape"] == "[1,?@boxes_1,4]", boxes)

rc, out, err = run("shapes", ULTRAFACE, "--shape", "input=[?,3,240,320]", "-q")
check("an unnamed size gets the input's name", rc == 0 and out.strip() ==
      "111 tensors: 111 of known rank, 0 static; 0 layers where propagation stops", out)
rc, out, err = run("shapes", ULTRAFACE, "--shape", "input=[?,3,240,320]", "--json")
first = json.loads(out)["tensors"][0]
check("named after the tensor and axis", first["shape"] == "[?@input_0,3,240,320]", first)

with tempfile.TemporaryDirectory() as d:
    d = pathlib.Path(d)
    before = ULTRAFACE_FULL.read_bytes()
    rc, out, err = run("shapes", ULTRAFACE_FULL, "--shape", "input=[?@N,3,240,320]", "-o", d / "shapes.onnx", "-q")
    check("-o exits 0", rc == 0, f"{rc} {err}")
    check("-o says what it wrote", out.splitlines()[-1] == f"wrote {d / 'shapes.onnx'}", out)
    check("the input untouched", ULTRAFACE_FULL.read_bytes() == before)
    check("no temporary file left", sorted(p.name for p in d.iterdir()) == ["shapes.onnx"], list(d.iterdir()))
    # The copy, read again, declares what was propagated: check finds every layer's output as declared.
    rc, out, err = run("shapes", d / "shapes.onnx", "--json")
    again = {t["name"]: t for t in json.loads(out)["tensors"]}
    check("the copy declares the outputs' shapes", again["boxes"]["declared"] == "[?@N,4420,4]", again["boxes"])
    check("the copy declares every tensor", all(t["declared"] is not None for t in again.values()),
          [n for n, t in again.items() if t["declared"] is None][:5])
    check("the copy's input takes the shape given", again["input"]["declared"] == "[?@N,3,240,320]", again["input"])
    rc, out, err = run("check", d / "shapes.onnx", "--quiet")
    check("check agrees with every declaration", rc == 0 and "0 shape_mismatch" in out, out)
    # At new shapes the file's old numbers do not stand where propagation cannot give one.
    rc, out, err = run("shapes", ULTRAFACE, "--shape", "input=[?@N,3,240,320]", "-o", d / "simplified.onnx", "-q")
    rc, out, err = run("shapes", d / "simplified.onnx", "--json")
    boxes = next(t for t in json.loads(out)["tensors"] if t["name"] == "boxes")
    check("an old number is not kept at new shapes", boxes["declared"] == "[1,?@boxes_1,4]", boxes)
    (d / "simplified.onnx").unlink()

    # What -o refuses, before anything is read or written.
    for args, code, words in [
        ((ULTRAFACE, "-o", ULTRAFACE), "invalid_argument", "the output is the model itself"),
        ((ULTRAFACE, "-o", d / "x.txt"), "invalid_argument", "must end in .onnx"),
        ((ULTRAFACE, "-o", d), "invalid_argument", "must end in .onnx"),
        ((RETAIL, "-o", d / "ir.onnx"), "invalid_argument", "the output must end in .xml"),
        ((RETAIL, "-o", RETAIL), "invalid_argument", "is one of the model's own files"),
        ((ULTRAFACE, "--shape", "nope=[1]"), "invalid_argument", "no input named 'nope'"),
        (("-",), "invalid_argument", "not from standard input"),
    ]:
        rc, out, err = run("shapes", *args, "--json")
        doc = json.loads(out)
        check(f"refused: {words}", rc == 2 and doc["error"]["code"] == code and words in doc["error"]["message"],
              f"{rc} {out}")
    check("nothing written by a refusal", sorted(p.name for p in d.iterdir()) == ["shapes.onnx"], list(d.iterdir()))

# An IR: every output port by LAYER:PORT; -o writes an .xml whose ports declare them, its .bin beside it.
rc, out, err = run("shapes", RETAIL, "--json")
doc = json.loads(out)
check("an IR is listed", rc == 0 and doc["summary"]["tensors"] > 0 and all(":" in t["name"] for t in doc["tensors"]),
      f"{rc} {err}")
check("an IR's ports are as declared", all(t["shape"] == t["declared"] for t in doc["tensors"]),
      [t for t in doc["tensors"] if t["shape"] != t["declared"]][:2])


def ranges(text):
    """A shape's dimensions without their names: '[?@a,3,1..4@b]' -> ['?', '3', '1..4']."""
    return [d.split("@")[0] for d in text.strip("[]").split(",")] if text != "[]" else []


for model in sorted((ROOT / "tests" / "data" / "ir-models").glob("*/*.xml")):
    with tempfile.TemporaryDirectory() as d:
        d = pathlib.Path(d)
        rc, out, err = run("shapes", model, "--json")
        first = json.loads(out)["tensors"][0]
        batch_free = "[?," + first["shape"].strip("[]").split(",", 1)[1] + "]"
        rc, out, err = run("shapes", model, "--shape", f"{first['layer']}={batch_free}", "-o", d / "copy.xml", "--json")
        made = json.loads(out)
        check(f"{model.name}: -o at a free batch", rc == 0 and made["output"] == str(d / "copy.xml")
              and sorted(p.name for p in d.iterdir()) == ["copy.bin", "copy.xml"], f"{rc} {err}")
        check(f"{model.name}: the weights copied", (d / "copy.bin").read_bytes() == model.with_suffix(".bin").read_bytes())
        rc, out, err = run("shapes", d / "copy.xml", "--json")
        again = json.loads(out)["tensors"]
        wrong = [(a["name"], a["declared"], b["shape"]) for a, b in zip(again, made["tensors"])
                 if a["declared"] is None or ranges(a["declared"]) != ranges(b["shape"])]
        check(f"{model.name}: every port of the copy declares what was propagated",
              len(again) == len(made["tensors"]) and not wrong, wrong[:3])
        check(f"{model.name}: the copy's input is free", ranges(again[0]["declared"])[0] == "?", again[0])

# Every shared IR (when ../shared is there): the copy at its declared shapes reads back, and check finds no
# port whose declared shape disagrees with what it propagates.
SHARED_IR = ROOT.parent / "shared" / "ir-models"
for model in sorted(SHARED_IR.glob("*/*.xml")) if SHARED_IR.is_dir() else []:
    with tempfile.TemporaryDirectory() as d:
        d = pathlib.Path(d)
        rc, out, err = run("shapes", model, "-o", d / "copy.xml", "-q")
        check(f"{model.name}: -o", rc == 0, f"{rc} {err}")
        rc, out, err = run("check", d / "copy.xml", "--quiet")
        check(f"{model.name}: check of the copy", rc == 0 and " 0 shape_mismatch" in out.splitlines()[-1], out[-300:])

results.finish()
