#!/usr/bin/env python3
"""Differential test of `reshape1 check MODEL.onnx --shape x=[3,...]` against ONNX Runtime.

It generates random small ONNX graphs (protobuf text, turned into .onnx by onnx_from_text) declared at
batch 1: a chain of ops drawn from the translated ones, with the batch at axis 0, patterns hard-coded
(`[1,-1]`, the whole batch-1 shape), kept (`[0,-1]`) or computed (Shape, Gather, Concat), and ops along
random axes, the batch axis included. ONNX Runtime runs each on three samples alone and stacked
(tests/onnx/ort/oracle.js, on a copy with the batch freed); reshape1's verdict at batch 3 is held against it:
  - a "yes" where ONNX Runtime fails or differs is a failure (the model is kept and printed);
  - among the graphs ONNX Runtime runs correctly, at most 5% may get "no" or "cannot tell";
  - at least 20% of the graphs it runs at batch 1 must break, so that both sides are tested.
Besides the shape ops, the chain draws the batch size flowing into data (n = Gather(Shape(x), 0), or of
the current tensor, compared with a constant (Equal, Greater, Less) or computed on (Mod, Div, Sub, Max, Min),
then cast to float and multiplied or added in, or the condition of a Where or of an If whose branches differ:
size_scale, size_shift, size_where, size_if; or min(n - 1, k) or n mod a length as a Gather index or a Slice
start: size_pick; or a slice end that is 1 above 1000 and BATCH below: size_beyond), some values changing between batch 1 and 3 and some not; and
samples interleaved by a Reshape [k,-1] and put back by a Reshape to Shape (interleave); and
per-channel normalisation (batch_norm, instance_norm, and bn_training: BatchNormalization with
training_mode=1, which mixes samples). A fifth of the graphs are written at opset 11 or 12 (softmax_2d:
Softmax on the input flattened at its axis). One in ten gets an attribute ONNX Runtime refuses
(flatten_bad_axis, softmax_bad_axis mostly at opset 11/12, instance_norm_bad_scale). Graphs ONNX Runtime
cannot run at batch 1, those among them, are counted apart ("invalid"): a "yes" there is a failure too, but
they stay out of both thresholds.

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
    """A chain of nodes on one tensor, in protobuf text; `shape` is the current tensor's at batch 1. `opset` is
    the model's (the steps write each op as that opset has it); `invalid` is set by a step that means the model
    to be refused (an attribute out of range)."""

    def __init__(self, rng, shape, opset=14):
        self.rng, self.shape, self.nodes, self.inits, self.n, self.current, self.ops = rng, shape, [], [], 0, "x", []
        self.opset, self.invalid = opset, False

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
        return (f'ir_version: 8\nopset_import {{ domain: "" version: {self.opset} }}\ngraph {{\n  name: "g"\n'
                f'  input {{ name: "x" type {{ tensor_type {{ elem_type: 1 shape {{{dims} }} }} }} }}\n  {body}\n'
                f'  output {{ name: "{self.current}" type {{ tensor_type {{ elem_type: 1 shape {{{out_dims} }} }} }} }}\n}}\n')


def ints(name, values):
    return f'attribute {{ name: "{name}" type: INTS ints: {list(values)} }} '


def int_attr(name, value):
    return f'attribute {{ name: "{name}" type: INT i: {value} }} '


def unsqueeze(g, tensor, axis, out_shape=None, family=None):
    """Unsqueeze at `axis`: the axes an input from opset 13, an attribute before."""
    if g.opset >= 13:
        return g.node("Unsqueeze", [tensor, g.init([axis], [1])], out_shape=out_shape, family=family)
    return g.node("Unsqueeze", [tensor], ints("axes", [axis]), out_shape, family)


def step(g):
    rng, s = g.rng, g.shape
    rank = len(s)
    axis = rng.randrange(rank)
    kind = rng.choice(["relu", "add", "transpose", "reshape", "reshape", "softmax", "reduce", "concat", "flatten",
                       "unsqueeze", "slice", "gather", "matmul", "tile", "split_swap", "size", "size", "norm", "interleave"])
    if kind == "interleave":
        interleave_step(g, math.prod(s))
    elif kind == "size":
        size_step(g)
    elif kind == "norm":
        norm_step(g)
    elif kind == "relu":
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
            n1 = unsqueeze(g, n, 0)
            p = g.node("Concat", [n1, g.init([-1], [1])], int_attr("axis", 0))
            g.node("Reshape", [g.current, p], out_shape=[s[0], total // s[0]], family="reshape_computed")
        else:  # fold the first two axes together ([-1, rest...])
            if rank < 2:
                return
            out = [s[0] * s[1], *s[2:]]
            g.node("Reshape", [g.current, g.init([-1, *s[2:]], [rank - 1])], out_shape=out, family="reshape_fold")
    elif kind == "softmax":  # before opset 13 the input flattened to 2-D at the axis, the batch's row included
        g.node("Softmax", [g.current], int_attr("axis", axis), s, "Softmax" if g.opset >= 13 else "softmax_2d")
    elif kind == "reduce":
        keep = rng.random() < 0.5
        out = [1 if i == axis else d for i, d in enumerate(s)] if keep else [d for i, d in enumerate(s) if i != axis]
        if not out:
            return
        if rng.random() < 0.5:  # axes as an attribute (ReduceMean before opset 18)
            g.node("ReduceMean", [g.current], ints("axes", [axis]) + int_attr("keepdims", int(keep)), out)
        elif g.opset >= 13:  # axes as an input (ReduceSum from opset 13)
            g.node("ReduceSum", [g.current, g.init([axis], [1])], int_attr("keepdims", int(keep)), out,
                   family="reduce_sum")
        else:
            g.node("ReduceSum", [g.current], ints("axes", [axis]) + int_attr("keepdims", int(keep)), out,
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
        unsqueeze(g, g.current, a, [*s[:a], 1, *s[a:]], "Unsqueeze")
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


# n = Gather(Shape(t), 0) made a boolean (compared with 0 to 4) or an integer. At batch 1 and at BATCH (3) on x
# (whose axis 0 is the batch): Equal 1/3, Greater 1/2, Less 2/3 differ; Equal 0/2/4, Greater 0/3/4, Less 0/1/4
# do not; Mod 3 and Max 1 (n) differ; Mod 2 (odd at both), Div n (1), Sub n (0), Min 1 (1) do not. Both kinds,
# so that a "yes" is due where the value is the same and a wrong one where it is not.
COMPARISONS = ["Equal", "Greater", "Less"]
ARITHMETIC = [("Mod", 2), ("Mod", 3), ("Div", None), ("Sub", None), ("Max", 1), ("Min", 1), ("Max", 3)]
# If branches: each a different op on the outer tensor, read by name (a constant: an outer initializer).
BRANCHES = [("Identity", None), ("Mul", 2.0), ("Neg", None), ("Sigmoid", None), ("Add", 1.0)]


def interleave_step(g, total):
    """[k,-1] with k a dimension of the sample: at batch N each row holds elements of several samples. Then up to
    two layers on the interleaved tensor (elementwise, by a scalar or along its rows, a Softmax along either axis,
    two Transposes that cancel) and, mostly, a Reshape back to the Shape taken before the fold."""
    rng, s = g.rng, list(g.shape)
    ks = [d for d in s[1:] if d > 1]
    if not ks:
        return
    k = rng.choice(ks)
    before = g.node("Shape", [g.current])
    g.node("Reshape", [g.current, g.init([k, -1], [2])], out_shape=[k, total // k], family="interleave")
    for _ in range(rng.randrange(3)):
        kind = rng.choice(["relu", "scale", "add_rows", "softmax", "transposes"])
        cur = list(g.shape)
        if kind == "relu":
            g.node("Relu", [g.current], out_shape=cur, family="interleave")
        elif kind == "scale":
            g.node("Mul", [g.current, g.init([round(rng.uniform(0.5, 2), 3)], [], dtype=1)], out_shape=cur,
                   family="interleave")
        elif kind == "add_rows":  # one value per row: each row holds several samples at batch N
            c = g.init([round(rng.uniform(-1, 1), 3) for _ in range(k)], [k, 1], dtype=1)
            g.node("Add", [g.current, c], out_shape=cur, family="interleave")
        elif kind == "softmax":
            g.node("Softmax", [g.current], int_attr("axis", rng.randrange(2)), cur, "interleave")
        else:
            t = g.node("Transpose", [g.current], ints("perm", [1, 0]))
            g.node("Transpose", [t], ints("perm", [1, 0]), cur, "interleave")
    if rng.random() < 0.8:
        g.node("Reshape", [g.current, before], out_shape=s, family="interleave")


def size_step(g):
    """The batch size flowing into data: n = Gather(Shape(t), 0) compared with a constant or computed on, then
    cast to float and multiplied into or added to the current tensor, or the condition of a Where or an If. t is
    x (axis 0 the batch) or, less often, the current tensor, whose axis 0 may hold the batch, a multiple of it,
    or none of it (then n is a constant and the model keeps its meaning)."""
    rng, s = g.rng, g.shape
    source = "x" if rng.random() < 0.7 else g.current
    n = g.node("Gather", [g.node("Shape", [source]), g.init([0], [])], int_attr("axis", 0))
    use = rng.choice(["scale", "shift", "where", "if", "pick", "view", "beyond"])
    if use == "beyond":
        # A factor of BATCH rows, or of one row above 1000 (where the analysis follows the batch): the same
        # alone as at BATCH, another at the batches reshape1 samples, so those cannot show what it does.
        e = g.node("Where", [g.node("Greater", [n, g.init([1000], [])]), g.init([1], [1]), g.init([BATCH], [1])])
        w = g.init([round(rng.uniform(0.5, 2), 3) for _ in range(BATCH)], [BATCH] + [1] * (len(s) - 1), dtype=1)
        c = g.node("Slice", [w, g.init([0], [1]), e, g.init([0], [1])])
        g.node("Mul", [g.current, c], out_shape=[max(BATCH, s[0]), *s[1:]], family="size_beyond")
        return
    if use == "pick":
        pick_step(g, n)
        return
    if use == "view" and g.opset >= 12 and math.prod(s) % 3 == 0:
        # max(n, 3) as the first element of a Reshape's shape: 3 at batch 1 and at BATCH alike, and still no
        # share of a batch (a value equal at 1 and N is shared where it is data, never where it is a shape).
        first = g.node("Reshape", [g.node("Max", [n, g.init([3], [])]), g.init([1], [1])])
        shape = g.node("Concat", [first, g.init([-1], [1])], int_attr("axis", 0))
        g.node("Reshape", [g.current, shape], out_shape=[3, math.prod(s) // 3], family="size_view")
        return
    if use == "view":
        use = "shift"
    if use in ("where", "if") or rng.random() < 0.5:  # Where and If take a bool: the comparison itself
        value = g.node(rng.choice(COMPARISONS), [n, g.init([rng.randrange(5)], [])])
    else:
        # Max and Min take int64 from opset 12 (ONNX Runtime refuses them at 11)
        op, k = rng.choice([a for a in ARITHMETIC if g.opset >= 12 or a[0] not in ("Max", "Min")])
        value = g.node(op, [n, n if k is None else g.init([k], [])])
    # A 0 where torch writes one (Where's other value, a factor of 0) makes the samples alike, and a later op
    # that mixes them then gives ONNX Runtime the samples' own result: reshape1's "no" would count as false.
    # So mostly the other value is the tensor negated and the factor one more than the value.
    if use == "where":
        other = g.init([0.0], [], dtype=1) if rng.random() < 0.3 else g.node("Neg", [g.current])
        g.node("Where", [value, *rng.sample([other, g.current], 2)], out_shape=s, family="size_where")
    elif use == "if":
        attrs = ""
        for label, (op, k) in zip(["then_branch", "else_branch"], rng.sample(BRANCHES, 2)):
            out = g.name("b")
            ins = ", ".join(f'"{i}"' for i in [g.current] + ([] if k is None else [g.init([k], [], dtype=1)]))
            attrs += (f'attribute {{ name: "{label}" type: GRAPH g {{ name: "{out}" node {{ name: "{out}" '
                      f'op_type: "{op}" input: [{ins}] output: ["{out}"] }} '
                      f'output {{ name: "{out}" type {{ tensor_type {{ elem_type: 1 }} }} }} }} }} ')
        g.node("If", [value], attrs, s, "size_if")
    else:
        f = g.node("Cast", [value], int_attr("to", 1))
        if use == "scale" and rng.random() < 0.7:
            f = g.node("Add", [f, g.init([1.0], [], dtype=1)])
        g.node("Mul" if use == "scale" else "Add", [g.current, f], out_shape=s, family=f"size_{use}")


def pick_step(g, n):
    """The batch size read as a parameter that picks values, not the shape: a Gather index or a one-wide
    Slice's start along an axis of the current tensor, min(n - 1, k) or n mod the axis' length, both in range
    at every batch. At batch 1 and at BATCH (3): min(n - 1, 0) and n mod 2 are the same (0; 1), min(n - 1, k)
    for k >= 1 and n mod 3 or 4 are not; along axis 0, where the batch may be, it picks one sample."""
    rng, s = g.rng, g.shape
    # Mostly another axis than 0: the values picked there differ between a sample alone and in a batch while
    # the shape does not, the class a shape comparison misses.
    axis = rng.randrange(1, len(s)) if len(s) > 1 and rng.random() < 0.8 else rng.randrange(len(s))
    length = s[axis]
    one = g.init([1], [])
    if g.opset >= 12 and rng.random() < 0.5:  # Min takes int64 from opset 12
        value = g.node("Min", [g.node("Sub", [n, one]), g.init([rng.randrange(length)], [])])
    else:
        value = g.node("Mod", [n, g.init([length], [])])
    index = g.node("Reshape", [value, g.init([1], [1])])
    out = [1 if a == axis else d for a, d in enumerate(s)]
    if rng.random() < 0.5:
        g.node("Gather", [g.current, index], int_attr("axis", axis), out, "size_pick")
    else:
        end = g.node("Add", [index, g.init([1], [1])])
        g.node("Slice", [g.current, index, end, g.init([axis], [1])], out_shape=out, family="size_pick")


def channels(g, length, low, high):
    return g.init([round(g.rng.uniform(low, high), 3) for _ in range(length)], [length], dtype=1)


def norm_step(g):
    """Per-channel normalisation of a rank>=3 tensor (C = shape[1]): BatchNormalization in training mode
    (opset 14 on; its statistics are the batch's, so it mixes samples), in inference mode (the running
    statistics: per sample), and InstanceNormalization (statistics per sample and channel: it keeps them apart
    while the batch is at axis 0, not when a transpose moved it among the normalised axes)."""
    rng, s = g.rng, g.shape
    if len(s) < 3:
        return
    c = s[1]
    kind = rng.choice(["bn_training", "batch_norm", "instance_norm"])
    if kind == "instance_norm":
        g.node("InstanceNormalization", [g.current, channels(g, c, 0.5, 1.5), channels(g, c, -1, 1)], out_shape=s,
               family="instance_norm")
        return
    params = [channels(g, c, 0.5, 1.5), channels(g, c, -1, 1), channels(g, c, -1, 1), channels(g, c, 0.5, 1.5)]
    if kind == "batch_norm" or g.opset < 14:  # no training_mode before opset 14
        g.node("BatchNormalization", [g.current, *params], out_shape=s, family="batch_norm")
    else:  # training mode wants all three outputs; only Y goes on, the running statistics left unused
        y = g.name("t")
        ins = ", ".join(f'"{i}"' for i in [g.current, *params])
        g.nodes.append(f'node {{ name: "{y}" op_type: "BatchNormalization" input: [{ins}] '
                       f'output: ["{y}", "{y}m", "{y}v"] {int_attr("training_mode", 1)}}}')
        g.current = y
        g.ops.append("bn_training")


def invalid_step(g, kind):
    """An attribute ONNX Runtime refuses (at load, or when a sample alone runs): Flatten's axis outside
    [-rank, rank]; Softmax's outside [-rank, rank-1] (at opset 11 or 12 mostly, where reshape1 lowers it
    to a 2-D Flatten, which would take axis = rank); InstanceNormalization's scale and bias of another length
    than the channels. The chain goes on from a shape the op could have."""
    rng, s = g.rng, g.shape
    rank = len(s)
    g.invalid = True
    if kind == "flatten":
        a = rng.choice([rank + 1, rank + 2, -rank - 1])
        g.node("Flatten", [g.current], int_attr("axis", a), [1, math.prod(s)] if a < 0 else [math.prod(s), 1],
               "flatten_bad_axis")
    elif kind == "softmax":
        g.node("Softmax", [g.current], int_attr("axis", rng.choice([rank, rank + 1, -rank - 1])), s,
               "softmax_bad_axis")
    else:
        while len(g.shape) < 3:  # a channel and a spatial axis needed: 1s appended
            unsqueeze(g, g.current, len(g.shape), [*g.shape, 1], "Unsqueeze")
        c = g.shape[1]
        length = rng.choice([n for n in (c - 1, c + 1, 2 * c) if n >= 1 and n != c])
        g.node("InstanceNormalization", [g.current, channels(g, length, 0.5, 1.5), channels(g, length, -1, 1)],
               out_shape=g.shape, family="instance_norm_bad_scale")


def generate(rng):
    rank = rng.choice([2, 3, 3, 4])
    shape = [1] + [rng.choice([2, 3, 4]) for _ in range(rank - 1)]
    # One graph in ten has an invalid attribute at a random place in its chain. A fifth of the others, and most
    # with an invalid Softmax, are written at opset 11 or 12 (Softmax on a 2-D flattening, axes as attributes,
    # no training mode); the rest at 14 or 15.
    bad = rng.choice(["flatten", "softmax", "instance_norm"]) if rng.random() < 0.1 else None
    old = rng.random() < (0.75 if bad == "softmax" else 0.2)
    g = Graph(rng, list(shape), rng.choice([11, 12] if old else [14, 15]))
    g.x_shape = list(shape)
    steps = rng.randrange(1, 6)
    at = rng.randrange(steps + 1) if bad else -1
    for i in range(steps + 1):
        if i == at:
            invalid_step(g, bad)
        if i < steps:
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
        dims = ",".join(map(str, [BATCH, *g.x_shape[1:]]))
        check = subprocess.run([args.reshape1, "check", tmp / f"g{i}.onnx", "--shape", f"x=[{dims}]", "--json"],
                               capture_output=True, text=True, timeout=60)
        verdict = json.loads(check.stdout)["summary"]["verdict"] if check.stdout else "error"
        correct = o["outcome"] == "correct"
        # A model ONNX Runtime refuses, or cannot run one sample alone of, is held to "never yes" only: it says
        # nothing of batches, so it stays out of the thresholds below (as broken it would fill the 20%).
        invalid = o["outcome"] == "fails" and o["detail"].startswith(("one sample alone", "loading"))
        outcome = "invalid" if invalid else "correct" if correct else "broken"
        counts[outcome] += 1
        if invalid:
            counts[f"invalid {verdict}"] += 1
            counts["invalid undrawn"] += not g.invalid  # the generator meant it valid: a mistake of its own
        elif g.invalid:
            counts["drawn invalid but run"] += 1
        for f in set(g.ops):
            families[f][outcome] += 1
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

    print(f"{'op family':24} correct  broken  invalid")
    for f in sorted(families):
        print(f"{f:24} {families[f]['correct']:7}  {families[f]['broken']:6}  {families[f]['invalid']:7}")
    judged = counts["correct"] + counts["broken"]
    false = counts["false no"] + counts["false cannot_tell"]
    print(f"{len(graphs)} graphs: {counts['invalid']} invalid at batch 1 (reshape1 no {counts['invalid no']}, "
          f"cannot tell {counts['invalid cannot_tell']}; {counts['invalid undrawn']} not drawn invalid; "
          f"{counts['drawn invalid but run']} drawn invalid but run), {judged} judged; ONNX Runtime "
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
