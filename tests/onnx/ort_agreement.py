#!/usr/bin/env python3
"""reshape1's answer against ONNX Runtime's, on the shared ONNX models and the fixtures.

For each model and batch B (2 and 4): ONNX Runtime runs a copy of the model with its batch freed
(onnx_free_batch), each sample alone and the B samples stacked (tests/onnx/ort/oracle.js); reshape1 checks
the original model at the same shapes and batch (`check --batch B --shape NAME=...`). They must agree both
ways: "yes" where ONNX Runtime's stacked results equal the samples' own, "no" where it fails or differs. A "cannot tell" is
no claim; it is allowed only where this file pins it (an op reshape1 does not translate). A "no" where
ONNX Runtime is right could be pinned in known_false_no; none is.

Usage: ort_agreement.py RESHAPE1 ONNX_FREE_BATCH FIXTURES_DIR
"""
import json
import os
import pathlib
import subprocess
import sys
import tempfile

RESHAPE1, FREE_BATCH, FIXTURES = sys.argv[1], sys.argv[2], pathlib.Path(sys.argv[3])
HERE = pathlib.Path(__file__).resolve().parent
ORACLE = HERE / "ort" / "oracle.js"
SPECS = HERE / "ort" / "specs"
SHARED = HERE.parents[2] / "shared" / "onnx-models"
NODE = os.environ.get("RESHAPE1_NODE", "node")

# (name, model file, spec, onnx_free_batch arguments, reshape1's pinned answer at 2 and 4)
cases = []
shared = {
    "ultraface-rfb-320-simplified-opset9": ([], "no"),
    "ultraface-rfb-320-opset9": ([], "yes"),
    "dtln-model1-audio-lstm-opset11": ([], "yes"),
    "paddleocr-v4-rec-opset9": ([], "yes"),
    "silero-vad-v4-if-lstm-opset16": (["--axis", "h=1", "--axis", "c=1", "--axis", "sr=none", "--out-axis", "hn=1",
                                       "--out-axis", "cn=1"], "yes"),
    "faceplugin-age-ssrnet-opset9": ([], "yes"),
    "faceplugin-headpose-shufflenetv2-opset9": ([], "no"),
    "faceplugin-landmark-flatten-opset9": ([], "yes"),
}
if SHARED.is_dir():
    for folder, (args, answer) in shared.items():
        model = next((SHARED / folder).glob("*.onnx"))
        cases.append((folder, model, SPECS / f"{folder}.json", args, answer))
else:
    print(f"note: {SHARED} is not there; only the fixtures are checked")
fixtures = {
    "allowzero_copy": "yes", "allowzero_literal": "no", "constant_node_shape": "no", "shared_initializer": "no",
    "computed_pattern": "yes", "if_branches": "no", "loop_body": "yes", "loop_scan": "yes", "loop_reshape": "no",
    "scan_sum": "yes", "scan8_entries": "yes", "scan_over_batch": "yes", "scan_over_batch_paired": "no", "body_dims": "yes",
    "scan_reshape": "no", "loop_captured": "no",
    "loop_captured_shared": "no", "qdq_pair": "yes", "qdq_per_channel": "yes",
    "com_microsoft": "yes", "fold_scaler": "yes", "external_data": "yes", "external_pattern": "no", "initializers_as_inputs": "no",
    "batch_moves": "no", "fold_rows": "no",
    "leading_one_right": "yes", "concat_pattern": "no", "allowzero_pinned": "no",
    # the batch size read as data: ONNX Runtime gives each sample another result in a batch than alone
    "size_if": "no", "size_where": "no", "size_scale": "no", "size_parity": "no", "size_constant": "yes",
    "size_slice_end": "no", "size_topk": "no", "size_slice_start": "no", "size_gather_index": "no", "size_pad_value": "no",
    "size_max": "yes", "size_max_pattern": "no", "slice_batch_end_1000": "cannot_tell",
    "batch_norm_training": "no",
    # the batch folded into the channels and put back: a per-channel normalisation keeps it; one across them not
    "group_norm_fold": "yes", "group_norm_fold_mixed": "no",
    # invalid at every batch: ONNX Runtime refuses them ("fails"), reshape1 finds a rule error
    "flatten_axis_past_rank": "no", "softmax_axis_out_of_range": "no", "instance_norm_scale_length": "no",
    "tile_repeats_length": "no", "slice_matrix_starts": "no",
    # an If whose else branch, writing the batch as 1, runs at no batch
    "if_untaken_branch": "yes", "if_both_branches": "no", "size_if_flatten": "cannot_tell", "size_if_idle_branch": "no",
    # the batch folded, then a layer reshape1 cannot decide: nothing is shown to break it
    "fold_cumsum": "no",
    # the samples interleaved by a Reshape: elementwise and put back, yes; a Softmax across them or an output, no
    "fold_interleave": "yes", "fold_interleave_mixed": "no", "fold_interleave_output": "no",
    "fold_interleave_transpose": "cannot_tell",
    "flatten_past_size": "yes",  # checked with L given (the spec's shape): cannot tell without it
    # nearest along the batch: ONNX Runtime keeps each sample at this coordinate mode; reshape1 does not follow modes
    "resize_batch_nearest": "cannot_tell",
    # a batch-size value alike alone and at the batch asked, another at the samples (specs: at 3; at 2)
    "fold_interleave_if_rows": "cannot_tell", "size_shape_beyond_samples": "cannot_tell", "size_where_alike": "yes",
    "size_alike_reverse": "no",
    # a causal mask follows each query's place in the sequence: kept along a sample's own; the batch folded into it
    "attention_causal": "yes", "attention_causal_fold": "cannot_tell",
    # a BERT block: key lengths per entry kept; a constant mask of one batch entry fails at another
    "bert_block": "yes", "bert_block_constant_mask": "no",
    # a decoder step of grouped-query attention: each entry's past, key and seqlens_k its own
    "gqa_decoder": "yes",
    # model-local functions, inlined as ONNX Runtime inlines them: kept; the batch baked into one, mixed
    "local_functions": "yes", "local_functions_baked": "no",
    # labels as a tensor of strings, picked per sample
    "string_labels": "yes",
    # sequences the lowering follows: split, read back, joined, kept per sample; a split of the batch fails at another
    "sequence_split": "yes", "sequence_split_batch": "no",
    # sparse initializers and a Constant's sparse_value, read as the dense tensors ONNX Runtime makes of them
    "sparse_weights": "yes",
    # ai.onnx.ml: a scikit-learn pipeline, each row alone; a Normalizer of a rank-1 batch, which normalises it whole;
    # an Imputer of a value per position along a rank-1 batch: what a sample gets depends on the batch
    "ml_pipeline": "yes", "ml_normalizer_batch": "no", "ml_imputer_per_position": "cannot_tell",
}
known_false_no = set()  # a "no" where ONNX Runtime is right: none since a "no" must name what breaks
for name, answer in fixtures.items():
    spec = SPECS / f"{name}.json"
    cases.append((name, FIXTURES / f"{name}.onnx", spec if spec.exists() else SPECS / "fixture.json", [], answer))

probe = subprocess.run([NODE, "-e", "1"], capture_output=True)
if probe.returncode != 0:
    sys.exit("ort_agreement: Node.js is not installed; run scripts/install-deps.sh")

failures = []
rows = []
with tempfile.TemporaryDirectory() as tmp:
    for name, model, spec_file, free_args, answer in cases:
        spec = json.loads(spec_file.read_text())
        spec.setdefault("batches", [2, 4])
        freed = pathlib.Path(tmp) / f"{name}.onnx"  # external data read into it
        subprocess.run([FREE_BATCH, str(model), str(freed), *free_args], check=True)
        run = subprocess.run([NODE, str(ORACLE), str(freed), str(spec_file)], capture_output=True, text=True)
        if run.returncode != 0:
            failures.append(f"{name}: the oracle failed ({run.returncode}): {run.stderr[-2000:]}")
            continue
        oracle = json.loads(run.stdout)["batches"]
        for b in spec["batches"]:
            shapes = []
            for input_name, inp in spec["inputs"].items():
                axis = inp.get("batch_axis")
                if axis is None:
                    continue
                dims = list(inp["shape"])
                dims[axis] *= b
                shapes += ["--shape", f"{input_name}=[{','.join(map(str, dims))}]"]
            # The oracle compares each sample alone with the batch: that is --batch's question, asked even where
            # the batch is the declared one (a --shape alone that keeps the batch asks about the other sizes).
            check = subprocess.run([RESHAPE1, "check", str(model), "--batch", str(b), *shapes, "--json"],
                                   capture_output=True, text=True)
            verdict = json.loads(check.stdout)["summary"]["verdict"] if check.stdout else f"error {check.stderr}"
            outcome = oracle[str(b)]["outcome"]
            rows.append((name, b, outcome, verdict))
            agree = (verdict == "yes" and outcome == "correct") or (verdict == "no" and outcome in ("wrong", "fails"))
            if verdict != answer:
                failures.append(f"{name} at batch {b}: reshape1 says {verdict}, pinned {answer}")
            known = (verdict == "cannot_tell" and answer == "cannot_tell") or (
                verdict == "no" and outcome == "correct" and name in known_false_no)
            if not agree and not known:
                failures.append(f"{name} at batch {b}: reshape1 says {verdict}, ONNX Runtime {outcome}: "
                                f"{oracle[str(b)]['detail']}")

# `reshape1 fix`: each written model, run as written (its batch is the dim_param N) at batches 1, 2 and 4,
# must give each sample what the original gives it alone. (fixed?, patterns rewritten) is pinned per model.
fixes = {
    "ultraface-rfb-320-simplified-opset9": (True, 8),
    "ultraface-rfb-320-opset9": (True, 0),  # only its batch freed
    "dtln-model1-audio-lstm-opset11": (True, 0),
    "paddleocr-v4-rec-opset9": (True, 0),  # only its batch freed: its text width is a size apart from it
    "silero-vad-v4-if-lstm-opset16": (True, 0),  # only its batch freed: its chunk length is a size apart from it
    "faceplugin-age-ssrnet-opset9": (True, 0),
    "faceplugin-headpose-shufflenetv2-opset9": (True, 32),
    "faceplugin-landmark-flatten-opset9": (True, 0),
    "constant_node_shape": (True, 1),
    "shared_initializer": (True, 2),
    "computed_pattern": (True, 0),
    "initializers_as_inputs": (True, 1),
    "allowzero_literal": (False, 0),
    "leading_one_right": (True, 0),  # right as it is: only its batch freed
    "concat_pattern": (True, 1),  # the [1] behind the Concat
    "allowzero_pinned": (True, 1),  # 0 with allowzero cleared (no element may be 0): as the IR fix sets special_zero
    "external_pattern": (True, 1),  # its pattern, held in external data, written into the model
    "if_branches": (True, 1),  # the else branch's [1,-1], an initializer of the top graph
    "if_both_branches": (True, 2),  # both branches' [1,-1], one initializer both read, rewritten alike
    "batch_moves": (True, 1),  # [-1,6]: 0 would copy the 1 an Unsqueeze put in front of the batch
    "fold_rows": (True, 1),  # [-1,3]: the batch folded into the rows, unfolded by the next Reshape
    "body_dims": (True, 0),  # the batch freed in a Loop's and a Scan's body too (ONNX Runtime fails otherwise)
    "scan_reshape": (True, 1),  # the [1,2,3] of a Scan body's Reshape, a body initializer
    "loop_captured": (True, 1),  # the [1,6] a Loop body's Reshape reads from the graph around it
    "loop_captured_shared": (True, 1),  # likewise, in a copy: the graph reads [1,6] too, as a value
    "loop_reshape": (False, 1),  # its body's shape rewritten, but its carried value starts at batch 1
}
external_shapes = {"external_pattern"}
fix_rows = []
with tempfile.TemporaryDirectory() as tmp:
    for name, model, spec_file, _, _ in cases:
        if name not in fixes:
            continue
        fixed = pathlib.Path(tmp) / f"{name}.fixed.onnx"
        run = subprocess.run([RESHAPE1, "fix", str(model), "-o", str(fixed), "--json"], capture_output=True, text=True)
        report = json.loads(run.stdout) if run.stdout else {}
        got = (report.get("fixed"), len(report.get("changes", [])))
        if got != fixes[name]:
            failures.append(f"fix {name}: fixed {got[0]} with {got[1]} rewrites, pinned {fixes[name]}: {run.stdout[-1500:]}"
                            f"{run.stderr}")
        if not fixed.exists():
            fix_rows.append((name, got, "not written"))
            continue
        spec = json.loads(spec_file.read_text())
        spec["batches"] = [1, 2, 4]
        spec["reference"] = str(model)
        if name in external_shapes:
            # ONNX Runtime cannot infer a Reshape's shapes from a shape tensor held in external data ("load
            # external data into raw data"): the reference is the original with its data read into it (and
            # its batch freed, which changes nothing at batch 1, where the reference runs).
            reference = pathlib.Path(tmp) / f"{name}.reference.onnx"
            subprocess.run([FREE_BATCH, str(model), str(reference)], check=True)
            spec["reference"] = str(reference)
        (pathlib.Path(tmp) / "spec.json").write_text(json.dumps(spec))
        run = subprocess.run([NODE, str(ORACLE), str(fixed), str(pathlib.Path(tmp) / "spec.json")], capture_output=True,
                             text=True)
        outcomes = json.loads(run.stdout)["batches"] if run.returncode == 0 else {}
        verdict = ", ".join(f"{b}: {o['outcome']}" for b, o in outcomes.items()) or f"oracle failed: {run.stderr[-500:]}"
        fix_rows.append((name, got, verdict))
        if any(o["outcome"] != "correct" for o in outcomes.values()) or not outcomes:
            failures.append(f"fix {name}: the written model is not the original per sample: {outcomes}")

width = max(len(r[0]) for r in rows) if rows else 10
print(f"{'model':{width}}  batch  ONNX Runtime  reshape1")
for name, b, outcome, verdict in rows:
    print(f"{name:{width}}  {b:5}  {outcome:12}  {verdict}")
print(f"\n{'reshape1 fix':{width}}  fixed  rewrites  the written model in ONNX Runtime, against the original")
for name, (ok, n), verdict in fix_rows:
    print(f"{name:{width}}  {str(ok):5}  {n:8}  {verdict}")
if failures:
    print("\n".join(["", "FAILED:"] + failures))
    sys.exit(1)
pinned = sum(r[3] == "cannot_tell" or (r[3] == "no" and r[0] in known_false_no) for r in rows)
print(f"{len(rows) - pinned} answers agree with ONNX Runtime; {pinned} pinned (cannot tell, or a known false no)")
