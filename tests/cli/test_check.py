#!/usr/bin/env python3
"""Runs `reshape1 check` on shipped models: table, --quiet, JSON, exit codes, unreadable models."""
import json
import os
import pathlib
import subprocess
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from harness import Results, run as run_binary  # noqa: E402
import tempfile
import threading

BINARY = os.path.abspath(sys.argv[1])
ROOT = pathlib.Path(__file__).resolve().parents[2]
MODELS = ROOT / "tests" / "data" / "ir-models"
results = Results()
check = results.check


def run(*args):
    return run_binary(BINARY, ["check", *args])



retail = str(MODELS / "face-detection-retail-0005" / "other.xml")
fd200 = str(MODELS / "face-detection-0200" / "face-detection-0200.xml")

rc, out, err = run(retail)
lines = out.splitlines()
check("table exit code", rc == 0, f"{rc} {err}")
check("table header", lines[0].split() == ["id", "name", "input", "pattern", "special_zero", "declared", "inferred",
                                           "verdict"], lines[0])
check("table row", lines[1].split() == ["267", "525", "[1,19,19,36]", "[1,-1]", "true", "[1,12996]", "[1,12996]", "ok"],
      lines[1])
check("table warning", lines[2].strip() == "warning: pattern[0] hard-codes the batch (1): the model cannot be reshaped "
                                           "to another batch; use 0 to copy it", lines[2])
check("table summary", lines[-2] == "4 Reshape layers: 4 ok, 0 error, 0 shape_mismatch, 0 refinable; 4 keep the model "
                                    "from being reshaped", lines[-2])
check("layer summary", lines[-1] == "305 layers: 305 propagated, 0 shape_mismatch, 0 refinable, 0 not_covered, "
                                    "0 rule_error", lines[-1])

rc, out, err = run(fd200, "--quiet")
check("quiet lists only problems", rc == 0 and out.splitlines() == [
    "29 Reshape layers: 29 ok, 0 error, 0 shape_mismatch, 0 refinable; 0 keep the model from being reshaped",
    "1146 layers: 1146 propagated, 0 shape_mismatch, 0 refinable, 0 not_covered, 0 rule_error"], out)

rc, out, err = run(retail, "--json")
doc = json.loads(out)
check("json exit code", rc == 0, err)
check("json summary", doc["summary"] == {"reshapes": 4, "ok": 4, "error": 0, "shape_mismatch": 0, "refinable": 0,
                                         "blocking_reshape": 4}, doc["summary"])
check("json layer summary", doc["layer_summary"] == {"layers": 305, "propagated": 305, "shape_mismatch": 0,
                                                     "refinable": 0, "not_covered": 0, "rule_error": 0},
      doc["layer_summary"])
check("json layers empty", doc["layers"] == [], doc["layers"])
f = doc["findings"][0]
for key in ("id", "name", "verdict", "warnings", "input", "pattern", "declared", "inferred"):
    check(f"json finding has {key}", key in f, list(f))
check("json finding values", f["id"] == "267" and f["verdict"] == "ok" and f["pattern"] == "[1,-1]"
      and f["inferred"] == "[1,12996]" and f["blocks_reshape"] is True, f)

# A model with a mismatch and an error: exit 1, both reported.
with tempfile.TemporaryDirectory() as d:
    xml = retail_text = (MODELS / "face-detection-retail-0005" / "other.xml").read_text()
    bad = pathlib.Path(d) / "bad.xml"
    # Declare a wrong output for layer 525 ([1,12996] -> [1,12997]).
    at = xml.index('name="525"')
    end = xml.index("</layer>", at)
    bad.write_text(xml[:at] + xml[at:end].replace("<dim>12996</dim>", "<dim>12997</dim>") + xml[end:])
    bin_path = str(MODELS / "face-detection-retail-0005" / "other.bin")
    rc, out, err = run(str(bad), "--bin", bin_path)
    check("mismatch exits 1", rc == 1, f"{rc} {err}")
    check("mismatch reported", "the declared output [1,12997] cannot be [1,12996]" in out, out)
    rc, out, err = run(str(bad), "--bin", bin_path, "--json")
    doc = json.loads(out)
    check("mismatch in json", rc == 1 and doc["summary"]["shape_mismatch"] == 1, out[:200])
    # The self-check names the same layer. The layers after it are propagated from the output reshape1
    # computes, which agrees with what they declare: the hand-edited layer is the only finding.
    check("layer shape_mismatch in json",
          doc["layer_summary"]["shape_mismatch"] == 1 and doc["layers"][0]["issue"] == "shape_mismatch"
          and doc["layers"][0]["id"] == "267" and doc["layers"][0]["declared"] == "[1,12997]"
          and doc["layers"][0]["propagated"] == "[1,12996]" and doc["layers"][0]["type"] == "Reshape",
          doc["layers"])

    # Unreadable models: exit 2, one line naming the file.
    (pathlib.Path(d) / "notxml.xml").write_text("<net version='11'><layers>")
    (pathlib.Path(d) / "notxml.bin").write_bytes(b"")
    rc, out, err = run(str(pathlib.Path(d) / "notxml.xml"))
    check("malformed xml exits 2", rc == 2 and "not well-formed XML" in err and err.count("\n") == 1 and out == "",
          f"{rc} {err!r}")
    rc, out, err = run(str(pathlib.Path(d) / "missing.xml"))
    check("missing model exits 2", rc == 2 and "cannot open" in err, f"{rc} {err!r}")
    rc, out, err = run(retail, "--bin", str(pathlib.Path(d) / "notxml.bin"))
    check("short bin exits 2", rc == 2 and "past the end of the file (0 bytes)" in err, f"{rc} {err!r}")

# Truncated copies of a shipped model: exit 2, one line each.
with tempfile.TemporaryDirectory() as d:
    text = (MODELS / "face-detection-retail-0005" / "other.xml").read_bytes()
    for n in (0, 10, 1000, len(text) // 2, len(text) - 10):
        cut = pathlib.Path(d) / "cut.xml"
        cut.write_bytes(text[:n])
        rc, out, err = run(str(cut), "--bin", str(MODELS / "face-detection-retail-0005" / "other.bin"))
        check(f"model truncated at {n}", rc == 2 and err.count("\n") == 1 and out == "", f"{rc} {err!r}")

# --batch / --shape / --layout: will the model reshape, and does every layer keep its meaning?
rc, out, err = run(retail, "--batch", "8")
lines = out.splitlines()
check("batch exit code 1 when a Reshape swallows the batch", rc == 1, f"{rc} {err}")
check("batch inputs table", lines[0].split() == ["id", "input", "declared", "reshaped", "to", "batch", "index"]
      and lines[1].split()[:4] == ["0", "input.1", "[1,3,300,300]", "[8,3,300,300]"]
      and lines[1].endswith("0 (first dimension; no layout)"), lines[:2])
check("batch outputs table", any(line.split() == ["304", "527/sink_port_0", "[1,1,200,7]", "[1,1,200,7]", "none"]
                                 for line in lines), out)
check("batch finding row", any(line.split() == ["267", "525", "Reshape-1", "swallows_batch"] for line in lines), out)
check("batch finding source and hint",
      "    value from: Const '525/Cast_114614_const' (id 266)" in lines
      and "    hint: pattern[0]: use 0 to copy the batch" in lines, out)
check("batch summary line", lines[-1] == "reshapes to batch 8: no: 2 Reshapes swallow the batch", lines[-1])

rc, out, err = run(retail, "--batch", "?", "--json")
doc = json.loads(out)
check("batch json exit code", rc == 1, f"{rc} {err}")
check("batch json", doc["target"] == "batch ?" and doc["summary"]["swallows_batch"] == 2
      and doc["summary"]["reshapes"] is False and doc["inputs"][0]["reshaped_to"] == "[?@N,3,300,300]"
      and doc["inputs"][0]["batch_from"] == "first_dimension"
      and [f["id"] for f in doc["findings"]] == ["267", "280"]
      and doc["findings"][0]["source"] == {"id": "266", "what": "Const '525/Cast_114614_const' (id 266)"},
      json.dumps(doc)[:600])

rc, out, err = run(fd200, "--batch", "4", "--quiet")
check("batch yes exits 0", rc == 0 and out.splitlines()[-1] ==
      "reshapes to batch 4: yes (1 output grows with the batch, as post-processing does)", f"{rc} {out} {err}")
check("batch --quiet hides the tables and what only grows", "input" not in out and "scales_with_batch" not in out, out)
rc, out, err = run(fd200, "--batch", "4", "--json")
doc = json.loads(out)
check("scales_with_batch in json", rc == 0 and doc["findings"][0]["finding"] == "scales_with_batch"
      and doc["findings"][0]["used_by"] == "1145" and doc["outputs"][0]["batch"] == {"axis": 2, "factor": 200},
      json.dumps(doc)[:600])

rc, out, err = run(fd200, "--shape", "[1,3,512,512]", "--quiet")
# (At batch 1 each sample is alone: nothing grows with the batch, and only failures could be found.)
check("--shape without a name on a one-input model", rc == 0 and out.strip() == "reshapes to the given shapes: yes",
      f"{rc} {out} {err}")
rc, out, err = run(fd200, "--shape", "image=[2,3,512,512]", "--layout", "image=NCHW", "--json")
doc = json.loads(out)
check("--shape NAME=SHAPE and --layout", rc == 0 and doc["inputs"][0]["reshaped_to"] == "[2,3,512,512]"
      and doc["inputs"][0]["batch_from"] == "layout_option" and doc["outputs"][0]["reshaped"] == "[1,1,400,7]",
      json.dumps(doc)[:600])

# Bad options: exit 2, one line.
for args, message in [
        (["--batch", "x"], "--batch x: not a batch; give a number such as 8, or ? (or -1) for a dynamic batch"),
        (["--batch", ""], "--batch: an empty batch; give a number such as 8, or ? (or -1) for a dynamic batch"),
        (["--batch", "0"], "--batch 0: a batch of 0 samples; give a batch of at least 1, or ?"),
        (["--shape", "nope=[1,2]"], "--shape nope: the model has no input named 'nope'; its inputs are 'image'; "
                                    "use one of those names, or #ID for an input's id"),
        (["--shape", "[1,2"], "--shape [1,2:"),
        (["--batch", "2", "--layout", "image=NCH"], "--layout image=NCH: layout 'NCH' has 3 dimensions, the shape has 4"),
        (["--layout", "image=NCHW"], "no batch and no shape to check the model at; give --batch N"),
        (["--batch", "2", "--shape", "image=[4,3,256,256]"], "input 'image': --shape gives 4 at the batch index 0, "
                                                               "--batch gives 2"),
]:
    rc, out, err = run(fd200, *args)
    check(f"bad option {args}", rc == 2 and message in err and err.count("\n") == 1 and out == "", f"{rc} {err!r}")

rc, out, err = run()
check("no model is a usage error", rc == 2, err)

# TensorIterator and Loop: the Reshapes and layers inside their bodies are checked; ids read outer/inner.
DATA = ROOT / "tests" / "data" / "models"
for fixture, row in [("tensor-iterator-lstm", ["3/4", "step", "[1,1,16]", "[0,-1]", "true", "[1,16]", "[1,16]", "ok"]),
                     ("loop-trip-count", ["3/5", "flat", "[1,4]", "[0,-1]", "true", "[1,4]", "[1,4]", "ok"])]:
    model_xml = str(DATA / fixture / "model.xml")
    rc, out, err = run(model_xml)
    lines = out.splitlines()
    check(f"{fixture}: exit 0", rc == 0, f"{rc} {err}")
    check(f"{fixture}: the body's Reshape", len(lines) > 1 and lines[1].split() == row, out)
    check(f"{fixture}: no layer issue", "0 shape_mismatch, 0 refinable, 0 not_covered, 0 rule_error" in lines[-1],
          lines[-1] if lines else out)
    rc, out, err = run(model_xml, "--json")
    doc = json.loads(out)
    check(f"{fixture}: json within", doc["findings"][0]["within"][0]["id"] == "3"
          and doc["findings"][0]["within"][0]["type"] in ("TensorIterator", "Loop"), doc["findings"])
    rc, out, err = run(model_xml, "--batch", "4")
    check(f"{fixture}: --batch 4 reshapes", rc == 0 and "reshapes to batch 4: yes" in out, f"{rc} {out} {err}")

# --list-ops: every covered (type, opset) pair, one `Type-N` a line (then OpenVINO's name for it where that
# differs), sorted, and the same pairs in JSON.
rc, out, err = run("--list-ops")
pairs = [line.split("  ")[0].rsplit("-", 1) for line in out.splitlines()]
check("list-ops gives the specification's name where it differs",
      "MVN-2  (MVN-1 in OpenVINO's specification)" in out.splitlines() and "Reshape-1" in out.splitlines()
      and "IfMerge-1  (reshape1's own: not an OpenVINO op)" in out.splitlines(), out[:200])
check("list-ops exits 0", rc == 0 and err == "", f"{rc} {err!r}")
check("list-ops lines are Type-N", all(len(p) == 2 and p[0].isalnum() and p[1].isdigit() for p in pairs), out[:200])
keys = [(t, int(n)) for t, n in pairs]
check("list-ops is sorted and unique", keys == sorted(set(keys)), out[:200])
for want in [("TensorIterator", 1), ("Loop", 5), ("Reshape", 1), ("Parameter", 1), ("LSTMSequence", 5), ("Einsum", 7), ("Gelu", 7), ("TopK", 11),
             ("ScatterElementsUpdate", 12), ("Squeeze", 15), ("Acosh", 4)]:
    check(f"list-ops names {want[0]}-{want[1]}", want in keys, out[:200])
check("list-ops leaves out what has no rule", ("Reshape", 2) not in keys and ("If", 8) not in keys, out[:200])
rc, out, err = run("--list-ops", "--json")
doc = json.loads(out)
check("list-ops json", rc == 0 and [(d["type"], d["opset"]) for d in doc] == keys, out[:200])
# Every row names its batching rule; the rows that always cannot tell are listed as such.
rules = {(d["type"], d["opset"]): d["batching"] for d in doc}
check("list-ops json: every row has a batching rule", all(rules.values()), out[:200])
check("list-ops json: Reshape's rule", rules.get(("Reshape", 1)) == "reshape", str(rules.get(("Reshape", 1))))
check("list-ops json: Range cannot tell", rules.get(("Range", 4)) == "cannot_tell", str(rules.get(("Range", 4))))
specs = {(d["type"], d["opset"]): d["spec"] for d in doc}
check("list-ops json: spec names", specs[("MVN", 2)] == "MVN-1" and specs[("Reshape", 1)] == "Reshape-1"
      and specs[("Const", 1)] == "Constant-1" and specs[("IfMerge", 1)] is None, str(specs)[:300])
values = {(d["type"], d["opset"]): d["values"] for d in doc}
check("list-ops json: the inputs read as values", values[("Reshape", 1)] == [1] and values[("Add", 1)] == []
      and values[("StridedSlice", 1)] == [1, 2, 3] and values[("Loop", 5)] == "all", str(values)[:300])
rc, out, err = run("--list-ops", retail)
check("list-ops takes no model", rc == 2 and "excludes" in err and out == "", f"{rc} {err!r}")

# A /proc file says it holds 0 bytes but gives some: read as a stream, it is what it is, not "an empty file".
rc, out, err = run("/proc/self/status")
check("a /proc file is read, not taken as empty", rc == 2 and "not a model: neither XML nor protobuf" in err, f"{rc} {err!r}")

# --dot: the path from the inputs to each finding, as Graphviz DOT; written whole or not at all.
with tempfile.TemporaryDirectory() as d:
    dot = os.path.join(d, "f.dot")
    rc, out, err = run(retail, "--batch", "8", "--quiet", "--dot", dot)
    text = open(dot).read() if os.path.exists(dot) else ""
    check("dot: written, exit 1 for no", rc == 1 and text.startswith('digraph "reshape1" {'), f"{rc} {err!r}")
    check("dot: the findings are filled", 'L267 [label="267 525\\nReshape-1\\nswallows_batch", style=filled' in text, text[:300])
    check("dot: an edge shows the declared shape and the batch dimension", "L266" in text and "[8*,19,19,36]" in text, text[-600:])
    rc, out, err = run(retail, "--dot", dot + "2")
    check("dot needs --batch", rc == 2 and "--dot" in err and not os.path.exists(dot + "2"), f"{rc} {err!r}")
    # A picture that cannot be written: the answer is printed and the exit code stays the answer's (1: no).
    rc, out, err = run(retail, "--batch", "8", "--quiet", "--dot", os.path.join(d, "no", "such", "dir.dot"))
    check("dot into a missing directory: said, the verdict kept", rc == 1 and "reshapes to batch 8: no" in out
          and "the picture was not written" in err, f"{rc} {out[-200:]!r} {err!r}")
    rc, out, err = run(str(MODELS / "face-detection-0200" / "face-detection-0200.xml"), "--batch", "2", "--quiet",
                       "--dot", os.path.join(d, "no", "such", "dir.dot"))
    check("dot fails, verdict yes: exit 0", rc == 0 and "reshapes to batch 2: yes" in out
          and "the picture was not written" in err, f"{rc} {out[-200:]!r} {err!r}")
    # Never onto the model's own files: refused before anything is analysed or written.
    bin_file = str(retail).replace(".xml", ".bin")
    before = (os.path.getsize(retail), os.path.getsize(bin_file))
    for own in (str(retail), bin_file):
        rc, out, err = run(retail, "--batch", "8", "--dot", own)
        check(f"dot onto the model's {own[-4:]} is refused", rc == 2 and "one of the model's own files" in err
              and out == "", f"{rc} {err!r}")
    check("the model's files are untouched", (os.path.getsize(retail), os.path.getsize(bin_file)) == before)
    # Any other file that is not a picture --dot wrote (an ONNX model's external data, a tensor) is data.
    data = pathlib.Path(d) / "weights.bin"
    data.write_bytes(b"\x01\x02\x03")
    rc, out, err = run(retail, "--batch", "8", "--dot", str(data))
    check("dot onto a data file is refused", rc == 2 and "holds something else than a DOT picture" in err
          and data.read_bytes() == b"\x01\x02\x03", f"{rc} {err!r}")
    rc, out, err = run(retail, "--batch", "8", "--quiet", "--dot", dot)
    check("dot onto a picture it wrote before: replaced", rc == 1 and open(dot).read().startswith("digraph"), f"{rc} {err!r}")
    for option in ("--dot", "--bin"):
        rc, out, err = run(retail, "--batch", "8", option, "")
        check(f"{option} '' is refused, not ignored", rc == 2 and f"{option}: an empty file name" in err, f"{rc} {err!r}")
    rc, out, err = run(retail, "--batch", "8", "--dot", d)
    check("dot onto a directory is refused", rc == 2 and "is a directory" in err, f"{rc} {err!r}")
    # Names are escaped in the picture as on the terminal: a newline, or a right-to-left override, from a
    # layer's name never reaches the DOT file (or the table) raw.
    xml = pathlib.Path(retail).read_text().replace('name="525"', 'name="52&#10;5&#x202E;x"', 1)
    odd = pathlib.Path(d) / "odd.xml"
    odd.write_text(xml)
    rc, out, err = run(str(odd), "--bin", str(retail).replace(".xml", ".bin"), "--batch", "8", "--quiet", "--dot",
                       os.path.join(d, "odd.dot"))
    text = pathlib.Path(d, "odd.dot").read_text() if os.path.exists(os.path.join(d, "odd.dot")) else ""
    check("dot: a name's newline and override are escaped", '52\\\\x0A5\\\\u{202E}x' in text and "\u202e" not in text
          and "52\n5" not in text, text[:400])
    check("table: a name's newline and override are escaped", "52\\x0A5\\u{202E}x" in out and "\u202e" not in out,
          out[:600])
    # A FIFO no process reads: refused after a short wait, never a hang; one that is read gets the picture.
    fifo = os.path.join(d, "picture.fifo")
    os.mkfifo(fifo)
    rc, out, err = run(retail, "--batch", "8", "--quiet", "--dot", fifo)
    check("dot onto a FIFO nobody reads: said, no hang", rc == 1 and "no process reads" in err, f"{rc} {err!r}")
    got = []
    reader = threading.Thread(target=lambda: got.append(open(fifo).read()))
    reader.start()
    rc, out, err = run(retail, "--batch", "8", "--quiet", "--dot", fifo)
    reader.join(timeout=30)
    check("dot onto a FIFO that is read", rc == 1 and got and got[0].startswith('digraph "reshape1"'), f"{rc} {err!r}")

# Every --json run prints one JSON object, also when its options do not parse (nothing on stderr).
for args in (["check", "--json", "--bogus", str(retail)], ["check", "--list-ops", "--json", "--format", "nope"],
             ["fix", "--json"], ["infer", "[2,3]", "--json"]):
    rc, out, err = run_binary(BINARY, args)
    doc = json.loads(out) if out.startswith("{") else {}
    check(f"--json usage error as JSON: {' '.join(args[:2])}", rc == 2 and err == "" and out.count("\n") == 1
          and doc.get("error", {}).get("code") == "invalid_argument" and doc["error"]["message"] != "",
          f"{rc} {out!r} {err!r}")


# A layer name or a directory holding "; " (the separator of a message's hint) leaves the message whole and
# the hint its own: the hint is split from the rule's words, never from a name or a path. The model's Reshape is
# named "a; b" (tests/data/models/semicolon-name).
SEMICOLON = ROOT / "tests" / "data" / "models" / "semicolon-name"
SEMICOLON_XML = (SEMICOLON / "model.xml").read_text(encoding="utf-8")
with tempfile.TemporaryDirectory() as d:
    folder = pathlib.Path(d) / "a; b"
    folder.mkdir()
    (folder / "m.xml").write_text(SEMICOLON_XML)
    (folder / "m.bin").write_bytes((SEMICOLON / "model.bin").read_bytes())
    rc, out, err = run(str(folder / "m.xml"), "--batch", "2", "--json")
    found = json.loads(out)["findings"][0]
    check("a name with '; ' stays in the message", rc == 1 and found["what"] == "layer 'a; b' (id 2): pattern: output "
          "[2,3] has 6 elements but input [2,6] has 12" and found["hint"] == "use 0 to copy an input dimension or -1 to "
          "infer one", found)
    # A Reshape version without a row: propagation knows nothing of it, check still judges it as Reshape-1.
    (folder / "v3.xml").write_text(SEMICOLON_XML.replace('type="Reshape" version="opset1"',
                                                         'type="Reshape" version="opset3"'))
    (folder / "v3.bin").write_bytes((SEMICOLON / "model.bin").read_bytes())
    rc, out, err = run(str(folder / "v3.xml"), "--json")
    doc = json.loads(out)
    check("a Reshape without a row is still judged", rc == 0 and doc["findings"][0]["verdict"] == "ok"
          and doc["findings"][0]["inferred"] == "[2,3]" and doc["layers"][0]["issue"] == "not_covered", doc)
    (folder / "m.bin").write_bytes(b"x")
    rc, out, err = run(str(folder / "m.xml"), "--json")
    message = json.loads(out)["error"]["message"]
    check("a path with '; ' stays in the message", rc != 0 and message == f"{folder}/m.bin: layer 'p' (id 1) reads 16 "
          "bytes at byte 0, past the end of the file (1 bytes)", message)

results.finish()
