#!/usr/bin/env python3
"""`reshape1 shapes -o` on every shared ONNX model and the ONNX fixtures ONNX Runtime runs, held against
ONNX's library and ONNX Runtime.

For each model: reshape1 writes a copy whose outputs and value_info declare every tensor's shape; then
  - ONNX's checker accepts the copy (Debian's ONNX 1.12, up to opset 17);
  - ONNX's own shape inference (with data propagation) on the original knows no dimension the copy leaves
    unnamed or unknown, and no number differs (onnx_shapes_check);
  - every tensor reshape1 lists is declared in the copy, with a known rank;
  - ONNX Runtime runs the copy, with every declared tensor made an output (tests/onnx/ort/shapes.js), and
    each tensor's shape is the one declared: a number where it is one, and one value per dim_param name
    across all tensors (the inputs' names bound by the run). A tensor of a Loop's or Scan's body is run as
    its Shape stacked over the iterations (onnx_shapes_check exposes it): its shape at every iteration is
    the one declared, each name the one value it has everywhere else.

Usage: shapes_ort.py RESHAPE1 ONNX_SHAPES_CHECK FIXTURES_DIR
"""
import json
import os
import pathlib
import subprocess
import sys
import tempfile

RESHAPE1, CHECK, FIXTURES = sys.argv[1], sys.argv[2], pathlib.Path(sys.argv[3])
HERE = pathlib.Path(__file__).resolve().parent
SHAPES_JS = HERE / "ort" / "shapes.js"
SPECS = HERE / "ort" / "specs"
SHARED = HERE.parents[2] / "shared" / "onnx-models"
NODE = os.environ.get("RESHAPE1_NODE", "node")

# (name, model, spec, --shape arguments)
cases = []
if SHARED.is_dir():
    for folder in sorted(p for p in SHARED.iterdir() if p.is_dir()):
        model = next(folder.glob("*.onnx"))
        # A model whose batch is a dim_param runs at batch 3 too: its names must bind to other values.
        cases.append((folder.name, model, SPECS / f"{folder.name}.json", []))
    # Copies made at named sizes: the inputs declare them, and ONNX Runtime binds each name to one value.
    cases.append(("ultraface-rfb-320-opset9 at N, H, W", next((SHARED / "ultraface-rfb-320-opset9").glob("*.onnx")),
                  SPECS / "ultraface-rfb-320-opset9.json", ["--shape", "input=[?@N,3,?@H,?@W]"]))
    cases.append(("paddleocr-v4-rec-opset9 at N, W", next((SHARED / "paddleocr-v4-rec-opset9").glob("*.onnx")),
                  SPECS / "paddleocr-v4-rec-opset9.json", ["--shape", "x=[?@N,3,48,?@W]"]))
else:
    print(f"note: {SHARED} is not there; only the fixtures are checked")
for name in ["computed_pattern", "allowzero_copy", "if_branches", "qdq_pair", "group_norm_fold", "fold_interleave",
             "size_where_alike", "leading_one_right", "flatten_past_size",
             # model-local functions: the copy holds them inlined, each inner tensor's shape declared
             "local_functions",
             # tensors of strings: their shapes and type declared
             "string_labels",
             # sequences and optionals: no value_info for them, each tensor read back from them declared
             "sequence_split",
             # sparse initializers: read dense
             "sparse_weights",
             # ai.onnx.ml: a pipeline of them
             "ml_pipeline",
             # Loop and Scan bodies: each body tensor's shape at every iteration
             "loop_body", "loop_captured", "loop_captured_shared", "loop_reshape", "loop_scan", "scan8_entries",
             "scan_over_batch", "scan_over_batch_paired", "scan_reshape", "scan_sum", "loop_growing", "loop_maybe_none"]:
    spec = SPECS / f"{name}.json"
    cases.append((name, FIXTURES / f"{name}.onnx", spec if spec.exists() else SPECS / "fixture.json", []))


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


EXPOSED = "reshape1.shape_of:"


def body_shapes(result):
    """The shapes ONNX Runtime gave each body tensor, one per iteration (outermost first), from the stacks of
    their Shape onnx_shapes_check exposed: {tensor: [shape, ...]}, each shape a list of dims."""
    out = {}
    for name, dims in result["outputs"].items():
        if not name.startswith(EXPOSED):
            continue
        tensor = name[len(EXPOSED):].split(":", 1)[1]
        rank, values = dims[-1], result["values"][name]
        iterations = 1
        for d in dims[:-1]:
            iterations *= d
        out[tensor] = [values[k * rank:(k + 1) * rank] for k in range(iterations)] if rank else [[]] * iterations
    return out


def compare(declared, runtime, bodies, problems, where):
    """Each runtime shape against the declared one: numbers equal, each name one value (a body tensor's at
    every iteration)."""
    bound = {}
    shapes = [(name, got) for name, got in runtime.items() if not name.startswith(EXPOSED)]
    shapes += [(name, got) for name, each in bodies.items() for got in each]
    for name, got in shapes:
        dims = declared.get(name)
        if dims is None:
            continue
        if len(got) != len(dims):
            problems.append(f"{where}: '{name}' is declared {dims}, ONNX Runtime gives {got}")
            continue
        for d, g in zip(dims, got):
            if isinstance(d, int) and d != g:
                problems.append(f"{where}: '{name}' is declared {dims}, ONNX Runtime gives {got}")
                break
            if isinstance(d, str):
                if bound.setdefault(d, g) != g:
                    problems.append(f"{where}: '{name}' {dims}: '{d}' is {g} here and {bound[d]} elsewhere ({got})")
                    break


failures = []
with tempfile.TemporaryDirectory() as tmp:
    tmp = pathlib.Path(tmp)
    for k, (name, model, spec, asked) in enumerate(cases):
        written, exposed = tmp / f"{k}.onnx", tmp / f"{k}.exposed.onnx"
        r = run([RESHAPE1, "shapes", str(model), "-o", str(written), "--json", *asked])
        if r.returncode != 0:
            failures.append(f"{name}: reshape1 shapes exit {r.returncode}: {r.stdout}{r.stderr}")
            continue
        report = json.loads(r.stdout)
        c = run([CHECK, str(model), str(written), str(exposed)])
        if c.returncode != 0:
            failures.append(f"{name}: onnx_shapes_check: {c.stderr}")
            continue
        onnx_says = json.loads(c.stdout)
        problems = []
        if onnx_says["checker"] not in ("ok", "skipped"):
            problems.append(f"ONNX's checker: {onnx_says['checker']}")
        # ONNX's inference runs on the original at its declared shapes: compared only with a copy made there.
        if not asked:
            problems += [f"ONNX's inference knows more: {x}" for x in onnx_says["onnx_knows_more"]]
            problems += [f"ONNX's inference disagrees: {x}" for x in onnx_says["disagree"]]
        declared = onnx_says["declared"]
        unknown = [t["name"] for t in report["tensors"] if t["shape"] == "[...]"]
        missing = [t["name"] for t in report["tensors"] if t["name"] not in declared and t["name"] not in unknown]
        if missing:
            problems.append(f"not declared in the copy: {missing[:5]}")
        if unknown:
            problems.append(f"of unknown rank: {unknown[:5]}")
        # At batch 3 too where every input the spec batches declares its batch by name: names must then bind
        # to other values.
        inputs = json.loads(pathlib.Path(spec).read_text())["inputs"]
        batched = [(k, v["batch_axis"]) for k, v in inputs.items() if v.get("batch_axis") is not None]
        free = all(k in declared and isinstance(declared[k][axis], str) for k, axis in batched)
        batches = [1, 3] if batched and free else [1]
        body_checked = 0
        for b in batches:
            o = run([NODE, str(SHAPES_JS), str(exposed), str(spec), str(b)])
            if o.returncode != 0:
                problems.append(f"shapes.js exit {o.returncode}: {o.stderr.strip()}")
                continue
            result = json.loads(o.stdout)
            if "error" in result:
                problems.append(f"ONNX Runtime at batch {b}: {result['error']}")
                continue
            bodies = body_shapes(result)
            # Every body tensor reshape1 lists is run: its shape at each iteration is held against its declaration.
            unrun = [t["name"] for t in report["tensors"] if t.get("within") and t["name"] not in bodies]
            if unrun:
                problems.append(f"body tensors ONNX Runtime did not expose at batch {b}: {unrun[:5]}")
            body_checked += sum(len(each) for each in bodies.values())
            compare(declared, result["outputs"], bodies, problems, f"batch {b}")
        s = report["summary"]
        in_bodies = sum(1 for t in report["tensors"] if t.get("within"))
        print(f"{name}: {s['tensors']} tensors, {s['rank_known']} of known rank, {s['static']} static"
              f"{f' ({in_bodies} in bodies, run as {body_checked} shapes, one per iteration)' if in_bodies else ''}; "
              f"{len(declared)} declared; ONNX's checker {onnx_says['checker']}, its inference {onnx_says['inference']}"
              f"{'; ' + str(len(problems)) + ' problems' if problems else ''}")
        failures += [f"{name}: {p}" for p in problems]

for f in failures:
    print("FAIL", f)
sys.exit(1 if failures else 0)
