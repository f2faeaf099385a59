#!/usr/bin/env python3
"""Per-op truth (issue 49, item 2: 38 families here and 36 in op_truth_*.py, the com.microsoft and ai.onnx.ml ops
among them): single-node ONNX models with random shapes and attributes, their edge cases included (negative and empty axes, keepdims, 0-size dimensions, rank 0,
broadcasting, attributes the op forbids), run by ONNX Runtime; `reshape1 shapes --json` must give each
output exactly the shape ONNX Runtime computes, and no shape at all (a rule error, or a model it refuses to
read) where ONNX Runtime refuses the model.

Each case is a model whose inputs are tensors of known shapes (float, or of the integer, bool or other float type
the op takes) and whose other operands (axes, indices, repeats, shapes, zero points) are initializers, so that both
sides see the same values. ONNX Runtime runs every model in one process (tests/onnx/ort/shapes.js --many).

    op_truth.py RESHAPE1 ONNX_FROM_TEXT [--cases N] [--seed S] [--keep DIR] [--only OP]

Prints, per op, how many cases ran, how many ONNX Runtime refused, and every disagreement; exits 1 on any
that is not one of the KNOWN ones (each an open item of issue 49, printed as known).
"""
import argparse
import collections
import functools
import importlib
import json
import os
import pathlib
import random
import struct
import subprocess
import sys
import tempfile

HERE = pathlib.Path(__file__).resolve().parent
SHAPES_JS = HERE.parent / "onnx" / "ort" / "shapes.js"
NODE = os.environ.get("RESHAPE1_NODE", "node")


# ONNX element types (TensorProto.DataType) the cases use, and their names in a spec (shapes.js feeds by them).
FLOAT, UINT8, INT8, INT32, INT64, STRING, BOOL, FLOAT16, DOUBLE, UINT32 = 1, 2, 3, 6, 7, 8, 9, 10, 11, 12
TYPE_NAMES = {FLOAT: "float32", UINT8: "uint8", INT8: "int8", INT32: "int32", INT64: "int64", STRING: "string",
              BOOL: "bool", FLOAT16: "float16", DOUBLE: "float64", UINT32: "uint32"}
# The TensorProto field an initializer's values go in; the types not named here (the small integers, bool, float16 as
# its bits) go in int32_data.
DATA_FIELDS = {FLOAT: "float_data", INT64: "int64_data", DOUBLE: "double_data", UINT32: "uint64_data"}
FOUR_BIT = (21, 22, 23)  # UINT4, INT4, FLOAT4E2M1


class Case:
    """One single-node model in protobuf text: graph inputs of given shapes (float unless ("typed", elem_type, shape)),
    initializers for the other operands (("ints", values, dims): int64; ("const", elem_type, values, dims): any)."""

    def __init__(self, op, opset, inputs, attrs="", outputs=1, domain="", typed_outputs=(), domain_version=1):
        self.op, self.opset, self.attrs, self.outputs, self.domain = op, opset, attrs, outputs, domain
        # The version of `domain` the model imports (com.microsoft has 1 only; ai.onnx.ml 1 to 5).
        self.domain_version = domain_version
        # The outputs whose graph output says float (ONNX Runtime cannot infer the type of one bound to a type
        # of its own, as com.microsoft.MultiHeadAttention's qk).
        self.typed_outputs = set(typed_outputs)
        # (output, axis) pairs whose length the data decides: reshape1 gives them no number (see agrees()).
        self.data_decides = set()
        self.inputs = []  # (name, shape, elem_type) of the graph inputs
        self.inits = []
        self.node_inputs = []
        for k, x in enumerate(inputs):
            if x is None:  # an optional input left out
                self.node_inputs.append("")
            elif isinstance(x, tuple) and x[0] == "ints":
                name = f"c{k}"
                values, dims = x[1], x[2]
                dims_text = "".join(f" dims: {d}" for d in dims)
                self.inits.append(f'initializer {{ name: "{name}" data_type: 7{dims_text} int64_data: {list(values)} }}')
                self.node_inputs.append(name)
            elif isinstance(x, tuple) and x[0] == "const":
                name = f"c{k}"
                elem_type, values, dims = x[1], x[2], x[3]
                dims_text = "".join(f" dims: {d}" for d in dims)
                field = DATA_FIELDS.get(elem_type, "int32_data")
                number = float if field in ("float_data", "double_data") else int
                values = [number(v) for v in values]
                if elem_type in FOUR_BIT:  # two to an int32_data entry, the first in the low half
                    values = [(values[k] & 15) | ((values[k + 1] & 15) << 4 if k + 1 < len(values) else 0)
                              for k in range(0, len(values), 2)]
                self.inits.append(
                    f'initializer {{ name: "{name}" data_type: {elem_type}{dims_text} {field}: {values} }}')
                self.node_inputs.append(name)
            elif isinstance(x, tuple) and x[0] == "typed":
                name = f"x{k}"
                self.inputs.append((name, list(x[2]), x[1]))
                self.node_inputs.append(name)
            else:
                name = f"x{k}"
                self.inputs.append((name, list(x), FLOAT))
                self.node_inputs.append(name)

    def text(self):
        ins = ", ".join(f'"{i}"' for i in self.node_inputs)
        outs = ", ".join(f'"y{k}"' for k in range(self.outputs))
        graph_inputs = "\n  ".join(
            f'input {{ name: "{n}" type {{ tensor_type {{ elem_type: {t} shape {{'
            + "".join(f" dim {{ dim_value: {d} }}" for d in s) + " } } } }" for n, s, t in self.inputs)
        graph_outputs = "\n  ".join(
            f'output {{ name: "y{k}"' + (" type { tensor_type { elem_type: 1 } }" if k in self.typed_outputs else "")
            + " }" for k in range(self.outputs))
        domain = f' domain: "{self.domain}"' if self.domain else ""
        # A node of another domain (com.microsoft, ai.onnx.ml) is read at the version of it the model imports,
        # beside the default domain's.
        other = f'opset_import {{ domain: "{self.domain}" version: {self.domain_version} }}\n' if self.domain else ""
        return (f'ir_version: 8\nopset_import {{ domain: "" version: {self.opset} }}\n{other}graph {{\n  name: "g"\n  '
                f'{graph_inputs}\n  ' + "\n  ".join(self.inits) +
                f'\n  node {{ name: "n" op_type: "{self.op}"{domain} input: [{ins}] output: [{outs}] {self.attrs}}}\n'
                f'  {graph_outputs}\n}}\n')

    def spec(self):
        def feed(s, t):
            if t == FLOAT:
                return {"shape": s, "batch_axis": None, "range": [-2, 2]}
            # Small values for integers: in range of every type, and shift amounts below any width.
            return {"shape": s, "batch_axis": None, "type": TYPE_NAMES[t],
                    "range": [-2, 2] if t in (FLOAT16, DOUBLE) else [0, 7]}
        return {"inputs": {n: feed(s, t) for n, s, t in self.inputs}}


def ints(name, values):
    return f'attribute {{ name: "{name}" type: INTS ints: {list(values)} }} '


def i(name, value):
    return f'attribute {{ name: "{name}" type: INT i: {value} }} '


def flt(name, value):
    return f'attribute {{ name: "{name}" type: FLOAT f: {value} }} '


def string(name, value):
    return f'attribute {{ name: "{name}" type: STRING s: "{value}" }} '


def strings(name, values):
    quoted = ", ".join(f'"{v}"' for v in values)
    return f'attribute {{ name: "{name}" type: STRINGS strings: [{quoted}] }} '


def shape(rng, rank=None, zero=0.05):
    rank = rng.randint(0, 4) if rank is None else rank
    return [0 if rng.random() < zero else rng.randint(1, 5) for _ in range(rank)]


def broadcastable(rng, s):
    """A shape that broadcasts with s (or, one time in ten, one that does not)."""
    out = [rng.choice([d, 1, d]) for d in s[rng.randint(0, len(s)):]] if s else []
    if rng.random() < 0.1 and out:
        k = rng.randrange(len(out))
        out[k] = out[k] + 2
    return out


def axis(rng, rank, bad=0.08):
    if rank == 0 or rng.random() < bad:
        return rng.choice([rank, -rank - 1, 7])
    return rng.randint(-rank, rank - 1)


def binary(rng):
    op = rng.choice(["Add", "Mul", "Sub", "Div", "Max", "Min", "Pow", "Equal", "Greater"])
    a = shape(rng)
    b = broadcastable(rng, a)
    if rng.random() < 0.5:
        a, b = b, a
    return Case(op, 14 if op not in ("Max", "Min") else 13, [a, b])


def unary(rng):
    op = rng.choice(["Relu", "Sigmoid", "Tanh", "Abs", "Neg", "Exp", "Softmax", "LogSoftmax", "Identity"])
    s = shape(rng)
    if op in ("Softmax", "LogSoftmax"):
        return Case(op, 13, [s], i("axis", axis(rng, len(s))))
    return Case(op, 14, [s])


def reduce(rng):
    op = rng.choice(["ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd"])
    s = shape(rng, rng.randint(1, 4))
    r = len(s)
    picked = rng.sample(range(-r, r), rng.randint(0, min(r, 2)))
    if rng.random() < 0.08 and r:
        picked = [picked[0] if picked else 0, (picked[0] if picked else 0) + r]  # the same axis twice
    attrs = i("keepdims", rng.randint(0, 1))
    if rng.random() < 0.3:
        attrs += i("noop_with_empty_axes", 1)
    opset = 18 if op != "ReduceSum" else 13
    axes_input = ("ints", picked, [len(picked)]) if picked or rng.random() < 0.5 else None
    return Case(op, opset, [s, axes_input] if axes_input is not None else [s], attrs)


def transpose(rng):
    s = shape(rng)
    perm = list(range(len(s)))
    rng.shuffle(perm)
    if rng.random() < 0.1 and perm:
        perm[0] = len(s) + 1
    return Case("Transpose", 13, [s], ints("perm", perm) if rng.random() < 0.8 else "")


def concat(rng):
    s = shape(rng, rng.randint(1, 4))
    a = axis(rng, len(s))
    others = []
    for _ in range(rng.randint(1, 3)):
        t = list(s)
        if -len(s) <= a < len(s):
            t[a] = rng.randint(0, 4)
        if rng.random() < 0.08:
            t = t + [1]
        others.append(t)
    return Case("Concat", 13, [s] + others, i("axis", a))


def split(rng):
    s = shape(rng, rng.randint(1, 4), zero=0.0)
    a = axis(rng, len(s), bad=0.05)
    n = rng.randint(1, 3)
    if rng.random() < 0.5 and -len(s) <= a < len(s):
        total = s[a]
        parts = sorted(rng.randint(0, total) for _ in range(n - 1))
        sizes = [b - c for b, c in zip(parts + [total], [0] + parts)]
        if rng.random() < 0.1:
            sizes[0] += 1
        return Case("Split", 13, [s, ("ints", sizes, [len(sizes)])], i("axis", a), outputs=len(sizes))
    return Case("Split", 18, [s], i("axis", a) + i("num_outputs", n), outputs=n)


def slice_(rng):
    s = shape(rng, rng.randint(1, 4))
    r = len(s)
    axes = rng.sample(range(-r, r), rng.randint(1, r))
    starts = [rng.randint(-8, 8) for _ in axes]
    ends = [rng.choice([rng.randint(-8, 8), 2**62, -(2**62)]) for _ in axes]
    steps = [rng.choice([1, 1, 2, -1, -2, 3]) for _ in axes]
    if rng.random() < 0.05:
        steps[0] = 0
    n = len(axes)
    return Case("Slice", 13, [s, ("ints", starts, [n]), ("ints", ends, [n]), ("ints", axes, [n]), ("ints", steps, [n])])


def gather(rng):
    s = shape(rng, rng.randint(1, 4), zero=0.0)
    a = axis(rng, len(s), bad=0.05)
    extent = s[a] if -len(s) <= a < len(s) else 3
    ishape = shape(rng, rng.randint(0, 2), zero=0.0)
    count = 1
    for d in ishape:
        count *= d
    values = [rng.randint(-extent, extent - 1) if rng.random() > 0.05 else extent + 1 for _ in range(count)]
    return Case("Gather", 13, [s, ("ints", values, ishape)], i("axis", a))


def squeeze_unsqueeze(rng):
    s = shape(rng, rng.randint(0, 4))
    r = len(s)
    if rng.random() < 0.5:
        ones = [k for k, d in enumerate(s) if d == 1]
        picked = rng.sample(ones, rng.randint(0, len(ones))) if ones else []
        if rng.random() < 0.15 and r:
            picked.append(rng.randrange(r))  # perhaps a dimension that is not 1
        picked = [p - r if rng.random() < 0.3 else p for p in picked]
        return Case("Squeeze", 13, [s, ("ints", picked, [len(picked)])] if picked or rng.random() < 0.5 else [s])
    out = r + rng.randint(1, 2)
    picked = rng.sample(range(-out, out), out - r)
    if rng.random() < 0.08:
        picked.append(picked[0])
    return Case("Unsqueeze", 13, [s, ("ints", picked, [len(picked)])])


def flatten(rng):
    s = shape(rng)
    return Case("Flatten", 13, [s], i("axis", rng.randint(-len(s) - 1, len(s) + 1)))


def reshape(rng):
    s = shape(rng, rng.randint(1, 4))
    total = 1
    for d in s:
        total *= d
    allowzero = rng.randint(0, 1) if rng.random() < 0.3 else 0
    pattern = []
    left = total
    for k in range(rng.randint(1, 4)):
        c = rng.random()
        if c < 0.2 and k < len(s):
            pattern.append(0)
        elif c < 0.35:
            pattern.append(-1)
        else:
            pattern.append(rng.choice([1, 2, 3, left if left else 1]))
    return Case("Reshape", 14, [s, ("ints", pattern, [len(pattern)])], i("allowzero", allowzero) if allowzero else "")


def expand_tile(rng):
    s = shape(rng, rng.randint(0, 3))
    if rng.random() < 0.5:
        target = [rng.choice([d, 1, rng.randint(1, 4)]) for d in s][rng.randint(0, len(s)) if s else 0:]
        target = [rng.randint(1, 3) for _ in range(rng.randint(0, 2))] + target
        return Case("Expand", 13, [s, ("ints", target, [len(target)])])
    reps = [rng.randint(0, 3) for _ in s]
    if rng.random() < 0.1:
        reps.append(1)
    return Case("Tile", 13, [s, ("ints", reps, [len(reps)])])


def pad(rng):
    s = shape(rng, rng.randint(1, 4))
    pads = [rng.randint(-1, 3) for _ in range(2 * len(s))]
    return Case("Pad", 13, [s, ("ints", pads, [len(pads)])])


def matmul_operands(rng, matrix, wrong):
    """MatMul's operand shapes: matrices (each one time in 1/matrix a vector) with broadcast batch dimensions,
    their inner dimensions made to differ `wrong` of the time."""
    k = rng.randint(1, 4)
    a = shape(rng, rng.randint(0, 2), zero=0.0) + [rng.randint(1, 4), k] if rng.random() < matrix else [k]
    b = [k, rng.randint(1, 4)] if rng.random() < matrix else [k]
    if len(a) > 2 and rng.random() < 0.5:
        b = broadcastable(rng, a[:-2]) + b
    if rng.random() < wrong:
        b[0] += 1
    return a, b


def matmul(rng):
    return Case("MatMul", 13, list(matmul_operands(rng, 0.8, 0.08)))


def topk_argmax(rng):
    s = shape(rng, rng.randint(1, 3), zero=0.0)
    a = axis(rng, len(s), bad=0.05)
    if rng.random() < 0.5:
        extent = s[a] if -len(s) <= a < len(s) else 2
        k = rng.randint(0, extent + (1 if rng.random() < 0.1 else 0))
        return Case("TopK", 11, [s, ("ints", [k], [1])], i("axis", a), outputs=2)
    return Case(rng.choice(["ArgMax", "ArgMin"]), 13, [s], i("axis", a) + i("keepdims", rng.randint(0, 1)))


def pool(rng):
    rank = rng.randint(1, 2)
    s = [rng.randint(1, 2), rng.randint(1, 3)] + [rng.randint(1, 9) for _ in range(rank)]
    kernel = [rng.randint(1, 4) for _ in range(rank)]
    strides = [rng.randint(1, 3) for _ in range(rank)]
    attrs = ints("kernel_shape", kernel) + ints("strides", strides)
    c = rng.random()
    if c < 0.3:
        attrs += ints("pads", [rng.randint(0, k - 1) for k in kernel + kernel])
    elif c < 0.5:
        attrs += f'attribute {{ name: "auto_pad" type: STRING s: "{rng.choice(["SAME_UPPER", "SAME_LOWER", "VALID"])}" }} '
    if rng.random() < 0.3:
        attrs += i("ceil_mode", 1)
    return Case(rng.choice(["MaxPool", "AveragePool"]), 12, [s], attrs)


# The families below came with the translations of issue 49's next ops; each draws its numbers only after the
# families above have drawn theirs, so that those keep their cases for a seed.


def product(dims):
    n = 1
    for d in dims:
        n *= d
    return n


ACTIVATIONS = {"Gelu": 20, "Mish": 18, "Celu": 12, "Selu": 6, "Softsign": 1, "ThresholdedRelu": 10, "Shrink": 9,
               "HardSwish": 14, "Softplus": 1}


def activation(rng):
    """Elementwise activations: the input's shape, whatever the attributes. Invalid: an int32 input (valid for
    Shrink alone), an attribute none of them has, Gelu's approximate other than none and tanh."""
    op = rng.choice(sorted(ACTIVATIONS))
    s = shape(rng)
    attrs = ""
    if op == "Gelu" and rng.random() < 0.7:
        attrs = string("approximate", rng.choice(["none", "tanh"]))
    elif op in ("Celu", "Selu", "ThresholdedRelu") and rng.random() < 0.7:
        attrs = flt("alpha", round(rng.uniform(0.1, 2), 2))
        if op == "Selu" and rng.random() < 0.5:
            attrs += flt("gamma", round(rng.uniform(0.5, 2), 2))
    elif op == "Shrink" and rng.random() < 0.7:
        attrs = flt("bias", round(rng.uniform(0, 1), 2)) + flt("lambd", round(rng.uniform(0, 1), 2))
    x = s
    c = rng.random()
    if c < 0.04:
        x = ("typed", INT32, s)
    elif c < 0.07:
        attrs += i("axis", 0)
    elif c < 0.1 and op == "Gelu":
        attrs = string("approximate", "erf")
    return Case(op, ACTIVATIONS[op], [x], attrs)


def predicates(rng):
    """IsInf and IsNaN (a bool of the input's shape), CastLike (the first input's shape, the second's type),
    EyeLike (2-D only). Invalid: an int32 input to IsInf or IsNaN, CastLike's saturate before opset 19, EyeLike of
    another rank."""
    op = rng.choice(["IsInf", "IsNaN", "CastLike", "EyeLike"])
    bad = rng.random() < 0.1
    if op == "EyeLike":
        attrs = i("k", rng.randint(-6, 6)) if rng.random() < 0.7 else ""
        if rng.random() < 0.3:
            attrs += i("dtype", rng.choice([FLOAT, INT32, INT64, DOUBLE]))
        return Case(op, 9, [shape(rng, rng.choice([0, 1, 3]) if bad else 2)], attrs)
    s = shape(rng)
    if op == "CastLike":
        target = ("typed", rng.choice([DOUBLE, FLOAT16, INT32]), shape(rng))
        if bad:
            return Case(op, 15, [s, target], i("saturate", 0))
        opset = rng.choice([15, 19, 21])
        # saturate 1 only: ONNX Runtime refuses saturate 0 for a cast to anything but float 8, which ONNX ignores.
        return Case(op, opset, [s, target], i("saturate", 1) if opset > 15 and rng.random() < 0.3 else "")
    opset = rng.choice([10, 20] if op == "IsInf" else [9, 13, 20])
    x = ("typed", INT32, s) if bad else ("typed", DOUBLE, s) if rng.random() < 0.2 else s
    attrs = ""
    if op == "IsInf":
        for name in ("detect_positive", "detect_negative"):
            if rng.random() < 0.4:
                attrs += i(name, rng.randint(0, 1))
    return Case(op, opset, [x], attrs)


def bitwise(rng):
    """Bitwise ops of int32 tensors (BitShift: uint8 or uint32), broadcasting. Invalid: shapes that do not broadcast,
    a float input, inputs of two types, BitShift without a direction or with another."""
    op = rng.choice(["BitwiseAnd", "BitwiseOr", "BitwiseXor", "BitwiseNot", "BitShift"])
    a = shape(rng)
    bad = rng.random() < 0.06
    if op == "BitwiseNot":
        return Case(op, 18, [("typed", FLOAT if bad else INT32, a)])
    b = broadcastable(rng, a)
    if rng.random() < 0.5:
        a, b = b, a
    if op == "BitShift":
        t = rng.choice([UINT8, UINT32])
        direction = string("direction", rng.choice(["LEFT", "RIGHT"]))
        if bad:
            direction = rng.choice(["", string("direction", "UP")])
        return Case(op, 11, [("typed", t, a), ("typed", t, b)], direction)
    return Case(op, 18, [("typed", INT32, a), ("typed", INT64 if bad else INT32, b)])


def hardmax(rng):
    """Hardmax (opsets 1 and 11: the axis splits the input in two, 1 by default; 13: one axis, -1 by default) and
    LpNormalization: the input's shape. Invalid: an axis out of range (any axis of a scalar), p not 1 or 2."""
    s = shape(rng, 0 if rng.random() < 0.05 else rng.randint(1, 4))
    if rng.random() < 0.6:
        opset = rng.choice([1, 11, 13])
        a = axis(rng, len(s)) if rng.random() < 0.7 else None
        if opset == 1 and not -len(s) <= (1 if a is None else a) < len(s):
            # ONNX Runtime checks Hardmax-1's axis only when it computes: it runs an empty input whatever the axis.
            s = [d or 1 for d in s]
        return Case("Hardmax", opset, [s], "" if a is None else i("axis", a))
    attrs = i("axis", axis(rng, len(s))) if rng.random() < 0.7 else ""
    if rng.random() < 0.7:
        attrs += i("p", rng.choice([1, 2]) if rng.random() > 0.08 else rng.choice([0, 3]))
    return Case("LpNormalization", rng.choice([1, 22]), [s], attrs)


def scale_of(rng, norm):
    """The scale (or bias) of a normalisation over the dims norm: their shape, or one that broadcasts to it (or, one
    time in ten, one that does not)."""
    out = [d if rng.random() < 0.7 else 1 for d in norm]
    out = out[rng.randint(0, len(out)):] if rng.random() < 0.3 else out
    if rng.random() < 0.1 and out:
        k = rng.randrange(len(out))
        out[k] = norm[len(norm) - len(out) + k] + 2
    return out


def normalization(rng):
    """MeanVarianceNormalization, GroupNormalization, RMSNormalization, LayerNormalization and ONNX Runtime's
    SimplifiedLayerNormalization: the input's shape (and LayerNormalization's mean and inverse deviation,
    SimplifiedLayerNormalization's inverse deviation: 1 from axis on). Invalid: axes out of range, num_groups not
    dividing C, a scale of the other opset's shape (GroupNormalization) or that does not broadcast to the
    normalised dimensions."""
    op = rng.choice(["MeanVarianceNormalization", "GroupNormalization", "RMSNormalization", "LayerNormalization",
                     "SimplifiedLayerNormalization"])
    if op == "MeanVarianceNormalization":
        opset = rng.choice([9, 13])
        if rng.random() < 0.4:  # the default axes, [0, 2, 3]
            return Case(op, opset, [shape(rng, rng.choice([4] * 16 + [5] * 3 + [0]))])
        s = shape(rng, rng.randint(1, 4))
        r = len(s)
        picked = [a - r if rng.random() < 0.3 else a for a in rng.sample(range(r), rng.randint(1, r))]
        if rng.random() < 0.06:
            # All out of range: ONNX Runtime drops the axes out of range and refuses only when none is left (so the
            # default axes run on a 2-D input, as axis 0 alone).
            picked = rng.choice([[r], [-r - 1], [r, -r - 1]])
        return Case(op, opset, [s], ints("axes", picked))
    if op == "GroupNormalization":
        opset = rng.choice([18, 21])
        groups = rng.randint(1, 3)
        c = groups * rng.randint(1, 3)
        if groups > 1 and rng.random() < 0.15:
            c += 1
        # No dimension of 0: ONNX Runtime runs GroupNormalization as ONNX's function, whose Reshape refuses an empty
        # input.
        x = [rng.randint(1, 2), c] + shape(rng, rng.randint(0, 2), zero=0.0)
        per = groups if opset == 18 else c
        if rng.random() < 0.15 and 1 < groups < c:  # the other opset's scale ([1] would broadcast)
            per = c if opset == 18 else groups
        attrs = i("num_groups", groups) + (flt("epsilon", 0.001) if rng.random() < 0.3 else "")
        if opset == 21 and rng.random() < 0.3:
            attrs += i("stash_type", 1)
        return Case(op, opset, [x, [per], [per]], attrs)
    s = shape(rng, rng.randint(1, 4))
    r = len(s)
    attrs = ""
    a = -1
    if rng.random() < 0.7:
        a = axis(rng, r, bad=0.06)
        attrs = i("axis", a)
    if -r <= a < r and rng.random() < 0.9:
        # Mostly no 0 among the normalised dimensions: ONNX Runtime refuses them ("Size of X.shape[axis:] must be at
        # least 1"), which ONNX allows (reshape1's layer norms refuse them too).
        s = s[:a % r] + [d or 1 for d in s[a % r:]]
    norm = s[a:] if -r <= a < r else s[-1:]
    inputs = [s, scale_of(rng, norm)]
    if rng.random() < 0.3:
        attrs += flt("epsilon", 0.001)
    if rng.random() < 0.3:
        attrs += i("stash_type", 1)
    if op == "RMSNormalization":
        return Case(op, 23, inputs, attrs)
    if op == "SimplifiedLayerNormalization":  # ONNX Runtime's own, in the default domain at every opset
        return Case(op, rng.choice([11, 17, 21]), inputs, attrs, outputs=rng.randint(1, 2))
    if rng.random() < 0.6:
        inputs.append(scale_of(rng, norm))
    return Case(op, 17, inputs, attrs, outputs=rng.randint(1, 3))


def reduce_more(rng):
    """Five more reductions, at opset 11 (axes an attribute) and 18 (an input, with noop_with_empty_axes), an axis
    given twice (as a and a - r: ONNX Runtime takes it once). Invalid: an axis out of range, noop_with_empty_axes
    at opset 11."""
    op = rng.choice(["ReduceLogSumExp", "ReduceSumSquare", "ReduceL1", "ReduceL2", "ReduceLogSum"])
    opset = rng.choice([11, 18])
    s = shape(rng, rng.randint(0, 4))
    r = len(s)
    picked = [a - r if rng.random() < 0.4 else a for a in rng.sample(range(r), rng.randint(0, min(r, 3)))]
    c = rng.random()
    if c < 0.05 and r:
        a = rng.randrange(r)
        picked = [a, a - r]
    elif c < 0.1:
        picked.append(rng.choice([r, -r - 1]))
    attrs = i("keepdims", rng.randint(0, 1)) if rng.random() < 0.8 else ""
    if opset == 11:
        if rng.random() < 0.04:
            attrs += i("noop_with_empty_axes", 1)
        return Case(op, 11, [s], (ints("axes", picked) if picked else "") + attrs)
    if rng.random() < 0.3:
        attrs += i("noop_with_empty_axes", 1)
    axes_input = ("ints", picked, [len(picked)]) if picked or rng.random() < 0.5 else None
    return Case(op, 18, [s, axes_input] if axes_input is not None else [s], attrs)


def cumsum(rng):
    """CumSum (and CumProd-26, three cases in ten): the input's shape; the axis a scalar or 1-element tensor, int64 or int32. Invalid: an axis out of
    range or of two elements."""
    s = shape(rng, rng.randint(1, 4))
    a = axis(rng, len(s))
    c = rng.random()
    if c < 0.4:
        ax = ("ints", [a], [])
    elif c < 0.75:
        ax = ("ints", [a], [1])
    elif c < 0.95:
        ax = ("const", INT32, [a], rng.choice([[], [1]]))
    else:
        ax = ("ints", [a, a], [2])
    if c >= 0.95 or not -len(s) <= a < len(s):
        s = [d or 1 for d in s]  # ONNX Runtime checks the axis only when it computes: it runs an empty input
    attrs = "".join(i(name, rng.randint(0, 1)) for name in ("exclusive", "reverse") if rng.random() < 0.5)
    x = ("typed", INT32, s) if rng.random() < 0.15 else s
    if rng.random() < 0.3:
        return Case("CumProd", 26, [x, ax], attrs)
    return Case("CumSum", rng.choice([11, 14]), [x, ax], attrs)


# ONNX data types by bit width, as BitCast reads them. Left out: bool (ONNX Runtime 1.30 has no BitCast kernel for
# it) and bfloat16 (onnxruntime-node cannot hand a bfloat16 output back: "Unsupported data type: 16").
WIDTHS = {8: [2, 3], 16: [4, 5, 10], 32: [1, 6, 12], 64: [7, 11, 13]}


def bitcast(rng):
    """BitCast (26): the input's shape (rank 0 to 3, 0-size dims too), `to` a type of the input's width (float,
    int32, uint32, int64, double, uint8, int8, float16 inputs). Invalid (~20%): a type of another width, to string
    (8) or undefined (0), refused by ONNX Runtime when it loads the model."""
    t = rng.choice([FLOAT, INT32, UINT32, INT64, DOUBLE, UINT8, INT8, FLOAT16])
    width = next(w for w, types in WIDTHS.items() if t in types)
    to = rng.choice(WIDTHS[width])
    if rng.random() < 0.2:
        to = rng.choice([8, 0] + [u for w, types in WIDTHS.items() if w != width for u in types])
    return Case("BitCast", 26, [("typed", t, shape(rng, rng.randint(0, 3)))], i("to", to))


def onehot(rng):
    """OneHot: the indices' shape with depth put in at axis, in [-r-1, r]; indices an initializer (with negative
    values and values out of range: rows of off values) or an int64 input; depth a scalar or 1-element tensor,
    int64 or float (truncated). Invalid: depth below 1, two depths, three values, an axis out of range, indices of
    rank 0."""
    ishape = shape(rng, 0 if rng.random() < 0.05 else rng.randint(1, 3))
    r = len(ishape)
    depth = rng.randint(1, 6)
    if rng.random() < 0.5:
        indices = ("ints", [rng.randint(-depth - 1, depth) for _ in range(product(ishape))], ishape)
    else:
        indices = ("typed", INT64, ishape)
    a = rng.randint(-r - 1, r) if rng.random() > 0.06 else rng.choice([r + 1, -r - 2])
    c = rng.random()
    if c < 0.03:
        depth = rng.choice([0, -2])
    dims = rng.choice([[], [1]])
    d = ("ints", [depth], dims) if rng.random() < 0.8 else ("const", FLOAT, [depth + rng.choice([0, 0.5])], dims)
    if 0.03 <= c < 0.06:
        d = ("ints", [depth, depth], [2])
    values = ("const", FLOAT, [0, 1, 2], [3]) if 0.06 <= c < 0.09 else ("const", FLOAT, [0, 1], [2])
    return Case("OneHot", 11, [indices, d, values], i("axis", a) if rng.random() < 0.8 or not -r - 1 <= a <= r else "")


def compress(rng):
    """Compress: along axis, as many slices as the condition (a 1-D bool initializer) has true values among its
    first ones, as many as the axis is long; without axis, as many elements of the flattened input. The condition
    shorter than that, or longer (ONNX Runtime ignores the rest). Invalid: an axis out of range, an input of rank 0.
    (ONNX Runtime reads a condition of any rank, a scalar too, as 1-D: none here.)"""
    s = shape(rng, 0 if rng.random() < 0.05 else rng.randint(1, 3))
    r = len(s)
    if rng.random() < 0.7:
        a = axis(rng, r, bad=0.05)
        extent = s[a] if -r <= a < r else 3
        attrs = i("axis", a)
    else:
        extent = product(s)
        attrs = ""
    n = max(0, extent + rng.choice([0, 0, 0, -1, -2, 1]))
    return Case("Compress", 11, [s, ("const", BOOL, [rng.random() < 0.5 for _ in range(n)], [n])], attrs)


def reverse_sequence(rng):
    """ReverseSequence: the input's shape; sequence_lens one per batch entry, each at most the time length.
    Invalid: batch_axis equal to time_axis or past 1, a length past the time length, lengths not one per entry."""
    s = shape(rng, rng.randint(2, 4))
    batch_axis = rng.randint(0, 1)
    time_axis = 1 - batch_axis
    lens = [rng.randint(0, s[time_axis]) for _ in range(s[batch_axis])]
    c = rng.random()
    if c < 0.03:
        time_axis = batch_axis
    elif c < 0.05:
        batch_axis = 2
    elif c < 0.08 and lens:
        lens[0] = s[time_axis] + 1
    elif c < 0.1:
        lens.append(1)
    attrs = i("batch_axis", batch_axis) + i("time_axis", time_axis)
    if (batch_axis, time_axis) == (1, 0) and rng.random() < 0.3:
        attrs = ""  # the defaults
    return Case("ReverseSequence", 10, [s, ("ints", lens, [len(lens)])], attrs)


def quant(rng):
    """Integer and quantised ops of uint8 tensors: MatMulInteger and QLinearMatMul (MatMul's shape), ConvInteger and
    QLinearConv (Conv's), DynamicQuantizeLinear (the input's shape and two scalars). Invalid: inner or channel
    dimensions that differ, a zero point of another type than its input, a window larger than the padded input,
    a float input where the op takes integers or the reverse."""
    op = rng.choice(["MatMulInteger", "ConvInteger", "QLinearMatMul", "QLinearConv", "DynamicQuantizeLinear"])
    def zero():
        return ("const", UINT8, [rng.randint(0, 255)], [])

    def scale():
        return ("const", FLOAT, [round(rng.uniform(0.01, 0.5), 3)], [])

    if op == "DynamicQuantizeLinear":
        s = shape(rng)
        return Case(op, 11, [("typed", INT32, s) if rng.random() < 0.06 else s], outputs=3)
    if op in ("MatMulInteger", "QLinearMatMul"):
        a, b = matmul_operands(rng, 0.85, 0.06)
        n = b[-1] if len(b) == 2 else None
        a, b = ("typed", UINT8, a), ("typed", UINT8, b)
        if op == "MatMulInteger":
            # B's zero point per column too ([N], of a 2-D B: ONNX Runtime wants [..., 1, N] for a batch of B); not
            # A's per row, which ONNX allows and ONNX Runtime refuses.
            b_zero = zero()
            if n and rng.random() < 0.3:
                b_zero = ("const", UINT8, [rng.randint(0, 255) for _ in range(n)], [n])
            c = rng.random()
            if c < 0.4:
                return Case(op, 10, [a, b, zero()] + ([b_zero] if rng.random() < 0.5 else []))
            if c < 0.5:
                return Case(op, 10, [a, b, None, b_zero])
            if c < 0.55:
                return Case(op, 10, [a, b, ("const", INT8, [1], [])])
            return Case(op, 10, [a, b])
        a_zero = ("const", INT8, [1], []) if rng.random() < 0.05 else zero()
        return Case(op, rng.choice([10, 21]), [a, scale(), a_zero, b, scale(), zero(), scale(), zero()])
    group = rng.choice([1, 1, 2])
    c = group * rng.randint(1, 2)
    m = group * rng.randint(1, 2)
    rank = 2 if rng.random() < 0.8 else 1
    spatial = [rng.randint(2, 8) for _ in range(rank)]
    kernel = [rng.randint(1, 3) for _ in range(rank)]
    x = [rng.randint(1, 2), c] + spatial
    w = [m, c // group] + kernel
    if rng.random() < 0.06:
        w[1] += 1
    attrs = ints("kernel_shape", kernel) if rng.random() < 0.5 else ""
    if rng.random() < 0.5:
        attrs += ints("strides", [rng.randint(1, 3) for _ in range(rank)])
    p = rng.random()
    auto_pad = rng.choice(["SAME_UPPER", "SAME_LOWER", "VALID"]) if 0.3 <= p < 0.45 else None
    # No dilations with SAME_*: ONNX Runtime pads those for the undilated window, which reshape1 leaves not covered
    # (a KNOWN entry; c_nhwc_maxpool makes them).
    if rng.random() < 0.3 and auto_pad not in ("SAME_UPPER", "SAME_LOWER"):
        attrs += ints("dilations", [rng.randint(1, 2) for _ in range(rank)])
    if p < 0.3:
        attrs += ints("pads", [rng.randint(0, k - 1) for k in kernel + kernel])
    elif auto_pad:
        attrs += string("auto_pad", auto_pad)
    if group > 1:
        attrs += i("group", group)
    if op == "ConvInteger":
        inputs = [("typed", UINT8, x), ("typed", UINT8, w)]
        if rng.random() < 0.5:
            inputs += [zero()] + ([("const", UINT8, [0], [])] if rng.random() < 0.5 else [])
        return Case(op, 10, inputs, attrs)
    inputs = [("typed", UINT8, x), scale(), zero(), ("typed", UINT8, w), scale(), ("const", UINT8, [0], []), scale(),
              zero()]
    if rng.random() < 0.3:
        inputs.append(("const", INT32, [rng.randint(-50, 50) for _ in range(m)], [m]))
    return Case(op, 10, inputs, attrs)


def microsoft(rng):
    """The com.microsoft ops ONNX Runtime's optimiser writes, at default opset 17: FusedMatMul (transposes, alpha),
    the Gelu family (Gelu, FastGelu and BiasGelu with a bias of the last axis, QuickGelu), SkipLayerNormalization and
    SkipSimplifiedLayerNormalization (skip of the input's shape or its last two axes, gamma of the last axis, the
    statistics outputs), MatMulNBits (K and N attributes, A's last axis K or not), QLinearAdd and QLinearMul
    (broadcasting uint8 operands), ExpandDims, Inverse. Invalid: shapes that do not broadcast or contract, gamma of
    another length, a non-square Inverse."""
    ms = "com.microsoft"
    op = rng.choice(["FusedMatMul", "Gelu", "FastGelu", "BiasGelu", "QuickGelu", "SkipLayerNormalization",
                     "SkipSimplifiedLayerNormalization", "MatMulNBits", "QLinearAdd", "QLinearMul", "ExpandDims",
                     "Inverse"])
    if op == "FusedMatMul":
        m, k, n = rng.randint(1, 4), rng.randint(1, 4), rng.randint(1, 4)
        ta, tb = rng.randint(0, 1), rng.randint(0, 1)
        batch = shape(rng, rng.randint(0, 2), zero=0.0)
        a = batch + ([k, m] if ta else [m, k])
        b = ([n, k] if tb else [k, n])
        if rng.random() < 0.08:
            b[1 if tb else 0] += 1
        return Case(op, 17, [a, b], i("transA", ta) + i("transB", tb) + 'attribute { name: "alpha" type: FLOAT f: 0.5 } ',
                    domain=ms)
    if op in ("Gelu", "QuickGelu"):
        return Case(op, 17, [shape(rng)], domain=ms)
    if op in ("FastGelu", "BiasGelu"):
        s = shape(rng, rng.randint(1, 3), zero=0.0)
        bias = [s[-1]] if rng.random() < 0.9 else [s[-1] + 1]
        return Case(op, 17, [s, bias], domain=ms)
    if op in ("SkipLayerNormalization", "SkipSimplifiedLayerNormalization"):
        s = [rng.randint(1, 3), rng.randint(1, 4), rng.randint(1, 5)]
        skip = list(s) if rng.random() < 0.7 else s[1:]
        gamma = [s[-1]] if rng.random() < 0.92 else [s[-1] + 1]
        outputs = rng.choice([1, 1, 2, 4]) if op == "SkipLayerNormalization" else 1
        ins = [s, skip, gamma] + ([[s[-1]]] if op == "SkipLayerNormalization" and rng.random() < 0.5 else [])
        return Case(op, 17, ins, outputs=outputs, domain=ms)
    if op == "MatMulNBits":
        k, n = rng.choice([16, 32]), rng.randint(1, 4)
        a = shape(rng, rng.randint(0, 2), zero=0.0) + [rng.randint(1, 3), k if rng.random() < 0.92 else k + 16]
        blocks = k // 16
        return Case(op, 17, [a, ("const", UINT8, [0] * (n * blocks * 8), [n, blocks, 8]),
                             ("const", FLOAT, [1.0] * (n * blocks), [n * blocks])],
                    i("K", k) + i("N", n) + i("bits", 4) + i("block_size", 16), domain=ms)
    if op in ("QLinearAdd", "QLinearMul"):
        a = shape(rng, zero=0.0)
        b = broadcastable(rng, a)
        q = ("const", FLOAT, [0.5], [])
        z = ("const", UINT8, [3], [])
        return Case(op, 17, [("typed", UINT8, a), q, z, ("typed", UINT8, b), q, z, q, z], domain=ms)
    if op == "ExpandDims":
        s = shape(rng, zero=0.0)
        axis = rng.randint(-len(s) - 1, len(s))
        return Case(op, 17, [s, ("const", INT32, [axis], [])], domain=ms)
    m = rng.randint(1, 4)
    s = shape(rng, rng.randint(0, 2), zero=0.0) + [m, m if rng.random() < 0.9 else m + 1]
    return Case(op, 17, [s], domain=ms)


def ms_rotary(rng):
    """com.microsoft.RotaryEmbedding: input [B, S, heads * head] or [B, heads, S, head], position_ids [B, S] (values
    below the caches' rows) or one offset (at most rows - S), caches [rows, head / 2]. Invalid: position_ids of
    another batch, caches of two shapes, 3-D caches."""
    b, s, heads, head = rng.randint(1, 3), rng.randint(1, 4), rng.randint(1, 3), rng.choice([2, 4])
    x = [b, heads, s, head] if rng.random() < 0.5 else [b, s, heads * head]
    rows = s + rng.randint(0, 2)
    bad = rng.choice(["batch", "sin", "rank"]) if rng.random() < 0.125 else None
    if rng.random() < 0.5 or bad == "batch":
        n = b + (1 if bad == "batch" else 0)
        positions = ("ints", [rng.randrange(rows) for _ in range(n * s)], [n, s])
    else:
        positions = ("ints", [rng.randint(0, rows - s)], [1])
    cos = [rows, head // 2] if bad != "rank" else [1, rows, head // 2]
    sin = [rows + 1, head // 2] if bad == "sin" else list(cos)
    return Case("RotaryEmbedding", 17, [x, positions, cos, sin], i("num_heads", heads), domain="com.microsoft")


def attention(rng):
    """ONNX's Attention (opsets 23 and 24) and RotaryEmbedding (23, and com.microsoft's: ms_rotary), of float tensors.
    Attention: Q, K and V all 3-D ([B, S, heads * head], q_num_heads and kv_num_heads given) or all 4-D ([B, heads,
    S, head], the head counts given or not), q heads a multiple of kv heads, V of its own head size; perhaps an
    additive mask of rank 2 to 4 (q's length and the total length last, 1 or q heads before, 1 or B before that),
    past_key and past_value of 0 to 3 steps, at opset 24 nonpad_kv_seqlen (an initializer of B lengths up to the
    total length), is_causal, scale; 1, 3 or 4 outputs (3 or 4 with a past: ONNX Runtime refuses a past without
    present_key).
    RotaryEmbedding: X 3-D (num_heads given) or 4-D (num_heads given or not), its head size even;
    rotary_embedding_dim 0 or an even number up to the head size; caches [B, S, rotary / 2] or, with position_ids
    (an initializer [B, S] of values below M), [M, rotary / 2] with M at least S; interleaved or not.
    Invalid: a batch, head size, length or head count that differs, q heads not a multiple of kv heads, a 3-D hidden
    size its heads do not divide or without its head counts, past_key without past_value, a mask of another total
    length, q length (or of 1 row for it, which ONNX would broadcast and ONNX Runtime refuses) or head count, nonpad_kv_seqlen beside a past, Q and K of two ranks; caches of another width than
    rotary / 2, of two shapes or of another batch, position_ids of another shape, rotary_embedding_dim past the head
    size."""
    if rng.random() < 0.2:
        return ms_rotary(rng)
    if rng.random() < 0.5:
        b, s, heads, head = rng.randint(1, 3), rng.randint(1, 4), rng.randint(1, 3), rng.choice([2, 4])
        four = rng.random() < 0.5
        rotary = rng.choice([0, 0] + list(range(2, head + 1, 2)))
        bad = rng.choice(["width", "sin", "batch", "rotary", "heads"]) if rng.random() < 0.125 else None
        if bad == "rotary" or bad == "heads" and four:
            rotary = head + 2
        width = (rotary or head) // 2 + (1 if bad == "width" else 0)
        x = [b, heads, s, head] if four else [b, s, heads * head]
        attrs = ""
        if bad == "heads":
            attrs = rng.choice(["", i("num_heads", heads * head + 1)])
        elif not four or rng.random() < 0.3:
            attrs = i("num_heads", heads)
        if rotary:
            attrs += i("rotary_embedding_dim", rotary)
        if rng.random() < 0.5:
            attrs += i("interleaved", rng.randint(0, 1))
        position_ids = None
        if rng.random() < 0.5:
            m = s + rng.randint(0, 2)
            rows = s + (1 if bad == "batch" else 0)
            position_ids = ("ints", [rng.randrange(m) for _ in range(b * rows)], [b, rows])
            cos = [m, width]
        else:
            cos = [b + (1 if bad == "batch" else 0), s, width]
        sin = list(cos)
        if bad == "sin":
            sin[0] += 1
        return Case("RotaryEmbedding", 23, [x, cos, sin] + ([position_ids] if position_ids else []), attrs)
    opset = rng.choice([23, 24])
    b, kv, group = rng.randint(1, 3), rng.randint(1, 2), rng.randint(1, 2)
    sq, skv, head, v_head = rng.randint(1, 4), rng.randint(1, 4), rng.randint(1, 4), rng.randint(1, 4)
    four = rng.random() < 0.5
    past = rng.randint(0, 3) if rng.random() < 0.3 else None
    bad = None
    if rng.random() < 0.125:
        bad = rng.choice(["batch", "head", "length", "group", "hidden", "past_key", "past_length", "past_heads",
                          "mask_total", "mask_q", "mask_heads", "attribute", "nonpad", "rank"])
    q_heads = kv * group
    if bad == "group":
        kv, q_heads = 2, rng.choice([1, 3])
    if bad in ("past_key", "past_length", "past_heads", "nonpad") and past is None:
        past = rng.randint(1, 3)
    total = skv + (past or 0)
    if four:
        q, k, v = [b, q_heads, sq, head], [b, kv, skv, head], [b, kv, skv, v_head]
        attrs = i("q_num_heads", q_heads) + i("kv_num_heads", kv) if rng.random() < 0.4 else ""
        if bad == "attribute":
            attrs = i("q_num_heads", q_heads + 1) + i("kv_num_heads", kv)
        elif bad in ("head", "hidden"):
            k[3] += 1
    else:
        q, k, v = [b, sq, q_heads * head], [b, skv, kv * head], [b, skv, kv * v_head]
        attrs = i("q_num_heads", q_heads) + i("kv_num_heads", kv)
        if bad == "attribute":
            attrs = i("q_num_heads", q_heads)
        elif bad == "head":
            k[2] += 1
        elif bad == "hidden":
            q[2] += 1
    if bad == "batch":
        k[0] += 1
    elif bad == "length":
        v[-2 if four else 1] += 1
    elif bad == "rank":
        k = k[:1] + [k[1] * k[2]] + k[3:] if four else [b, kv, skv, head]
    mask = None
    if rng.random() < 0.4 or bad in ("mask_total", "mask_q", "mask_heads"):
        rank = rng.randint(3, 4) if bad == "mask_heads" else rng.randint(2, 4)
        mask = [rng.choice([1, b]), rng.choice([1, q_heads]), sq, total][4 - rank:]
        if bad == "mask_total":
            mask[-1] += 1
        elif bad == "mask_q":
            mask[-2] = 1 if sq > 1 and rng.random() < 0.5 else sq + 1
        elif bad == "mask_heads":
            mask[-3] = q_heads + 1
    past_key = past_value = None
    if past is not None:
        past_key, past_value = [b, kv, past, head], [b, kv, past, v_head]
        if bad == "past_key":
            past_value = None
        elif bad == "past_length":
            past_value[2] += 1
        elif bad == "past_heads":
            past_key[1] += 1
    nonpad = None
    if bad == "nonpad" or opset == 24 and past is None and rng.random() < 0.3:
        opset = 24
        nonpad = ("ints", [rng.randint(0, total) for _ in range(b)], [b])
    if rng.random() < 0.3:
        attrs += i("is_causal", rng.randint(0, 1))
    if rng.random() < 0.2:
        attrs += flt("scale", rng.choice([0.25, 0.5, 2.0]))
    inputs = [q, k, v, mask, past_key, past_value, nonpad]
    while inputs[-1] is None:
        inputs.pop()
    outputs = rng.choice([3, 4]) if past is not None else rng.choice([1, 1, 3, 4])
    return Case("Attention", opset, inputs, attrs, outputs=outputs)


def bias_shape(rng, b, n, s, total, bad):
    """An attention_bias of com.microsoft's Attention and MultiHeadAttention: [B or 1, N or 1, S, total]; `bad` makes
    it of another batch, heads, length or rank."""
    shape = [rng.choice([b, b, 1]), rng.choice([n, n, 1]), s, total]
    if bad == "batch":
        shape[0] = b + 1
    elif bad == "heads":
        shape[1] = n + 1
    elif bad == "length":
        shape[rng.choice([2, 3])] += 1
    elif bad == "rank":
        shape = shape[1:]
    return shape


def bert_past(rng, b, n, past, head, bad):
    """com.microsoft.Attention's and QAttention's past [2, B, N, P, H] (None without one), one of its axes wrong for
    the past_* invalid kinds."""
    if past is None:
        return None
    shape = [2, b, n, past, head]
    if bad == "past_batch":
        shape[1] += 1
    elif bad == "past_heads":
        shape[2] += 1
    elif bad == "past_head":
        shape[4] += 1
    elif bad == "past_two":
        shape[0] = rng.choice([1, 3])
    return shape


def bert_attention(rng):
    """com.microsoft.Attention, the fused BERT attention: input [B, S, Di], weights [Di, D + D + Dv] and bias
    [D + D + Dv] (graph inputs or initializers), num_heads N, qkv_hidden_sizes [D, D, Dv] (each a multiple of N) or
    not (D = Dv = bias / 3), unidirectional 0, 1 or not given; perhaps an int32 mask_index ([B], [2B], [3B + 2],
    [B, T], the dummy [B, 1] or [1, 1], or [B, S, T]; T = P + S, the total length), past [2, B, N, P, D / N]
    (D = Dv; 2 outputs then: ONNX Runtime refuses a past without present) or an attention_bias [B or 1, N or 1, S, T]
    (not both); 1 or 2 outputs, present [2, B, N, T, Dv / N] (ONNX Runtime's CPU kernel gives V's head size
    there). No valid 4-D mask [B, 1, M, M]: ONNX Runtime's CPU kernel refuses every one.
    Invalid: weights' first dimension not Di, a bias of another length, D or Dv not a multiple of N, a past of
    another batch, head count or head size, or its 2 another number, a past with D and Dv that differ, a mask of
    another batch or length, a 4-D mask (M below T, a 2 for its 1, or unidirectional), attention_bias of another
    batch (not 1), head count (not 1), length or rank."""
    b, s, n, di = rng.randint(1, 3), rng.randint(1, 4), rng.randint(1, 3), rng.randint(1, 5)
    head, v_head = rng.randint(1, 4), rng.randint(1, 4)
    bad = None
    if rng.random() < 0.125:
        bad = rng.choice(["weights", "bias", "heads", "past_batch", "past_heads", "past_head", "past_two", "past_v",
                          "mask_batch", "mask_length", "mask_4d", "bias_batch", "bias_heads", "bias_length",
                          "bias_rank"])
    past = None
    if bad in ("past_batch", "past_heads", "past_head", "past_two", "past_v") or rng.random() < 0.3 and bad not in (
            "bias_batch", "bias_heads", "bias_length", "bias_rank"):
        past = rng.randint(0, 3)
    sizes = rng.random() < 0.4 or bad == "past_v"
    if not sizes or past is not None and bad != "past_v":
        v_head = head
    elif bad == "past_v" and v_head == head:
        v_head += 1
    if bad == "heads":
        n = rng.randint(2, 3)
    d, dv = n * head, n * v_head
    if bad == "heads":
        if not sizes:
            d = dv = d + 1  # bias / 3 that N does not divide
        elif rng.random() < 0.5:
            d += 1
        else:
            dv += 1
    unidirectional = rng.choice([None, None, 0, 1])
    width = d + d + dv
    if rng.random() < 0.3:
        weights = ("const", FLOAT, [round(rng.uniform(-1, 1), 2) for _ in range(di * width)], [di, width])
        bias = ("const", FLOAT, [round(rng.uniform(-1, 1), 2) for _ in range(width)], [width])
    else:
        weights, bias = [di, width], [width]
    if bad == "weights":
        weights = [di + rng.choice([-1, 1]) if di > 1 else 2, width]
    elif bad == "bias":
        bias = [width + rng.randint(1, 3)]
    total = s + (past or 0)
    mask = None
    if bad == "mask_4d":
        kind = rng.choice(["short", "two", "unidirectional"])
        if kind == "short" and total > 1:
            mask = [b, 1, total - 1, total - 1]
        else:
            m = total + rng.randint(0, 1)
            mask = [b, 1, m, m] if kind == "unidirectional" else [b, 2, m, m]
            unidirectional = 1 if kind == "unidirectional" else unidirectional
    elif bad == "mask_batch":
        mask = rng.choice([[2 * b + 1], [b + 1, total], [b + 1, 1], [b + 1, s, total]])
    elif bad == "mask_length":
        mask = rng.choice([[b, total + 1], [b, s, total + 1], [b, s + 1, total]])
    elif rng.random() < 0.5:
        mask = rng.choice([[b], [2 * b], [3 * b + 2], [b, total], [b, total], [b, 1], [1, 1], [b, s, total]])
    past_shape = bert_past(rng, b, n, past, head, bad)
    attention_bias = None
    if past is None and (rng.random() < 0.25 or bad in ("bias_batch", "bias_heads", "bias_length", "bias_rank")):
        attention_bias = bias_shape(rng, b, n, s, total, bad[len("bias_"):] if bad and bad.startswith("bias_") else None)
    attrs = i("num_heads", n)
    if sizes:
        attrs += ints("qkv_hidden_sizes", [d, d, dv])
    if unidirectional is not None:
        attrs += i("unidirectional", unidirectional)
    inputs = [[b, s, di], weights, bias, ("typed", INT32, mask) if mask else None, past_shape, attention_bias]
    while inputs[-1] is None:
        inputs.pop()
    outputs = 2 if past is not None else rng.choice([1, 1, 2])
    return Case("Attention", 17, inputs, attrs, outputs=outputs, domain="com.microsoft")


def bert_embed(rng):
    """com.microsoft.EmbedLayerNormalization: input_ids [B, S] (an int32 graph input, fed 0 to 7, with 8 to 10
    words; or an initializer of words below V, 1 to 10), segment_ids [B, S] with segment_embedding [Sg, H] (a graph
    input with 8 segments, or an initializer of 2 or 3), or neither, or segment_embedding alone (ONNX Runtime takes it
    and leaves it unread); word_embedding [V, H], position_embedding [Pmax, H] (Pmax at least S), gamma and beta [H];
    perhaps an int32 mask [B, S] and position_ids (an initializer [1, S] or [B, S] below Pmax); epsilon or not;
    2 or 3 outputs (output [B, S, H], mask_index [B], which ONNX Runtime gives without a mask too, embedding_sum
    [B, S, H]). Not a 1-D position_ids: ONNX Runtime aborts the process on one.
    Invalid: segment_ids of another shape, position or segment embeddings of another hidden size, gamma or beta of
    another length, a mask of another shape, position_ids of another batch (not 1) or length."""
    b, s, h = rng.randint(1, 3), rng.randint(1, 4), rng.randint(1, 4)
    bad = None
    if rng.random() < 0.125:
        bad = rng.choice(["segment_ids", "position_hidden", "segment_hidden", "gamma", "beta", "mask",
                          "position_ids"])
    if rng.random() < 0.6:
        v = rng.randint(8, 10)
        ids = ("typed", INT32, [b, s])
    else:
        v = rng.randint(1, 10)
        ids = ("const", INT32, [rng.randrange(v) for _ in range(b * s)], [b, s])
    segment = rng.choice(["both", "both", "both", "none", "none", "embedding"])
    if bad in ("segment_ids", "segment_hidden"):
        segment = "both"
    segment_ids = segment_embedding = None
    if segment != "none":
        rows = 8 if rng.random() < 0.3 else rng.randint(2, 3)
        segment_embedding = [rows, h + (1 if bad == "segment_hidden" else 0)]
    if segment == "both":
        shape_ids = [b, s]
        if bad == "segment_ids":
            shape_ids = rng.choice([[b, s + 1], [b + 1, s], [s], [b, s, 1]] + ([[1, s]] if b > 1 else []))
        if segment_embedding[0] == 8:
            segment_ids = ("typed", INT32, shape_ids)
        else:
            segment_ids = ("const", INT32, [rng.randrange(segment_embedding[0]) for _ in range(product(shape_ids))],
                           shape_ids)
    pmax = s + rng.randint(0, 2)
    mask = None
    if rng.random() < 0.4 or bad == "mask":
        mask = [b, s]
        if bad == "mask":
            mask = rng.choice([[b, s + 1], [b + 1, s], [b], [b, s, 1]] + ([[1, s]] if b > 1 else []))
        mask = ("typed", INT32, mask)
    position_ids = None
    if rng.random() < 0.3 or bad == "position_ids":
        rows = rng.choice([1, b])
        length = s
        if bad == "position_ids":
            if rng.random() < 0.5:
                rows = b + 1
            else:
                length = s + 1
        position_ids = ("const", INT32, [rng.randrange(pmax) for _ in range(rows * length)], [rows, length])
    gamma, beta = [h + (1 if bad == "gamma" else 0)], [h + (1 if bad == "beta" else 0)]
    inputs = [ids, segment_ids, [v, h], [pmax, h + (1 if bad == "position_hidden" else 0)], segment_embedding, gamma,
              beta, mask, position_ids]
    while inputs[-1] is None:
        inputs.pop()
    attrs = flt("epsilon", rng.choice([1e-5, 1e-12])) if rng.random() < 0.8 else ""
    return Case("EmbedLayerNormalization", 17, inputs, attrs, outputs=rng.choice([2, 3]), domain="com.microsoft")


def bert_mha(rng):
    """com.microsoft.MultiHeadAttention, at default opset 17: query [B, S, D] (D = N * H, N num_heads) with key
    [B, L, D] and value [B, L, Dv] (Dv = N * Hv), perhaps a bias [D + D + Dv]; or with key and value [B, N, L, H]
    (one shape: ONNX Runtime refuses a 4-D value of another head size), perhaps with that bias or a past too (ONNX
    Runtime 1.30 runs both, the past put before the 4-D key and value). Perhaps an int32 key_padding_mask ([B],
    [3B + 2], [B, T] or [B, S, T]; T = P + L, the total length), an attention_bias [B or 1, N or 1, S, T], past_key
    and past_value [B, N, P, H] (D = Dv: ONNX Runtime checks past_value's last axis against H, not Hv),
    unidirectional 0, 1 or not given; 1 to 4 outputs: output [B, S, Dv], present_key [B, N, T, H], present_value
    [B, N, T, Hv] and qk [B, N, S, T] (its graph output typed float: ONNX Runtime does not infer qk's type and
    refuses the model). Not the packed QKV and KV formats: reshape1 does not cover them.
    Invalid: key or value of another batch, D or Dv not a multiple of N, a key of another hidden size (a multiple of
    N), a value of another length, a bias of another length, a 4-D value of another head size or head count than
    the key, a mask of another shape ([2B + 1], another batch or length, [B, 1] or [B, S, 1] with T above 1, [B, L]
    beside a past), attention_bias of another batch (not 1), head count (not 1), S, T or rank, a past of another
    batch, head count, head size or length, past_key without past_value or the reverse, a past with D and Dv that
    differ (past_value of V's head size)."""
    b, s, length, n = rng.randint(1, 3), rng.randint(1, 4), rng.randint(1, 4), rng.randint(1, 3)
    head, v_head = rng.randint(1, 4), rng.randint(1, 4)
    bad = None
    if rng.random() < 0.125:
        bad = rng.choice(["batch", "heads", "hidden", "length", "bias", "value_4d", "mask", "mask", "extra_batch",
                          "extra_heads", "extra_length", "extra_rank", "past_batch", "past_heads", "past_head",
                          "past_length", "past_one", "past_v"])
    three_only = bad in ("heads", "hidden", "bias") or bad is not None and bad.startswith("past_")
    four = bad == "value_4d" or not three_only and rng.random() < 0.25
    past = None
    if bad is not None and bad.startswith("past_") or rng.random() < (0.15 if four else 0.3):
        past = rng.randint(1, 3) if bad is not None and bad.startswith("past_") else rng.randint(0, 3)
    if bad == "past_v":
        v_head = head + rng.randint(1, 2)
    elif four or past is not None or rng.random() < 0.6:
        v_head = head
    if bad == "heads":
        n = rng.randint(2, 3)
    d, dv = n * head, n * v_head
    if bad == "heads":
        if rng.random() < 0.5:
            d += 1
        else:
            dv += 1
    q = [b, s, d]
    if four:
        k, v = [b, n, length, head], [b, n, length, head]
    else:
        k, v = [b, length, d], [b, length, dv]
    if bad == "batch":
        for x in rng.choice([[k, v], [v], [k]]):
            x[0] += 1
    elif bad == "hidden":
        k[2] += n
    elif bad == "length":
        v[2 if four else 1] += 1
    elif bad == "value_4d":
        v[rng.choice([1, 3])] += 1
    bias = None
    if bad == "bias" or rng.random() < (0.15 if four else 0.4):
        bias = [d + d + dv + (rng.choice([-1, 1, 2]) if bad == "bias" else 0)]
    total = length + (past or 0)
    mask = None
    if bad == "mask":
        choices = [[2 * b + 1], [b + 1, total], [b, total + 1], [b + 1, s, total], [b, s + 1, total], [b, s, total + 1]]
        if total > 1:
            choices += [[b, 1], [b, s, 1]]
        if past:
            choices += [[b, length]] * 2
        mask = rng.choice(choices)
    elif rng.random() < 0.4:
        mask = rng.choice([[b], [3 * b + 2], [b, total], [b, total], [b, s, total]])
    extra = None
    if bad is not None and bad.startswith("extra_") or rng.random() < 0.25:
        extra = bias_shape(rng, b, n, s, total, bad[len("extra_"):] if bad and bad.startswith("extra_") else None)
    past_key = past_value = None
    if past is not None:
        past_key, past_value = [b, n, past, head], [b, n, past, v_head]
        if bad in ("past_batch", "past_heads", "past_head"):
            axis = {"past_batch": 0, "past_heads": 1, "past_head": 3}[bad]
            for x in rng.choice([[past_key, past_value], [past_key], [past_value]]):
                x[axis] += 1
        elif bad == "past_length":
            past_value[2] += 1
        elif bad == "past_one":
            if rng.random() < 0.5:
                past_key = None
            else:
                past_value = None
    attrs = i("num_heads", n)
    unidirectional = rng.choice([None, None, 0, 1])
    if unidirectional is not None:
        attrs += i("unidirectional", unidirectional)
    inputs = [q, k, v, bias, ("typed", INT32, mask) if mask else None, extra, past_key, past_value]
    while inputs[-1] is None:
        inputs.pop()
    outputs = rng.choice([1, 1, 2, 3, 4])
    return Case("MultiHeadAttention", 17, inputs, attrs, outputs=outputs, domain="com.microsoft", typed_outputs=(3,))


def bert(rng):
    """The com.microsoft ops of ONNX Runtime's BERT optimiser, at default opset 17: Attention (bert_attention),
    MultiHeadAttention (bert_mha) and EmbedLayerNormalization (bert_embed)."""
    r = rng.random()
    if r < 0.45:
        return bert_attention(rng)
    return bert_mha(rng) if r < 0.75 else bert_embed(rng)


def lp_pool(rng):
    """LpPool at opsets 11 and 18 (ceil_mode from 18): AveragePool's shapes, with p 1 to 3. Invalid: a kernel of
    another rank than the input's spatial axes, pads of another count."""
    rank = rng.randint(1, 2)
    s = [rng.randint(1, 2), rng.randint(1, 3)] + [rng.randint(1, 9) for _ in range(rank)]
    kernel = [rng.randint(1, 4) for _ in range(rank)]
    attrs = ints("kernel_shape", kernel) + ints("strides", [rng.randint(1, 3) for _ in range(rank)]) + i("p", rng.randint(1, 3))
    c = rng.random()
    if c < 0.3:
        attrs += ints("pads", [rng.randint(0, k - 1) for k in kernel + kernel])
    elif c < 0.45:
        attrs += f'attribute {{ name: "auto_pad" type: STRING s: "{rng.choice(["SAME_UPPER", "SAME_LOWER", "VALID"])}" }} '
    elif c < 0.55:
        attrs += ints("pads", [0] * (2 * rank + 1))
    opset = rng.choice([11, 18])
    if opset == 18 and rng.random() < 0.3:
        attrs += i("ceil_mode", 1)
    if rng.random() < 0.06:
        attrs = attrs.replace(ints("kernel_shape", kernel), ints("kernel_shape", kernel + [1]))
    return Case("LpPool", opset, [s], attrs)


def grid(rng):
    """GridSample (opsets 16, 20 and 22, and com.microsoft's) and AffineGrid (20). GridSample: X [N, C, spatial] of 2
    spatial axes (3 from opset 20), grid [N, out spatial, r] with r the spatial rank; modes and padding modes of the
    opset, align_corners. AffineGrid: theta [N, 2, 3] with size [N, C, H, W] or [N, 3, 4] with [N, C, D, H, W] (an
    int64 initializer). Invalid: a grid of another batch, another last dimension or another rank; cubic on 5-D; theta
    of another shape or batch than the size says."""
    if rng.random() < 0.3:
        three = rng.random() < 0.4
        n = rng.randint(1, 3)
        spatial = [rng.randint(1, 4) for _ in range(3 if three else 2)]
        r = len(spatial)
        theta = [n, r, r + 1]
        size = [n, rng.randint(1, 3)] + spatial
        bad = rng.choice(["theta", "batch"]) if rng.random() < 0.125 else None
        if bad == "theta":
            theta[2] += 1
        elif bad == "batch":
            theta[0] += 1
        return Case("AffineGrid", 20, [theta, ("ints", size, [len(size)])], i("align_corners", rng.randint(0, 1)))
    opset = rng.choice([16, 20, 22, 1])
    three = opset in (20, 22) and rng.random() < 0.3
    n, ch = rng.randint(1, 3), rng.randint(1, 3)
    spatial = [rng.randint(1, 4) for _ in range(3 if three else 2)]
    out = [rng.randint(1, 4) for _ in spatial]
    x = [n, ch] + spatial
    g = [n] + out + [len(spatial)]
    bad = rng.choice(["batch", "last", "rank", "cubic"]) if rng.random() < 0.125 else None
    if bad == "batch":
        g[0] += 1
    elif bad == "last":
        g[-1] += 1
    elif bad == "rank":
        g = g[:1] + [1] + g[1:]
    modes = ["bilinear", "nearest", "bicubic"] if opset in (16, 1) else ["linear", "nearest", "cubic"]
    mode = rng.choice(modes)
    if bad == "cubic" and opset in (20, 22):
        x, g, mode = [n, ch, 2, 2, 2], [n, 2, 2, 2, 3], "cubic"
    elif mode in ("cubic", "bicubic") and len(spatial) == 3:
        mode = "linear"
    attrs = string("mode", mode) + string("padding_mode", rng.choice(["zeros", "border", "reflection"]))
    attrs += i("align_corners", rng.randint(0, 1))
    if opset == 1:
        return Case("GridSample", 17, [x, g], attrs, domain="com.microsoft")
    return Case("GridSample", opset, [x, g], attrs)


def with_intent(case, bad):
    """The invalidity the case was drawn with (None: a valid case), for inspection only."""
    case.intent = bad
    return case


def center_crop_pad(rng):
    """Crop or pad (centred) each named axis to its target: targets smaller, larger, equal or 0, differences odd
    and even; axes absent, a subset in any order, negative. Invalid: an axis out of range or twice, targets of
    another count, an int32 or 2-D shape, a rank-0 input."""
    rank = rng.randint(1, 4)
    x = [0 if rng.random() < 0.05 else rng.randint(1, 6) for _ in range(rank)]
    if rng.random() < 0.5:
        axes = None
        picked = list(range(rank))
    else:
        picked = rng.sample(range(rank), rng.randint(1, rank))
        axes = [a - rank if rng.random() < 0.4 else a for a in picked]
    targets = []
    for a in picked:
        c = rng.random()
        if c < 0.05:
            targets.append(0)
        elif c < 0.2:
            targets.append(x[a])
        else:
            targets.append(max(1, x[a] + rng.randint(-4, 4)))
    elem = rng.choice([FLOAT] * 6 + [INT64, UINT8, BOOL, FLOAT16, INT32, DOUBLE])
    shape_dims = [len(targets)]
    shape_type = INT64
    bad = rng.choice(["axis", "twice", "count", "int32", "2d", "rank0"]) if rng.random() < 0.13 else None
    if bad == "axis":
        axes = (axes or list(range(rank)))[:]
        axes[rng.randrange(len(axes))] = rng.choice([rank, rank + 2, -rank - 1])
    elif bad == "twice":
        axes = (axes or list(range(rank)))[:] + [picked[0] - rank if rng.random() < 0.5 else picked[0]]
        targets.append(targets[0])
        shape_dims = [len(targets)]
    elif bad == "count":
        targets = targets + [3] if rng.random() < 0.5 or len(targets) == 1 else targets[:-1]
        shape_dims = [len(targets)]
    elif bad == "int32":
        shape_type = INT32
    elif bad == "2d":
        shape_dims = [1, len(targets)]
    elif bad == "rank0":
        x, axes, targets, shape_dims = [], None, [], [0]
    data = x if elem == FLOAT else ("typed", elem, x)
    s = ("ints", targets, shape_dims) if shape_type == INT64 else ("const", shape_type, targets, shape_dims)
    return with_intent(Case("CenterCropPad", rng.choice([18, 18, 21, 24]), [data, s],
                            ints("axes", axes) if axes is not None else ""), bad)


def col2im(rng):
    """Col2Im of 1-D, 2-D and 3-D images: block, strides, dilations and pads (each attribute present or not), input
    [N, C * prod(block), L] with L the number of sliding blocks. Invalid: L or the channels off, a block larger than
    the padded image, lengths that differ, input of rank 2 or 4, an image value of 0, a stride of 0."""
    nd = rng.choice([1, 2, 2, 2, 3])
    image = [rng.randint(1, 6 if nd < 3 else 4) for _ in range(nd)]
    strides = [rng.randint(1, 3) for _ in range(nd)]
    dilations = [rng.choice([1, 1, 2]) for _ in range(nd)]
    pads = [rng.choice([0, 0, 1, 2]) for _ in range(2 * nd)]
    use_s, use_d, use_p = rng.random() < 0.6, rng.random() < 0.4, rng.random() < 0.4
    if not use_s:
        strides = [1] * nd
    if not use_d:
        dilations = [1] * nd
    if not use_p:
        pads = [0] * (2 * nd)
    block = []
    for k in range(nd):
        extent = image[k] + pads[k] + pads[k + nd]
        kmax = (extent - 1) // dilations[k] + 1
        block.append(rng.randint(1, min(kmax, 4)))
    blocks = product([(image[k] + pads[k] + pads[k + nd] - (dilations[k] * (block[k] - 1) + 1)) // strides[k] + 1
                      for k in range(nd)])
    n = 0 if rng.random() < 0.05 else rng.randint(1, 2)
    c = rng.randint(1, 3)
    col = [n, c * product(block), blocks]
    attrs = (ints("strides", strides) if use_s else "") + (ints("dilations", dilations) if use_d else "") + \
        (ints("pads", pads) if use_p else "")
    bad = rng.choice(["blocks", "channels", "big", "lengths", "attr", "rank", "zero", "stride0"]) \
        if rng.random() < 0.13 else None
    if bad == "blocks":
        col[2] += rng.choice([-1, 1]) if col[2] > 1 else 1
    elif bad == "channels":
        col[1] += 1 if product(block) > 1 else -col[1]
    elif bad == "big":
        k = rng.randrange(nd)
        block[k] = image[k] + pads[k] + pads[k + nd] + 1
    elif bad == "lengths":
        block = block + [1] if rng.random() < 0.5 or nd == 1 else block[:-1]
    elif bad == "attr":
        attrs += ints(rng.choice(["strides", "dilations"]), [1] * (nd + 1)) if not (use_s or use_d) else \
            ints("pads", [0] * (2 * nd + 2))
        if use_p:
            attrs = attrs.replace(ints("pads", pads), "")
    elif bad == "rank":
        col = col[1:] if rng.random() < 0.5 else col + [1]
    elif bad == "zero":
        image[rng.randrange(nd)] = 0
    elif bad == "stride0":
        attrs = attrs.replace(ints("strides", strides), "") + ints("strides", [0] + [1] * (nd - 1))
    return with_intent(Case("Col2Im", rng.choice([18, 18, 21]),
                            [col, ("ints", image, [len(image)]), ("ints", block, [len(block)])], attrs), bad)


def max_unpool(rng):
    """MaxUnpool at opsets 9, 11 and 22: 1 to 3 spatial axes, kernel, strides and pads (below the kernel), with and
    without output_shape (at least as many elements as the inferred shape, N and C as X's); the indices an int64
    initializer of X's shape, values inside the output. Invalid: pads at or above the kernel, pads / strides /
    kernel of another length, output_shape of another length, N or C, or too small, an index outside the output,
    indices of another shape, an output dim below 1, 4 spatial axes, X of rank 2."""
    opset = rng.choice([9, 10, 11, 13, 18, 22, 24])
    nd = rng.choice([1, 2, 2, 3])
    n = 0 if rng.random() < 0.04 else rng.randint(1, 2)
    c = rng.randint(1, 3)
    spatial = [rng.randint(1, 4) for _ in range(nd)]
    kernel = [rng.randint(1, 3) for _ in range(nd)]
    strides = [rng.randint(1, 3) for _ in range(nd)]
    use_s, use_p = rng.random() < 0.7, rng.random() < 0.4
    if not use_s:
        strides = [1] * nd
    pads = [rng.randint(0, kernel[k % nd] - 1) for k in range(2 * nd)] if use_p else [0] * (2 * nd)
    for k in range(nd):  # keep every inferred dim positive
        while (spatial[k] - 1) * strides[k] + kernel[k] - pads[k] - pads[k + nd] < 1:
            pads[k] = pads[k + nd] = 0
    inferred = [n, c] + [(spatial[k] - 1) * strides[k] + kernel[k] - pads[k] - pads[k + nd] for k in range(nd)]
    given = None
    if rng.random() < 0.35:
        given = [n, c] + [d + rng.choice([0, 0, 1, 2]) for d in inferred[2:]]
        if nd > 1 and rng.random() < 0.3:  # another arrangement of at least as many elements
            given = [n, c] + list(reversed(given[2:]))
    x = [n, c] + spatial
    out = given if given is not None else inferred
    size = product(out)
    values = [rng.randrange(size) for _ in range(product(x))] if size else []
    idx_shape = list(x)
    attrs = ints("kernel_shape", kernel) + (ints("strides", strides) if use_s else "") + \
        (ints("pads", pads) if use_p else "")
    bad = rng.choice(["pad_big", "pads_len", "strides_len", "kernel_len", "given_len", "given_nc", "given_small",
                      "index", "index_shape", "nonpositive", "rank6", "rank2"]) if rng.random() < 0.13 else None
    if bad == "pad_big":
        pads[0] = kernel[0] + rng.randint(0, 1)
        attrs = ints("kernel_shape", kernel) + (ints("strides", strides) if use_s else "") + ints("pads", pads)
    elif bad == "pads_len":
        attrs = attrs.replace(ints("pads", pads), "") + ints("pads", [0] * (2 * nd + rng.choice([-1, 1, 2])))
    elif bad == "strides_len":
        attrs = attrs.replace(ints("strides", strides), "") + ints("strides", [1] * (nd + 1))
    elif bad == "kernel_len":
        attrs = attrs.replace(ints("kernel_shape", kernel), ints("kernel_shape", kernel + [2]))
    elif bad == "given_len":
        given = inferred[:-1]
    elif bad == "given_nc":
        given = list(inferred)
        given[rng.choice([0, 1])] += 1
    elif bad == "given_small":
        given = list(inferred)
        big = [k for k in range(2, nd + 2) if given[k] > 1]
        if big:
            given[big[0]] -= 1
        else:
            given[2] = 0
        if product(given) >= product(inferred):  # an empty batch: nothing is smaller
            bad, given = None, None
    elif bad == "index":
        if values:
            values[rng.randrange(len(values))] = rng.choice([size, size + 3, -1])
        else:
            bad = None
    elif bad == "index_shape":
        idx_shape = idx_shape + [1]
    elif bad == "nonpositive":
        x = [n, c] + [1] * nd
        kernel[0], pads = 2, [0] * (2 * nd)
        pads[0] = pads[nd] = 1
        given, values, idx_shape = None, [0] * product(x), list(x)
        attrs = ints("kernel_shape", kernel) + ints("pads", pads)
    elif bad == "rank6":
        x = [1, 1, 2, 1, 1, 1]
        values, idx_shape, given = [0, 1], list(x), None
        attrs = ints("kernel_shape", [1, 1, 1, 1])
    elif bad == "rank2":
        x = [2, 3]
        values, idx_shape, given = [0] * 6, list(x), None
        attrs = ints("kernel_shape", [])
    inputs = [x, ("ints", values, idx_shape)]
    if given is not None:
        inputs.append(("ints", given, [len(given)]))
    return with_intent(Case("MaxUnpool", opset, inputs, attrs), bad)


def max_roi_pool(rng):
    """MaxRoiPool: X [N, C, H, W], 0 to 4 rois [batch, x1, y1, x2, y2] (an initializer: batch indices in range,
    fractional ones truncated), pooled_shape, spatial_scale. Opsets 1 to 21 (MaxRoiPool-1); one case in six at
    22 (MaxRoiPool-22, which ONNX Runtime has no kernel for: refused). Invalid: pooled_shape of 1 or 3 values or
    with a 0, spatial_scale <= 0, a batch index out of range, rois of 4 columns or of rank 1, X of rank 3 or 5."""
    opset = 22 if rng.random() < 0.16 else rng.choice([1, 10, 16, 21])
    n = rng.randint(1, 3)
    x = [n, 0 if rng.random() < 0.05 else rng.randint(1, 3), rng.randint(1, 8), rng.randint(1, 8)]
    count = 0 if rng.random() < 0.07 else rng.randint(1, 4)
    rois = []
    for _ in range(count):
        b = rng.randrange(n) + (0.5 if rng.random() < 0.2 else 0)
        x1, y1 = rng.randint(0, x[3]), rng.randint(0, x[2])
        rois += [b, x1, y1, x1 + rng.randint(-1, 4), y1 + rng.randint(-1, 4)]
    cols = 5
    pooled = [rng.randint(1, 4), rng.randint(1, 4)]
    scale = rng.choice([None, None, 1.0, 0.5, 0.25, 2.0])
    # float16 runs through a Cast ONNX Runtime inserts (its kernel is float only); a model of opset 1 it refuses (the
    # inserted Cast-1 wants a string 'to'), so float16 only from opset 10.
    elem = FLOAT16 if rng.random() < 0.06 and opset != 1 else FLOAT
    rdims = [count, cols]
    bad = rng.choice(["pooled_len", "pooled_zero", "scale", "batch", "cols", "rois_rank", "rank3", "rank5"]) \
        if rng.random() < 0.13 else None
    if bad == "pooled_len":
        pooled = pooled[:1] if rng.random() < 0.5 else pooled + [2]
    elif bad == "pooled_zero":
        pooled[rng.randrange(2)] = 0
    elif bad == "scale":
        scale = rng.choice([0.0, -1.0])
    elif bad == "batch":
        if count == 0:
            rois, count = [0, 0, 0, 1, 1], 1
        rois[5 * rng.randrange(count)] = rng.choice([n, n + 1, -1])
        rdims = [count, cols]
    elif bad == "cols":
        rois = [v for k, v in enumerate(rois) if k % 5 != 4]
        rdims = [count, 4]
    elif bad == "rois_rank":
        rois = rois[:5] if count else [0, 0, 0, 1, 1]
        rdims = [5]
    elif bad == "rank3":
        x = x[:3]
    elif bad == "rank5":
        x = x + [2]
        if rng.random() < 0.5:
            pooled = pooled + [1]
    attrs = ints("pooled_shape", pooled) + (flt("spatial_scale", scale) if scale is not None else "")
    data = x if elem == FLOAT else ("typed", elem, x)
    if elem == FLOAT16:  # an initializer of float16 holds the values' bits
        rois = [struct.unpack("<H", struct.pack("<e", v))[0] for v in rois]
    return with_intent(Case("MaxRoiPool", opset, [data, ("const", elem, rois, rdims)], attrs),
                       bad or ("opset22" if opset >= 22 else None))


def tensor_scatter(rng):
    """TensorScatter: past_cache of rank 2 to 4, update of its shape but a sequence length up to the cache's on
    axis (default -2, or given in [1, r-1] or [-r+1, -1]), write_indices (an int64 initializer, [batch]) or none,
    mode absent, linear or circular (circular indices may pass the end). Any element type. Invalid: an update
    longer than the cache, a write index past the end (linear) or negative, ranks that differ, another dim that
    differs, axis 0 or out of range, write_indices of another length or int32, an unknown mode."""
    rank = rng.randint(2, 4)
    cache = [0 if rng.random() < 0.04 else rng.randint(1, 3)] + [rng.randint(1, 4) for _ in range(rank - 1)]
    c = rng.random()
    if c < 0.4:
        axis_attr, ax = None, rank - 2
    else:
        ax = rng.randint(1, rank - 1)
        axis_attr = ax - rank if rng.random() < 0.5 else ax
    axis0 = False
    if ax == 0:  # rank 2 with the default axis -2: axis 0, refused; give axis 1 instead (one in ten kept)
        if rng.random() < 0.9:
            ax, axis_attr = 1, rng.choice([1, -1])
        else:
            axis0 = True
    mode = rng.choice([None, None, "linear", "circular"])
    cache[ax] = rng.randint(1, 6) if mode == "circular" or rng.random() > 0.05 else 0
    update = list(cache)
    if ax != 0:
        update[ax] = rng.randint(0, cache[ax])
    batch = cache[0]
    wi = None
    if rng.random() < 0.6:
        if mode == "circular":
            wi = [rng.randint(0, 2 * cache[ax]) for _ in range(batch)]
        else:
            wi = [rng.randint(0, cache[ax] - update[ax]) for _ in range(batch)]
    elem = rng.choice([FLOAT] * 6 + [INT64, INT32, UINT8, BOOL, FLOAT16, INT8])
    wi_type = INT64
    wdims = [batch]
    attrs = (i("axis", axis_attr) if axis_attr is not None else "") + (string("mode", mode) if mode else "")
    bad = rng.choice(["longer", "past_end", "negative", "rank", "dim", "axis", "wi_len", "wi_int32", "mode"]) \
        if rng.random() < 0.13 else None
    if bad == "longer" and ax != 0:
        update[ax] = cache[ax] + rng.randint(1, 2)
        if wi is not None:
            wi = [0] * batch
    elif bad == "past_end" and mode != "circular" and ax != 0:
        if batch == 0 or wi is None:
            cache[0] = batch = max(batch, 1)
            update[0] = batch
            wi = [0] * batch
        wi[rng.randrange(batch)] = cache[ax] - update[ax] + rng.randint(1, 3)
        wdims = [batch]
    elif bad == "negative":
        if batch == 0:
            cache[0] = update[0] = batch = 1
        wi = [0] * batch
        wi[rng.randrange(batch)] = -rng.randint(1, 3)
        wdims = [batch]
    elif bad == "rank":
        update = update + [1] if rng.random() < 0.5 else update[:-1]
    elif bad == "dim":
        others = [d for d in range(rank) if d != ax]
        d = rng.choice(others)
        update[d] += 1
        if d == 0 and wi is not None:
            wi = wi + [0]
            wdims = [len(wi)]
    elif bad == "axis":
        axis_attr = rng.choice([0, -rank, rank, rank + 1])
        attrs = i("axis", axis_attr) + (string("mode", mode) if mode else "")
    elif bad == "wi_len":
        wi = (wi or [0] * batch) + [0]
        wdims = [len(wi)]
    elif bad == "wi_int32":
        wi = wi if wi is not None else [0] * batch
        wi_type = INT32
    elif bad == "mode":
        attrs = (i("axis", axis_attr) if axis_attr is not None else "") + string("mode", rng.choice(["ring", "LINEAR"]))
    elif bad is not None:  # "longer" on axis 0, "past_end" in circular mode: drawn valid
        bad = None
    if axis0 and bad is None:
        bad = "axis0"
    data = [cache, update] if elem == FLOAT else [("typed", elem, cache), ("typed", elem, update)]
    if wi is not None:
        data.append(("ints", wi, wdims) if wi_type == INT64 else ("const", wi_type, wi, wdims))
    return with_intent(Case("TensorScatter", rng.choice([24, 24, 25]), data, attrs), bad)


def image(rng):
    """CenterCropPad-18, Col2Im-18, MaxUnpool (9 to 24), MaxRoiPool (1 to 21, and one case in six at 22, which ONNX Runtime
    has no kernel for) and
    TensorScatter-24, about one case in eight invalid. Each op's generator says what it draws; ONNX Runtime's checks,
    with where it makes them (load: ONNX's shape inference; init: the kernel's constructor; run: its Compute):
    CenterCropPad (ONNX's function body, Pad then Slice): load refuses an axis out of range or twice and a shape of
    another count than the axes; run a 2-D shape and a rank-0 input. Col2Im: load refuses an input of rank other than 3
    and window lists of other lengths; init a stride or dilation below 1; run an image or block value below 1, a
    padded image smaller than the dilated block, C * K not a positive multiple of K, L not the number of blocks.
    MaxUnpool: load refuses window lists of other lengths and an output_shape of another length than X's rank; init
    a pad not shorter than its kernel; run X of rank below 3 or above 5, I of another shape, an inferred dimension
    below 1, output_shape's N or C other than X's or fewer elements than inferred, an index outside the output.
    MaxRoiPool: load refuses X of rank below 4, rois of rank other than 2, pooled_shape missing or not positive; init
    pooled_shape of other than 2 values, spatial_scale <= 0; run rois of other than 5 columns, a batch index outside
    [0, N). TensorScatter: load refuses ranks that differ, an axis outside [1, r - 1], other dimensions that differ,
    write_indices not [B]; init a mode other than linear or circular; run an update longer than the cache, a
    negative write index, and (linear) one past max - length."""
    r = rng.random()
    if r < 0.2:
        return center_crop_pad(rng)
    if r < 0.4:
        return col2im(rng)
    if r < 0.65:
        return max_unpool(rng)
    if r < 0.8:
        return max_roi_pool(rng)
    return tensor_scatter(rng)


HALF_ONE = 15360  # float16 1.0, as its bits (Case writes float16 values to int32_data)


def scalar(v, t=INT64):
    return ("ints", [v], []) if t == INT64 else ("const", t, [v], [])


def floats(values, dims, t=FLOAT):
    """A float initializer of type t (float16 values given as bits of 1.0, 2.0...)."""
    if t == FLOAT16:
        values = [HALF_ONE + 1024 * int(min(v, 2) - 1) if v >= 1 else HALF_ONE for v in values]
    return ("const", t, values, dims)


def signal_input(t, dims):
    return dims if t == FLOAT else ("typed", t, dims)


def tagged(case, expect=None):
    case.expect = expect
    return case


def next_pow2(n):
    p = 1
    while p < n:
        p <<= 1
    return p


def pow2(n):
    return n > 0 and n & (n - 1) == 0


# ---------------------------------------------------------------------------------------------------------- DFT

def dft(rng):
    version = rng.choice([17, 20])
    opset = version if rng.random() < 0.7 else (rng.choice([18, 19]) if version == 17 else rng.choice([21, 22]))
    t = rng.choices([FLOAT, DOUBLE, FLOAT16], [0.8, 0.13, 0.07])[0]
    rank = rng.choices([2, 3, 4, 5], [0.15, 0.45, 0.3, 0.1])[0]
    onesided = rng.random() < 0.4
    inverse = rng.random() < 0.35
    irfft = onesided and inverse
    last = 2 if irfft else 1 if onesided else rng.choice([1, 2])
    dims = [rng.randint(1, 5) for _ in range(rank - 1)] + [last]
    # The axis: DFT-17's attribute (default 1) or DFT-20's input (default -2); in [-r, -2] or [0, r-2].
    valid_axes = list(range(0, rank - 1)) + list(range(-rank, -1))
    a = rng.choice(valid_axes)
    given_axis = True
    if version == 17 and rank >= 3 and rng.random() < 0.3:
        a, given_axis = 1, False
    if version == 20 and rng.random() < 0.35:
        a, given_axis = -2, False
    k = a % rank
    for j in range(rank - 1):
        if j != k and rng.random() < 0.04:
            dims[j] = 0  # an empty batch or other signal axis: runs
    dims[k] = rng.randint(1, 9)
    length = None
    if rng.random() < 0.55:
        length = rng.randint(1, 2 * dims[k] + 3)
        if not pow2(length) and length < dims[k] and dims[k] > next_pow2(2 * length - 1):
            length = dims[k]
    if irfft and length is None and dims[k] == 1:
        dims[k] = rng.randint(2, 6)
    length_type = INT32 if rng.random() < 0.2 else INT64
    expect = None
    bad = rng.random() < 0.13
    if bad:
        kind = rng.choice(["axis", "axis", "onesided_complex", "irfft_real", "length0", "length_neg",
                           "length_shape", "layout", "rank1"] + (["axis_shape", "axis_type"] if version == 20 else []))
        if kind == "axis":
            a, given_axis = rng.choice([-1, rank - 1, -rank - 1, rank]), True
            expect = "is invalid for a tensor of rank"
        elif kind == "onesided_complex":
            onesided, inverse, irfft = True, False, False
            dims[-1] = 2
            expect = "one-sided DFT requires real input"
        elif kind == "irfft_real":
            onesided, inverse, irfft = True, True, True
            dims[-1] = 1
            expect = "inverse one-sided DFT requires complex input"
        elif kind == "length0":
            length = 0
            expect = "dft_length must be greater than zero"
        elif kind == "length_neg":
            length = -rng.randint(1, 4)
            expect = "Invalid dimension"
        elif kind == "length_shape":
            length = rng.randint(1, 8)
            expect = "dft_length input must be a scalar"
        elif kind == "layout":
            onesided, inverse, irfft = False, rng.random() < 0.5, False
            dims[-1] = rng.choice([3, 4])
            expect = "Input layout not supported"
        elif kind == "rank1":
            dims, a, given_axis = [rng.randint(1, 6)], 0, False
            expect = "input tensor must have rank >= 2"
        elif kind == "axis_shape":
            given_axis = "shape"
            expect = "axis input must be a scalar"
        elif kind == "axis_type":
            given_axis = "type"
            expect = "Type Error"
    attrs = ""
    if onesided or rng.random() < 0.2:
        attrs += i("onesided", int(onesided))
    if inverse or rng.random() < 0.2:
        attrs += i("inverse", int(inverse))
    if version == 17 and given_axis:
        attrs += i("axis", a)
    inputs = [signal_input(t, dims)]
    if expect == "dft_length input must be a scalar":
        inputs.append(("ints", [length], [1]) if length_type == INT64 else ("const", INT32, [length], [1]))
    elif length is not None:
        inputs.append(scalar(length, length_type))
    if version == 20 and given_axis:
        if len(inputs) == 1:
            inputs.append(None)
        if given_axis == "shape":
            inputs.append(("ints", [a], [1]))
        elif given_axis == "type":
            inputs.append(("const", INT32, [a], []))
        else:
            inputs.append(scalar(a))
    return tagged(Case("DFT", opset, inputs, attrs), expect)


# --------------------------------------------------------------------------------------------------------- STFT

def stft(rng):
    t = rng.choices([FLOAT, DOUBLE, FLOAT16], [0.8, 0.13, 0.07])[0]
    t2 = INT32 if rng.random() < 0.2 else INT64
    b = 0 if rng.random() < 0.05 else rng.randint(1, 3)
    length = rng.randint(1, 24)
    comps = rng.choice([1, 2])
    sig = [b, length] if rng.random() < 0.1 else [b, length, comps]
    w = rng.randint(1, length)
    step = rng.randint(1, length + 2)
    how = rng.choices(["window", "frame_length", "both"], [0.4, 0.35, 0.25])[0]
    onesided = rng.choice([None, 0, 1])
    expect = None
    frame_len = w
    window_dims = [w]
    step_value = ("ints", [step], []) if t2 == INT64 else ("const", INT32, [step], [])
    if rng.random() < 0.13:
        kind = rng.choice(["long", "long", "mismatch", "neither", "step_neg", "step0", "frame_shape", "window_rank",
                           "signal_rank", "signal_last", "step_count"])
        if kind == "long":
            w = frame_len = length + rng.randint(1, 4)
            window_dims = [w]
            expect = "Ensure that the dft size is smaller than the signal"
        elif kind == "mismatch":
            how = "both"
            frame_len = w + rng.choice([-1, 1, 2]) if w > 1 else w + 1
            expect = "the dimension of the window must match the frame_length"
        elif kind == "neither":
            how = "neither"
            expect = "Tensor shape.Size() must be >= 0"
        elif kind == "step_neg":
            step_value = scalar(-rng.randint(1, 3), t2)
            # ONNX's inference gives (L-W)/step+1 frames, truncated: a negative dimension (refused when loaded)
            # unless L-W < -step, when the kernel refuses the step.
            expect = "frame_step must be greater than zero|Invalid dimension"
        elif kind == "step0":
            step_value = scalar(0, t2)
            expect = "Invalid dimension"
        elif kind == "frame_shape":
            how = "frame_length"
            expect = "frame_length input must be scalar"
        elif kind == "window_rank":
            how = "window"
            window_dims = [1, w]
            expect = "window input must have rank = 1"
        elif kind == "signal_rank":
            sig = [b or 1, length, 1, 1]
            expect = "signal shape must end in 1 (real) or 2"
        elif kind == "signal_last":
            sig = [b or 1, length, 3]
            expect = "Unsupported input signal shape"
        elif kind == "step_count":
            step_value = ("ints", [step, step], [2]) if t2 == INT64 else ("const", INT32, [step, step], [2])
            expect = "ratio input should have a single value"
    window = floats([1.0] * w, window_dims, t) if how in ("window", "both") else None
    if how in ("frame_length", "both"):
        if expect == "frame_length input must be scalar":
            frame = ("ints", [frame_len], [1]) if t2 == INT64 else ("const", INT32, [frame_len], [1])
        else:
            frame = scalar(frame_len, t2)
        inputs = [signal_input(t, sig), step_value, window, frame]
    else:
        inputs = [signal_input(t, sig), step_value] + ([window] if window is not None else [])
    attrs = "" if onesided is None else i("onesided", onesided)
    return tagged(Case("STFT", 17, inputs, attrs), expect)


# -------------------------------------------------------------------------------------------- MelWeightMatrix

def f32(x):
    return struct.unpack("f", struct.pack("f", x))[0]


def mel_index(dft_length, hertz, sample_rate):
    """floor(((dft_length + 1) * hertz) / sample_rate) in float, as window_functions.cc computes it."""
    import math
    return math.floor(f32(f32(f32(dft_length + 1) * f32(hertz)) / f32(sample_rate)))


def mel_ok(mel, dft_length, sr, lo, hi):
    bins = int(dft_length / 2) + 1  # C++ division
    return mel >= 0 and sr != 0 and all(0 <= mel_index(dft_length, h, sr) < bins for h in (lo, hi))


def mel(rng):
    t1 = INT32 if rng.random() < 0.25 else INT64
    num = 0 if rng.random() < 0.05 else rng.randint(1, 12)
    dft_length = rng.choice([rng.randint(1, 16), rng.randint(16, 128), rng.choice([64, 128, 256, 400, 512])])
    sr = rng.choice([8000, 16000, 22050, 44100, rng.randint(50, 2000)])
    bins = dft_length // 2 + 1
    top = (bins - 1) * sr / (dft_length + 1)  # below this hi keeps its index inside
    hi = round(top * rng.uniform(0.05, 0.97), 1)
    lo = 0.0 if rng.random() < 0.4 else round(hi * rng.uniform(0, 0.9), 1)
    if rng.random() < 0.05:
        lo, hi = hi, lo  # the bands upside down: runs
    out_type = rng.choice([None, None, FLOAT, DOUBLE, INT64, INT32, UINT8])
    edge_type = FLOAT
    shapes = {"mel": [], "dft": [], "sr": [], "lo": [], "hi": []}
    if rng.random() < 0.1:
        shapes[rng.choice(["sr", "lo", "hi"])] = [1]  # read as a scalar: runs
    expect = None
    t_mel = t1
    if rng.random() < 0.13:
        kind = rng.choice(["hi", "hi", "lo", "mel_shape", "dft_shape", "edge_type", "out_type", "mixed", "mel_neg",
                           "sr_count"])
        if kind == "hi":
            hi = round(sr * (bins + 0.5) / (dft_length + 1) * rng.uniform(1.0, 1.5), 1)
            expect = "upper_edge_hertz produces a mel triangle filter bank that is out of range"
        elif kind == "lo":
            lo = -rng.randint(10, 1000) * 1.0
            expect = "lower_edge_hertz produces a mel triangle filter bank that is out of range"
        elif kind == "mel_shape":
            shapes["mel"] = [1]
            expect = "num_mel_bins input must be scalar"
        elif kind == "dft_shape":
            shapes["dft"] = [1]
            expect = "dft_length input must be scalar"
        elif kind == "edge_type":
            edge_type = DOUBLE
            expect = "Could not find an implementation"
        elif kind == "out_type":
            out_type = rng.choice([FLOAT16, BOOL])
            expect = "Could not find an implementation"
        elif kind == "mixed":
            t_mel = INT32 if t1 == INT64 else INT64
            expect = "bound to different types"
        elif kind == "mel_neg":
            num = -rng.randint(1, 4)
            expect = "Tensor shape.Size() must be >= 0"
        elif kind == "sr_count":
            shapes["sr"] = [2]
            expect = "ratio input should have a single value"
    elif not mel_ok(num, dft_length, sr, lo, hi):
        lo, hi = 0.0, 0.0
    def int_init(v, ty, dims):
        values = [v] * (dims[0] if dims else 1)
        return ("ints", values, dims) if ty == INT64 else ("const", ty, values, dims)
    inputs = [int_init(num, t_mel, shapes["mel"]), int_init(dft_length, t1, shapes["dft"]),
              int_init(sr, t1, shapes["sr"]), ("const", edge_type, [lo], shapes["lo"]),
              ("const", edge_type, [hi], shapes["hi"])]
    attrs = "" if out_type is None else i("output_datatype", out_type)
    return tagged(Case("MelWeightMatrix", 17, inputs, attrs), expect)


# ------------------------------------------------------------------------------------------------------ losses

def loss(rng):
    sce = rng.random() < 0.45
    op = "SoftmaxCrossEntropyLoss" if sce else "NegativeLogLikelihoodLoss"
    version = rng.choice([12, 13]) if sce else rng.choice([12, 13, 22])
    opset = version
    if rng.random() < 0.25:
        opset = {12: 12, 13: rng.choice([15, 18, 21]) if not sce else rng.choice([15, 18, 22]), 22: 23}[version]
    t = rng.choices([FLOAT, DOUBLE, FLOAT16], [0.8, 0.12, 0.08])[0]
    tind = INT32 if rng.random() < 0.2 else INT64
    n = rng.randint(1, 4)
    c = rng.randint(1, 5)
    extra = [rng.randint(1, 3) for _ in range(rng.choices([0, 1, 2], [0.5, 0.3, 0.2])[0])]
    if not sce and rng.random() < 0.04:
        n = 0
    if extra and rng.random() < 0.05:
        extra[rng.randrange(len(extra))] = 0
    ignore = None
    if rng.random() < 0.3:
        ignore = rng.choice([-1, -100, c, c + 3, rng.randrange(c)])
    count = n
    for d in extra:
        count *= d
    targets = [rng.randrange(c) for _ in range(count)]
    if ignore is not None:
        targets = [ignore if rng.random() < 0.3 else v for v in targets]
    elif rng.random() < 0.1:
        targets = [v - c if rng.random() < 0.5 else v for v in targets]  # negative, in [-C, -1]: runs
    weight_len = c + (rng.randint(1, 2) if rng.random() < 0.15 else 0)
    weighted = rng.random() < 0.35
    reduction = rng.choice([None, "none", "none", "sum", "mean"])
    x = [n, c] + extra
    tdims = [n] + extra
    weight_dims = [weight_len]
    expect = None
    if sce and 0 in extra[1:]:
        # SCE's body reshapes its log-softmax [N, C, D] back by Shape(scores): a 0 past position 2 copies a
        # dimension that [N, C, D] does not have (ONNX's Reshape inference, when ONNX Runtime loads it).
        expect = "Invalid position of 0"
    if expect is None and rng.random() < 0.13:
        kind = rng.choice(["target_rank", "target_dim", "target_dim", "weight_rank", "target_range", "weight_short",
                           "input_rank"] + (["sce_empty"] if sce else []))
        if kind == "target_rank":
            tdims = tdims + [1] if rng.random() < 0.5 or len(tdims) == 1 else tdims[:-1]
            count = 1
            for d in tdims:
                count *= d
            targets = [rng.randrange(c) for _ in range(count)]
            expect = "Target rank must be 1 less than the input rank"
        elif kind == "target_dim":
            j = rng.randrange(len(tdims))
            tdims = list(tdims)
            tdims[j] += rng.randint(1, 2)
            count = 1
            for d in tdims:
                count *= d
            targets = [rng.randrange(c) for _ in range(count)]
            expect = "Input and target dimension value mismatch"
        elif kind == "weight_rank":
            weighted, weight_dims = True, [1, weight_len]
            expect = "Weight rank must be 1"
        elif kind == "target_range":
            ignore = None
            targets = targets or [0]
            if not count:
                n, x, tdims = 1, [1, c] + [d or 1 for d in extra], [1] + [d or 1 for d in extra]
                count = 1
                for d in tdims:
                    count *= d
                targets = [0] * count
            targets[rng.randrange(len(targets))] = rng.choice([c, c + 2, -c - 1])
            # (with a weight, its Gather may run first and refuse the index instead)
            expect = "GatherElements op: Out of range value in index tensor|indices element out of data bounds"
        elif kind == "weight_short":
            if c == 1:
                c, x = 2, [n, 2] + extra
            weighted, weight_len, weight_dims = True, c - 1, [c - 1]
            ignore = None
            n, x, tdims = max(n, 1), [max(n, 1), c] + [d or 1 for d in extra], [max(n, 1)] + [d or 1 for d in extra]
            count = 1
            for d in tdims:
                count *= d
            targets = [rng.randrange(c) for _ in range(count)]
            targets[rng.randrange(count)] = c - 1
            expect = "indices element out of data bounds"
        elif kind == "input_rank":
            x, tdims, targets = [c], [], [0]
            expect = "Invalid position of 0" if sce else "Input rank must be >= 2"
        elif kind == "sce_empty":
            x = [0, c] + extra if rng.random() < 0.5 else [n, 0] + extra
            tdims = [x[0]] + extra
            count = 0 if x[0] == 0 else n
            for d in extra:
                count *= d
            targets = [0] * count
            expect = "Invalid Target shape product of 0"
    attrs = "" if reduction is None else string("reduction", reduction)
    if ignore is not None:
        attrs += i("ignore_index", ignore)
    target = ("ints", targets, tdims) if tind == INT64 else ("const", INT32, targets, tdims)
    inputs = [signal_input(t, x), target]
    if weighted:
        size = 1
        for d in weight_dims:
            size *= d
        inputs.append(floats([1.0 + (k % 2) for k in range(size)], weight_dims, t))
    outputs = 2 if sce and rng.random() < 0.7 else 1
    return tagged(Case(op, opset, inputs, attrs, outputs=outputs), expect)


def signal(rng):
    """DFT-17 and -20, STFT-17, MelWeightMatrix-17, NegativeLogLikelihoodLoss (12, 13, 22) and SoftmaxCrossEntropyLoss
    (12, 13), about one case in eight invalid; each case's `expect` is the piece of ONNX Runtime's refusal it was drawn
    for (None: it runs). The values ONNX Runtime reads (dft_length, DFT-20's axis, frame_step, frame_length, the window,
    the mel parameters, targets and weights) are initializers. ONNX Runtime 1.30's shapes: DFT along a (DFT-17's
    attribute, 1 by default; DFT-20's scalar input, -2), in [-r, -2] or [0, r - 2]: n = dft_length, else 2 (X[a] - 1)
    one-sided and inverse, else X[a]; Y[a] = n / 2 + 1 one-sided forward, else n; Y[-1] 1 one-sided inverse, else 2.
    STFT: W the window's length or frame_length: [B, (L - W) / step + 1, W / 2 + 1 (one-sided, the default) or W, 2].
    MelWeightMatrix: [dft_length / 2 + 1, num_mel_bins]. The losses (ONNX functions ONNX Runtime expands): [N, d...]
    with reduction none, else [] (any other reduction); SoftmaxCrossEntropyLoss's log_prob the scores' shape. Left
    out because they stop ONNX Runtime's process rather than being refused: a DFT axis of length 0, an inverse one-sided
    DFT over an axis of length 1 without dft_length, a dft_length not a power of 2 below an axis longer than
    next_pow2(2 n - 1), an STFT frame of length 0."""
    make = rng.choices([dft, stft, mel, loss], [0.3, 0.18, 0.14, 0.38])[0]
    return make(rng)


MS = "com.microsoft"


def llm_tagged(case, bad, expect=()):
    """The case, with the kind of invalid model it is (None: valid) and the output shapes the formulas of the
    docstrings give (for a valid one), for a look at ONNX Runtime's answers (reasons.py)."""
    case.bad = bad
    case.expect = [list(e) for e in expect][:case.outputs]
    return case


def seqlens_init(values, dims=None):
    return ("const", INT32, values, [len(values)] if dims is None else dims)


def ms_gqa(rng):
    """com.microsoft.GroupQueryAttention (float): query [B, S, N*H] with key and value [B, S, Nk*H] (N num_heads,
    Nk kv_num_heads, N a multiple of Nk, H a multiple of 8), or packed QKV [B, S, (N + 2 Nk) H] with no key or
    value; past_key and past_value [B, Nk, P, H] or neither; seqlens_k [B] (an int32 initializer, perhaps [B, 1] or
    [1, B]) and total_sequence_length T (an int32 scalar or [1] initializer, T >= 1). Three kinds of step: a first
    prompt (S = T; seqlens_k any of [0, T)), token generation (S = 1 < T) and a later prompt (B = 1, 1 < S != T);
    for the last two each seqlens_k is in [S - 1, T - 1] and, with a past, at most P + S - 1 (it holds the rows
    already in the cache plus S). With a past, key and value may have length 0 (shared KV: T <= P).
    Perhaps do_rotary with cos_cache and sin_cache [R, C] (R >= T, C a multiple of 8 at most H/2, H a multiple of 16)
    and rotary_interleaved, position_ids (int64 [B, S or more], values the true positions), attention_bias
    [B or 1, N or 1, S, T], head_sink [N], smooth_softmax, softcap, scale, local_window_size (or causal 0, the
    window then -1), sliding_window_cache (a window W, a past of P >= W), a quantized KV cache (int8 8-bit, or uint8
    4-bit with [.., H/2] caches; PER_TENSOR k_scale/v_scale of 1 element or PER_CHANNEL of Nk*H).
    Outputs: output [B, S, N*H]; present_key and present_value [B, Nk, max(T, P), H] (P with sliding_window_cache;
    H/2 for a 4-bit cache); output_qk [B, N, S, T] (qk_output 1 or 2). 1, 2 (present_value left out: its graph
    output typed float, as ONNX Runtime does not infer it), 3 or 4 outputs.
    Invalid: N not a multiple of Nk, H not a multiple of 8, key of another hidden size, batch or length, value of
    another hidden size, past of another batch, head count, head size or length, past_value without past_key,
    seqlens_k of another count, a scalar seqlens_k, a seqlens_k value of T or more, below S - 1, or past the cache,
    B > 1 in a later prompt, T = 0, rotary with H not a multiple of 16, cos_cache of too few rows or too wide,
    attention_bias of another shape, head_sink of another length, position_ids of another batch or too short,
    a 4-D query (refused at load), causal 0 with a window, qk_output without its output, 4 outputs beside a past
    with qk_output 0 (refused at load; without a past ONNX Runtime runs it, output_qk [B, N, S, T])."""
    bad = None
    if rng.random() < 0.14:
        bad = rng.choice(["heads", "head8", "kv_hidden", "value_hidden", "kv_batch", "kv_length", "past_batch",
                          "past_heads", "past_head", "past_length", "past_one", "seqlens_count", "seqlens_scalar",
                          "seqlens_range", "seqlens_small", "past_rows", "later_batch", "total_zero", "rotary_head",
                          "cos_rows", "cos_width", "attention_bias", "head_sink", "position_ids", "query_rank",
                          "causal_window", "qk_missing", "qk_unset"])
    kvn = rng.randint(1, 2)
    n = kvn * rng.randint(1, 3)
    if bad == "heads":
        n, kvn = rng.choice([(3, 2), (2, 3), (1, 2), (5, 2)])
    quant = None
    if bad is None and rng.random() < 0.07:
        quant = rng.choice(["8", "8", "4"])
    rotary = bad in ("rotary_head", "cos_rows", "cos_width") or rng.random() < 0.3
    if rotary:
        h = rng.choice([16, 16, 32])
        if bad == "rotary_head":
            h = rng.choice([8, 24])
    else:
        h = rng.choice([8, 8, 16, 24])
    if bad == "head8":
        h = rng.choice([4, 12, 2, 6])
    packed = bad not in ("kv_hidden", "value_hidden", "kv_batch", "kv_length") and rng.random() < 0.25
    sliding = bad is None and quant is None and rng.random() < 0.06

    # The step: first prompt, token generation or a later prompt; then the past and the sequence lengths.
    kind = rng.choice(["prompt", "prompt", "token", "token", "later"])
    if bad == "later_batch":
        kind = "later"
    if bad == "seqlens_small":
        kind = "later"
    if bad == "past_rows":
        kind = rng.choice(["token", "later"])
    b = rng.randint(1, 3) if kind != "later" or bad == "later_batch" else 1
    if bad == "later_batch":
        b = rng.randint(2, 3)
    has_past = quant is not None or sliding or bad in (
        "past_batch", "past_heads", "past_head", "past_length", "past_one", "past_rows", "qk_unset") or (
        rng.random() < 0.55)
    if kind == "prompt":
        s = rng.randint(1, 4)
        total = s
        p = rng.randint(0, 6) if has_past else None
        # A first prompt may pad its rows (any seqlens_k below max(T, P)), but not with sliding_window_cache.
        seqlens = [rng.randrange(max(total, p or 0)) for _ in range(b)]
    else:
        s = 1 if kind == "token" else rng.randint(2, 4)
        p = rng.randint(0, 6) if has_past else None
        if p is not None and kind == "later" and rng.random() < 0.7:
            p = max(p, 1)
        total = s + rng.randint(1, 5)
        # At least S - 1 (T > S, P >= 0); below max(T, P); with a past, at most P + S - 1.
        top = total - 1 if p is None else min(max(total, p) - 1, p + s - 1)
        seqlens = [rng.randint(s - 1, top) for _ in range(b)]
    if sliding:
        window = rng.randint(1, 3)
        p = max(p or 0, window + rng.randint(0, 2))
        seqlens = [total - 1 for _ in seqlens] if kind == "prompt" else [min(v, p + s - 1) for v in seqlens]
    shared = has_past and not packed and p is not None and total <= p and bad is None and not sliding and (
        quant is None) and rng.random() < 0.25

    # Element counts and shapes.
    hb = h // 2 if quant == "4" else h
    q_width = (n + 2 * kvn) * h if packed else n * h
    query = [b, s, q_width]
    kv_len = 0 if shared else s
    key, value = [b, kv_len, kvn * h], [b, kv_len, kvn * h]
    if bad == "kv_hidden":
        key[2] = value[2] = kvn * h + rng.choice([8, -8 if kvn * h > 8 else 16])
    elif bad == "value_hidden":
        value[2] += rng.choice([1, 8])
    elif bad == "kv_batch":
        for x in rng.choice([[key, value], [key], [value]]):
            x[0] += 1
    elif bad == "kv_length":
        key[1] = value[1] = s + 1
    elif bad == "query_rank":
        query = [b, s, n, h]
    past_type = INT8 if quant == "8" else UINT8 if quant == "4" else FLOAT
    past_key = past_value = None
    if has_past:
        past_key, past_value = [b, kvn, p, hb], [b, kvn, p, hb]
        if bad == "past_batch":
            for x in rng.choice([[past_key, past_value], [past_key], [past_value]]):
                x[0] += 1
        elif bad == "past_heads":
            for x in rng.choice([[past_key, past_value], [past_key], [past_value]]):
                x[1] += 1
        elif bad == "past_head":
            for x in rng.choice([[past_key, past_value], [past_key], [past_value]]):
                x[3] += 8
        elif bad == "past_length":
            past_value[2] += 1
        elif bad == "past_one":
            past_key = None  # past_value alone (past_key alone is refused at load, for want of past_value's type)
    if bad == "seqlens_count":
        seqlens = seqlens + [0] if rng.random() < 0.5 or b == 1 else seqlens[:-1]
    elif bad == "seqlens_range":
        seqlens[rng.randrange(b)] = rng.choice([max(total, p or 0), max(total, p or 0) + 2, -1])
    elif bad == "seqlens_small":
        seqlens[rng.randrange(b)] = rng.randint(0, s - 2) if s >= 2 else -1
    elif bad == "past_rows":
        total = max(total, p + s + 1)
        seqlens[rng.randrange(b)] = p + s
    elif bad == "total_zero":
        total = 0
        seqlens = [0] * b
    seqlens_dims = None
    if bad == "seqlens_scalar":
        seqlens, seqlens_dims = seqlens[:1], []
    elif bad is None and rng.random() < 0.1:
        seqlens_dims = rng.choice([[b, 1], [1, b]])

    attrs = i("num_heads", n) + i("kv_num_heads", kvn)
    extra = [None] * 5  # cos_cache, sin_cache, position_ids, attention_bias, head_sink
    if rotary:
        attrs += i("do_rotary", 1)
        if rng.random() < 0.3:
            attrs += i("rotary_interleaved", rng.randint(0, 1))
        rows = max(total, max(seqlens) + 1, 1) + rng.randint(0, 2)  # R >= T and R > every seqlens_k
        width = 8 * rng.randint(1, max(1, h // 16))
        if bad == "cos_rows" and total <= 1:
            bad = "cos_width"
        if bad == "cos_rows":
            rows = total - 1
        elif bad == "cos_width":
            width = rng.choice([h // 2 + 8, 4, 12])
        extra[0] = extra[1] = [rows, width]
    # position_ids: with rotary, their values index the caches.
    if bad == "position_ids" or rng.random() < (0.15 if rotary else 0.1):
        extra[2] = "positions"
    if extra[2] == "positions":
        width = s + (1 if rng.random() < 0.2 else 0)
        rows_ids = b
        if bad == "position_ids":
            if rng.random() < 0.5:
                rows_ids = b + 1
            else:
                width = s - 1
        values = []
        for r in range(rows_ids):
            start = 0 if kind == "prompt" else seqlens[min(r, len(seqlens) - 1)] + 1 - s
            values += [max(0, min(start + k, max(total, 1) - 1)) for k in range(width)]
        extra[2] = ("ints", values, [rows_ids, width])
    if bad == "attention_bias" or not sliding and rng.random() < 0.15:
        extra[3] = bias_shape(rng, b, n, s, total, rng.choice(["batch", "heads", "length", "rank"])
                              if bad == "attention_bias" else None)
    if bad == "head_sink" or rng.random() < 0.1:
        extra[4] = [n + (rng.choice([1, -1]) if bad == "head_sink" and n > 1 else 1 if bad == "head_sink" else 0)]

    if rng.random() < 0.15:
        attrs += i("smooth_softmax", rng.choice([0, 1]))
    if rng.random() < 0.15:
        attrs += flt("softcap", rng.choice([0.0, 5.0, 30.0]))
    if rng.random() < 0.15:
        attrs += flt("scale", rng.choice([0.25, 0.5]))
    if sliding:
        attrs += i("local_window_size", window) + i("sliding_window_cache", 1)
    elif bad == "causal_window":
        attrs += i("causal", 0) + i("local_window_size", rng.randint(1, 3))
    elif rng.random() < 0.1:
        attrs += i("causal", 0)
    elif rng.random() < 0.2:
        attrs += i("local_window_size", rng.choice([-1, 1, 2, 4]))

    scales = [None, None]
    if quant is not None:
        kind_q = rng.choice(["PER_TENSOR", "PER_CHANNEL"])
        attrs += string("k_quant_type", kind_q) + string("v_quant_type", kind_q) + i("kv_cache_bit_width", int(quant))
        if kind_q == "PER_TENSOR":
            scale = rng.choice([[], [1]])
        else:
            scale = rng.choice([[1, kvn, 1, h], [kvn * h], [kvn, h]])
        scales = [scale, scale]

    # A quantized cache needs both presents (or ONNX Runtime refuses it), shared KV too (or it crashes).
    outputs = rng.choice([1, 3, 3, 3, 4]) if quant is None and not sliding and not shared else rng.choice([3, 3, 4])
    if sliding:
        outputs = 3  # sliding_window_cache needs both presents, and has no qk_output
    if bad is None and quant is None and not sliding and not shared and rng.random() < 0.05:
        outputs = 2
    if bad == "qk_missing":
        outputs = 3
        attrs += i("qk_output", rng.choice([1, 2]))
    elif bad == "qk_unset":
        outputs = 4
    elif outputs == 4:
        attrs += i("qk_output", rng.choice([1, 2]))

    typed = lambda shape_: ("typed", past_type, shape_) if shape_ is not None and past_type != FLOAT else shape_
    inputs = [query, None if packed else key, None if packed else value, typed(past_key), typed(past_value),
              seqlens_init(seqlens, seqlens_dims), ("const", INT32, [total], rng.choice([[], [], [1]]))]
    inputs += extra + [None, None] if quant is None else extra + scales
    while inputs[-1] is None:
        inputs.pop()
    typed_outputs = [3] if outputs == 4 else []
    if outputs == 2:
        typed_outputs.append(1)
    present = [b, kvn, p if sliding else max(total, p or 0), hb]
    return llm_tagged(Case("GroupQueryAttention", 17, inputs, attrs, outputs=outputs, domain=MS,
                       typed_outputs=typed_outputs), bad, [[b, s, n * h], present, present, [b, n, s, total]])


def ms_qattention(rng):
    """com.microsoft.QAttention (CPU: uint8 input, int8 or uint8 weight, float scales and bias): input [B, S, Di]
    (uint8), weight [Di, 3D] (a graph input or an initializer), bias [3D] (D = N * H, N num_heads), input_scale a
    scalar or [1], weight_scale a scalar, [1] or [3D]; perhaps an int32 mask_index ([B], [2B], [3B + 2], [B, T],
    [B, 1], [1, 1], [B, S, T]; T = P + S), input_zero_point (uint8, a scalar or [1]), weight_zero_point (the
    weight's type: scalar, [1] or [3D]), past [2, B, N, P, H]; unidirectional, scale, mask_filter_value.
    Outputs: output [B, S, D]; present [2, B, N, T, H] (given without a past too).
    Invalid: weight's first dimension not Di, a bias of another length than weight's second dimension, 3D not a
    multiple of 3 (weight and bias of 3D + 1), D not a multiple of N, a past of another batch, head count or head size,
    or its 2 another number, a past without present, a mask of another batch or length, a 4-D mask, weight_scale or
    weight_zero_point of another length, an input_scale or input_zero_point of 2 elements, a 2-D input (refused at
    load)."""
    b, s, di, n, h = rng.randint(1, 3), rng.randint(1, 4), rng.randint(1, 5), rng.randint(1, 3), rng.randint(1, 4)
    bad = None
    if rng.random() < 0.13:
        bad = rng.choice(["weight", "bias", "three", "heads", "past_batch", "past_heads", "past_head", "past_two",
                          "no_present", "mask_batch", "mask_length", "mask_4d", "weight_scale", "weight_zp",
                          "input_scale", "input_zp", "input_rank"])
    if bad == "heads":
        n = rng.randint(2, 3)
    d = n * h
    width = 3 * d
    if bad == "heads":
        width = 3 * (d + 1)
    elif bad == "three":
        width = 3 * d + rng.choice([1, 2])
    wt = rng.choice([INT8, UINT8])
    if rng.random() < 0.3 and bad not in ("weight",):
        weight = ("const", wt, [rng.randint(0, 7) for _ in range(di * width)], [di, width])
    else:
        weight = ("typed", wt, [di + (rng.choice([1, -1]) if di > 1 else 1) if bad == "weight" else di, width])
    bias = [width + (rng.choice([-1, 1, 3]) if bad == "bias" else 0)]
    past = rng.randint(0, 3) if bad in ("past_batch", "past_heads", "past_head", "past_two", "no_present") or (
        rng.random() < 0.3) else None
    total = s + (past or 0)
    mask = None
    if bad == "mask_batch":
        mask = rng.choice([[2 * b + 1], [b + 1, total], [b + 1, s, total]])
    elif bad == "mask_length":
        mask = rng.choice([[b, total + 1], [b, s, total + 1], [b, s + 1, total]] + ([[b, s]] if past else []))
    elif bad == "mask_4d":
        mask = [b, 1, total, total]
    elif rng.random() < 0.4:
        mask = rng.choice([[b], [2 * b], [3 * b + 2], [b, total], [b, total], [b, 1], [1, 1], [b, s, total]])
    past_shape = bert_past(rng, b, n, past, h, bad)
    scalar = lambda: rng.choice([[], [], [1]])
    input_scale = [2] if bad == "input_scale" else scalar()
    weight_scale = rng.choice([[], [1], [width], [width]])
    if bad == "weight_scale":
        weight_scale = rng.choice([[width + 1], [2], [1, width]])
    input_zp = weight_zp = None
    if rng.random() < 0.4 or bad == "input_zp":
        input_zp = ("typed", UINT8, [2] if bad == "input_zp" else scalar())
    if rng.random() < 0.4 or bad == "weight_zp":
        weight_zp = ("typed", wt, [width + 1] if bad == "weight_zp" else rng.choice([[], [1], [width]]))
    attrs = i("num_heads", n)
    if rng.random() < 0.3:
        attrs += i("unidirectional", rng.randint(0, 1))
    if rng.random() < 0.15:
        attrs += flt("scale", 0.5)
    if rng.random() < 0.1:
        attrs += flt("mask_filter_value", -100.0)
    x = [b, s, di] if bad != "input_rank" else [b * s, di]
    inputs = [("typed", UINT8, x), weight, bias, input_scale, weight_scale,
              ("typed", INT32, mask) if mask is not None else None, input_zp, weight_zp, past_shape]
    while inputs[-1] is None:
        inputs.pop()
    outputs = 1 if bad == "no_present" else 2 if past is not None else rng.choice([1, 1, 2])
    return llm_tagged(Case("QAttention", 17, inputs, attrs, outputs=outputs, domain=MS), bad,
                  [[b, s, width // 3], [2, b, n, total, h]])


def ms_dmmha(rng):
    """com.microsoft.DecoderMaskedMultiHeadAttention (float), one token (S = 1): self attention with query, key and
    value [B, 1, D] (D = N * H), past_key and past_value [B, N, M, H] (buffers of M rows, P of them used),
    past_sequence_length P (an int32 initializer, a scalar or [1], 0 <= P < M) and past_present_share_buffer 1,
    perhaps a bias [3D], a mask [B, P + 1], an attention_bias [B or 1, N or 1, 1, P + 1], beam_width 1, scale,
    mask_filter_value; 3 outputs, or 4 with output_qk 1: output [B, 1, D], present_key and present_value [B, N, M, H]
    (the buffers), qk [B, N, 1, P + 1]. Or cross attention: key and value [B, N, L, H] or [B, L, D], perhaps a bias
    [3D] and a mask [B, L]; 1 output [B, 1, D].
    Invalid: S of 2, past_sequence_length M or -1, no past_sequence_length, past_present_share_buffer 0 or absent,
    value of another head size, a past of another batch, head count, head size or length (past_value), key of
    another batch or hidden size, a 1-D or 3-D mask, a 2-D mask of another length, attention_bias of another batch,
    head count, length or S, attention_bias in cross attention, cross key and value of different shapes, beam_width
    2 without cache_indirection, a bias of another length, 3 outputs and no past."""
    b, n, h = rng.randint(1, 3), rng.randint(1, 3), rng.randint(1, 4)
    d = n * h
    bad = None
    if rng.random() < 0.13:
        bad = rng.choice(["length", "past_seq", "no_past_seq", "share", "v_head", "past_batch", "past_heads",
                          "past_head", "past_length", "key_batch", "key_hidden", "mask_rank", "mask_length",
                          "bias_batch", "bias_heads", "bias_total", "bias_s", "cross_bias", "cross_shape", "beam",
                          "bias", "no_past"])
    cross = bad in ("cross_bias", "cross_shape") or bad not in (
        "past_seq", "no_past_seq", "share", "past_batch", "past_heads", "past_head", "past_length", "bias_batch",
        "bias_heads", "bias_total", "bias_s", "beam", "no_past") and rng.random() < 0.4
    s = 2 if bad == "length" else 1
    query = [b, s, d]
    bias = [3 * d + (rng.choice([-1, 1]) if bad == "bias" else 0)] if rng.random() < 0.3 or bad == "bias" else None
    if cross:
        length = rng.randint(1, 4)
        if rng.random() < 0.6:
            key, value = [b, n, length, h], [b, n, length, h]
            if bad in ("cross_shape", "v_head"):
                value[rng.choice([1, 2, 3]) if bad == "cross_shape" else 3] += 1
            elif bad == "key_hidden":
                key[3] += 1
        else:
            key, value = [b, length, d], [b, length, d]
            if bad in ("cross_shape", "v_head"):
                value[2] += n
            elif bad == "key_hidden":
                key[2] += n
        if bad == "key_batch":
            key[0] += 1
        mask = None
        if bad == "mask_length":
            mask = [b, length + 1]
        elif bad == "mask_rank":
            mask = rng.choice([[b], [b, 1, length]])
        elif rng.random() < 0.3 and bad != "length":
            mask = [b, length]
        attention_bias = [1, 1, 1, length] if bad == "cross_bias" else None
        inputs = [query, key, value, ("typed", INT32, mask) if mask else None, attention_bias, None, None, None,
                  None, None, bias]
        attrs = i("num_heads", n)
        if rng.random() < 0.2:
            attrs += flt("scale", 0.5)
        while inputs[-1] is None:
            inputs.pop()
        return llm_tagged(Case("DecoderMaskedMultiHeadAttention", 17, inputs, attrs, outputs=1, domain=MS), bad,
                      [[b, 1, d]])
    m = rng.randint(1, 5)
    p = rng.randrange(m)
    key, value = [b, s, d], [b, s, d]
    if bad == "v_head":
        value[2] += n
    elif bad == "key_batch":
        (key if rng.random() < 0.5 else value)[0] += 1
    elif bad == "key_hidden":
        key[2] += n
    past_key, past_value = [b, n, m, h], [b, n, m, h]
    if bad in ("past_batch", "past_heads", "past_head"):
        axis = {"past_batch": 0, "past_heads": 1, "past_head": 3}[bad]
        for x in rng.choice([[past_key, past_value], [past_key], [past_value]]):
            x[axis] += 1
    elif bad == "past_length":
        past_value[2] += 1
    total = p + 1
    mask = None
    if bad == "mask_length":
        mask = rng.choice([[b, total + 1], [b + 1, total]] + ([[b, m]] if m != total else []))
    elif bad == "mask_rank":
        mask = rng.choice([[b], [b, 1, total]])
    elif rng.random() < 0.3:
        mask = [b, total]
    attention_bias = None
    if bad and bad.startswith("bias_") or rng.random() < 0.25:
        attention_bias = [rng.choice([b, 1]), rng.choice([n, 1]), 1, total]
        if bad == "bias_batch":
            attention_bias[0] = b + 1
        elif bad == "bias_heads":
            attention_bias[1] = n + 1
        elif bad == "bias_total":
            attention_bias[3] = total + rng.choice([1, -1]) if total > 1 else total + 1
        elif bad == "bias_s":
            attention_bias[2] = 2
    if bad in ("length", "no_past", "share"):
        # Without the past's length (share 0: P is taken as M) or with S = 2, T is another: no mask or bias then.
        mask = attention_bias = None
    past_seq = ("const", INT32, [m if bad == "past_seq" and rng.random() < 0.5 else -1 if bad == "past_seq" else p],
                rng.choice([[], [1]]))
    if bad == "no_past_seq":
        past_seq = None
    beam = None
    if bad == "beam":
        beam = ("const", INT32, [2], [])
    elif rng.random() < 0.1:
        beam = ("const", INT32, [1], rng.choice([[], [1]]))
    attrs = i("num_heads", n)
    if bad == "share":
        attrs += rng.choice(["", i("past_present_share_buffer", 0)])
    else:
        attrs += i("past_present_share_buffer", 1)
    if rng.random() < 0.2:
        attrs += flt("scale", 0.5)
    if rng.random() < 0.1:
        attrs += flt("mask_filter_value", -100.0)
    outputs = rng.choice([3, 3, 4])
    if outputs == 4:
        attrs += i("output_qk", 1)
    if bad == "no_past":
        past_key = past_value = past_seq = beam = None
        outputs = 3
        attrs = attrs.replace(i("output_qk", 1), "")
    inputs = [query, key, value, ("typed", INT32, mask) if mask else None, attention_bias, past_key, past_value,
              past_seq, beam, None, bias]
    while inputs[-1] is None:
        inputs.pop()
    return llm_tagged(Case("DecoderMaskedMultiHeadAttention", 17, inputs, attrs, outputs=outputs, domain=MS,
                       typed_outputs=(3,) if outputs == 4 else ()), bad,
                  [[b, 1, d], [b, n, m, h], [b, n, m, h], [b, n, 1, p + 1]])


def llm(rng):
    """com.microsoft's decoder attention: GroupQueryAttention, QAttention and DecoderMaskedMultiHeadAttention (their
    generators say what they draw and
    what ONNX Runtime 1.30 refuses). Cases that stop ONNX Runtime's process rather than being refused are never drawn:
    a batch of 0, a 1-D cos_cache, GroupQueryAttention's shared KV (key and value of length 0) with fewer than 3
    outputs."""
    r = rng.random()
    return ms_gqa(rng) if r < 0.55 else ms_qattention(rng) if r < 0.8 else ms_dmmha(rng)



INT4, UINT4 = 22, 21


def _ms(op, inputs, attrs="", bad=None):
    c = Case(op, 17, inputs, attrs, domain=MS)
    c.intent = bad
    return c


def c_cdist(rng):
    """CDist: A [M, K], B [N, K] (float, or both double), metric sqeuclidean|euclidean. Output [M, N].
    ORT (all at run, no load check): rank of A not 2 or A[1] <= 0 -> 'The first input of CDist kernel has wrong
    shape'; B rank not 2 -> 'The second input ...'; A[1] != B[1] -> 'Input shape dimensions mismatch'. M or N 0 run.
    Another metric -> refused at init ('Exception during initialization')."""
    m, n, k = rng.randint(0, 4), rng.randint(0, 4), rng.randint(1, 4)
    a, b = [m, k], [n, k]
    bad = rng.choice(["k", "rank_a", "rank_b", "k0", "metric"]) if rng.random() < 0.15 else None
    if bad == "k":
        b[1] += 1
    elif bad == "rank_a":
        a = a + [1] if rng.random() < 0.5 else [k]
    elif bad == "rank_b":
        b = [1] + b
    elif bad == "k0":
        a[1], b[1] = 0, 0
    metric = "cosine" if bad == "metric" else rng.choice(["sqeuclidean", "euclidean"])
    t = rng.choice([FLOAT, DOUBLE])
    return _ms("CDist", [("typed", t, a), ("typed", t, b)], string("metric", metric), bad)


def c_unfold(rng):
    """UnfoldTensor: X of rank 1..4 (float, double, int32, int64), dim in [-r, r), size in [1, X[dim]], step >= 1.
    Output: X's shape with X[dim] replaced by (X[dim] - size) // step + 1, and size appended.
    ORT at load: dim out of range ('axis ... is not in valid range'); size <= 0 or > X[dim] ('size attribute in
    UnfoldTensor not positive and less than the dim size!'); step <= 0 ('... must greater than 0.'). At run: other
    element types (uint8, bool, float16) 'Unsupported data type'."""
    r = rng.randint(1, 4)
    s = [rng.randint(1, 5) for _ in range(r)]
    if rng.random() < 0.1:
        s[rng.randrange(r)] = 0
    d = rng.randint(-r, r - 1)
    dd = s[d]
    size = rng.randint(1, max(dd, 1))
    step = rng.randint(1, 3)
    t = rng.choice([FLOAT, FLOAT, DOUBLE, INT32, INT64])
    bad = rng.choice(["dim", "size", "size0", "step", "type"]) if rng.random() < 0.15 else None
    if dd == 0 and bad is None:
        bad = "size"  # any size > 0 exceeds a 0 axis
    if bad == "dim":
        d = rng.choice([r, -r - 1])
    elif bad == "size":
        size = dd + 1
    elif bad == "size0":
        size = 0
    elif bad == "step":
        step = rng.choice([0, -1])
    elif bad == "type":
        t = rng.choice([UINT8, BOOL, FLOAT16])
    return _ms("UnfoldTensor", [("typed", t, s)], i("dim", d) + i("size", size) + i("step", step), bad)


def c_bnb4(rng):
    """MatMulBnb4: A [..., K] (transB=1, default) or [..., N] (transB=0), B_quant uint8 1-D of (N*K+1)//2,
    absmax float of ceil(N*K/block_size); attributes K, N, block_size, quant_type 0|1.
    Output: A's shape with its last axis N (transB=1) or K (transB=0); A of rank 1 gives [N] (or [K]).
    ORT: at load, A's last axis not K (not N when transB=0) -> 'Incompatible dimensions for matrix multiplication';
    at init quant_type not 0/1, block_size <= 0; at run B_quant with fewer than (N*K+1)//2 bytes ('b_quant tensor
    size (..) is too small'), absmax with fewer than ceil(N*K/block_size) ('absmax tensor size ...'), block_size not 16/32/64/128/256 ('only block
    size 16, 32, 64, 128, 256 are supported.')."""
    k, n = rng.randint(1, 6), rng.randint(1, 4)
    bs = rng.choice([16, 32, 64, 128])
    trans = 1 if rng.random() < 0.75 else 0
    a = shape(rng, rng.randint(0, 2), zero=0.0) + [rng.randint(0, 3)] * (rng.random() < 0.85) + [k if trans else n]
    nq, na = (n * k + 1) // 2, -(-n * k // bs)
    bad = rng.choice(["inner", "quant_type", "bq", "absmax", "bs0", "bs7"]) if rng.random() < 0.15 else None
    if bad == "bs7":
        bs = 7
        na = -(-n * k // bs)
    if bad == "inner":
        a[-1] += 1
    elif bad == "bq":
        nq -= 1
    elif bad == "absmax":
        na -= 1
    qt = 2 if bad == "quant_type" else rng.randint(0, 1)
    bs = 0 if bad == "bs0" else bs
    attrs = i("K", k) + i("N", n) + i("block_size", bs) + i("quant_type", qt) + i("transB", trans)
    return _ms("MatMulBnb4", [a, ("const", UINT8, [0] * nq, [nq]), ("const", FLOAT, [1.0] * na, [na])], attrs, bad)


def c_fpq4(rng):
    """MatMulFpQ4: A [..., K], B uint8 1-D blob, B_shape int64 [K, N] (initializer), blk_quant_type (0: 20 bytes
    a block, any other value: 21), blocks of 32 along K: blob length N * ceil(K/32) * (20|21).
    Output: matmul(A, [K, N]): A's shape with its last axis N ([N] for a 1-D A).
    ORT at load: blob of another length -> 'Input q4 tensors of wrong size!'; blob not 1-D; B_shape not 2 values;
    A's last axis not K -> 'Incompatible dimensions...'; K or N of 0 -> '4b quantization not yet supported on this
    hardware platform!' (MLAS gives size 0)."""
    k, n = rng.choice([1, 16, 32, 33, 40, 64]), rng.randint(1, 4)
    t = rng.choice([0, 1, 1, 5])
    per = 20 if t == 0 else 21
    blob = n * (-(-k // 32)) * per
    a = shape(rng, rng.randint(0, 2), zero=0.05) + [rng.randint(0, 3)] * (rng.random() < 0.85) + [k]
    bshape = [k, n]
    bad = rng.choice(["blob", "inner", "bshape", "blobrank"]) if rng.random() < 0.15 else None
    bdims = [blob]
    if bad == "blob":
        blob += rng.choice([-1, 1])
        bdims = [blob]
    elif bad == "inner":
        a[-1] += 1
    elif bad == "bshape":
        bshape = [1, k, n]
    elif bad == "blobrank":
        bdims = [1, blob]
    return _ms("MatMulFpQ4", [a, ("const", UINT8, [0] * blob, bdims), ("ints", bshape, [len(bshape)])],
               i("blk_quant_type", t), bad)


def c_gbq(rng):
    """GatherBlockQuantized: data uint8 (graph input; bits 4 default, 2 or 8: each byte holds 8/bits values), or
    int4/uint4 (initializer, bits 4); indices int64 or int32 initializer (values in range, negatives allowed);
    scales float or float16 of data's rank, quantize axis ceil(data[q] * comps / block_size) blocks, the other axes
    as data; zero_points optional (uint8: quantize axis ceil(blocks / comps); int4: as scales). block_size 16|32|64.
    Output: data[:g] + indices.shape + data[g+1:], its last axis times 8/bits for uint8 data.
    ORT at load: rank of data < 2 ('data tensor must have rank > 1'), scales of another rank, block count or
    another axis off ('data shape and scales shape do not match'), zero points off, uint8 with gather_axis not 0
    ('gather_axis must be 0, for uint8 data'); uint8 needs quantize_axis last (else the block count check fails).
    At init: block_size not a power of 2 >= 16, bits not in {2,4,8} (uint8) / not 4 (int4).
    At run: an index outside [-d, d) ('indices element out of data bounds')."""
    four = rng.random() < 0.35
    r = rng.randint(2, 3)
    bs = rng.choice([16, 32, 64])
    if four:
        t = rng.choice([INT4, UINT4])
        bits, comps = 4, 1
        data = [rng.randint(1, 5) for _ in range(r)]
        g = rng.randrange(r)
        q = rng.randrange(r)
    else:
        t = UINT8
        bits = rng.choice([4, 4, 8, 2])
        comps = 8 // bits
        data = [rng.randint(1, 5) for _ in range(r - 1)] + [rng.choice([2, 4, 8, 16])]
        g, q = 0, r - 1
    nidx = rng.randint(0, 2)
    ishape = [rng.randint(1, 3) for _ in range(nidx)]
    if rng.random() < 0.05:
        ishape = [0]
    count = product(ishape) if ishape else 1
    d = data[g]
    idx = [rng.randint(-d, d - 1) for _ in range(count)]
    blocks = -(-data[q] * comps // bs)
    scales = list(data)
    scales[q] = blocks
    bad = rng.choice(["scales", "rank", "gaxis", "bs", "bits", "index", "rank1"]) if rng.random() < 0.15 else None
    if bad == "gaxis" and four:
        bad = "scales"
    attrs = i("block_size", bs if bad != "bs" else rng.choice([24, 8]))
    if bad == "scales":
        scales[q] += 1
    elif bad == "rank":
        scales = scales[1:]
    elif bad == "gaxis" and not four:
        attrs += i("gather_axis", 1)
    elif bad == "index":
        idx[0] = d + rng.randint(0, 2)
    if bad == "bits":
        attrs += i("bits", 3 if not four else 8)
    elif not four:
        attrs += i("bits", bits)
    if not four and (r == 3 or rng.random() < 0.5) and bad != "rank1":
        attrs += i("quantize_axis", rng.choice([q, q - r]))
    if four:
        attrs += i("gather_axis", g - (r if rng.random() < 0.3 else 0)) + i("quantize_axis", q)
    n = product(data)
    if bad == "rank1":
        data, scales = [data[-1]], [blocks]
        attrs += i("quantize_axis", 0)
        n = data[0]
    if four:
        x = ("const", t, [0] * ((n + 1) // 2), data)
    else:
        x = ("typed", UINT8, data)
    indices = ("ints", idx, ishape) if rng.random() < 0.5 else ("const", INT32, idx, ishape)
    sf = rng.choice([FLOAT, FLOAT16])
    sv = [1.0 if sf == FLOAT else 15360] * product(scales)
    ins = [x, indices, ("const", sf, sv, scales)]
    if rng.random() < 0.3 and bad != "rank1":
        zp = list(scales)
        if not four:
            zp[-1] = -(-zp[-1] // comps)
            ins.append(("const", UINT8, [0] * product(zp), zp))
        else:
            ins.append(("const", t, [0] * ((product(zp) + 1) // 2), zp))
    return _ms("GatherBlockQuantized", ins, attrs, bad)


def c_crop_resize(rng):
    """CropAndResize: X float [N, C, H, W] (H, W >= 1), rois float [R, 4], batch_indices int32 [R] (values in [0, N)),
    crop_size int32 [2] (>= 1), mode bilinear|nearest, extrapolation_value. Output [R, C, crop_h, crop_w].
    ORT at load: X not 4-D ('first input tensor has wrong dimension'), rois not 2-D, batch_indices not 1-D, crop_size
    not 1-D / not 2 values; at init: another mode; at run: R of rois and batch_indices differ ('First dimension
    (num_rois) of batch_indices and rois don't match'), rois' second axis not 4, crop size <= 0 ('crop_size values must
    be positive'), a batch index out of [0, N) ('batch_indices value .. is out of range'). double: no kernel."""
    n, c, h, w = rng.randint(1, 3), rng.randint(0, 3), rng.randint(1, 5), rng.randint(1, 5)
    r = rng.randint(0, 3)
    ch, cw = rng.randint(1, 5), rng.randint(1, 5)
    x = [n, c, h, w]
    rois = [r, 4]
    br = r
    bad = rng.choice(["xrank", "rois4", "count", "crop0", "batch", "mode", "croprank"]) if rng.random() < 0.15 else None
    if bad == "xrank":
        x = x[:3]
    elif bad == "rois4":
        rois = [r, 5]
    elif bad == "count":
        br = r + 1
    elif bad == "crop0":
        ch = rng.choice([0, -1])
    bidx = [rng.randrange(n) for _ in range(br)]
    if bad == "batch":
        bidx = [rng.randrange(n) for _ in range(max(br, 1))]
        br = rois[0] = max(br, 1)
        bidx[0] = n
    crop = ("const", INT32, [ch, cw], [2]) if bad != "croprank" else ("const", INT32, [ch, cw, 1], [3])
    mode = "cubic" if bad == "mode" else rng.choice(["bilinear", "nearest"])
    roi_vals = [rng.choice([0.0, 0.25, 0.5, 1.0]) for _ in range(product(rois))]
    return _ms("CropAndResize", [x, ("const", FLOAT, roi_vals, rois), ("const", INT32, bidx, [br]), crop],
               string("mode", mode) + flt("extrapolation_value", 0.5), bad)


def _pool_attrs(rng, spatial, nhwc):
    k = [rng.randint(1, min(3, s)) for s in spatial]
    st = [rng.randint(1, 2) for _ in spatial]
    attrs = ints("kernel_shape", k)
    if rng.random() < 0.6:
        attrs += ints("strides", st)
    else:
        st = [1] * len(k)
    auto = rng.choice(["NOTSET", "NOTSET", "VALID", "SAME_UPPER", "SAME_LOWER"])
    if auto != "NOTSET":
        attrs += string("auto_pad", auto)
    elif rng.random() < 0.5:
        attrs += ints("pads", [rng.randint(0, kk - 1) for kk in k] * 2)
    if nhwc and rng.random() < 0.3:
        attrs += ints("dilations", [rng.randint(1, 2) if 2 * (kk - 1) + 1 <= s else 1 for kk, s in zip(k, spatial)])
    if nhwc and rng.random() < 0.3:
        attrs += i("ceil_mode", 1)
    return k, attrs


def c_nhwc_maxpool(rng):
    """NhwcMaxPool: X int8|uint8 [N, spatial..., C] (1-3 spatial axes), kernel_shape, strides, pads, auto_pad,
    dilations, ceil_mode (MaxPool's). Output [N, pooled spatial..., C], each pooled axis as MaxPool's (ORT's
    PoolAttributes: (in + pads - dil*(k-1) - 1) / s + 1 with C++ truncation, ceil with ceil_mode; SAME_*: ceil(in/s)).
    ORT at load: rank < 3 ('Input tensor must have at least 3 dimensions'), kernel_shape of another length
    ('Attribute kernel_shape has incorrect size'), pads of another length, a stride <= 0, storage_order (unrecognized).
    At init: a pad >= its kernel ('Pad should be smaller than kernel.'). At run: a spatial or C dimension of 0 ('Only N can be
    zero'), a negative output ('Calculated output dimension is negative'). float: type error at load."""
    sp = [rng.randint(1, 5) for _ in range(rng.randint(1, 3))]
    n, c = rng.randint(0, 2), rng.randint(1, 3)
    k, attrs = _pool_attrs(rng, sp, True)
    bad = rng.choice(["rank", "kernel", "zero", "big", "pad"]) if rng.random() < 0.15 else None
    if bad == "rank":
        sp = []
    elif bad == "kernel":
        attrs = attrs.replace(f"ints: {k}", f"ints: {k + [2]}", 1)
    elif bad == "zero":
        sp[0] = 0
    elif bad == "big":
        attrs = ints("kernel_shape", [s + 2 for s in sp])
    elif bad == "pad":
        attrs = ints("kernel_shape", [1] * len(sp)) + ints("pads", [1] * (2 * len(sp)))
    return _ms("NhwcMaxPool", [("typed", rng.choice([UINT8, INT8]), [n] + sp + [c])], attrs, bad)


def c_maxpool_mask(rng):
    """MaxpoolWithMask: X float [N, C, spatial...] (1-3 spatial axes), M int32 of X's rank and spatial axes (its N,
    C may be 1), kernel_shape, strides, pads, auto_pad, storage_order (no dilations, no ceil_mode).
    Output [N, C, pooled...] as MaxPool-1's (truncating division; SAME_*: ceil(in/s)).
    ORT at load: rank < 3, kernel_shape missing or of another length, dilations/ceil_mode (unrecognized). At init: a pad
    >= its kernel. At run: 4 spatial axes ('Only 1D, 2D, and 3D pooling are supported'), mask of another rank or
    spatial size ('Mask and input ...'), a negative output."""
    sp = [rng.randint(1, 5) for _ in range(rng.randint(1, 3))]
    n, c = rng.randint(0, 2), rng.randint(1, 3)
    k, attrs = _pool_attrs(rng, sp, False)
    m = [rng.choice([n, 1]) if n else 1, rng.choice([c, 1])] + sp
    bad = rng.choice(["mask", "maskrank", "kernel", "big", "four"]) if rng.random() < 0.15 else None
    x = [n, c] + sp
    if bad == "mask":
        m[-1] += 1
    elif bad == "maskrank":
        m = sp
    elif bad == "kernel":
        attrs = attrs.replace(f"ints: {k}", f"ints: {k + [2]}", 1)
    elif bad == "big":
        attrs = ints("kernel_shape", [s + 2 for s in sp])
    elif bad == "four":
        x, m = [1, 1, 2, 2, 2, 2], [1, 1, 2, 2, 2, 2]
        attrs = ints("kernel_shape", [1, 1, 1, 1])
    return _ms("MaxpoolWithMask", [x, ("typed", INT32, m)], attrs, bad)


def c_word_conv(rng):
    """WordConvEmbedding: Sequence int32 [S, L] (rank >= 2; values 0..7 fed), W float [M, C, fw, E] (rank 4),
    B float [M], C float [V >= 8, E] (char table); attributes embedding_size, conv_window_size, char_embedding_size.
    Output [S, M] (= [Sequence[0], W[0]]).
    ORT (all at run): Sequence of rank < 2, W of rank < 4, embedding_size != W[0], conv_window_size != W[2],
    char_embedding_size != C[1], C[1] != W[3] ('Char embedding size does not match conv kernal size 2'),
    fw > L ('Conv kernel width must not exceed word length')."""
    s, l = rng.randint(0, 4), rng.randint(1, 5)
    m, fw, e = rng.randint(1, 4), rng.randint(1, 3), rng.randint(1, 3)
    fw = min(fw, l)
    v = 8
    seq = [s, l] + ([1] if rng.random() < 0.1 else [])
    bad = rng.choice(["emb", "win", "char", "e", "fw", "seqrank"]) if rng.random() < 0.15 else None
    attrs = ""
    if rng.random() < 0.5 or bad in ("emb", "win", "char"):
        attrs = (i("embedding_size", m + (bad == "emb")) + i("conv_window_size", fw + (bad == "win"))
                 + i("char_embedding_size", e + (bad == "char")))
    we = e + 1 if bad == "e" else e
    if bad == "fw":
        fw = l + 1
    if bad == "seqrank":
        seq = [s]
    w = [m, 1, fw, we]
    return _ms("WordConvEmbedding", [("typed", INT32, seq), ("const", FLOAT, [0.1] * product(w), w),
                                     ("const", FLOAT, [0.0] * m, [m]), ("const", FLOAT, [0.1] * (v * e), [v, e])],
               attrs, bad)


def c_convt_dyn(rng):
    """ConvTransposeWithDynamicPads: X float [N, C, spatial...] (1-3 axes), W [C, M/group, k...], Pads int64 [2r]
    (always given: ORT 1.30's process aborts on a model without it, and segfaults with it left empty beside a bias),
    B [M] optional; strides, dilations, output_padding (< stride), group, auto_pad.
    Output [N, W[1]*group, out...], out = s*(in-1) + op + d*(k-1) + 1 - pad_begin - pad_end (SAME_*: in*s).
    ORT at load: Pads not 1-D int64 / not 2r values ('Pads has incorrect number of values'); pads, output_shape
    attributes unrecognized. At run: C != W[0] ('filter number not equal to input channel number'), negative pad, bias
    of another length, output_padding >= max(stride, dilation) ('output_padding[0] (..) must be less than max(stride,
    dilation)'), output_padding >= stride ('Computed output shape is inconsistent with input spatial dimensions'),
    kernel_shape not W's."""
    r = rng.randint(1, 3)
    sp = [rng.randint(1, 4) for _ in range(r)]
    n, g = rng.randint(0, 2), rng.choice([1, 1, 2])
    c = g * rng.randint(1, 2)
    mg = rng.randint(1, 2)
    k = [rng.randint(1, 3) for _ in range(r)]
    st = [rng.randint(1, 2) for _ in range(r)]
    dl = [rng.randint(1, 2) if rng.random() < 0.3 else 1 for _ in range(r)]
    op = [rng.randint(0, a - 1) if rng.random() < 0.3 else 0 for a in st]
    full = [s * (x - 1) + o + d * (kk - 1) + 1 for s, x, o, d, kk in zip(st, sp, op, dl, k)]
    pads = [0] * (2 * r)
    for a in range(r):
        room = full[a] - 1
        pb = rng.randint(0, min(room, 2))
        pe = rng.randint(0, min(room - pb, 2))
        pads[a], pads[a + r] = pb, pe
    attrs = ints("strides", st) + ints("dilations", dl) + ints("output_padding", op) + i("group", g)
    if rng.random() < 0.15:
        attrs += string("auto_pad", rng.choice(["SAME_UPPER", "SAME_LOWER", "VALID"]))
    w = [c, mg] + k
    bias = [mg * g] if rng.random() < 0.5 else None
    bad = rng.choice(["c", "padsn", "negpad", "bias", "outpad"]) if rng.random() < 0.15 else None
    x = [n, c] + sp
    if bad == "c":
        x[1] += 1
    elif bad == "padsn":
        pads = pads[1:]
    elif bad == "negpad":
        pads[0] = -1
    elif bad == "bias":
        bias = [mg * g + 1]
    elif bad == "outpad":
        attrs = ints("strides", st) + ints("dilations", dl) + ints("output_padding", [max(a, b) for a, b in zip(st, dl)]) + i("group", g)
    ins = [x, ("const", FLOAT, [0.1] * product(w), w), ("ints", pads, [len(pads)])]
    if bias:
        ins.append(("const", FLOAT, [0.0] * bias[0], bias))
    return _ms("ConvTransposeWithDynamicPads", ins, attrs, bad)


def contrib(rng):
    """com.microsoft's CDist, UnfoldTensor, MatMulBnb4, MatMulFpQ4, GatherBlockQuantized, CropAndResize, NhwcMaxPool
    and MaxpoolWithMask, one chosen at random (each generator says what it draws and what ONNX Runtime 1.30 refuses;
    WordConvEmbedding and ConvTransposeWithDynamicPads are drawn by contrib_more)."""
    return rng.choice([c_cdist, c_unfold, c_bnb4, c_fpq4, c_gbq, c_crop_resize, c_nhwc_maxpool, c_maxpool_mask])(rng)


def moe(rng):
    """MoE and QMoE (float): input [T, H] or [B, S, H], router_probs [tokens, E], the experts' weights (initializers)
    fc1 [E, F1, H / pack] and fc2 [E, H, I / pack] (F1 = I, 2 I with SwiGLU; pack 2 for QMoE's 4 bits, else 1), or
    the older [E, H, F1 / pack] and [E, I, H / pack]; biases [E, F1] and [E, H]; QMoE's scales [E, F1] and [E, H], or
    with block_size [E, F1, ceil(H / bs)] and [E, H, ceil(I / bs)]. Output: the input's shape.
    ORT 1.30 at init: an activation_type other than relu, gelu, silu, identity, swiglu; SwiGLU with swiglu_fusion
    other than 1; k below 1; QMoE's expert_weight_bits other than 4 and 8, block_size below 16 or not a power of 2.
    At run: an input not 2-D or 3-D, router_probs of other dims, weights, biases or scales of other dims than the
    layout the hidden size gives, a hidden size the pack does not divide, k above E, fc3 weights ('FC3 ... not
    implemented')."""
    quant = rng.random() < 0.5
    bits = rng.choice([4, 8]) if quant else 8
    pack = 2 if bits == 4 else 1
    e = rng.randint(1, 4)
    k = rng.randint(1, e)
    h = pack * rng.randint(1, 4)
    inter = pack * rng.randint(1, 3)
    block = rng.choice([16, 32]) if quant and rng.random() < 0.3 else 0
    swiglu = rng.random() < 0.3
    attrs = i("k", k)
    if swiglu:
        attrs += string("activation_type", "swiglu") + i("swiglu_fusion", 1)
    elif rng.random() < 0.7:
        attrs += string("activation_type", rng.choice(["relu", "gelu", "silu", "identity"]))
    if rng.random() < 0.2:
        attrs += i("normalize_routing_weights", 1)
    bad = rng.choice(["rows", "experts", "hidden", "k", "act", "fusion", "bias", "scales", "fc3", "rank", "bits",
                      "block", "router_rank"]) if rng.random() < 0.25 else None
    if not quant and bad in ("scales", "bits", "block"):
        bad = "hidden"
    f1 = 2 * inter if swiglu else inter
    legacy = rng.random() < 0.3
    fc1 = [e, h, f1 // pack] if legacy else [e, f1, h // pack]
    fc2 = [e, inter, h // pack] if legacy else [e, h, inter // pack]
    x = [rng.randint(0, 3), h] if rng.random() < 0.5 else [rng.randint(1, 2), rng.randint(0, 3), h]
    tokens = x[0] if len(x) == 2 else x[0] * x[1]
    router = [tokens, e]
    b1 = [e, f1] if rng.random() < 0.5 else None
    b2 = [e, h] if rng.random() < 0.5 else None
    blocks = lambda n: -(-n // block)
    s1 = [e, f1, blocks(h)] if block else [e, f1]
    s2 = [e, h, blocks(inter)] if block else [e, h]
    if bad == "rows":
        router[0] += 1
    elif bad == "experts":
        router[1] += 1
    elif bad == "hidden":
        x[-1] += pack
    elif bad == "k":
        attrs = attrs.replace(f"i: {k} ", f"i: {rng.choice([0, e + 1])} ", 1)
    elif bad == "act":
        attrs += string("activation_type", "tanh") if "activation_type" not in attrs else ""
        attrs = attrs.replace('"swiglu"', '"tanh"').replace('"relu"', '"tanh"').replace('"gelu"', '"tanh"')
    elif bad == "fusion":
        attrs = string("activation_type", "swiglu") + i("swiglu_fusion", rng.choice([0, 2])) + i("k", k)
    elif bad == "bias":
        b1, b2 = ([e, f1 + 1], b2) if rng.random() < 0.5 else (b1, [e, h + 1])
    elif bad == "scales":
        s2 = [e, h + 1] + s2[2:]
    elif bad == "rank":
        x = [1] + x if len(x) == 3 else [tokens * h]
    elif bad == "bits":
        bits = rng.choice([2, 3])
    elif bad == "block":
        block = rng.choice([8, 24])
    elif bad == "router_rank":
        router = router + [1]
    fill = lambda d, t, v: ("const", t, [v] * product(d), d)
    weight = UINT8 if quant else FLOAT
    fc3 = [fill(fc2[:1] + [inter, h // pack], weight, 1)] if bad == "fc3" else []
    if quant:
        attrs += i("expert_weight_bits", bits) + (i("block_size", block) if block else "")
        ins = [x, router, fill(fc1, UINT8, 1), fill(s1, FLOAT, 0.1), b1 and fill(b1, FLOAT, 0.0),
               fill(fc2, UINT8, 1), fill(s2, FLOAT, 0.1), b2 and fill(b2, FLOAT, 0.0)]
        if fc3:
            ins += fc3 + [fill(s1, FLOAT, 0.1)]
    else:
        ins = [x, router, fill(fc1, FLOAT, 0.1), b1 and fill(b1, FLOAT, 0.0), fill(fc2, FLOAT, 0.1),
               b2 and fill(b2, FLOAT, 0.0)] + fc3
    while ins[-1] is None:
        ins.pop()
    return _ms("QMoE" if quant else "MoE", ins, attrs, bad)


def q_embed(rng):
    """com.microsoft.QEmbedLayerNormalization: as EmbedLayerNormalization (bert_embed) of uint8 word, position and
    segment tables, gamma and beta (initializers of 1), each with a float scale and a uint8 zero point (scalars,
    inputs 8 to 17); input_ids and segment_ids int32 graph inputs fed 0 to 7 (8 to 10 words, 8 segments), no
    position_ids; two outputs (output [B, S, H], mask_index [B]).
    ORT 1.30 at load: gamma or beta not [H], a position or segment table of another hidden size, other than two
    outputs. At run: segment_ids or the mask of another shape than input_ids, a position table of fewer than S rows
    ('input index out of range'; not drawn at a batch of 0, where ONNX Runtime looks up no row and runs it)."""
    b, s, h = rng.randint(0, 3), rng.randint(0, 4), rng.randint(1, 4)
    bad = rng.choice(["segment_ids", "position_hidden", "segment_hidden", "gamma", "beta", "mask", "positions",
                      "outputs"]) if rng.random() < 0.2 else None
    v, pmax = rng.randint(8, 10), s + rng.randint(0, 2)
    segment = rng.random() < 0.5 or bad in ("segment_ids", "segment_hidden")
    mask = rng.random() < 0.5 or bad == "mask"
    ids_shape, segment_shape, mask_shape = [b, s], [b, s], [b, s]
    if bad == "segment_ids":
        segment_shape = rng.choice([[b, s + 1], [b + 1, s], [b, s, 1]])
    elif bad == "mask":
        mask_shape = rng.choice([[b, s + 1], [b + 1, s], [b]])
    elif bad == "positions":
        s, b = max(s, 1), max(b, 1)
        ids_shape = segment_shape = mask_shape = [b, s]
        pmax = s - 1
    u8 = lambda d: ("const", UINT8, [1] * product(d), d)
    scale = ("const", FLOAT, [0.1], [])
    zero = ("const", UINT8, [0], [])
    hp = h + (bad == "position_hidden")
    hs = h + (bad == "segment_hidden")
    inputs = [("typed", INT32, ids_shape), ("typed", INT32, segment_shape) if segment else None, u8([v, h]),
              u8([pmax, hp]), u8([8, hs]) if segment else None, u8([h + (bad == "gamma")]), u8([h + (bad == "beta")]),
              ("typed", INT32, mask_shape) if mask else None, scale, scale, scale if segment else None, scale, scale,
              zero, zero, zero if segment else None, zero, zero]
    attrs = flt("epsilon", 1e-12) if rng.random() < 0.5 else ""
    return _ms_outputs("QEmbedLayerNormalization", inputs, attrs, bad, 3 if bad == "outputs" else 2)


def _ms_outputs(op, inputs, attrs, bad, outputs):
    c = Case(op, 17, inputs, attrs, outputs=outputs, domain=MS)
    c.intent = bad
    return c


def c_dqlstm(rng):
    """DynamicQuantizeLSTM: X float [L, N, I] (sequence-major; no layout attribute), W int8|uint8 [D, I, 4H] and R
    [D, H, 4H] (initializers, transposed from LSTM's), B [D, 8H], initial_h and initial_c [D, N, H], sequence_lens
    int32 [N], W_scale, W_zero_point, R_scale, R_zero_point [D] (initializers); direction, hidden_size.
    Outputs Y [L, D, N, H], Y_h and Y_c [D, N, H] (one to three of them).
    ORT 1.30 at load: a layout attribute ('Unrecognized attribute'). At run: W, R, B or initial_h of other dims
    ('Input W must have shape ...'). Not drawn: N of 0 (ONNX Runtime's process stops on it)."""
    l, n, inp, h = rng.randint(0, 3), rng.randint(1, 3), rng.randint(1, 4), rng.randint(1, 4)
    direction = rng.choice(["forward", "reverse", "bidirectional"])
    d = 2 if direction == "bidirectional" else 1
    t = rng.choice([INT8, UINT8])
    w, r, b, h0 = [d, inp, 4 * h], [d, h, 4 * h], [d, 8 * h] if rng.random() < 0.5 else None, None
    if rng.random() < 0.3:
        h0 = [d, n, h]
    bad = rng.choice(["w", "r", "b", "h0", "layout", "w_order"]) if rng.random() < 0.2 else None
    if bad == "w":
        w[1] += 1
    elif bad == "w_order":
        w = [d, 4 * h, inp] if inp != 4 * h else [d, inp + 1, 4 * h]
    elif bad == "r":
        r[2] += 1
    elif bad == "b":
        b = [d, 4 * h]
    elif bad == "h0":
        h0 = [d, n + 1, h]
    q = lambda dims: ("const", t, [1] * product(dims), dims)
    scale = ("const", FLOAT, [0.1] * d, [d])
    zero = ("const", t, [0] * d, [d])
    ins = [[l, n, inp], q(w), q(r), ("const", FLOAT, [0.0] * product(b), b) if b else None, None, h0, None, None,
           scale, zero, scale, zero]
    attrs = i("hidden_size", h) + string("direction", direction) + (i("layout", 0) if bad == "layout" else "")
    c = Case("DynamicQuantizeLSTM", 17, ins, attrs, outputs=rng.randint(1, 3), domain=MS)
    c.intent = bad
    return c

def c_attn_lstm(rng):
    """AttnLSTM (float): X [L, N, I], W [D, 4H, I + C], R [D, 4H, H], B [D, 8H] (initializers), QW [D, H, A], MW
    [D, depth, A], V [D, A], the memory M [N, steps, depth] (a graph input), memory_seq_lens int32 [N] (an initializer
    of values in 1..steps), AW [D, depth + H, C] or none (C then the depth); hidden_size, direction.
    Outputs Y [L, D, N, H], Y_h and Y_c [D, N, H] (one to three of them).
    ORT 1.30 at run: M of another batch or rank, memory_seq_lens of another shape or a value out of (0, steps], MW, QW,
    V or AW of other dims, W of another input size. Not drawn: L, N or steps of 0 (ONNX Runtime's process stops)."""
    l, n, inp, h = rng.randint(1, 3), rng.randint(1, 3), rng.randint(1, 4), rng.randint(1, 4)
    direction = rng.choice(["forward", "reverse", "bidirectional"])
    d = 2 if direction == "bidirectional" else 1
    steps, depth, a = rng.randint(1, 4), rng.randint(1, 4), rng.randint(1, 4)
    aw = rng.randint(1, 4) if rng.random() < 0.5 else None
    ctx = aw if aw else depth
    bad = rng.choice(["w", "mem_batch", "lens_value", "lens_shape", "mw", "qw", "v", "aw"]) if rng.random() < 0.25 else None
    if bad == "aw" and not aw:
        aw = rng.randint(1, 4)
        ctx = aw
    w, mem, lens = [d, 4 * h, inp + ctx], [n, steps, depth], [rng.randint(1, steps) for _ in range(n)]
    mw, qw, v = [d, depth, a], [d, h, a], [d, a]
    awd = [d, depth + h + (bad == "aw"), aw] if aw else None
    if bad == "w":
        w[2] += 1
    elif bad == "mem_batch":
        mem[0] += 1
    elif bad == "lens_value":
        lens[0] = rng.choice([0, steps + 1])
    elif bad == "lens_shape":
        lens = lens + [1]
    elif bad == "mw":
        mw[1] += 1
    elif bad == "qw":
        qw[1] += 1
    elif bad == "v":
        v[1] += 1
    f = lambda dims: ("const", FLOAT, [0.1] * product(dims), dims)
    b = f([d, 8 * h]) if rng.random() < 0.5 else None
    ins = [[l, n, inp], f(w), f([d, 4 * h, h]), b, None, None, None, None, f(qw), f(mw), f(v), mem,
           ("const", INT32, lens, [len(lens)]), f(awd) if awd else None]
    while ins[-1] is None:
        ins.pop()
    c = Case("AttnLSTM", 17, ins, i("hidden_size", h) + string("direction", direction), outputs=rng.randint(1, 3), domain=MS)
    c.intent = bad
    return c



def contrib_more(rng):
    """com.microsoft's MoE and QMoE (moe), QEmbedLayerNormalization (q_embed), WordConvEmbedding (c_word_conv),
    ConvTransposeWithDynamicPads (c_convt_dyn), DynamicQuantizeLSTM (c_dqlstm) and AttnLSTM (c_attn_lstm): one chosen at
    random, MoE and QMoE twice as often."""
    return rng.choice([moe, moe, q_embed, c_word_conv, c_convt_dyn, c_dqlstm, c_attn_lstm])(rng)



FAMILIES = {
    "binary": binary, "unary": unary, "reduce": reduce, "transpose": transpose, "concat": concat, "split": split,
    "slice": slice_, "gather": gather, "squeeze_unsqueeze": squeeze_unsqueeze, "flatten": flatten, "reshape": reshape,
    "expand_tile": expand_tile, "pad": pad, "matmul": matmul, "topk_argmax": topk_argmax, "pool": pool,
    "activation": activation, "predicates": predicates, "bitwise": bitwise, "hardmax": hardmax,
    "normalization": normalization, "reduce_more": reduce_more, "cumsum": cumsum, "bitcast": bitcast, "onehot": onehot,
    "compress": compress, "reverse_sequence": reverse_sequence, "quant": quant, "microsoft": microsoft,
    "attention": attention, "grid": grid, "lp_pool": lp_pool, "bert": bert, "image": image,
    "signal": signal, "llm": llm, "contrib": contrib, "contrib_more": contrib_more,
}


# Disagreements known and not fixed yet, each (op, words in the problem, why): counted and printed, not failed.
# Each is an item of issue 49 ("Every ONNX op..."); remove the line when it is fixed (the test then holds it).
KNOWN = [
    ("LpPool", "padding values must be non-negative", "as MaxPool"),
    ("MaxPool", "padding values must be non-negative", "SAME_* with a stride above the window: ONNX Runtime "
                                                       "computes a negative padding and refuses it when run; "
                                                       "ONNX's formula, and reshape1, take 0"),
    ("AveragePool", "padding values must be non-negative", "as MaxPool"),
    ("ReverseSequence", "Invalid sequence length", "a sequence length past the time axis: ONNX Runtime refuses it "
                                                   "when run, reshape1 does not read the lengths"),
    ("ReverseSequence", "sequence_lens shape must be", "lengths of another count than an empty batch: ONNX Runtime "
                                                       "refuses it when run, reshape1 broadcasts them"),
    ("Compress", "reshape1 [..", "a long constant condition: reshape1 gives an interval that holds ONNX Runtime's "
                                 "count, not the count"),
    ("MultiHeadAttention", "cannot infer -1: input [", "com.microsoft.MultiHeadAttention's 1-D key_padding_mask of "
                                                       "3B + 2 values: ONNX Runtime runs it, reshape1 takes [B] or [2B] "
                                                       "only (no split of it keeps the batch on one axis)"),
    ("Attention", "cannot infer -1: input [", "com.microsoft.Attention's 1-D mask_index of 3B + 2 values: as "
                                              "MultiHeadAttention's"),
    ("MaxRoiPool", "roi_batch_id", "a roi's batch index outside [0, N): ONNX Runtime refuses it when run, reshape1 does "
                                   "not read the rois' values"),
    ("TensorScatter", "write_indices[", "a write index that is negative or (linear) past max - length: as MaxRoiPool's"),
    ("MaxUnpool", "Index value out of bounds", "an index past the output: the indices are the graph input's values"),
    ("NegativeLogLikelihoodLoss", "indices element out of data bounds", "a target (or its class's weight) out of "
                                                                        "range: ONNX Runtime refuses it when run, "
                                                                        "reshape1 does not read the targets' values"),
    ("NegativeLogLikelihoodLoss", "Out of range value in index tensor", "as above"),
    ("SoftmaxCrossEntropyLoss", "Out of range value in index tensor", "as NegativeLogLikelihoodLoss's"),
    ("SoftmaxCrossEntropyLoss", "indices element out of data bounds", "as NegativeLogLikelihoodLoss's"),
    ("SoftmaxCrossEntropyLoss", "Invalid position of 0", "a 0 at dimension 3 on: ONNX Runtime refuses it in a Reshape "
                                                         "of its expansion of the function; the spec's shapes hold"),
    ("SoftmaxCrossEntropyLoss", "Invalid Target shape product of 0", "N * C of 0: as above"),
    ("MelWeightMatrix", "Could not find an implementation", "a float16 or bool output: ONNX Runtime has no kernel for "
                                                            "it; reshape1 shapes it as the spec says"),
    ("QAttention", "cannot infer -1: input [", "as com.microsoft.Attention's 1-D mask_index of 3B + 2 values"),
    ("GroupQueryAttention", "with a quantized KV cache is not covered", "a quantized KV cache (k_scale, v_scale, "
                                                                         "kv_cache_bit_width): not covered"),
    ("GroupQueryAttention", "seqlens_k[", "a seqlens_k value out of range for the lengths: ONNX Runtime refuses it "
                                          "when run, reshape1 does not read the values"),
    ("GroupQueryAttention", "batch_size must be 1 when sequence_length > 1", "a later prompt (1 < S, S not T) beside a "
                                                                             "past at a batch above 1: ONNX Runtime "
                                                                             "refuses it; reshape1 would need T's value "
                                                                             "to tell the two kinds of step apart"),
    ("GroupQueryAttention", "do not add up to the dimension 0", "key and value of length 0 beside a past (ONNX Runtime's "
                                                                "shared KV): reshape1 takes the query's length only"),
    ("CropAndResize", "is out of range [0,", "a batch index out of range: values the row does not read"),
    ("NhwcMaxPool", "y0: ONNX Runtime [0, ", "an empty batch: ONNX Runtime's NHWC pooling gives other dimensions"),
    ("UnfoldTensor", "Unsupported data type", "a uint8, bool or float16 input: ONNX Runtime's kernel runs float, double, "
                                              "int32 and int64 only (types are not checked)"),
    ("MaxPool", "pads it for the undilated window", "dilations with auto_pad SAME_*: ONNX Runtime pads for the "
                                                    "undilated window (its output differs from ONNX's formula); "
                                                    "reshape1 leaves it not covered"),
    ("NhwcMaxPool", "pads it for the undilated window", "as MaxPool"),
    ("Attention", "with 2D data shall have shape", "a computed 2-D mask_index [1, T]: ONNX Runtime refuses it, reshape1 "
                                                   "broadcasts it (a constant one is refused)"),
]
# ONNX Runtime's reductions of an empty input do not follow ONNX's rule (reshape1's): it leaves some reduced
# axes as they are ([3,1,0] over axes 1 and 2 stays [3,1,0]; [1,4,4,0] over 1 and 3 gives [1,4,4,1]; ReduceProd
# of [1,0,3] over 0 and 2 stays [1,0,3]), where the rule gives [3,1,1], [1,1,4,1] and [1,0,1].
# The reductions of reduce_more do the same, at opsets 11 and 18 ([5,5,0] over all axes gives [1,1,0]).
KNOWN_EMPTY_REDUCTION = ("ReduceMax", "ReduceMin", "ReduceProd", "ReduceSum", "ReduceMean", "ReduceLogSumExp",
                         "ReduceSumSquare", "ReduceL1", "ReduceL2", "ReduceLogSum")


# The versions ONNX Runtime has no kernel for (the ort column of src/onnx/op_list.tsv says -, held against ONNX
# Runtime by tests/onnx/op_kernels_ort.py): its refusal of them ("Could not find an implementation") is no
# disagreement. reshape1 shapes them as ONNX's spec says, as OpenVINO's reader would read them.
OP_LIST = HERE.parent.parent / "src" / "onnx" / "op_list.tsv"
# How ONNX Runtime says it has no kernel (when it loads the model; when it partitions the graph).
NO_KERNEL = ("Could not find an implementation for ", "Failed to find kernel for ")
# How onnxruntime-node says it cannot hand a tensor of an element type back (float 8, 4-bit, bfloat16): the model
# may run, but the test cannot see it.
BINDING = "Unsupported data type: "


@functools.cache
def ort_columns():
    """(domain, op) -> [(since, ort column)] of op_list.tsv."""
    rows = collections.defaultdict(list)
    for line in OP_LIST.read_text().splitlines():
        f = line.split("\t")
        if not line.startswith("#") and len(f) > 3:
            rows[(f[0], f[1])].append((int(f[2]), f[3]))
    return rows


def ort_lacks(case):
    """Whether ONNX Runtime has no kernel for the version of case's op its opset runs (a com.microsoft op: 1)."""
    domain, opset = (case.domain, case.domain_version) if case.domain else ("ai.onnx", case.opset)
    runs = [row for row in ort_columns()[(domain, case.op)] if row[0] <= opset]
    return bool(runs) and max(runs)[1] == "-"


# More families: the FAMILIES and KNOWN of each tests/property/op_truth_*.py, which build their cases with this
# file's helpers (importing it as the module op_truth). Loaded by main().
MORE = []


def known(case, truth, problem):
    for op, words, _ in KNOWN + [k for m in MORE for k in m.KNOWN]:
        if case.op == op and (words in problem or words in truth.get("error", "")):
            return True
    if any(words in truth.get("error", "") for words in NO_KERNEL) and ort_lacks(case):
        return True
    # Only for an input with no element, and where ONNX Runtime runs the model.
    if case.op in KNOWN_EMPTY_REDUCTION and "error" not in truth and 0 in case.inputs[0][1]:
        return True
    return False


def dims_of(text):
    """reshape1's shape text as dims: numbers, or None for a dimension that is not one."""
    if text == "[...]":
        return None
    inner = text[1:-1]
    return [int(d) if d.isdigit() else None for d in (inner.split(",") if inner else [])]


def agrees(got, want, free_axes):
    """Whether reshape1's dims (dims_of) are ONNX Runtime's: equal, but where reshape1 gives no number at an axis of
    `free_axes`, those whose length the data decides (the text ops' pieces), which any length agrees with."""
    if got is None or len(got) != len(want):
        return got == want
    return all(g == w or (g is None and k in free_axes) for k, (g, w) in enumerate(zip(got, want)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("reshape1")
    ap.add_argument("onnx_from_text")
    ap.add_argument("--cases", type=int, default=40, help="cases per family")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--keep", help="keep the models that disagree in this directory")
    ap.add_argument("--only", help="one family")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    sys.path.insert(0, str(HERE))
    MORE.extend(importlib.import_module(p.stem) for p in sorted(HERE.glob("op_truth_*.py")))
    every = dict(FAMILIES)
    for m in MORE:
        every.update(m.FAMILIES)
    families = {args.only: every[args.only]} if args.only else every
    counts = collections.defaultdict(collections.Counter)
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        tmp = pathlib.Path(tmp)
        cases, listing = [], []
        for family, make in families.items():
            for k in range(args.cases):
                case = make(rng)
                base = tmp / f"{family}_{k}"
                base.with_suffix(".textproto").write_text(case.text())
                r = subprocess.run([args.onnx_from_text, str(base.with_suffix(".textproto")), str(base.with_suffix(".onnx"))],
                                   capture_output=True, text=True)
                if r.returncode != 0:
                    failures.append(f"{family}_{k}: onnx_from_text: {r.stderr.strip()}")
                    continue
                base.with_suffix(".json").write_text(json.dumps(case.spec()))
                cases.append((family, k, case, base))
                listing.append([str(base.with_suffix(".onnx")), str(base.with_suffix(".json"))])
        (tmp / "list.json").write_text(json.dumps(listing))
        ort = subprocess.run([NODE, str(SHAPES_JS), "--many", str(tmp / "list.json")], capture_output=True, text=True)
        if ort.returncode != 0:
            print(f"shapes.js failed ({ort.returncode}): {ort.stderr.strip()}")
            return 1
        answers = [json.loads(line) for line in ort.stdout.splitlines()]
        for (family, k, case, base), truth in zip(cases, answers):
            # The version printed is the one the model imports of the node's domain.
            name = f"{family}_{k} ({case.op}-{case.domain_version if case.domain else case.opset})"
            ours = subprocess.run([args.reshape1, "shapes", str(base.with_suffix(".onnx")), "--json"], capture_output=True,
                                  text=True)
            doc = json.loads(ours.stdout) if ours.stdout.strip().startswith("{") else {}
            counts[case.op]["cases"] += 1
            problem = None
            if BINDING in truth.get("error", ""):
                # onnxruntime-node hands back no tensor of that type (float 8, 4-bit): ONNX Runtime was not asked.
                counts[case.op]["not asked"] += 1
            elif "error" in truth:
                counts[case.op]["refused by ONNX Runtime"] += 1
                # No shape where ONNX Runtime refuses: a rule error, or a model that is not read.
                if ours.returncode == 0:
                    outs = {t["name"]: t["shape"] for t in doc["tensors"]}
                    if not doc["gaps"] and all(dims_of(outs.get(f"y{j}", "[...]")) is not None for j in range(case.outputs)):
                        problem = f"ONNX Runtime refuses it ({truth['error']}), reshape1 gives {outs}"
            else:
                if ours.returncode != 0:
                    problem = f"ONNX Runtime runs it to {truth['outputs']}, reshape1 refuses: {doc.get('error', ours.stderr)}"
                else:
                    outs = {t["name"]: t["shape"] for t in doc["tensors"]}
                    for j in range(case.outputs):
                        want = truth["outputs"][f"y{j}"]
                        got = outs.get(f"y{j}", "[...]")
                        if not agrees(dims_of(got), want, {k for out, k in case.data_decides if out == j}):
                            problem = f"y{j}: ONNX Runtime {want}, reshape1 {got}" + (
                                f" ({doc['gaps'][0]['reason']})" if doc.get("gaps") else "")
                            break
            if problem and known(case, truth, problem):
                counts[case.op]["known"] += 1
                print(f"known: {name}: {problem}")
            elif problem:
                counts[case.op]["disagree"] += 1
                failures.append(f"{name}: {problem}")
                if args.keep:
                    keep = pathlib.Path(args.keep)
                    keep.mkdir(parents=True, exist_ok=True)
                    for ext in (".textproto", ".onnx", ".json"):
                        (keep / f"{family}_{k}{ext}").write_bytes(base.with_suffix(ext).read_bytes())
    for op in sorted(counts):
        c = counts[op]
        print(f"{op}: {c['cases']} cases, {c['refused by ONNX Runtime']} refused by ONNX Runtime, {c['disagree']} disagree, "
              f"{c['known']} known (KNOWN)" + (f", {c['not asked']} not asked (an output type the binding lacks)"
                                               if c["not asked"] else ""))
    for f in failures:
        print("FAIL", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
