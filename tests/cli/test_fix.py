#!/usr/bin/env python3
"""Runs `reshape1 fix` on a shipped model: the report, --dry-run, --json, the files it writes (the .bin as
the old bytes plus the new constants, the inputs untouched), the fixed model's check, and bad options."""
import json
import shutil
import os
import pathlib
import pty
import subprocess
import sys
import tempfile

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from harness import Results, run as run_binary  # noqa: E402

BINARY = os.path.abspath(sys.argv[1])
ROOT = pathlib.Path(__file__).resolve().parents[2]
MODELS = ROOT / "tests" / "data" / "ir-models"
results = Results()
check = results.check
retail = MODELS / "face-detection-retail-0005" / "other.xml"
fd200 = MODELS / "face-detection-0200" / "face-detection-0200.xml"


def run(*args):
    return run_binary(BINARY, [str(a) for a in args])


with tempfile.TemporaryDirectory() as d:
    d = pathlib.Path(d)
    xml_before, bin_before = retail.read_bytes(), retail.with_suffix(".bin").read_bytes()

    rc, out, err = run("fix", retail, "--dry-run")
    lines = out.splitlines()
    check("dry run exits 0", rc == 0, f"{rc} {err}")
    check("dry run rows", lines[0].split() == ["id", "name", "old", "pattern", "new", "pattern"]
          and lines[1].split() == ["267", "525", "[1,-1]", "[0,-1]"], lines[:2])
    check("dry run why", lines[2] == "    pattern[0] wrote the declared batch 1; 0 copies the batch "
                                     "(Const '525/Cast_114614_const' (id 266))", lines[2])
    check("dry run checks", "  reshapes to batch 8: yes (1 output grows with the batch, as post-processing does)"
          in lines and lines[-1] == "dry run: nothing written", out)
    check("dry run writes nothing", list(d.iterdir()) == [], list(d.iterdir()))

    rc, out, err = run("fix", retail, "-o", d / "fixed.xml")
    check("fix exits 0", rc == 0, f"{rc} {err}")
    check("fix says what it wrote", out.splitlines()[-1] == f"wrote {d / 'fixed.xml'} and {d / 'fixed.bin'} "
                                                            "(4 Reshape patterns rewritten)", out)
    check("inputs untouched", retail.read_bytes() == xml_before
          and retail.with_suffix(".bin").read_bytes() == bin_before)
    new_bin = (d / "fixed.bin").read_bytes()
    check("new .bin = old bytes + new constants", new_bin.startswith(bin_before) and len(new_bin) > len(bin_before),
          f"{len(new_bin)} {len(bin_before)}")
    check("no temporary files left", sorted(p.name for p in d.iterdir()) == ["fixed.bin", "fixed.xml"],
          list(d.iterdir()))
    rc, out, err = run("check", d / "fixed.xml", "--batch", "8", "--quiet")
    check("the fixed model reshapes", rc == 0 and out.strip() ==
          "reshapes to batch 8: yes (1 output grows with the batch, as post-processing does)", f"{rc} {out} {err}")
    rc, out, err = run("check", d / "fixed.xml", "--quiet")
    check("the fixed model keeps its declared shapes", rc == 0 and "0 keep the model from being reshaped" in out
          and "0 shape_mismatch" in out, out)

    rc, out, err = run("fix", retail, "--json", "--dry-run", "--check-batch", "2,?")
    doc = json.loads(out)
    check("json", rc == 0 and doc["fixed"] is True and doc["nothing_to_do"] is False and doc["output"] is None
          and [c["id"] for c in doc["changes"]] == ["267", "280", "282", "285"]
          and doc["changes"][0]["const"] == "266" and doc["changes"][0]["old_value"] == 1
          and doc["changes"][0]["new_value"] == 0 and doc["changes"][0]["special_zero_set"] is False
          and doc["checked"] == ["reshapes to batch 2: yes (1 output grows with the batch, as post-processing does)",
                                 "reshapes to batch ?: yes (1 output grows with the batch, as post-processing does)"],
          json.dumps(doc)[:500])

    rc, out, err = run("fix", fd200, "-o", d / "fd.xml")
    check("nothing to do exits 0 and writes nothing",
          rc == 0 and out.startswith("nothing to do: the model already reshapes at every checked batch")
          and not (d / "fd.xml").exists(), f"{rc} {out} {err}")

    for args, message in [
            (["-o", retail], "is one of the model's own files"),
            ([], "no output file; give -o FIXED.xml, or --dry-run"),
            (["-o", d / "x.txt"], "the output must end in .xml"),
            (["--dry-run", "--check-batch", "2,x"], "--check-batch 2,x: 'x': not a batch"),
            (["--dry-run", "--check-batch", "0"], "--check-batch 0: '0' is not a batch"),
            (["--dry-run", "--layout", "NCH"], "layout 'NCH' has 3 dimensions"),
    ]:
        rc, out, err = run("fix", retail, *args)
        check(f"bad option {args}", rc == 2 and message in err and err.count("\n") == 1, f"{rc} {err!r}")
    check("the input is never overwritten", retail.read_bytes() == xml_before
          and retail.with_suffix(".bin").read_bytes() == bin_before)

# Outputs that are not regular files, or do not fit the model, are refused before the analysis and before
# anything is written (tests/python/test_fix.py runs the same cases through reshape1.fix). A FIFO would
# otherwise block the write until something reads it.
ONNX_MODEL = ROOT / "tests" / "data" / "onnx-models" / "ultraface-rfb-320" / "version-RFB-320_simplified.onnx"
with tempfile.TemporaryDirectory() as d:
    d = pathlib.Path(d)
    os.mkfifo(d / "pipe.xml")
    os.mkfifo(d / "pipe.bin")
    os.mkfifo(d / "pipe.onnx")
    (d / "dir.xml").mkdir()
    for model, out, message in [
            (retail, d / "pipe.xml", "pipe.xml: is a FIFO (a pipe), not a regular file"),
            (retail, d / "dir.xml", "dir.xml: is a directory, not a regular file"),
            (retail, d / "model.txt", "model.txt: the output must end in .xml"),
            (ONNX_MODEL, d / "pipe.onnx", "pipe.onnx: is a FIFO (a pipe), not a regular file"),
            (ONNX_MODEL, d / "model.xml", "model.xml: the output of an ONNX model must end in .onnx"),
    ]:
        before = sorted(p.name for p in d.iterdir())
        rc, out_text, err = run("fix", model, "-o", out)
        check(f"fix -o {out.name} ({model.suffix}) refused", rc == 2 and message in err and err.count("\n") == 1,
              f"{rc} {err!r}")
        check(f"fix -o {out.name} ({model.suffix}) writes nothing", sorted(p.name for p in d.iterdir()) == before,
              sorted(p.name for p in d.iterdir()))
    # An .xml that cannot be written (a link into a directory that is not there) leaves no .bin behind.
    (d / "nowhere.xml").symlink_to(d / "missing" / "model.xml")
    rc, out_text, err = run("fix", retail, "-o", d / "nowhere.xml")
    check("fix: an .xml that cannot be written leaves no .bin", rc == 2 and not (d / "nowhere.bin").exists(),
          f"{rc} {err!r} {sorted(p.name for p in d.iterdir())}")
    # The .bin beside a regular .xml output is checked too.
    os.mkfifo(d / "fine.bin")
    rc, out_text, err = run("fix", retail, "-o", d / "fine.xml")
    check("fix: a FIFO where the .bin goes is refused", rc == 2 and "fine.bin: is a FIFO (a pipe), not a regular file" in err
          and not (d / "fine.xml").exists(), f"{rc} {err!r}")



def on_terminal(*args, env=None):
    """Runs reshape1 with standard error on a pseudo-terminal; returns (exit code, stdout, what the terminal got)."""
    main, side = pty.openpty()
    p = subprocess.Popen([BINARY, *[str(a) for a in args]], stdout=subprocess.PIPE, stderr=side,
                         env={**os.environ, **(env or {})})
    os.close(side)
    out = p.stdout.read().decode()
    p.wait(timeout=120)
    got = b""
    while True:
        try:
            chunk = os.read(main, 65536)
        except OSError:  # the terminal's other side closed
            break
        if not chunk:
            break
        got += chunk
    os.close(main)
    return p.returncode, out, got.decode(errors="replace")


# The progress line: on a terminal only (shown at once here, by RESHAPE1_PROGRESS_AFTER_MS), cleared before
# the report; never with --quiet or --json, and never into a pipe.
NOW = {"RESHAPE1_PROGRESS_AFTER_MS": "0"}
with tempfile.TemporaryDirectory() as d:
    d = pathlib.Path(d)
    rc, out, term = on_terminal("fix", retail, "-o", d / "f.xml", env=NOW)
    check("progress: fix on a terminal", rc == 0 and "\r\x1b[Kfix: " in term
          and term.endswith("\r\x1b[K") and "\x1b" not in out, repr(term[:300]))
    rc, out, term = on_terminal("fix", ONNX_MODEL, "-o", d / "f.onnx", env=NOW)
    check("progress: an ONNX fix on a terminal", rc == 0 and "\r\x1b[Kfix: " in term and term.endswith("\r\x1b[K")
          and "\x1b" not in out, repr(term[:300]))
    rc, out, term = on_terminal("check", retail, "--batch", "4", env=NOW)
    check("progress: check on a terminal", "\r\x1b[Kcheck: " in term and term.endswith("\r\x1b[K"), repr(term[:300]))
    for args in (["fix", retail, "--dry-run", "--quiet"], ["fix", retail, "--dry-run", "--json"],
                 ["check", retail, "--quiet"], ["check", retail, "--json"]):
        rc, out, term = on_terminal(*args, env=NOW)
        check(f"no progress: {args[0]} {args[-1]}", term == "", repr(term[:200]))
    rc, out, err = run_binary(BINARY, ["fix", str(retail), "--dry-run"])
    check("no progress into a pipe", "\x1b" not in err and "\r" not in err, repr(err[:200]))

# A model whose obstacle is not a Reshape: exit 1, the layer named, nothing written.
with tempfile.TemporaryDirectory() as d:
    d = pathlib.Path(d)
    shutil.copy(ROOT / "tests" / "data" / "models" / "concat-batch-const" / "model.xml", d / "m.xml")
    shutil.copy(ROOT / "tests" / "data" / "models" / "concat-batch-const" / "model.bin", d / "m.bin")
    rc, out, err = run("fix", d / "m.xml", "-o", d / "f.xml")
    lines = out.splitlines()
    check("not fixable exits 1", rc == 1, f"{rc} {out} {err}")
    check("not fixable names the layer", lines[0].split() == ["id", "name", "op", "result"]
          and lines[1].split() == ["2", "joined", "Concat", "not", "fixed"]
          and lines[2] == "    not a Reshape pattern: fails at batch 2: layer 'joined' (id 2): input 1 dimension 0: "
                          "2 and 1 cannot be equal", out)
    check("not fixable writes nothing", not (d / "f.xml").exists() and not (d / "f.bin").exists())
    rc, out, err = run("fix", d / "m.xml", "--dry-run", "--json")
    refusals = json.loads(out)["refusals"] if rc == 1 else []
    check("a refusal says why as a code, with what it names",
          [(x["code"], x["args"]) for x in refusals] ==
          [("batch_finding", {"finding": "fails", "finding_code": "invalid_shape", "batch": "2"})], out)

# A Reshape in a TensorIterator's body (the hand-made fixture, its body's [0,-1] written [1,-1]): rewritten
# there, listed by the path of ids to it, and `within` in --json.
with tempfile.TemporaryDirectory() as d:
    d = pathlib.Path(d)
    lstm = ROOT / "tests" / "data" / "models" / "tensor-iterator-lstm" / "model.xml"
    weights = bytearray(lstm.with_suffix(".bin").read_bytes())
    weights[weights.index(bytes(8) + b"\xff" * 8)] = 1
    (d / "m.xml").write_bytes(lstm.read_bytes())
    (d / "m.bin").write_bytes(bytes(weights))
    rc, out, err = run("fix", d / "m.xml", "--dry-run")
    lines = out.splitlines()
    check("body fix exits 0", rc == 0, f"{rc} {out} {err}")
    check("body fix lists the path of ids", lines[1].split() == ["3/4", "step", "[1,-1]", "[0,-1]"], out)
    rc, out, err = run("fix", d / "m.xml", "--dry-run", "--json")
    change = json.loads(out)["changes"][0]
    check("body fix json names the body", change["id"] == "4" and change["const"] == "3"
          and change["within"] == [{"id": "3", "name": "lstm", "type": "TensorIterator"}], out)

results.finish()
