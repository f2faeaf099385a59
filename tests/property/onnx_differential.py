#!/usr/bin/env python3
"""Differential test of `reshape1 check MODEL.onnx --shape x=[3,...]` against ONNX Runtime.

It generates random small ONNX graphs (protobuf text, turned into .onnx by onnx_from_text) declared at
batch 1: a chain of ops drawn from the translated ones, with the batch at axis 0, patterns hard-coded
(`[1,-1]`, the whole batch-1 shape), kept (`[0,-1]`) or computed (Shape, Gather, Concat), and ops along
random axes, the batch axis included. ONNX Runtime runs each on three samples alone and stacked
(tests/onnx/ort/oracle.js, on a copy with the batch freed); reshape1's verdict at batch 3 is held against it:
  - a "yes" where ONNX Runtime fails or differs is a failure (the model is kept and printed);
  - among the graphs ONNX Runtime runs correctly, at most 5% may get "no" or "cannot tell";
  - at least 20% of the graphs must break, so that both sides are tested.
Graphs ONNX Runtime cannot run at batch 1 are not counted.

    onnx_differential.py RESHAPE1 ONNX_FROM_TEXT ONNX_FREE_BATCH [--graphs N] [--seed S] [--keep DIR]
"""
import argparse
import collections
import json
import math
import os
import pathlib
import random
import shutil
import subprocess
import sys
import tempfile

HERE = pathlib.Path(__file__).resolve().parent
ORACLE = HERE.parent / "onnx" / "ort" / "oracle.js"
BATCH = 3
NODE = os.environ.get("RESHAPE1_NODE", "node")


class Graph:
    """A chain of nodes on one tensor, in protobuf text; `shape` is the current tensor's at batch 1."""

    def __init__(self, rng, shape):
        self.rng, self.shape, self.nodes, self.inits, self.n, self.current, self.ops = rng, shape, [], [], 0, "x", []

    def name(self, what):
        self.n += 1
        return f"{what}{self.n}"

    def init(self, values, dims, dtype=7):
        name = self.name("c")
        field = "int64_data" if dtype == 7 else "float_data"
        dims_text = "".join(f" dims: {d}" for d in dims)
        self.inits.append(f'initializer {{ name: "{name}" data_type: {dtype}{dims_text} {field}: {list(values)} }}')
        return name

    def node(self, op, inputs, attrs="", out_shape=None, family=None):
        out = self.name("t")
        ins = ", ".join(f'"{i}"' for i in inputs)
        self.nodes.append(f'node {{ name: "{out}" op_type: "{op}" input: [{ins}] output: ["{out}"] {attrs}}}')
        if out_shape is not None:
            self.current, self.shape = out, out_shape
            self.ops.append(family or op)
        return out

    def text(self):
        dims = "".join(f" dim {{ dim_value: {d} }}" for d in self.x_shape)
        out_dims = "".join(f" dim {{ dim_value: {d} }}" for d in self.shape)
        body = "\n  ".join(self.inits + self.nodes)
        return (f'ir_version: 8\nopset_import {{ domain: "" version: 14 }}\ngraph {{\n  name: "g"\n'
                f'  input {{ name: "x" type {{ tensor_type {{ elem_type: 1 shape {{{dims} }} }} }} }}\n  {body}\n'
                f'  output {{ name: "{self.current}" type {{ tensor_type {{ elem_type: 1 shape {{{out_dims} }} }} }} }}\n}}\n')


def ints(name, values):
    return f'attribute {{ name: "{name}" type: INTS ints: {list(values)} }} '


def int_attr(name, value):
    return f'attribute {{ name: "{name}" type: INT i: {value} }} '


def step(g):
    rng, s = g.rng, g.shape
    rank = len(s)
    axis = rng.randrange(rank)
    kind = rng.choice(["relu", "add", "transpose", "reshape", "reshape", "softmax", "reduce", "concat", "flatten",
                       "unsqueeze", "slice", "gather", "matmul", "tile", "split_swap"])
    if kind == "relu":
        g.node("Relu", [g.current], out_shape=s)
    elif kind == "add":
        k = rng.randrange(1, rank + 1)
        dims = [d if rng.random() < 0.7 else 1 for d in s[rank - k:]]
        c = g.init([round(rng.uniform(-1, 1), 3) for _ in range(math.prod(dims))], dims, dtype=1)
        g.node("Add", [g.current, c], out_shape=s)
    elif kind == "transpose":
        perm = list(range(rank))
        rng.shuffle(perm)
        g.node("Transpose", [g.current], ints("perm", perm), [s[p] for p in perm])
    elif kind == "reshape":
        total = math.prod(s)
        choice = rng.choice(["pin", "keep", "whole", "computed", "fold"])
        if choice == "pin":  # [1,-1]: the batch written as 1
            g.node("Reshape", [g.current, g.init([1, -1], [2])], out_shape=[1, total], family="reshape_pin")
        elif choice == "keep":
            g.node("Reshape", [g.current, g.init([0, -1], [2])], out_shape=[s[0], total // s[0]], family="reshape_keep")
        elif choice == "whole":  # the batch-1 shape regrouped, every dimension a constant
            dims = [d for d in s if d != 1] or [1]
            rng.shuffle(dims)
            g.node("Reshape", [g.current, g.init(dims, [len(dims)])], out_shape=dims, family="reshape_whole")
        elif choice == "computed":
            shape = g.node("Shape", [g.current])
            n = g.node("Gather", [shape, g.init([0], [])], int_attr("axis", 0))
            n1 = g.node("Unsqueeze", [n, g.init([0], [1])])
            p = g.node("Concat", [n1, g.init([-1], [1])], int_attr("axis", 0))
            g.node("Reshape", [g.current, p], out_shape=[s[0], total // s[0]], family="reshape_computed")
        else:  # fold the first two axes together ([-1, rest...])
            if rank < 2:
                return
            out = [s[0] * s[1], *s[2:]]
            g.node("Reshape", [g.current, g.init([-1, *s[2:]], [rank - 1])], out_shape=out, family="reshape_fold")
    elif kind == "softmax":
        g.node("Softmax", [g.current], int_attr("axis", axis), s)
    elif kind == "reduce":
        keep = rng.random() < 0.5
        out = [1 if i == axis else d for i, d in enumerate(s)] if keep else [d for i, d in enumerate(s) if i != axis]
        if not out:
            return
        if rng.random() < 0.5:  # axes as an attribute (ReduceMean before opset 18)
            g.node("ReduceMean", [g.current], ints("axes", [axis]) + int_attr("keepdims", int(keep)), out)
        else:  # axes as an input (ReduceSum from opset 13)
            g.node("ReduceSum", [g.current, g.init([axis], [1])], int_attr("keepdims", int(keep)), out,
                   family="reduce_sum")
    elif kind == "concat":
        dims = list(s)
        dims[axis] = rng.choice([1, 2])
        c = g.init([round(rng.uniform(-1, 1), 3) for _ in range(math.prod(dims))], dims, dtype=1)
        out = list(s)
        out[axis] += dims[axis]
        g.node("Concat", [g.current, c], int_attr("axis", axis), out)
    elif kind == "flatten":
        a = rng.randrange(rank + 1)
        g.node("Flatten", [g.current], int_attr("axis", a), [math.prod(s[:a]), math.prod(s[a:])])
    elif kind == "unsqueeze":
        if rank >= 5:
            return
        a = rng.randrange(rank + 1)
        g.node("Unsqueeze", [g.current, g.init([a], [1])], out_shape=[*s[:a], 1, *s[a:]])
    elif kind == "slice":
        if s[axis] < 2:
            return
        start, end = 0, rng.randrange(1, s[axis])
        out = list(s)
        out[axis] = end - start
        g.node("Slice", [g.current, g.init([start], [1]), g.init([end], [1]), g.init([axis], [1])], out_shape=out)
    elif kind == "gather":
        idx = [rng.randrange(s[axis]) for _ in range(rng.randrange(1, 3))]
        out = list(s)
        out[axis] = len(idx)
        g.node("Gather", [g.current, g.init(idx, [len(idx)])], int_attr("axis", axis), out)
    elif kind == "matmul":
        if rank < 2:
            return
        k = rng.choice([2, 3])
        w = g.init([round(rng.uniform(-1, 1), 3) for _ in range(s[-1] * k)], [s[-1], k], dtype=1)
        g.node("MatMul", [g.current, w], out_shape=[*s[:-1], k])
    elif kind == "tile":
        reps = [1] * rank
        reps[axis] = 2
        out = list(s)
        out[axis] *= 2
        g.node("Tile", [g.current, g.init(reps, [rank])], out_shape=out)
    elif kind == "split_swap":  # halves along an axis, concatenated in the other order
        if s[axis] % 2 or s[axis] < 2:
            return
        a = g.name("t")  # Split-13 without `split`: two equal halves, one per output
        g.nodes.append(f'node {{ name: "{a}" op_type: "Split" input: ["{g.current}"] output: ["{a}", "{a}b"] '
                       f'{int_attr("axis", axis)}}}')
        g.node("Concat", [f"{a}b", a], int_attr("axis", axis), s, family="split_swap")
    if math.prod(g.shape) > 400 or max(g.shape, default=1) > 64:
        raise ValueError("too large")


def generate(rng):
    rank = rng.choice([2, 3, 3, 4])
    shape = [1] + [rng.choice([2, 3, 4]) for _ in range(rank - 1)]
    g = Graph(rng, list(shape))
    g.x_shape = list(shape)
    for _ in range(rng.randrange(1, 6)):
        step(g)
    return g


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("reshape1")
    parser.add_argument("from_text")
    parser.add_argument("free_batch")
    parser.add_argument("--graphs", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--keep", default=None)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    tmp = pathlib.Path(tempfile.mkdtemp(prefix="reshape1-onnx-diff-"))
    graphs = []
    while len(graphs) < args.graphs:
        try:
            g = generate(rng)
        except ValueError:
            continue
        i = len(graphs)
        (tmp / f"g{i}.textproto").write_text(g.text())
        subprocess.run([args.from_text, tmp / f"g{i}.textproto", tmp / f"g{i}.onnx"], check=True)
        subprocess.run([args.free_batch, tmp / f"g{i}.onnx", tmp / f"g{i}.free.onnx"], check=True)
        spec = {"inputs": {"x": {"shape": g.x_shape, "batch_axis": 0, "range": [-1, 2]}}, "batches": [BATCH],
                "seed": args.seed + i}
        (tmp / f"g{i}.json").write_text(json.dumps(spec))
        graphs.append(g)
    listing = [[str(tmp / f"g{i}.free.onnx"), str(tmp / f"g{i}.json")] for i in range(len(graphs))]
    (tmp / "list.json").write_text(json.dumps(listing))
    run = subprocess.run([NODE, str(ORACLE), "--many", str(tmp / "list.json")], capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit(f"onnx_differential: the oracle failed: {run.stderr[-2000:]}")
    oracle = [json.loads(line)["batches"][str(BATCH)] for line in run.stdout.splitlines()]

    counts = collections.Counter()
    families = collections.defaultdict(collections.Counter)
    failures = []
    for i, g in enumerate(graphs):
        o = oracle[i]
        if o["outcome"] == "fails" and o["detail"].startswith(("one sample alone", "loading")):
            counts["invalid at batch 1"] += 1
            continue
        dims = ",".join(map(str, [BATCH, *g.x_shape[1:]]))
        check = subprocess.run([args.reshape1, "check", tmp / f"g{i}.onnx", "--shape", f"x=[{dims}]", "--json"],
                               capture_output=True, text=True, timeout=60)
        verdict = json.loads(check.stdout)["summary"]["verdict"] if check.stdout else "error"
        correct = o["outcome"] == "correct"
        counts["correct" if correct else "broken"] += 1
        for f in set(g.ops):
            families[f]["correct" if correct else "broken"] += 1
        if verdict == "yes" and not correct:
            failures.append(f"g{i}: reshape1 says yes, ONNX Runtime {o['outcome']}: {o['detail']}\n{g.text()}")
            counts["wrong yes"] += 1
        elif verdict == "error":
            failures.append(f"g{i}: reshape1 failed: {check.stderr}\n{g.text()}")
        elif correct and verdict != "yes":
            counts[f"false {verdict}"] += 1
        if args.keep and (verdict == "yes") != correct:
            os.makedirs(args.keep, exist_ok=True)
            shutil.copy(tmp / f"g{i}.textproto", pathlib.Path(args.keep) / f"g{i}-{verdict}-{o['outcome']}.textproto")
    shutil.rmtree(tmp)

    print(f"{'op family':20} correct  broken")
    for f in sorted(families):
        print(f"{f:20} {families[f]['correct']:7}  {families[f]['broken']:6}")
    judged = counts["correct"] + counts["broken"]
    false = counts["false no"] + counts["false cannot_tell"]
    print(f"{len(graphs)} graphs: {counts['invalid at batch 1']} invalid at batch 1, {judged} judged; ONNX Runtime "
          f"correct {counts['correct']}, broken {counts['broken']}; reshape1 wrong yes {counts['wrong yes']}, "
          f"false no {counts['false no']}, false cannot tell {counts['false cannot_tell']}")
    if counts["correct"] and false > 0.05 * counts["correct"]:
        failures.append(f"{false} of {counts['correct']} correct graphs got no or cannot tell (more than 5%)")
    if judged and counts["broken"] < 0.2 * judged:
        failures.append(f"only {counts['broken']} of {judged} graphs break: the generator tests one side only")
    for f in failures:
        print("FAIL", f)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
