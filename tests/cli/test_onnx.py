#!/usr/bin/env python3
"""`reshape1 check` on ONNX files: the fixtures (built from tests/data/onnx into FIXTURES) and the shipped
UltraFace pair, with their exit codes; files told apart by content; refusals as JSON with --json."""
import json
import os
import pathlib
import shutil
import sys
import tempfile

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from harness import Results, run as run_binary  # noqa: E402

BINARY = os.path.abspath(sys.argv[1])
FIXTURES = pathlib.Path(sys.argv[2])
ROOT = pathlib.Path(__file__).resolve().parents[2]
ULTRAFACE = ROOT / "tests" / "data" / "onnx-models" / "ultraface-rfb-320"
results = Results()
check = results.check


def run(*args):
    return run_binary(BINARY, ["check", *map(str, args)])


# check --batch 4 on each fixture: 0 yes, 1 no, 4 cannot tell; the verdict in the JSON too.
answers = {"allowzero_copy": (0, "yes"), "allowzero_literal": (1, "no"), "constant_node_shape": (1, "no"),
           "shared_initializer": (1, "no"), "computed_pattern": (0, "yes"), "if_branches": (1, "no"),
           "loop_body": (0, "yes"), "loop_scan": (0, "yes"), "loop_reshape": (1, "no"), "scan_sum": (0, "yes"),
           "scan8_entries": (0, "yes"), "scan_over_batch": (0, "yes"), "scan_over_batch_paired": (1, "no"),
           "qdq_pair": (0, "yes"), "qdq_per_channel": (0, "yes"), "com_microsoft": (0, "yes"), "fold_scaler": (0, "yes"), "custom_domain": (4, "cannot_tell"), "loop_captured_shared": (1, "no"),
           "external_data": (0, "yes"), "external_pattern": (1, "no"), "initializers_as_inputs": (1, "no"),
           "batch_moves": (1, "no"), "fold_rows": (1, "no"),
           "leading_one_right": (0, "yes"), "concat_pattern": (1, "no"), "allowzero_pinned": (1, "no"),
           "size_if": (1, "no"), "size_where": (1, "no"), "size_scale": (1, "no"), "size_parity": (1, "no"),
           "size_constant": (0, "yes"), "size_slice_end": (1, "no"), "size_topk": (1, "no"), "size_slice_start": (1, "no"), "size_gather_index": (1, "no"), "size_pad_value": (1, "no"), "group_norm_fold": (0, "yes"), "group_norm_fold_mixed": (1, "no"), "batch_norm_training": (1, "no"), "flatten_axis_past_rank": (1, "no"), "tile_repeats_length": (1, "no"), "slice_matrix_starts": (1, "no"), "size_if_view": (1, "no"), "if_untaken_branch": (0, "yes"), "if_both_branches": (1, "no"), "fold_cumsum": (1, "no"), "size_max": (0, "yes"), "size_max_pattern": (1, "no"), "size_if_flatten": (4, "cannot_tell"), "size_if_idle_branch": (1, "no"), "slice_batch_end_1000": (4, "cannot_tell"), "fold_interleave": (0, "yes"), "fold_interleave_mixed": (1, "no"), "fold_interleave_output": (1, "no"), "fold_interleave_transpose": (4, "cannot_tell"), "resize_batch_nearest": (4, "cannot_tell"), "fold_interleave_if_rows": (4, "cannot_tell"), "size_where_alike": (1, "no"), "size_shape_beyond_samples": (1, "no"), "size_alike_reverse": (1, "no"), "size_equal_four": (1, "no"),
           "softmax_axis_out_of_range": (1, "no"), "instance_norm_scale_length": (1, "no"),
           "attention_causal": (0, "yes"), "attention_causal_fold": (4, "cannot_tell"), "bert_block": (0, "yes"),
           "gqa_decoder": (0, "yes"),
           "bert_block_constant_mask": (1, "no")}
for name, (code, verdict) in answers.items():
    rc, out, err = run(FIXTURES / f"{name}.onnx", "--batch", "4", "--json")
    check(f"{name}: exit code", rc == code, f"{rc} {err}")
    check(f"{name}: verdict", rc == code and json.loads(out)["summary"]["verdict"] == verdict, out[:300])

rc, out, err = run(ULTRAFACE / "version-RFB-320_simplified.onnx", "--batch", "4", "--quiet")
check("simplified UltraFace: no", rc == 1 and out.endswith("reshapes to batch 4: no: 8 Reshapes swallow the batch\n"), out)
check("value from the initializer", "    value from: initializer '327'\n" in out, out)
rc, out, err = run(ULTRAFACE / "version-RFB-320.onnx", "--batch", "4", "--quiet")
check("exported UltraFace: yes", (rc, out) == (0, "note: input 'input' declares its batch (dimension 0) as 1: ONNX "
      "Runtime refuses another batch until that dimension is a dim_param\nreshapes to batch 4: yes\n"), f"{rc} {out} {err}")
rc, out, err = run(ULTRAFACE / "version-RFB-320.onnx", "--batch", "4", "--json")
check("the note in JSON", rc == 0 and len(json.loads(out)["notes"]) == 1, out[:300])

# A Reshape in a Loop's body is found there (its path 0/5), and fix rewrites it there (its change has the
# same `within`); the Loop is still refused, since its carried value starts at batch 1.
rc, out, err = run(FIXTURES / "loop_reshape.onnx", "--batch", "4", "--json")
findings = {(f.get("within", [{}])[0].get("id"), f["id"], f["finding"]) for f in json.loads(out)["findings"]}
check("a Loop body's Reshape", findings == {(None, "0", "fails"), ("0", "5", "swallows_batch")}, out[:600])
rc, out, err = run_binary(BINARY, ["fix", str(FIXTURES / "loop_reshape.onnx"), "--dry-run", "--json"])
doc = json.loads(out)
refused = {x["id"]: x for x in doc["refusals"]}
changed = {x["id"]: x for x in doc["changes"]}
check("fix rewrites a Loop body's Reshape", rc == 1 and changed["5"]["within"][0]["name"] == "repeat"
      and changed["5"]["new_pattern"] == "[0,6]" and refused["0"]["name"] == "repeat" and not doc["fixed"], out[:600])
rc, out, err = run_binary(BINARY, ["fix", str(FIXTURES / "loop_captured.onnx"), "--dry-run"])
check("fix names a body's Reshape by its path", rc == 0 and out.splitlines()[1].startswith("1/5  flat "), out[:600])

rc, out, err = run(FIXTURES / "custom_domain.onnx")
check("not covered: exit 0", rc == 0, f"{rc} {err}")
check("not covered: why", "layer 'acc' (id 2): com.example.Scaler: reshape1 translates ONNX's default domain, "
      "ai.onnx.ml and com.microsoft only; its outputs are unknown" in out, out)

rc, out, err = run(FIXTURES / "external_escape.onnx")
check("escaping external data: exit 2", rc == 2, f"{rc} {err}")
check("escaping external data: message", "its external data '../onnx/external_shape.bin' goes up a directory" in err, err)

rc, out, err = run(FIXTURES / "allowzero_copy.onnx", "--bin", FIXTURES / "external_shape.bin")
check("--bin with ONNX: exit 2", rc == 2, f"{rc} {err}")
check("--bin with ONNX: message", "there is no weights file to give; leave out --bin" in err, err)

with tempfile.TemporaryDirectory() as tmp:
    renamed = pathlib.Path(tmp) / "model.xml"
    renamed.write_bytes((FIXTURES / "constant_node_shape.onnx").read_bytes())
    rc, out, err = run(renamed, "--batch", "2", "--quiet")
    check("an ONNX file named .xml is read as ONNX", rc == 1 and "swallows_batch" in out, f"{rc} {out} {err}")
    archive = pathlib.Path(tmp) / "model.onnx"
    archive.write_bytes(b"PK\x03\x04" + bytes(60))
    rc, out, err = run(archive, "--json")
    check("an archive: exit 2", rc == 2, f"{rc} {err}")
    error = json.loads(out).get("error", {}) if out else {}
    check("an archive: JSON error", error.get("code") == "bad_file" and "a zip archive; unpack it first" in
          error.get("message", ""), out)

rc, out, err = run("--list-ops", "--format", "onnx")
ops = out.splitlines()
check("--list-ops --format onnx", rc == 0 and "Reshape-14  translated" in ops and "Conv-22  translated (as Conv-1)" in ops
      and "Relu-1  not translated; ONNX Runtime does not run it" in ops and "com.microsoft.Gelu-1  translated" in ops
      and any(line.startswith("Unique-11  cannot tell: its outputs are as long") for line in ops), out[:200])
rc, out, err = run("--list-ops", "--format", "onnx", "--json")
check("--list-ops --format onnx --json", rc == 0 and {"domain": "ai.onnx", "op_type": "Reshape", "since_version": 19,
      "onnx_runtime": True, "translated_from": 14, "not_translated": None} in json.loads(out), out[:200])
rc, out, err = run(FIXTURES / "allowzero_copy.onnx", "--format", "onnx")
check("--format without --list-ops: usage error", rc == 2, f"{rc} {err}")

# fix on ONNX: the simplified UltraFace gets its 8 patterns rewritten and its batch freed; one .onnx out.
with tempfile.TemporaryDirectory() as tmp:
    out = pathlib.Path(tmp) / "fixed.onnx"
    rc, stdout, err = run_binary(BINARY, ["fix", str(ULTRAFACE / "version-RFB-320_simplified.onnx"), "-o", str(out)])
    check("fix: exit 0", rc == 0, f"{rc} {err}")
    check("fix: wrote", stdout.endswith(f"wrote {out} (8 Reshape patterns rewritten)\n") and out.exists(), stdout[-300:])
    check("fix: batch freed", "batch freed (N): input 'input' dimension 0, output 'scores' dimension 0, output 'boxes' "
          "dimension 0, 99 value_info dimensions\n" in stdout, stdout)
    rc, stdout, err = run(out, "--batch", "4", "--quiet")
    check("the fixed file reshapes, with no note", (rc, stdout) == (0, "reshapes to batch 4: yes\n"), f"{rc} {stdout} {err}")
    rc, stdout, err = run_binary(BINARY, ["fix", str(FIXTURES / "shared_initializer.onnx"), "--dry-run", "--json"])
    report = json.loads(stdout) if stdout else {}
    check("fix --json: a shared initializer that both Reshapes need alike is rewritten once, not copied",
          rc == 0 and [(c["tensor"], c["cloned_from"]) for c in report.get("changes", [])] == [("pattern", None)] * 2,
          stdout[:600])
    check("fix --dry-run writes nothing", not any(pathlib.Path(tmp).glob("*.tmp*")), "")
    rc, stdout, err = run_binary(BINARY, ["fix", str(FIXTURES / "allowzero_copy.onnx"), "-o", str(pathlib.Path(tmp) / "x.xml")])
    check("fix: an ONNX output must end in .onnx", rc == 2 and "must end in .onnx" in err, f"{rc} {err}")
    rc, stdout, err = run_binary(BINARY, ["fix", str(FIXTURES / "allowzero_copy.onnx"), "-o",
                                          str(FIXTURES / "allowzero_copy.onnx")])
    check("fix: never over the input", rc == 2 and "the output is the model itself" in err, f"{rc} {err}")
    rc, stdout, err = run_binary(BINARY, ["fix", str(FIXTURES / "allowzero_pinned.onnx"), "--dry-run", "--json"])
    report = json.loads(stdout) if stdout else {}
    check("fix --json: allowzero=1 is cleared so that 0 copies the batch",
          rc == 0 and [(c["new_pattern"], c["allowzero_cleared"]) for c in report.get("changes", [])] == [("[0,6]", True)],
          stdout[:600])
    rc, stdout, err = run_binary(BINARY, ["fix", str(FIXTURES / "allowzero_literal.onnx"), "-o", str(out)])
    check("fix: a model that fails at its own shapes is not fixed", rc == 1 and "not fixed: nothing written" in stdout,
          f"{rc} {stdout} {err}")
    rc, stdout, err = run_binary(BINARY, ["fix", str(FIXTURES / "constant_node_shape.onnx"), "-o",
                                          str(pathlib.Path(tmp) / "c.onnx"), "--batch-name", "batch"])
    check("fix --batch-name", rc == 0 and "batch freed (batch): input 'x' dimension 0" in stdout, f"{rc} {stdout} {err}")
    # One driver for both formats: with nothing rewritten (the pattern already copies the batch), only
    # declared dims freed, the summary is "checked:", as for an IR.
    freed_only = pathlib.Path(tmp) / "freed.onnx"
    rc, stdout, err = run_binary(BINARY, ["fix", str(FIXTURES / "allowzero_copy.onnx"), "-o", str(freed_only)])
    check("fix: dims freed, no pattern rewritten", rc == 0 and stdout.startswith(
        "batch freed (N): input 'x' dimension 0, output 'y' dimension 0\nchecked:\n  reshapes to batch 1: yes")
          and stdout.endswith(f"wrote {freed_only} (nothing rewritten)\n") and freed_only.exists(),
          f"{rc} {stdout} {err}")

# fix a model with external data into another directory: its data file comes along.
with tempfile.TemporaryDirectory() as tmp:
    out = pathlib.Path(tmp) / "sub" / "fixed.onnx"
    out.parent.mkdir()
    rc, stdout, err = run_binary(BINARY, ["fix", str(FIXTURES / "external_data.onnx"), "-o", str(out)])
    check("fix with external data: written", rc == 0 and out.exists(), f"{rc} {stdout} {err}")
    check("fix with external data: the data beside it", (out.parent / "external_shape.bin").read_bytes() ==
          (FIXTURES / "external_shape.bin").read_bytes() if out.exists() else False, "")
    rc, stdout, err = run(out, "--batch", "3", "--quiet")
    check("fix with external data: the output reads", (rc, stdout) == (0, "reshapes to batch 3: yes\n"), f"{rc} {stdout} {err}")

# ... but not into a directory whose data file is a symbolic link leading out of it (even to the same bytes):
# the written model could not be read back. Refused before anything is written.
with tempfile.TemporaryDirectory() as tmp:
    out = pathlib.Path(tmp) / "sub" / "fixed.onnx"
    out.parent.mkdir()
    (out.parent / "external_shape.bin").symlink_to(FIXTURES / "external_shape.bin")
    rc, stdout, err = run_binary(BINARY, ["fix", str(FIXTURES / "external_data.onnx"), "-o", str(out)])
    check("fix with external data onto a link out: refused", rc == 2 and not out.exists() and
          "the fixed model could not be read back from there" in err and "leads out of it through a symbolic link" in err,
          f"{rc} {stdout} {err}")

# ... nor onto the input's own data file (here through a symbolic link to it): the model written there would
# replace the bytes both models read. Refused before anything is written (found by a cold try).
with tempfile.TemporaryDirectory() as tmp:
    work = pathlib.Path(tmp)
    shutil.copy(FIXTURES / "external_data.onnx", work / "m.onnx")
    shutil.copy(FIXTURES / "external_shape.bin", work / "external_shape.bin")
    (work / "out.onnx").symlink_to("external_shape.bin")
    rc, stdout, err = run_binary(BINARY, ["fix", str(work / "m.onnx"), "-o", str(work / "out.onnx")])
    check("fix onto the input's external data: refused", rc == 2 and "the output is the external data file "
          "'external_shape.bin' that the model's tensor 'pattern' reads" in err and
          (work / "external_shape.bin").read_bytes() == (FIXTURES / "external_shape.bin").read_bytes(),
          f"{rc} {stdout} {err}")

# ... nor onto an input's data file that the fixed model no longer reads (its one tensor rewritten inline):
# the input would lose its data all the same. Here the data file is named like an ONNX output (the model's
# location patched to a name of the same length). Refused before the analysis (found by a cold review).
with tempfile.TemporaryDirectory() as tmp:
    work = pathlib.Path(tmp)
    model = (FIXTURES / "external_pattern.onnx").read_bytes()
    assert model.count(b"external_shape.bin") == 1
    (work / "m.onnx").write_bytes(model.replace(b"external_shape.bin", b"external_shap.onnx"))
    shutil.copy(FIXTURES / "external_shape.bin", work / "external_shap.onnx")
    rc, stdout, err = run_binary(BINARY, ["fix", str(work / "m.onnx"), "-o", str(work / "external_shap.onnx")])
    check("fix onto an input's data file the fixed model does not read: refused", rc == 2 and
          "the output is the external data file 'external_shap.onnx' that the model's tensor 'pattern' reads" in err and
          (work / "external_shap.onnx").read_bytes() == (FIXTURES / "external_shape.bin").read_bytes(),
          f"{rc} {stdout} {err}")

# fix a pattern held in external data: rewritten inside the fixed model, which then needs no data file.
with tempfile.TemporaryDirectory() as tmp:
    out = pathlib.Path(tmp) / "fixed.onnx"
    rc, stdout, err = run_binary(BINARY, ["fix", str(FIXTURES / "external_pattern.onnx"), "-o", str(out)])
    check("fix of an external pattern: written", rc == 0 and out.exists() and
          "now written in the model rather than its external data" in stdout, f"{rc} {stdout} {err}")
    check("fix of an external pattern: no data file needed", not (pathlib.Path(tmp) / "external_shape.bin").exists(),
          str(list(pathlib.Path(tmp).iterdir())))
    rc, stdout, err = run(out, "--batch", "3", "--quiet")
    check("fix of an external pattern: the output reads", (rc, stdout) == (0, "reshapes to batch 3: yes\n"),
          f"{rc} {stdout} {err}")

# --dot names an ONNX model's boxes as the file does: nodes by index, name, op and version (not the op they
# are lowered to), graph inputs and initializers by name, with no id the file does not have.
with tempfile.TemporaryDirectory() as tmp:
    dot = pathlib.Path(tmp) / "g.dot"
    rc, out, err = run(FIXTURES / "group_norm_fold_mixed.onnx", "--batch", "4", "--quiet", "--dot", dot)
    text = dot.read_text() if dot.exists() else ""
    check("dot of an ONNX model: boxes as the file names them", rc == 1 and '[label="1 norm\\nMeanVarianceNormalization-13"]' in text
          and '[label="x\\ngraph input"]' in text and '[label="fold\\ninitializer"]' in text and "MVN" not in text, text)

# A pattern too long for its values to be read: said, and shown by its length.
rc, out, err = run(FIXTURES / "long_pattern.onnx")
check("a pattern of 5000 values: said, not printed", rc == 0 and "[5000 values, not read]" in out and "[? x5000]" in out
      and "the pattern holds 5000 values, more than the 4096 reshape1 reads as values" in out and len(out) < 2000,
      out[:600])

# A batch asked of a model none of whose inputs holds one (here a layout without N) is refused, not "yes".
rc, out, err = run(FIXTURES / "computed_pattern.onnx", "--batch", "4", "--layout", "x=CHW")
check("no batched input: the batch is refused", rc == 2 and out == "" and
      "--batch 4: no input holds a batch ('x' has layout CHW, without N)" in err, f"{rc} {out} {err}")

# Standard input: its bytes say the format. An ONNX model is read from them; its external data, which
# would be looked for in no directory, is refused; an IR needs --bin, and an empty input is no model.
import subprocess  # noqa: E402


def from_stdin(data, *args):
    p = subprocess.run([BINARY, "check", "-", *args], input=data, capture_output=True, timeout=60)
    return p.returncode, p.stdout.decode(), p.stderr.decode()


rc, out, err = from_stdin((FIXTURES / "computed_pattern.onnx").read_bytes(), "--batch", "4", "--quiet")
check("ONNX on standard input", rc == 0 and out.endswith("reshapes to batch 4: yes\n"), f"{rc} {out} {err}")
rc, out, err = from_stdin((FIXTURES / "external_data.onnx").read_bytes(), "--batch", "4")
check("ONNX on standard input: external data refused", rc == 2 and
      "its data is in the external file 'external_shape.bin', but a model read from memory has no directory" in err,
      f"{rc} {err}")
check("ONNX on standard input: the hint names --base-dir", "give the directory its data lies in with --base-dir DIR" in err,
      err)
rc, out, err = from_stdin((FIXTURES / "external_data.onnx").read_bytes(), "--batch", "4", "--quiet", "--base-dir",
                          str(FIXTURES))
check("ONNX on standard input: external data found in --base-dir", rc == 0 and out.endswith("reshapes to batch 4: yes\n"),
      f"{rc} {out} {err}")
p = subprocess.run([BINARY, "check", str(FIXTURES / "external_data.onnx"), "--base-dir", str(FIXTURES)],
                   capture_output=True, timeout=60)
check("--base-dir refused for a file", p.returncode == 2 and p.stderr.decode().startswith(
      "reshape1 check: --base-dir: only for an ONNX model read from memory, not from a file"), p.stderr.decode())
rc, out, err = from_stdin((FIXTURES / "external_data.onnx").read_bytes(), "--base-dir", "")
check("--base-dir '' refused", rc == 2 and "an empty directory name" in err, f"{rc} {err}")
ir = ROOT / "tests" / "data" / "ir-models" / "face-detection-retail-0005" / "other.xml"
rc, out, err = from_stdin(ir.read_bytes(), "--quiet", "--bin", str(ir.with_suffix(".bin")), "--base-dir", str(FIXTURES))
check("--base-dir refused for an IR", rc == 2 and "--base-dir: only for ONNX models: an IR has no external data" in err,
      f"{rc} {err}")
rc, out, err = from_stdin(ir.read_bytes(), "--quiet")
check("IR on standard input without --bin", rc == 2 and "an IR read from standard input has no file beside it" in err,
      f"{rc} {err}")
rc, out, err = from_stdin(ir.read_bytes(), "--quiet", "--bin", str(ir.with_suffix(".bin")))
check("IR on standard input with --bin", rc == 0 and "305 layers: 305 propagated" in out, f"{rc} {out[-300:]} {err}")
p = subprocess.run([BINARY, "fix", "-", "--dry-run"], input=(FIXTURES / "computed_pattern.onnx").read_bytes(),
                   capture_output=True, timeout=60)
check("fix - is refused as standard input, whatever it holds", p.returncode == 2 and
      "fix reads the model from its file, not from standard input" in p.stderr.decode(), p.stderr.decode())
rc, out, err = from_stdin(b"", "--batch", "2")
check("empty standard input", rc == 2 and "standard input: not a model: an empty file" in err, f"{rc} {err}")

# shapes: a Loop's body is listed after the Loop, in a column of its own that names the nodes around it.
rc, out, err = run_binary(BINARY, ["shapes", str(FIXTURES / "loop_growing.onnx")])
lines = out.splitlines()
check("shapes of a Loop: a column for the bodies", rc == 0 and lines[0].split()[-5:] == ["declared", "in", "the", "body", "of"],
      f"{rc} {lines[:1]} {err}")
row = {line.split()[0]: line.split() for line in lines[1:] if line.strip() and not line[0].isdigit()}
check("shapes of a Loop: a top-level tensor is in no body", row["grown"][-1] == "-", row.get("grown"))
check("shapes of a Loop: a nested body names both Loops once", row["s_sum"][-3:] == ["grow", ">", "inner"] and
      row["s_sum"][2] == "[?@N,1]", row.get("s_sum"))
check("shapes of a Loop: a size that grows at each iteration is not named", row["acc"][2] == "[?@N,?]", row.get("acc"))
rc, out, err = run_binary(BINARY, ["shapes", str(FIXTURES / "loop_growing.onnx"), "--json"])
body = next(t for t in json.loads(out)["tensors"] if t["name"] == "s_sum")
check("shapes --json: within, as findings give it", [w["name"] for w in body.get("within", [])] == ["grow", "inner"] and
      "within" not in json.loads(out)["tensors"][0], body)

results.finish()
