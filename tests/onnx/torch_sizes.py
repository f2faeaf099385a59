#!/usr/bin/env python3
"""`check --shape` on real torch.onnx.export output, against ONNX Runtime (tests/data/torch, made by make.py).

For each module: NAME.at_a.onnx (exported at size A with fixed shapes, as users ship it) is run by ONNX
Runtime at size B with its varying input dims freed and its output dims cleared (onnx_free_batch --free),
against NAME.at_b.onnx (the same module exported at B: the truth); NAME.dynamic.onnx (exported with
dynamic_axes) is run at B against the same truth. reshape1 checks NAME.at_a.onnx and NAME.dynamic.onnx with
`--shape x=B`. The soundness rule holds for every pair, whatever the table says: "yes" only where ONNX
Runtime gives the truth's results, "no" only where it fails. The table pins the answers and the outcomes.

Then `fix --shape` on NAME.at_a.onnx with the changing axes asked as `?`: a model it writes must, run as
written by ONNX Runtime, give NAME.at_a.onnx's results at A and NAME.at_b.onnx's at B (never a model that
differs); the table pins which modules it fixes and which it refuses.

Last, `fix --shape` on hand-written fixtures (tests/data/onnx, built into FIXTURES) whose truth at B is a
fixture too: the model written must give, in ONNX Runtime, the truth's outputs at B and the original's at A.

Usage: torch_sizes.py RESHAPE1 ONNX_FREE_BATCH FIXTURES
"""
import json
import os
import pathlib
import subprocess
import sys
import tempfile

RESHAPE1, FREE, FIXTURES = sys.argv[1], sys.argv[2], pathlib.Path(sys.argv[3])
HERE = pathlib.Path(__file__).resolve().parent
DATA = HERE.parents[1] / "tests" / "data" / "torch"
SAME = HERE / "ort" / "same.js"
NODE = os.environ.get("RESHAPE1_NODE", "node")

# name: (shape at B, axes that change, (reshape1 on at_a, ONNX Runtime on at_a at B), reshape1 on dynamic,
#        fix --shape on at_a: "fixed" or "refused"[, how fix asks: {"asked": DIM, "assume": [CONSTANT, ...]}])
CASES = {
    # view(b, h//ws, ws, w//ws, ws, c) exports as Reshape [1,4,4,4,4,8] on [1,16,16,8]: 256 elements per
    # channel at A, 768 at B: the pattern no longer fits, and ONNX Runtime refuses it too.
    "window_partition": ([1, 24, 32, 8], [1, 2], ("no", "fails"), "yes", "refused"),
    # arange(h), arange(w) fold to two constants that count 0..7 ([8,1] and [1,8]), each expanded to a fixed
    # [8,8], the grid the Add then broadcasts against [1,2,12,16]. fix computes each count as a Range of x's
    # extent (counted_range) and each Expand's shape from x. H and W are asked as 2.. (the Add broadcasts a
    # 1), and the stride 8.0 the grid is scaled by, equal to the 8 of H and W, is vouched for.
    "range_grid": ([1, 2, 12, 16], [2, 3], ("no", "fails"), "yes", "fixed",
                   {"asked": "2..", "assume": ["/Constant_6_output_0"]}),
    # interpolate(size=(2h, 2w)) folds to Resize sizes [1,4,16,16]: at B it still makes 16x16 (runs, but not
    # the 24x32 the module makes). The sizes are placed along H and W, whose size changes: cannot tell. fix
    # computes them from the Resize's input shape, twice its H and W.
    "interpolate_to_size": ([1, 3, 12, 16], [2, 3], ("cannot tell", "differ"), "yes", "fixed"),
    # scale_factor=2 exports as Resize scales: nothing about the size is a constant.
    "interpolate_by_scale": ([1, 3, 12, 16], [2, 3], ("yes", "same"), "yes", "fixed"),
    # view(1, c*h*w): Reshape [1,192] on 576 elements at B fails.
    "flatten_baked": ([1, 3, 12, 16], [2, 3], ("no", "fails"), "yes", "fixed"),
    # view(b, -1): Reshape [1,-1].
    "flatten_inferred": ([1, 3, 12, 16], [2, 3], ("yes", "same"), "yes", "fixed"),
    # view(b, L, heads, -1) with L = 12 baked: Reshape [1,12,4,-1] of q, k and v, [1,20,16] at B: 320
    # elements, which 1*12*4 = 48 does not divide. All three fail.
    "attention_baked": ([1, 20, 16], [1], ("no", "fails"), "yes", "fixed"),
    # view(b, -1, heads, d) and reshape(b, -1, dim).
    "attention_inferred": ([1, 20, 16], [1], ("yes", "same"), "yes", "fixed"),
    # sum / (h*w): the divisor 64 equals H*W at A (8x8) and is a constant at B (where H*W is 192): the model
    # runs and returns three times the mean; reshape1 names the divisor: cannot tell. fix computes it as the
    # count of the elements summed, H*W.
    "mean_by_size": ([1, 4, 12, 16], [2, 3], ("cannot tell", "differ"), "yes", "fixed"),
    # (x - mean) / std with torch's unbiased std: torch 1.13 computes the count H*W and H*W - 1 from
    # Shape(x) even at fixed shapes, so nothing about the size is a constant (a converter that folds static
    # shapes writes 64 and 63: size_differential.py's variance families, which get "cannot tell").
    "std_normalize": ([1, 4, 12, 16], [2, 3], ("yes", "same"), "yes", "fixed"),
    # ShuffleNetV2's channel shuffle, view(b, 2, c/2, h, w), exports as Reshape [1,2,24,16,16]: fails at B.
    "shufflenet": ([1, 3, 96, 128], [2, 3], ("no", "fails"), "yes", "refused"),
}

# Hand-written fixtures: name: (the truth's fixture, the shape asked, the shapes at B and at A).
FIXED = {
    # A channel shuffle whose two patterns are computed from their inputs' shapes.
    "size_fix_channel_shuffle": ("size_fix_channel_shuffle_at_b", "x=[1,6,?,?]", [1, 6, 16, 22], [1, 6, 10, 14]),
    # A window partition whose split of H and W is read from the later windows' 7s, proven at multiples of 7.
    "size_fix_window_partition": ("size_fix_window_partition_at_b", "x=[1,?,?,5]", [1, 35, 56, 5], [1, 28, 42, 5]),
    # The whole window attention block: the partition read from the windows, each reverse from the shape it
    # gives back (the windows' grid, the map), proven at multiples of 7.
    "size_fix_window_attention": ("size_fix_window_attention_at_b", "x=[1,?,?,5]", [1, 35, 56, 5], [1, 28, 42, 5]),
    # An upsampling back to the skip connection's size (Resize sizes baked), computed from the skip's shape.
    "size_fix_upsample_to_skip": ("size_fix_upsample_to_skip_at_b", "x=[1,2,2..,2..]", [1, 2, 14, 22], [1, 2, 12, 16]),
    # A crop to half the width with int32 bounds: the end computed and cast to int32 (ONNX Runtime refuses a
    # Slice whose bounds differ in type), at an odd width at B.
    "size_fix_crop_half_int32": ("size_fix_crop_half_int32_at_b", "x=[1,2,6,?]", [1, 2, 6, 21], [1, 2, 6, 14]),
    # The last step of a sequence at a baked position (6 of 7): written as -1.
    "size_fix_last_position": ("size_fix_last_position_at_b", "x=[1,?,4]", [1, 10, 4], [1, 7, 4]),
    # The same with the position a Constant node's value_int: the node rewritten to hold -1.
    "size_fix_last_position_value_int": ("size_fix_last_position_at_b", "x=[1,?,4]", [1, 10, 4], [1, 7, 4]),
    # The same position passed on by an Identity: the initializer behind it rewritten.
    "size_fix_last_position_identity": ("size_fix_last_position_at_b", "x=[1,?,4]", [1, 10, 4], [1, 7, 4]),
    # A flatten whose pattern is a Constant node's value_ints: computed from the shape.
    "size_fix_flatten_value_ints": ("size_fix_flatten_value_ints_at_b", "x=[1,3,?,?]", [1, 3, 6, 8], [1, 3, 4, 4]),
    # Each row sorted whole (TopK's k baked as the width): k computed from the shape.
    "size_fix_topk_width": ("size_fix_topk_width_at_b", "x=[1,2,6,?]", [1, 2, 6, 20], [1, 2, 6, 14]),
    # A mean over the rows spread back over them by Tile and by Expand: both read from the map they meet.
    "size_fix_tile_expand": ("size_fix_tile_expand_at_b", "x=[1,2,2..,2..]", [1, 2, 10, 12], [1, 2, 6, 8]),
    # A grid of columns counted in floats, added to the map: its limit read from the map, cast to float.
    "size_fix_range_grid": ("size_fix_range_grid_at_b", "x=[1,2,2..,2..]", [1, 2, 10, 12], [1, 2, 6, 8]),
    # A mean written as a sum over H and W divided by their count, baked as a float: the count computed.
    "size_fix_mean_divisor": ("size_fix_mean_divisor_at_b", "x=[1,3,?,?]", [1, 3, 10, 12], [1, 3, 6, 8]),
    # Global average pooling written as a window of the whole map: GlobalAveragePool.
    "size_fix_global_pool": ("size_fix_global_pool_at_b", "x=[1,3,?,?]", [1, 3, 10, 12], [1, 3, 6, 8]),
    # The same with a MaxPool (CBAM's max_pool2d(x, x.shape[2:])): GlobalMaxPool, the unread indices gone.
    "size_fix_global_max_pool": ("size_fix_global_max_pool_at_b", "x=[1,3,?,?]", [1, 3, 10, 12], [1, 3, 6, 8]),
    # The same on int8 (opset 12) and uint8 (opset 18) values, which GlobalMaxPool does not take: ReduceMax.
    "size_fix_global_max_pool_int8": ("size_fix_global_max_pool_int8_at_b", "x=[1,3,?,?]", [1, 3, 10, 12], [1, 3, 6, 8]),
    "size_fix_global_max_pool_uint8_opset18": ("size_fix_global_max_pool_uint8_opset18_at_b", "x=[1,3,?,?]",
                                               [1, 3, 10, 12], [1, 3, 6, 8]),
    # A language model's positions, position_ids[:, :L] baked as [[0..5]]: computed as a Range of L, within
    # the table's 16.
    "size_fix_position_ids": ("size_fix_position_ids_at_b", "x=[1,2..16,4]", [1, 9, 4], [1, 6, 4]),
    # Swin's pad of W to a multiple of its window (4), windows, crop back: the pad computed as (4-W%4)%4.
    "size_fix_pad_to_window": ("size_fix_pad_to_window_at_b", "x=[1,7,2..,2..]", [1, 7, 12, 22], [1, 7, 10, 18]),
    # The same over H and W: H's pad of 0 at A read as a pad to the window, as the crop cuts H too.
    "size_fix_pad_to_window_2d": ("size_fix_pad_to_window_2d_at_b", "x=[1,11,2..,2..]", [1, 11, 10, 22], [1, 11, 12, 18]),
    # The same mean written as the sum times 1/48: one over the count computed (Reciprocal of the Cast).
    "size_fix_mean_reciprocal": ("size_fix_mean_reciprocal_at_b", "x=[1,3,?,?]", [1, 3, 10, 12], [1, 3, 6, 8]),
    # yolov5's Detect head with its cell grid folded whole into a constant [1,3,11,10,2] (column and row less
    # 0.5): the grid computed from Ranges of the cells' H and W, the head's view and the boxes' flatten too.
    "size_fix_folded_grid": ("size_fix_folded_grid_at_b", "x=[1,12,2..,2..]", [1, 12, 13, 14], [1, 12, 11, 10]),
    # The same head with its anchor_grid (each anchor's width and height at every cell) folded whole too: it
    # becomes its first cell spread along Ranges of H and W (spread_along_size).
    "size_fix_anchor_grid": ("size_fix_anchor_grid_at_b", "x=[1,12,2..,2..]", [1, 12, 13, 14], [1, 12, 11, 10]),
    # x.shape folded into a table [1,2,6,8] and k = W - 1 read from it (shape_table): the table computed as
    # x's shape, so TopK keeps W - 1 at every width.
    "size_shape_table": ("size_shape_table_at_b", "x=[1,2,?,?]", [1, 2, 3, 16], [1, 2, 6, 8]),
    # The same table concatenated with a 0 and W sliced out of it for an Expand's shape.
    "size_shape_table_concat": ("size_shape_table_concat_at_b", "x=[1,2,?,?]", [1, 2, 5, 16], [1, 2, 6, 8]),
    # A pooled map's shape as the table, its W counted through a ConstantOfShape: computed as the map's shape.
    "size_shape_table_pooled": ("size_shape_table_pooled_at_b", "x=[1,2,2..,2..]", [1, 2, 6, 12], [1, 2, 8, 20]),
    # x's shape stored as floats, cast to integers, W taken for a Range: computed as x's shape cast to floats.
    "size_shape_table_float": ("size_shape_table_float_at_b", "x=[1,2,2..,2..]", [1, 2, 3, 16], [1, 2, 6, 8]),
    # A pooled map's shape as a table read whole by an Expand of ones, counted: computed as the map's shape.
    "size_expand_table_counted": ("size_expand_table_counted_at_b", "x=[1,2,?,?]", [1, 2, 10, 12], [1, 2, 6, 8]),
    # The same table stored as [1,4] and squeezed: computed as the map's shape, reshaped to [1,-1].
    "size_expand_table_squeezed": ("size_expand_table_squeezed_at_b", "x=[1,2,?,?]", [1, 2, 10, 12], [1, 2, 6, 8]),
    # The map's shape without its 1 ([2,3,4]) as the table: computed as the map's dimensions 1..3.
    "size_expand_table_part": ("size_expand_table_part_at_b", "x=[1,2,?,?]", [1, 2, 10, 12], [1, 2, 6, 8]),
    # The map's element count ([24]) as the table: computed as the product of its dimensions 1..3.
    "size_expand_count_table": ("size_expand_count_table_at_b", "x=[1,2,?,?]", [1, 2, 10, 12], [1, 2, 6, 8]),
    # The table stored as [2,2] and reshaped to [-1]: computed as the map's shape (a Reshape passes it).
    "size_expand_table_reshaped": ("size_expand_table_reshaped_at_b", "x=[1,3,?,?]", [1, 3, 18, 22], [1, 3, 14, 10]),
    "size_constant_of_shape_table_counted": ("size_constant_of_shape_table_counted_at_b", "x=[1,2,?,?]", [1, 2, 10, 12],
                                             [1, 2, 6, 8]),
    # view(x.size(0), 2, -1) exported with a dynamic batch alone, [N, 2, 48]: -1 for the 48, the batch left computed.
    "size_fix_view_batch_computed": ("size_fix_view_batch_computed_at_b", "x=[1,2,?,?]", [1, 2, 10, 12], [1, 2, 6, 8]),
}


def answer(model: pathlib.Path, shape) -> str:
    p = subprocess.run([RESHAPE1, "check", str(model), "--shape", f"x={json.dumps(shape).replace(' ', '')}"],
                       capture_output=True, text=True, timeout=300)
    said = {0: "yes", 1: "no", 4: "cannot tell"}.get(p.returncode)
    if said is None:
        raise SystemExit(f"{model.name}: check exited {p.returncode}\n{p.stdout}{p.stderr}")
    return said


def declared_shape(model: pathlib.Path):
    """The first input's declared shape, as a list of ints."""
    p = subprocess.run([RESHAPE1, "check", str(model), "--batch", "1", "--json"], capture_output=True, text=True, check=True)
    return [int(d) for d in json.loads(p.stdout)["inputs"][0]["declared"].strip("[]").split(",")]


def fix(name: str, axes, out: pathlib.Path, how) -> str:
    """fix --shape on NAME.at_a.onnx, the changing axes asked as `?` (or how["asked"]), the constants in
    how["assume"] vouched for: "fixed" (out written) or "refused"."""
    dims = [str(d) for d in declared_shape(DATA / f"{name}.at_a.onnx")]
    for a in axes:
        dims[a] = how.get("asked", "?")
    vouched = [arg for c in how.get("assume", []) for arg in ("--assume-constant", c)]
    p = subprocess.run([RESHAPE1, "fix", str(DATA / f"{name}.at_a.onnx"), "--shape", f"x=[{','.join(dims)}]",
                        "-o", str(out), "--json"] + vouched, capture_output=True, text=True, timeout=300)
    report = json.loads(p.stdout)
    if p.returncode not in (0, 1) or (p.returncode == 0) != out.exists():
        raise SystemExit(f"{name}: fix exited {p.returncode}\n{p.stdout}{p.stderr}")
    return "fixed" if p.returncode == 0 and report.get("fixed") else "refused"


def main() -> int:
    failures = []
    with tempfile.TemporaryDirectory(prefix="reshape1-torch-") as tmp:
        tmp = pathlib.Path(tmp)
        pairs = []
        fixed = {}
        for name, (shape, axes, _, _, _, *how) in CASES.items():
            freed = tmp / f"{name}.freed.onnx"
            args = [FREE, str(DATA / f"{name}.at_a.onnx"), str(freed)]
            for a in axes:
                args += ["--free", f"x={a}"]
            subprocess.run(args, check=True)
            spec = tmp / f"{name}.json"
            spec.write_text(json.dumps({"inputs": {"x": shape}, "seed": 1}))
            truth = str(DATA / f"{name}.at_b.onnx")
            pairs += [[str(freed), truth, str(spec)], [str(DATA / f"{name}.dynamic.onnx"), truth, str(spec)]]
            # The fixed model, as written, at B against the truth and at A against the export at A.
            out = tmp / f"{name}.fixed.onnx"
            fixed[name] = fix(name, axes, out, how[0] if how else {})
            if fixed[name] == "fixed":
                spec_a = tmp / f"{name}.a.json"
                spec_a.write_text(json.dumps({"inputs": {"x": declared_shape(DATA / f"{name}.at_a.onnx")}, "seed": 2}))
                pairs += [[str(out), truth, str(spec)], [str(out), str(DATA / f"{name}.at_a.onnx"), str(spec_a)]]
        for name, (truth, asked, at_b, at_a) in FIXED.items():
            out = tmp / f"{name}.fixed.onnx"
            p = subprocess.run([RESHAPE1, "fix", str(FIXTURES / f"{name}.onnx"), "--shape", asked, "-o", str(out)],
                               capture_output=True, text=True, timeout=300)
            if p.returncode != 0:
                failures.append(f"{name}: fix --shape {asked} exited {p.returncode}: {p.stdout}{p.stderr}")
                continue
            for where, shape, against in (("B", at_b, FIXTURES / f"{truth}.onnx"), ("A", at_a, FIXTURES / f"{name}.onnx")):
                spec = tmp / f"{name}.{where}.json"
                spec.write_text(json.dumps({"inputs": {"x": shape}, "seed": 3}))
                pairs.append([str(out), str(against), str(spec)])
                fixed[f"{name}@{where}"] = "fixed"
        listing = tmp / "pairs.json"
        listing.write_text(json.dumps(pairs))
        p = subprocess.run([NODE, str(SAME), "--many", str(listing)], capture_output=True, text=True, timeout=600)
        if p.returncode != 0:
            print(p.stdout + p.stderr)
            return 1
        outcomes = [json.loads(line) for line in p.stdout.splitlines()]
    print(f"{'module':22} {'at_a: reshape1':16} {'ONNX Runtime':14} {'dynamic: reshape1':18} {'ONNX Runtime':14} "
          "fix --shape: ONNX Runtime at B, at A")
    at = 0
    for name, (shape, _, (want_a, want_ort), want_dynamic, want_fix, *_) in CASES.items():
        ort_a, ort_dynamic = outcomes[at], outcomes[at + 1]
        at += 2
        ort_fix = []
        if fixed[name] == "fixed":
            ort_fix = outcomes[at:at + 2]
            at += 2
            for where, o in zip(("B", "A"), ort_fix):
                if o["outcome"] != "same":
                    failures.append(f"{name}: fix --shape wrote a model that ONNX Runtime at {where} finds "
                                    f"{o['outcome']}: {o['detail']}")
        if fixed[name] != want_fix:
            failures.append(f"{name}: fix --shape {fixed[name]}, pinned {want_fix}")
        said_a = answer(DATA / f"{name}.at_a.onnx", shape)
        said_dynamic = answer(DATA / f"{name}.dynamic.onnx", shape)
        print(f"{name:22} {said_a:16} {ort_a['outcome']:14} {said_dynamic:18} {ort_dynamic['outcome']:14} "
              f"{fixed[name]}{': ' + ', '.join(o['outcome'] for o in ort_fix) if ort_fix else ''}")
        for model, said, ort in ((f"{name}.at_a", said_a, ort_a), (f"{name}.dynamic", said_dynamic, ort_dynamic)):
            if ort["outcome"] == "truth_fails":
                failures.append(f"{model}: the truth does not run: {ort['detail']}")
            if said == "yes" and ort["outcome"] != "same":
                failures.append(f"{model}: reshape1 says yes, ONNX Runtime {ort['outcome']}: {ort['detail']}")
            if said == "no" and ort["outcome"] != "fails":
                failures.append(f"{model}: reshape1 says no, ONNX Runtime {ort['outcome']}")
        if (said_a, ort_a["outcome"]) != (want_a, want_ort):
            failures.append(f"{name}.at_a: {said_a} / {ort_a['outcome']}, pinned {want_a} / {want_ort}")
        if said_dynamic != want_dynamic or ort_dynamic["outcome"] != "same":
            failures.append(f"{name}.dynamic: {said_dynamic} / {ort_dynamic['outcome']}, pinned {want_dynamic} / same")
    for name in FIXED:
        for where in ("B", "A"):
            if f"{name}@{where}" not in fixed:
                continue
            o = outcomes[at]
            at += 1
            print(f"{name} fixed, at {where}: ONNX Runtime {o['outcome']}")
            if o["outcome"] != "same":
                failures.append(f"{name}: fix --shape wrote a model that ONNX Runtime at {where} finds {o['outcome']}: {o['detail']}")
    for f in failures:
        print("FAIL", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
